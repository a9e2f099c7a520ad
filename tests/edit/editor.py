"""A scripted editor for the `edit` tests: `python editor.py STEPS PATH`, where STEPS is a JSON file holding
one step a time the editor is opened: {"replace": [[old, new], ...], "write": text, "run": [argv, ...]}.
Before the step it copies what it was shown to STEPS.<n>.seen, so a test asserts on every screen; `run`
commands are run first (a colleague's change made while the file is open)."""

import json
import subprocess
import sys
from pathlib import Path

steps_path, path = Path(sys.argv[1]), Path(sys.argv[2])
count_path = steps_path.with_suffix(".count")
n = int(count_path.read_text()) if count_path.exists() else 0
count_path.write_text(str(n + 1))
text = path.read_text(encoding="utf-8")
steps_path.with_suffix(f".{n}.seen").write_text(text, encoding="utf-8")
steps = json.loads(steps_path.read_text())
step = steps[n] if n < len(steps) else {}
for argv in step.get("run", []):
    subprocess.run(argv, check=True, capture_output=True)
if "write" in step:
    text = step["write"]
for old, new in step.get("replace", []):
    assert old in text, (old, text)
    text = text.replace(old, new, 1)
path.write_text(text, encoding="utf-8")
sys.exit(step.get("exit", 0))
