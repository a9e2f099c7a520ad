"""A plain `wfctl jq` command line runs without the app (wfctl.cmdline.jqpath, issue 44): no typer is
imported, and every answer is the app's, byte for byte. Its tables of options are the command's own; what it
does not read (a root option, -o, `--`, an unknown option, ...) goes to the app."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.cli import REPO_ROOT
from wfctl.cmdline import jqpath
from wfctl.cmdline.argv import CommandLine

SITES = '[{"name": "Site 1", "a": 1.000, "n": null}, {"name": "Site 2", "a": -0, "n": "x"}]\n'


def _lines(tmp_path: Path) -> list[tuple[list[str], str]]:
    program = tmp_path / "names.jq"
    program.write_text(".[] | .name\n", encoding="utf-8")
    data = tmp_path / "sites.json"
    data.write_text(SITES, encoding="utf-8")
    return [
        (["-c", ".[] | {name, a}"], SITES),
        (["-rc", ".[] | .name"], SITES),
        (["."], SITES),
        (["-S", "--tab", ".[0]"], SITES),
        (["--indent", "3", ".[1]"], SITES),
        (["--indent", "9", "."], SITES),  # the run's own check: -1 to 7
        (["-n", "1, 2"], ""),
        (["-j", ".[] | .name"], SITES),
        (["-ra", ".[] | .name + \"\u00e9\""], SITES),
        (["--arg", "x", "1", "--arg", "x", "2", "-n", "$x"], ""),
        (["--argjson", "v", '{"a": 1}', "-nc", "$v"], ""),
        (["-n", "-c", "--args", "$ARGS", "a", "b"], ""),
        (["-n", "--jsonargs", "-c", "$ARGS.positional", "1", '{"b": 2}'], ""),
        (["-e", ".[1].n"], SITES),
        (["-e", ".[0].n"], SITES),
        ([".[] | error"], SITES),
        (["1 +"], SITES),
        (["-.[0].a"], SITES),
        (["."], '{"a": 1} {"a"'),
        ([".", str(tmp_path / "missing.json")], ""),
        (["-r", "-f", str(program), str(data)], ""),
        (["--slurpfile", "s", str(data), "-nc", "$s | length"], ""),
        (["--rawfile", "t", str(program), "-n", "$t"], ""),
        (["--seq", "-c", ".[]"], SITES),
        (["-Rn", "-c", "[inputs]"], "a\nb\n"),
        (["-s", "-c", "map(length)"], "[1] [2, 3]"),
        (["-C", "-c", "."], SITES),
        (["--stream", "-c", "."], '{"a": [1]}'),
        (["-n", '"halt\\n" | halt_error(3)'], ""),
        (["-n", "[1] | debug | stderr | empty"], ""),
    ]


def test_the_tables_are_the_commands_options() -> None:
    from wfctl.cmdline.app import root_command

    command = root_command(CommandLine(["jq", "."])).commands["jq"]
    flags, values = {}, {}
    for param in command.params:
        if param.param_type_name != "option" or param.name == "output":  # -o: left to the app
            continue
        for opt in param.opts:
            if param.is_flag:
                flags[opt] = param.name
            else:
                values[opt] = (param.name, param.nargs)
    assert (flags, values) == (jqpath.FLAGS, jqpath.VALUES)


def test_a_plain_command_line_answers_as_the_app_does(cli: Any, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _lines(tmp_path)
    for args, _input in lines:
        assert jqpath.asked(CommandLine(["jq", *args], {})) is not None, args
    ran, run, asked = [], jqpath.run, jqpath.asked
    monkeypatch.setattr(jqpath, "run", lambda plain: ran.append(plain) or run(plain))
    for configured in ("", "json"):  # a profile's -o json: errors as JSON where stderr is no terminal
        if configured:
            assert cli("config", "set", "output", configured).exit_code == 0
        monkeypatch.setattr(jqpath, "asked", asked)
        ran.clear()
        fast = [cli("jq", *args, input=text) for args, text in lines]
        assert len(ran) == len(lines)  # each line ran without the app
        monkeypatch.setattr(jqpath, "asked", lambda line: None)  # every line through the app
        for (args, text), answer in zip(lines, fast, strict=True):
            through_the_app = cli("jq", *args, input=text)
            assert answer == through_the_app, (configured, args)
    assert '"error"' in fast[lines.index(([".", str(tmp_path / "missing.json")], ""))].stderr


@pytest.mark.parametrize("words", [
    ["jq"], ["jq", "-o", "json", "."], ["jq", "--output=json", "."], ["jq", "--indent=2", "."], ["jq", "-x", "."],
    ["jq", "-rx", "."], ["jq", "--", "-.a"], ["jq", "-h"], ["jq", ".", "--help"], ["jq", "--indent", "two", "."],
    ["jq", "--arg", "x"], ["jq", "-p", "staging", "."], ["jq", "--no-color", "."], ["jq", "--version"],
    ["-v", "jq", "."], ["sites", "list"], ["jq", "-n", "--args", ".", "-b"],
])
def test_what_it_does_not_read_goes_to_the_app(words: list[str]) -> None:
    assert jqpath.asked(CommandLine(words, {})) is None


@pytest.mark.parametrize("variable", jqpath.ROOT_VARIABLES)
def test_a_root_options_variable_sends_it_to_the_app(variable: str, cli: Any) -> None:
    assert jqpath.asked(CommandLine(["jq", "."], {variable: "x"})) is None
    r = cli("jq", "-n", "1", env={"WFCTL_OUTPUT": "xml"}) if variable == "WFCTL_OUTPUT" else None
    if r is not None:  # the app checks the variable, for jq as for every command
        assert r.exit_code == 2 and "xml" in r.stderr, r


def test_it_imports_no_typer_and_a_reader_that_leaves_is_no_error(tmp_path: Path) -> None:
    check = ("import sys\nfrom wfctl.cmdline.main import main\ncode = main(['jq', '-n', '1'])\n"
             "assert not {'typer', 'click', 'wfctl.config'} & set(sys.modules), 'typer or the config layer imported'\nsys.exit(code)\n")
    env = {"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "1\n", ""), done
    data = tmp_path / "many.jsonl"
    data.write_text("".join(f'{{"n": {i}}}\n' for i in range(200_000)), encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "wfctl", "jq", "-c", ".", str(data)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == b'{"n":0}\n'
    proc.stdout.close()  # `| head -1`
    assert (proc.wait(timeout=60), proc.stderr.read()) == (0, b"")
