"""Help without click's artefacts: plain usage lines, no type names, ranges in words, -h in every help,
required options marked (issue 15 §3)."""

from __future__ import annotations

import functools
import re
from typing import Any

import pytest

from wfctl.cmdline.argv import CommandLine
from wfctl.cmdline.main import _command


def _paths() -> list[list[str]]:
    out: list[list[str]] = []

    def walk(command: Any, path: list[str]) -> None:
        out.append(path)
        for name, sub in (getattr(command, "commands", None) or {}).items():
            if not sub.hidden:
                walk(sub, [*path, name])

    walk(_command(), [])
    return out


PATHS = _paths()


@pytest.mark.parametrize("path", PATHS, ids=" ".join)
def test_every_help_is_free_of_click_artefacts_and_lists_h(cli: Any, path: list[str]) -> None:
    r = cli(*path, "--help")
    assert r.exit_code == 0, r
    usage = r.stdout.splitlines()[0]
    assert usage.startswith("Usage: wfctl")
    assert "{" not in usage and "}" not in usage, usage
    assert not re.search(r"<(str|int|float|int range|float range)>", r.stdout), r.stdout
    assert not re.search(r"\bx[<>]=|<=x\b", r.stdout), r.stdout
    assert re.search(r"^  -h, --help +Show this message and exit\.$", r.stdout, re.M), r.stdout


def test_site_get_usage_and_argument(cli: Any) -> None:
    r = cli("sites", "get", "--help")
    lines = r.stdout.splitlines()
    assert lines[0] == "Usage: wfctl sites get [OPTIONS] <site-id>"
    assert "  <site-id>  Id of the site (or the beginning of the id, or the name).  [required]" in lines


def test_import_usage_and_ranges_in_words(cli: Any) -> None:
    r = cli("sites", "import", "--help")
    assert r.stdout.splitlines()[0] == "Usage: wfctl sites import [OPTIONS] FILE|-"
    flat = " ".join(r.stdout.split())
    assert "FILE|- Workbook (.xlsx) or CSV file to import ('-' reads stdin). Its format: wfctl help csv. [required]" in flat
    assert "-j, --concurrency <n> Requests in flight at once. [default: 8; 1 to 256]" in flat


@pytest.mark.parametrize(("path", "options"), [
    (["sites", "list"], ["--client <client-id>"]),
    (["sites", "create"], ["--client <client-id>", "--name <text>"]),
    (["clients", "create"], ["--branch <branch-id>", "--name <text>"]),
    (["branches", "create"], ["--name <text>"]),
])
def test_required_options_are_marked(cli: Any, path: list[str], options: list[str]) -> None:
    r = cli(*path, "--help")
    for option in options:
        row = next(line for line in r.stdout.splitlines() if line.strip().startswith(option))
        assert row.endswith("[required]"), row


@pytest.mark.parametrize(("path", "option"), [
    (["sites", "list"], "--client"), (["sites", "create", "--client", "c"], "--name"),
    (["clients", "create"], "--branch"), (["branches", "create"], "--name"),
])
def test_options_marked_required_are_required(cli: Any, path: list[str], option: str) -> None:
    r = cli("--base-url", "http://127.0.0.1:9", *path)
    assert r.exit_code == 2, r
    assert option in r.stderr


@pytest.mark.parametrize("columns", [100, 120, 200])
def test_help_uses_the_terminal_width_up_to_120_and_the_index_agrees(
        columns: int, tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from wfctl.cmdline import helpindex, indexbuilder, startup
    from wfctl.cmdline.main import _run

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", str(columns))
    key = helpindex.index_key()
    monkeypatch.setattr(helpindex, "index_key", lambda: key)
    indexbuilder.write_index()
    monkeypatch.setattr(startup, "load_index", functools.cache(startup.load_index))  # read once, not a command
    width = min(columns, 120)
    longest = 0
    for path in PATHS:
        capsys.readouterr()
        code = _run(CommandLine([*path, "--help"]))
        typer_out = capsys.readouterr().out
        fast = startup.fast_answer([*path, "--help"])
        assert fast == (typer_out, code), " ".join(path)
        # click keeps 2 columns free; an example line is verbatim and may be longer
        longest = max(longest, *(len(line) for line in typer_out.split("Examples:")[0].splitlines()))
    assert width - 12 <= longest <= width - 2
