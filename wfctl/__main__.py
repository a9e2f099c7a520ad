import sys

from wfctl.main import main

sys.exit(main())
