import sys

from wfctl.cmdline.main import main

sys.exit(main())
