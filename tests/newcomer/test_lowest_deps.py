"""The lower bounds in pyproject.toml tell the truth: with the lowest allowed version of every runtime
dependency (`uv pip install --resolution lowest-direct`), the CLI's help, completion, login, api
and delete tests pass. typer 0.29.0 is the first with typer._coercion and typer._param_types
(0.26-0.28 have typer._click but not those), so `typer>=0.29.0`; it needs rich>=13.8.0."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.newcomer.helpers import REPO_ROOT

SMOKE = ["tests/newcomer/test_fast_path.py", "tests/newcomer/test_first_minute.py",
         "tests/newcomer/test_help.py::test_every_command_help_has_summary_description_and_examples",
         "tests/newcomer/test_import_cost.py", "tests/auth/test_commands.py"]
#: test_fast_path compares every command's help and Tab answers from the index with typer's own (160 s of
#: the suite's CPU): with the lowest versions, two commands' with the most option kinds say
#: whether typer's private API is still what wfctl.cmdline.typercompat reads; the suite checks every command.
SMOKE_SELECTION = "not from_the_index_is_what or (sites and import) or (rates and set)"
LOWEST = {"typer": "0.29.0", "rich": "13.8.0", "httpx": "0.27.0", "keyring": "25.0.0", "pydantic": "2.7.0",
          "tomli-w": "1.0.0", "filelock": "3.13.0", "certifi": "2024.2.2", "platformdirs": "4.0.0",
          "xlsxwriter": "3.1.0", "jq": "1.13.0", "pyyaml": "6.0.1"}


# its own pytest runs the smoke tests one after another: 240 s beside the suite's other workers, and the
# default 300 s cut it once the smoke tests grew; its subprocesses are bounded (`run`'s timeouts)
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_cli_works_with_the_lowest_allowed_dependencies(tmp_path: Path, uv: list[str], wheel: Path) -> None:
    venv = tmp_path / "lowest"
    python = venv / "bin" / "python"

    def run(*argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(argv, capture_output=True, text=True, cwd=str(REPO_ROOT), timeout=timeout,
                              env={**os.environ, "VIRTUAL_ENV": str(venv)})
        assert proc.returncode == 0, f"{' '.join(argv[:5])}...\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        return proc

    run(*uv, "venv", "-q", "--python", sys.executable, str(venv))
    run(*uv, "pip", "install", "-q", "--python", str(python), "--resolution", "lowest-direct",
        "-r", "pyproject.toml", "--extra", "sandbox", "pytest>=8", "pytest-timeout>=2.3", "pexpect>=4.9")
    run(*uv, "pip", "install", "-q", "--python", str(python), "--no-deps", str(wheel))  # the session's wheel
    listed = run(*uv, "pip", "list", "--python", str(python), "--format", "freeze").stdout
    installed = dict(line.lower().split("==", 1) for line in listed.splitlines() if "==" in line)
    assert {name: installed.get(name) for name in LOWEST} == LOWEST
    run(str(python), "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-k", SMOKE_SELECTION, *SMOKE, timeout=600)
