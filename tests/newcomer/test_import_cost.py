"""Start-up: --version, --help and completion import nothing they do not use (style.md 2 and 6)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.newcomer.helpers import REPO_ROOT, clean_env

FORBIDDEN = ("httpx", "pydantic", "keyring", "rich.table", "yaml")  # yaml: `edit`'s buffer only


def imported_modules(args: list[str], env: dict[str, str]) -> set[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "wfctl", *args],
                          capture_output=True, text=True, env=env, cwd=str(REPO_ROOT), timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


@pytest.mark.parametrize("args", [
    ["--version"],
    ["--help"],
    ["sites", "--help"],
    ["-o", "json", "sites", "list", "--help"],
    ["sites", "edit", "--help"],
    ["completion", "bash"],
    ["completion", "zsh"],
    ["help", "exit-codes"],
], ids=" ".join)
def test_light_commands_import_no_heavy_modules(args: list[str], tmp_path) -> None:
    modules = imported_modules(args, clean_env(tmp_path))
    heavy = sorted(m for m in modules if any(m == f or m.startswith(f + ".") for f in FORBIDDEN))
    assert not heavy, f"`wfctl {' '.join(args)}` imported {heavy}"


def test_version_does_not_load_typer(tmp_path) -> None:
    modules = imported_modules(["--version"], clean_env(tmp_path))
    assert not any(m == "typer" or m.startswith("typer.") for m in modules)


@pytest.mark.parametrize("request_env", [
    {"_WFCTL_COMPLETE": "complete_bash", "COMP_WORDS": "wfctl sites ", "COMP_CWORD": "2"},
    {"_WFCTL_COMPLETE": "complete_zsh", "_TYPER_COMPLETE_ARGS": "wfctl si"},
    {"_WFCTL_COMPLETE": "complete_fish", "_TYPER_COMPLETE_ARGS": "wfctl -o ", "_TYPER_COMPLETE_FISH_ACTION": "get-args"},
], ids=["bash", "zsh", "fish"])
def test_a_tab_press_imports_no_heavy_modules(request_env: dict[str, str], tmp_path) -> None:
    modules = imported_modules([], clean_env(tmp_path, **request_env))
    heavy = sorted(m for m in modules if any(m == f or m.startswith(f + ".") for f in ("httpx", "pydantic", "keyring", "rich", "yaml")))
    assert not heavy, f"a TAB press imported {heavy}"
