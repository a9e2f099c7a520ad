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


def test_every_option_is_coerced_without_pydantic() -> None:
    """Typer coerces an option through a pydantic TypeAdapter unless wfctl.cmdline.coercion gives it a plain
    coercion: one option of another type (a float, 2026-11-27) made every run of its command import
    pydantic, about 110 ms and 14 MB more."""
    from typer.main import get_command

    from wfctl.cmdline.app import app
    from wfctl.cmdline.coercion import unwrap_optional

    typer_coerced: list[str] = []

    def walk(command: object, path: list[str]) -> None:
        for param in getattr(command, "params", ()):
            descriptor = getattr(param, "type_descriptor", None)
            if descriptor is not None and type(getattr(param, "_runtime_param", None)).__name__ != "PlainRuntimeParam":
                typer_coerced.append(f"{' '.join(path)} {param.opts[0] if param.opts else param.name} "
                                     f"({unwrap_optional(descriptor.annotation)})")
        for name, child in getattr(command, "commands", {}).items():
            walk(child, [*path, name])

    walk(get_command(app), ["wfctl"])
    assert typer_coerced == []


def test_a_command_that_runs_imports_no_pydantic(tmp_path) -> None:
    """A command's run, past the reading of its options (here it stops at a file that is not there)."""
    env = clean_env(tmp_path, WFCTL_BASE_URL="http://127.0.0.1:9", WFCTL_ACCESS_TOKEN="t")
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "wfctl", "sites", "import", str(tmp_path / "no.csv"),
                           "--client", "c", "--prune", "--max-delete-share", "0.5", "--dry-run"],
                          capture_output=True, text=True, env=env, cwd=str(REPO_ROOT), timeout=60)
    said = [line for line in proc.stderr.splitlines() if not line.startswith("import time:")]
    assert proc.returncode == 2 and len(said) == 1 and "no.csv" in said[0], said
    assert not [line for line in proc.stderr.splitlines() if line.rstrip().endswith("| pydantic")]
    others = sorted({line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if "| " in line}
                    & {"wfctl.commands.branches", "wfctl.commands.clients", "wfctl.commands.calendar",
                       "wfctl.commands.rates", "wfctl.commands.sandbox", "wfctl.commands.agency"})
    assert others == []  # a run imports its own group's commands only (wfctl.cmdline.app.root_command)


@pytest.mark.parametrize(("args", "code", "said"), [
    (["-p", "sites", "branches", "list"], 3, "no profile 'sites'"),   # an option's value that names a group
    (["--profile=help", "sites", "list"], 3, "no profile 'help'"),
    (["sitse", "list"], 2, "No such command 'sitse'. Did you mean 'sites'?"),
    (["help", "sites"], 2, "sites is a command, not a help topic"),
], ids=["value-names-a-group", "value-names-help", "unknown", "help-of-a-command"])
def test_the_command_a_run_builds_is_the_one_its_words_name(args: list[str], code: int, said: str,
                                                            tmp_path) -> None:
    proc = subprocess.run([sys.executable, "-m", "wfctl", *args], capture_output=True, text=True,
                          env=clean_env(tmp_path), cwd=str(REPO_ROOT), timeout=60)
    assert proc.returncode == code and said in proc.stderr, proc.stderr
