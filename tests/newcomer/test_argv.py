"""Issue 46: the command line is parsed once (wfctl.cmdline.argv). The fast path (help and Tab presses from the
index), the choice of the group a run builds, the global options moved in front of the command and the
JSON-error decision all read one walk of it; the help index keys what it holds from the config file (the
profiles `-p <TAB>` offers) on that file, and its help holds nothing of the config."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.newcomer.helpers import clean_env, run_installed
from wfctl.cmdline import helpindex, indexbuilder, startup
from wfctl.cmdline.app import root_command
from wfctl.cmdline.argv import CommandLine

LINES = [
    ["-p", "staging", "sites", "list", "--client", "Acme", "-v", "-o", "json", "--", "-x"],
    ["sites", "get", "Dock 7", "-pstaging", "--no-color"],
    ["--profile=prod", "branches", "update", "b-1", "--phone", "-v"],
    ["clients", "list", "--nosuch", "-ojsonl"],
    ["nosuch", "-o", "csv"],
    ["api", "GET", "/api/agency/", "--", "-o", "json"],
]


def test_one_walk_says_what_a_command_line_asks() -> None:
    line = CommandLine(LINES[0], {})
    walk = line.walk(root_command())
    assert (walk.path, walk.command_word, walk.output) == (["sites", "list"], "sites", "json")
    assert walk.levels[0].values == {"profile": "staging"}
    assert walk.levels[-1].values == {"client": "Acme", "output": "json"}
    assert line.after_dashes == ["-x"] and not line.help_asked and not line.fast_request
    assert walk.hoisted_args() == ["-v", "-p", "staging", "sites", "list", "--client", "Acme", "-o", "json",
                                   "--", "-x"]
    assert line.walk(root_command()) is walk  # read once, whoever asks


@pytest.mark.parametrize("args", LINES, ids=" ".join)
def test_the_index_and_the_app_are_walked_alike(args: list[str], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    over_app = CommandLine(args, {}).walk(root_command())
    over_index = CommandLine(args, {}).walk(indexbuilder.build_index()["tree"])
    assert over_app.command_word == next(word for word in args if not word.startswith("-") and word != "staging")
    assert (over_app.path, over_app.command_word, over_app.output, over_app.hoisted_args(), over_app.dashes) == (
        over_index.path, over_index.command_word, over_index.output, over_index.hoisted_args(), over_index.dashes)


@pytest.mark.parametrize(("args", "title"), [
    (["clients", "list", "--nosuch", "-ojson"], "No such option: --nosuch (Possible options: --branch)"),
    (["nosuch", "-o", "json"], "No such command 'nosuch'."),
    (["branches", "get", "-o", "jsonl"], "Missing argument '<branch-id>'."),
], ids=lambda value: " ".join(value) if isinstance(value, list) else "")
def test_a_usage_error_is_json_when_the_walk_finds_a_json_format(cli: Any, args: list[str], title: str) -> None:
    r = cli(*args)
    assert (r.exit_code, r.stdout) == (2, ""), r
    error = json.loads(r.stderr)["error"]
    assert (error["code"], error["title"]) == ("usage", title), error


def test_a_format_after_dashes_is_an_argument_not_a_request_for_json(cli: Any) -> None:
    r = cli("nosuch", "--", "-o", "json")
    assert r.exit_code == 2, r
    assert r.stderr.endswith("error: No such command 'nosuch'.\n"), r.stderr


def test_help_holds_nothing_of_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What config could change (a default format, profiles, the variables) changes no help and no
    completion tree: the index's help is keyed on the package, not on the config."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("WFCTL_OUTPUT", "WFCTL_PROFILE", "WFCTL_BASE_URL", "WFCTL_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    indexbuilder._built.clear()
    plain = indexbuilder.build_index()
    _write_config(tmp_path / "config" / "wfctl" / "config.toml", {"default": "https://a.example", "staging": ""},
                  output="json")
    monkeypatch.setenv("WFCTL_OUTPUT", "yaml")
    monkeypatch.setenv("WFCTL_PROFILE", "staging")
    indexbuilder._built.clear()
    configured = indexbuilder.build_index()
    assert (configured["help"], configured["tree"]) == (plain["help"], plain["tree"])


def test_a_changed_config_file_is_read_again_for_the_profiles(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config" / "wfctl" / "config.toml"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("WFCTL_CONFIG", raising=False)
    monkeypatch.setenv("COLUMNS", "80")
    _write_config(config, {"default": "https://a.example"})
    key = helpindex.index_key()
    monkeypatch.setattr(helpindex, "index_key", lambda: key)
    indexbuilder.write_index()
    tab = {"_WFCTL_COMPLETE": "complete_fish", "_TYPER_COMPLETE_ARGS": "wfctl -p ",
           "_TYPER_COMPLETE_FISH_ACTION": "get-args"}
    assert startup.fast_answer([], {**os.environ, **tab}) == ("default\thttps://a.example\n", 0)
    assert _stored()["config"]["profiles"] == [["default", "https://a.example"]]

    _write_config(config, {"default": "https://a.example", "staging": "https://s.example"})
    answer = ("default\thttps://a.example\nstaging\thttps://s.example\n", 0)
    assert startup.fast_answer([], {**os.environ, **tab}) == answer
    stored = _stored()["config"]
    assert stored == {"stamp": helpindex.config_stamp(), "profiles": [["default", "https://a.example"],
                                                                      ["staging", "https://s.example"]]}
    config.unlink()
    assert startup.fast_answer([], {**os.environ, **tab}) == ("\n", 0)  # no profiles: fish's empty answer
    assert startup.fast_answer(["sites", "--help"]) is not None  # the help was never stale


def test_profiles_come_from_the_index_until_the_config_file_changes(tmp_path: Path) -> None:
    """The installed command: `-p <TAB>` reads no config file (no tomllib, no wfctl.config) while the file
    is as it was; `wfctl config set` changes it, and the next Tab press reads it once."""
    env = clean_env(tmp_path, COLUMNS="100")
    _write_config(tmp_path / "config" / "wfctl" / "config.toml", {"default": "https://a.example"})
    tab = {**env, "_WFCTL_COMPLETE": "complete_bash", "COMP_WORDS": "wfctl -p ", "COMP_CWORD": "2"}
    assert run_installed([], tab)[0].stdout == "default\n"  # the Typer path: it writes the index
    proc, modules = run_installed([], tab)
    assert (proc.stdout, {"tomllib", "wfctl.config", "typer"} & modules) == ("default\n", set())
    set_url = run_installed(["-p", "staging", "config", "set", "base_url", "https://s.example"], env)[0]
    assert set_url.returncode == 0, set_url.stderr
    proc, modules = run_installed([], tab)
    assert (proc.stdout, "tomllib" in modules, "typer" in modules) == ("default\nstaging\n", True, False)
    proc, modules = run_installed([], tab)
    assert (proc.stdout, {"tomllib", "wfctl.config"} & modules) == ("default\nstaging\n", set())


def _write_config(path: Path, profiles: dict[str, str], **keys: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for name, url in profiles.items():
        lines.append(f"[profiles.{name}]")
        lines += [f'base_url = "{url}"'] if url else []
        lines += [f'{key} = "{value}"' for key, value in keys.items()]
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if before:  # a new mtime, even within one tick of the file system's clock
        os.utime(path, ns=(before + 10**9, before + 10**9))


def _stored() -> dict[str, Any]:
    return json.loads(Path(helpindex.index_path()).read_text(encoding="utf-8"))
