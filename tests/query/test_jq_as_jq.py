"""`wfctl jq`, --jq and --jq-each answer as jq 1.8 does (issue 44): input/inputs, halt and halt_error,
debug and stderr, an error on one input and the run going on, jq's options and exit statuses, numbers as
jq prints them. The expected bytes are jq 1.8.2's own (its tests/shtest where it has the case)."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest

from tests.fixtures.sandbox import ADMIN

FIVE = "1 2 3 4 5\n"


def test_input_and_inputs_read_the_runs_stream(cli: Any) -> None:
    r = cli("jq", "-n", "reduce inputs as $x (0; .+1)", input=FIVE)
    assert (r.exit_code, r.stdout, r.stderr) == (0, "5\n", ""), r
    r = cli("jq", "reduce inputs as $x (0; .+1)", input=FIVE)  # the first value is `.`: four are left
    assert (r.exit_code, r.stdout) == (0, "4\n"), r
    r = cli("jq", "-c", "[., input]", input=FIVE)  # each run takes the next value as its input: 1 2, 3 4, 5 -
    assert (r.exit_code, r.stdout) == (5, "[1,2]\n[3,4]\n"), r
    assert r.stderr == "jq: error (at <stdin>:1): break\n"  # jq 1.8's word for `input` with none left
    r = cli("jq", "-n", "-c", "[inputs | .n] | add", input='{"n": 1}\n{"n": 2}\n')
    assert (r.exit_code, r.stdout) == (0, "3\n"), r


def test_halt_error_writes_its_message_and_exits_with_its_status(cli: Any) -> None:
    r = cli("jq", "-n", '"xyz\\n" | halt_error(1)')
    assert (r.exit_code, r.stdout, r.stderr) == (1, "", "xyz\n"), r
    r = cli("jq", "-n", '"xy" | halt_error(1)')  # text as it is: no newline added
    assert (r.exit_code, r.stderr) == (1, "xy"), r
    r = cli("jq", "-n", '{"a":"xyz"} | halt_error(1)')  # anything else as JSON, a line
    assert (r.exit_code, r.stderr) == (1, '{"a":"xyz"}\n'), r
    r = cli("jq", "-n", "halt_error(11)")  # null: nothing said
    assert (r.exit_code, r.stdout, r.stderr) == (11, "", ""), r
    r = cli("jq", '"stop\\n" | halt_error', input="1\n")  # halt_error's own default: 5
    assert (r.exit_code, r.stderr) == (5, "stop\n"), r
    r = cli("jq", "-c", "if . == 2 then halt else . end", input=FIVE)  # halt: the run ends, status 0
    assert (r.exit_code, r.stdout, r.stderr) == (0, "1\n", ""), r


def test_a_ci_check_written_with_halt_error_fails(cli: Any, sandbox: Any) -> None:
    cli.login_as(sandbox.url, *ADMIN)
    check = 'if .name == "Northwind Staffing" then "agency is Northwind\\n" | halt_error(1) else . end'
    r = cli("agency", "show", "--jq", check, "-o", "json")
    assert (r.exit_code, r.stdout, r.stderr) == (1, "", "agency is Northwind\n"), r
    names = json.loads(cli("branches", "list", "--all", "-o", "json", "--jq", "map(.name)").stdout)
    stop = 'if .name == "Manchester Central" then "stop\\n" | halt_error(3) else .name end'
    r = cli("branches", "list", "--all", "-o", "jsonl", "--jq-each", stop)
    assert (r.exit_code, r.stderr) == (3, "stop\n"), r  # the records before it, then no more
    assert r.stdout.splitlines() == [json.dumps(n) for n in names[:names.index("Manchester Central")]], r
    r = cli("agency", "show", "--jq", 'error("no")', "-o", "json")
    assert r.exit_code == 5 and json.loads(r.stderr)["error"]["code"] == "jq", r


def test_debug_and_stderr_write_to_stderr(cli: Any) -> None:
    r = cli("jq", "-n", "-c", "-j", '"hello\\nworld", null, [false, 0], {"foo":["bar"]}, "\\n" | stderr')
    expected = 'hello\nworldnull[false,0]{"foo":["bar"]}\n'  # jq 1.8.2's tests/shtest, byte for byte
    assert (r.exit_code, r.stdout, r.stderr) == (0, expected, expected), r
    r = cli("jq", "-c", "debug | .a", input='{"a": [1, 2]}\n')
    assert (r.exit_code, r.stdout, r.stderr) == (0, "[1,2]\n", '["DEBUG:",{"a":[1,2]}]\n'), r
    r = cli("jq", "-n", '1 | debug("at \\(.)")')
    assert (r.stdout, r.stderr) == ("1\n", '["DEBUG:","at 1"]\n'), r


def test_an_error_on_one_input_and_the_run_goes_on(cli: Any, sandbox: Any) -> None:
    r = cli("jq", ".+1", input='1\n"a"\n2\n')
    assert (r.stdout, r.stderr) == ("2\n3\n", 'jq: error (at <stdin>:2): string ("a") and number (1) cannot '
                                              'be added\n'), r
    assert r.exit_code == 0  # jq's status is the last input's
    r = cli("jq", ".+1", input='1\n2\n"a"\n')
    assert (r.exit_code, r.stdout) == (5, "2\n3\n"), r
    r = cli("jq", "error", input='{"a": 1}\n')
    assert (r.exit_code, r.stderr) == (5, 'jq: error (at <stdin>:1) (not a string): {"a":1}\n'), r
    cli.login_as(sandbox.url, *ADMIN)
    r = cli("branches", "list", "--all", "-o", "jsonl", "--jq-each", 'if .name == "Manchester Central" then '
                                                                     'error("skip") else .name end')
    names = json.loads(cli("branches", "list", "--all", "-o", "json", "--jq", "map(.name)").stdout)
    assert r.stdout.splitlines() == [json.dumps(n) for n in names if n != "Manchester Central"], r
    assert r.stderr == "--jq-each: jq: error: skip\n", r


def test_several_files_are_one_stream_and_an_error_names_its_file(cli: Any, tmp_path: Any) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text("1\n2\n", encoding="utf-8")
    second.write_text('3\n"x"\n4\n', encoding="utf-8")
    r = cli("jq", ".+1", str(first), str(second))
    assert (r.exit_code, r.stdout) == (0, "2\n3\n4\n5\n"), r
    assert r.stderr == f'jq: error (at {second}:2): string ("x") and number (1) cannot be added\n'
    r = cli("jq", "-n", "[inputs] | length", str(first), str(second))
    assert r.stdout == "5\n", r


def test_args_as_jq(cli: Any, tmp_path: Any) -> None:
    r = cli("jq", "-n", "-c", "--arg", "foo", "1", "--argjson", "bar", "2", "{$foo, $bar} | ., . == $ARGS.named")
    assert (r.exit_code, r.stdout) == (0, '{"foo":"1","bar":2}\ntrue\n'), r
    r = cli("jq", "-n", "-c", "--arg", "a", "first", "--arg", "a", "second", "[$a, $ARGS.named]")
    assert r.stdout == '["first",{"a":"first"}]\n'  # a repeated name keeps the first, as jq
    r = cli("jq", "-n", "-c", "--args", "$ARGS.positional", "foo", "bar", "baz")
    assert r.stdout == '["foo","bar","baz"]\n'
    r = cli("jq", "-n", "-c", "--jsonargs", "$ARGS.positional", "null", "true", "[]", "{}")
    assert r.stdout == "[null,true,[],{}]\n"
    data = tmp_path / "data.json"
    data.write_text('{\n  "this": "is a test",\n  "that": "is too"\n}\n', encoding="utf-8")
    r = cli("jq", "-n", "--slurpfile", "foo", str(data), "--rawfile", "bar", str(data), "{$foo, $bar}")
    assert (r.exit_code, r.stdout) == (0, '{\n  "foo": [\n    {\n      "this": "is a test",\n      "that": '
                                          '"is too"\n    }\n  ],\n  "bar": "{\\n  \\"this\\": \\"is a test\\",'
                                          '\\n  \\"that\\": \\"is too\\"\\n}\\n"\n}\n'), r
    r = cli("jq", "-n", "--slurpfile", "foo", str(tmp_path / "missing.json"), "$foo")
    assert (r.exit_code, r.stderr) == (2, f"error: --slurpfile foo {tmp_path / 'missing.json'}: no such file\n"), r
    r = cli("jq", "-n", "--jsonargs", "$ARGS", "{")
    assert (r.exit_code, r.stderr) == (2, "error: --jsonargs: invalid JSON text: {\n"), r


def test_jqs_everyday_options(cli: Any) -> None:
    doc = '{"b": "é", "a": [1, {"c": null}]}\n'
    assert cli("jq", ".", input=doc).stdout == '{\n  "b": "é",\n  "a": [\n    1,\n    {\n      "c": null\n    }\n  ]\n}\n'
    assert cli("jq", "-c", ".", input=doc).stdout == '{"b":"é","a":[1,{"c":null}]}\n'
    assert cli("jq", "-cS", ".", input=doc).stdout == '{"a":[1,{"c":null}],"b":"é"}\n'
    assert cli("jq", "-ca", ".b", input=doc).stdout == '"\\u00e9"\n'
    assert cli("jq", "-r", ".b, .a", input=doc).stdout == 'é\n[\n  1,\n  {\n    "c": null\n  }\n]\n'
    assert cli("jq", "-j", ".b, .b", input=doc).stdout == "éé"
    assert cli("jq", "--tab", ".a", input=doc).stdout == '[\n\t1,\n\t{\n\t\t"c": null\n\t}\n]\n'
    assert cli("jq", "--indent", "0", "-n", "[1,2]").stdout == "[\n1,\n2\n]\n"  # jq 1.8.2's shtest
    assert cli("jq", "--indent", "5", "-n", "[1,2]").stdout == "[\n     1,\n     2\n]\n"
    assert cli("jq", "--indent", "1", "-n", "[{a:1}]").stdout == '[\n {\n  "a": 1\n }\n]\n'
    r = cli("jq", "--indent", "8", ".", input=doc)
    assert (r.exit_code, r.stderr) == (2, "error: --indent takes a number between -1 and 7\n"), r
    assert cli("jq", "-cs", "add", input="[1,2][3,4]").stdout == "[1,2,3,4]\n"
    assert cli("jq", "-n", "1+1").stdout == "2\n"
    r = cli("jq", "-r", ".", "-o", "yaml", input=doc)
    assert (r.exit_code, r.stderr) == (2, "error: -o renders results in a format of its own: leave out -r, -j, "
                                          "-a, -c, -S, -C, --tab, --indent and --seq, or -o\n"), r


@pytest.mark.parametrize(("expression", "status"), [("select(.i==1)", 0), ("select(.i==3)", 0),
                                                    ("select(.i==4)", 4), ("select(.i==2) | false", 1),
                                                    ("select(.i==2) | true", 0)])
def test_exit_status_as_jq(cli: Any, expression: str, status: int) -> None:
    r = cli("jq", "--exit-status", expression, input='{"i": 1}\n{"i": 2}\n{"i": 3}\n')  # jq 1.8.2's shtest
    assert r.exit_code == status, r


def test_numbers_print_as_jq_prints_them(cli: Any) -> None:
    r = cli("jq", "-c", ".", input="[1.000, -0, 100000000000000000000001, 1E+1000, 3.0, 1e2, 0.1]\n")
    assert r.stdout == "[1.000,-0,100000000000000000000001,1E+1000,3.0,1E+2,0.1]\n", r  # a literal's digits
    r = cli("jq", "-c", "[.[] * 10]", input="[1e308, 0.1]\n")
    assert r.stdout == "[1.7976931348623157e+308,1]\n", r  # beyond a double: the largest, never Infinity


def test_a_filter_that_starts_with_a_dash_may_go_after_double_dash(cli: Any) -> None:
    r = cli("jq", "-c", "--", "-.a", input='{"a": 2}\n')
    assert (r.exit_code, r.stdout) == (0, "-2\n"), r
    r = cli("jq", "-n", "--", "-1")
    assert (r.exit_code, r.stdout) == (0, "-1\n"), r


def test_modules_are_refused_in_one_sentence(cli: Any) -> None:
    sentence = ("modules are not offered: wfctl runs a filter without a library path, so import, include and "
                "modulemeta cannot be used")
    for expression in ('import "a" as a; .', 'include "c"; [a, c]', "module {}; ."):
        r = cli("jq", "-n", expression)
        assert (r.exit_code, r.stdout, r.stderr) == (2, "", f"error: {sentence}\n"), (expression, r)
    r = cli("jq", "-n", '"c" | modulemeta')
    assert (r.exit_code, r.stderr) == (5, f"jq: error (at <stdin>:0): {sentence}\n"), r


def test_input_that_is_not_utf8_is_one_line(cli: Any, tmp_path: Any) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"name": "Caf\xe9"}\n')
    r = cli("jq", ".", str(path))
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", f"error: {path}: not UTF-8 text (JSON is): the byte 0xe9 "
                                                        f"on line 1\n"), r
    proc = subprocess.run([*_wfctl(cli), "jq", "."], input=b'"ok"\n"\xff"\n', capture_output=True,
                          env=_env(cli), timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, b"", b"error: <stdin>: not UTF-8 text (JSON is): "
                                                                   b"the byte 0xff on line 2\n"), proc


@pytest.mark.skipif(shutil.which("jq") is None, reason="no jq binary to compare with")
def test_the_same_bytes_and_status_as_the_jq_binary(cli: Any) -> None:
    """Where jq 1.6 (the machine's) and 1.8 agree: wfctl jq's bytes and status are the binary's."""
    data = b'{"i": 1, "s": "caf\xc3\xa9"}\n{"i": 2}\n"x"\n[1, [2]]\n'
    for args in (["."], ["-c", "."], ["-r", ".s?"], ["--tab", "."], ["--indent", "3", "."],
                 ["-S", "-c", "."], ["-a", "-c", "."], ["-s", "-c", "map(type)"], ["-n", "-c", "[inputs]"],
                 ["-j", ".s? // empty"]):
        ours = subprocess.run([*_wfctl(cli), "jq", *args], input=data, capture_output=True, env=_env(cli), timeout=60)
        theirs = subprocess.run(["jq", *args], input=data, capture_output=True, timeout=60)
        assert (ours.returncode, ours.stdout, ours.stderr) == (theirs.returncode, theirs.stdout, theirs.stderr), args


def _wfctl(cli: Any) -> list[str]:
    import sys

    return [sys.executable, "-m", "wfctl"]


def _env(cli: Any) -> dict[str, str]:
    from tests.fixtures.cli import REPO_ROOT

    return dict(cli.env, PYTHONPATH=str(REPO_ROOT))


def test_where_libjqs_api_is_hidden_the_packages_python_api_answers(cli: Any, tmp_path: Any,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A jq build that exports nothing but its module (the package's Windows wheels): the same filters,
    options and messages through the package's Python API, less what it cannot give (docs/queries.md)."""
    from wfctl.render import jqlib

    def hidden() -> Any:
        raise jqlib.JqUnavailable("no libjq API")

    monkeypatch.setattr(jqlib, "library", hidden)
    saved = tmp_path / "sites.jsonl"
    saved.write_text('{"name": "Site 2", "n": 123456789012345678901}\n{"name": "Site 1", "n": 2}\n', encoding="utf-8")
    r = cli("jq", "-c", "--arg", "a", "x", "--arg", "a", "y", "{name, a: $a}", str(saved))
    assert (r.exit_code, r.stdout) == (0, '{"name":"Site 2","a":"x"}\n{"name":"Site 1","a":"x"}\n'), r
    assert cli("jq", "-r", ".name", str(saved)).stdout == "Site 2\nSite 1\n"
    assert cli("jq", ".n", str(saved)).stdout == "123456789012345678901\n2\n"
    assert cli("jq", "-s", "--tab", "map(.n > 1)", str(saved)).stdout == "[\n\ttrue,\n\ttrue\n]\n"
    assert cli("jq", "-n", "-c", "[env, $ENV]").stdout == "[{},{}]\n"
    r = cli("jq", ".[0", str(saved))
    assert (r.exit_code, r.stderr) == (2, "error: jq: error: syntax error, unexpected end of file, expecting "
                                          "'|' or ',' or ':' or ']' at <top-level>, line 1, column 3\n"), r
    r = cli("jq", ".name + 1", str(saved))
    assert (r.exit_code, r.stdout) == (5, ""), r
    assert r.stderr == 'jq: error: string ("Site 2") and number (1) cannot be added\n'
    r = cli("jq", 'import "a" as a; .', str(saved))
    assert r.stderr.startswith("error: modules are not offered"), r
