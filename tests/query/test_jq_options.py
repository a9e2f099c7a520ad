"""`wfctl jq`'s less everyday options as jq 1.8's (issue 44): -R, -f, --seq, --stream, -C/-M and a filter
that starts with a dash. The expected bytes are jq's documented behaviour (its manual and main.c); where
jq 1.6 (the machine's binary) prints the same, the binary is asked too."""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

import pytest

from tests.query.test_jq_as_jq import _env, _wfctl


def test_raw_input_reads_each_line_as_a_text(cli: Any) -> None:
    r = cli("jq", "-R", ".", input='a\nb c\n"d"')  # the last line without its newline too
    assert (r.exit_code, r.stdout) == (0, '"a"\n"b c"\n"\\"d\\""\n'), r
    r = cli("jq", "-Rs", ".", input="a\nb\n")  # with -s: the whole input, one text
    assert (r.exit_code, r.stdout) == (0, '"a\\nb\\n"\n'), r
    r = cli("jq", "-Rnc", "[inputs | ascii_upcase]", input="a\nb\n")  # `inputs` reads the lines
    assert (r.exit_code, r.stdout) == (0, '["A","B"]\n'), r
    r = cli("jq", "-R", "tonumber", input="1\nx\n3\n")  # an error on a line, and the run goes on
    assert (r.exit_code, r.stdout) == (0, "1\n3\n"), r
    assert r.stderr == 'jq: error (at <stdin>:2): string ("x") cannot be parsed as a number\n', r


def test_from_file_reads_the_filter_from_a_file(cli: Any, tmp_path: Any) -> None:
    program = tmp_path / "names.jq"
    program.write_text("# the names\n.[]\n| .name\n", encoding="utf-8")
    data = tmp_path / "sites.json"
    data.write_text('[{"name": "Site 1"}, {"name": "Site 2"}]\n', encoding="utf-8")
    r = cli("jq", "-r", "-f", str(program), str(data))  # the first argument is the file of the filter
    assert (r.exit_code, r.stdout) == (0, "Site 1\nSite 2\n"), r
    r = cli("jq", "--from-file", str(program), input='[{"name": "x"}]')
    assert (r.exit_code, r.stdout) == (0, '"x"\n'), r
    r = cli("jq", "-f", str(tmp_path / "missing.jq"), str(data))
    assert (r.exit_code, r.stderr) == (2, f"error: {tmp_path / 'missing.jq'}: no such file\n"), r


def test_seq_writes_rs_before_each_text_and_skips_what_is_not_json(cli: Any) -> None:
    r = cli("jq", "--seq", "-c", ".", input='\x1e{"a":1}\n\x1e{"a" 1}\n\x1e[2]\n')
    assert (r.exit_code, r.stdout) == (0, '\x1e{"a":1}\n\x1e[2]\n'), r
    assert r.stderr == ("jq: ignoring parse error (at <stdin>:2): Expected separator between values at line 2, "
                        "column 8 (need RS to resync)\n"), r  # jq 1.8's main.c words it so
    r = cli("jq", "--seq", "-r", ".[]", input='\x1e["text", 1]\n')  # a raw text has no RS, as in jq
    assert (r.exit_code, r.stdout) == (0, "text\n\x1e1\n"), r


def test_stream_reads_path_and_leaf_events(cli: Any) -> None:
    r = cli("jq", "-c", "--stream", ".", input='{"a":[1,{"b":2}]}')  # jq's manual
    assert (r.exit_code, r.stdout) == (0, '[["a",0],1]\n[["a",1,"b"],2]\n[["a",1,"b"]]\n[["a",1]]\n[["a"]]\n'), r
    r = cli("jq", "-nc", "--stream", "fromstream(inputs)", input='{"a":[1,{"b":2}]}')
    assert (r.exit_code, r.stdout) == (0, '{"a":[1,{"b":2}]}\n'), r


def test_colour_on_a_terminal_as_jq(cli: Any, tmp_path: Any) -> None:
    saved = tmp_path / "doc.json"
    saved.write_text('[null, "s"]', encoding="utf-8")
    doc, path = saved.read_text(encoding="utf-8"), str(saved)
    coloured = "\x1b[1;39m[\x1b[0m\x1b[0;90mnull\x1b[0m\x1b[1;39m,\x1b[0m\x1b[0;32m\"s\"\x1b[0m\x1b[1;39m]\x1b[0m\n"
    assert cli("jq", "-c", ".", path, tty=True).stdout == coloured  # jq 1.8's colours: null 0;90, text 0;32
    assert cli("jq", "-c", "-C", ".", input=doc).stdout == coloured  # -C: in a pipe too
    assert cli("jq", "-c", ".", input=doc).stdout == '[null,"s"]\n'  # a pipe: none
    assert cli("jq", "-c", "-M", ".", path, tty=True).stdout == '[null,"s"]\n'
    assert cli("jq", "-c", ".", path, tty=True, env={"NO_COLOR": "1"}).stdout == '[null,"s"]\n'
    r = cli("jq", "-C", ".", input="null", env={"JQ_COLORS": "0;31"})
    assert (r.exit_code, r.stdout) == (0, "\x1b[0;31mnull\x1b[0m\n"), r
    r = cli("jq", "-C", ".", input="null", env={"JQ_COLORS": "not a colour"})
    assert (r.stdout, r.stderr) == ("\x1b[0;90mnull\x1b[0m\n", "Failed to set $JQ_COLORS\n"), r
    r = cli("jq", "-C", "-o", "yaml", ".", input="null")
    assert (r.exit_code, r.stderr) == (2, "error: -o renders results in a format of its own: leave out -r, -j, -a, "
                                          "-c, -S, -C, --tab, --indent and --seq, or -o\n"), r


def test_a_filter_that_starts_with_a_dash_is_the_filter(cli: Any) -> None:
    r = cli("jq", "-.a", input='{"a": 2}\n')  # jq: a dash, then neither a letter nor a dash, is no option
    assert (r.exit_code, r.stdout) == (0, "-2\n"), r
    r = cli("jq", "-c", "-[.a]", "-", input='{"a": 2}\n')
    assert (r.exit_code, r.stdout, r.stderr) == (5, "", "jq: error (at <stdin>:1): array ([2]) cannot be negated\n"), r
    r = cli("jq", "-n", "-1", "--indent", "-1")  # an option's value is its value, whatever its first character
    assert (r.exit_code, r.stdout) == (0, "-1\n"), r
    r = cli("jq", "-n", "--arg", "x", "-y", "$x")
    assert (r.exit_code, r.stdout) == (0, '"-y"\n'), r
    r = cli("jq", "-x", ".")  # a dash and a letter is an option, as in jq
    assert r.exit_code == 2 and "No such option: -x" in r.stderr, r


@pytest.mark.skipif(shutil.which("jq") is None, reason="no jq binary to compare with")
def test_the_same_bytes_as_the_jq_binary(cli: Any, tmp_path: Any) -> None:
    """Where jq 1.6 and 1.8 agree: -R, -f, --seq's output, --stream and a dashed filter."""
    program = tmp_path / "p.jq"
    program.write_text(".a\n", encoding="utf-8")
    cases = [(["-R", "."], b'x\n{"a": 1}\ny'), (["-Rs", "."], b"x\ny\n"), (["-Rn", "[inputs]"], b"x\ny\n"),
             (["-f", str(program)], b'{"a": 1.5}'), (["--seq", "."], b'\x1e{"a": 1}\n\x1e[2]\n'),
             (["-R", "--seq", "-c", "."], b"a\nb\n"),
             (["-c", "--stream", "."], b'{"a": [1, {"b": null}]}'), (["-.a"], b'{"a": 2}'), (["-n", "-1"], b"")]
    for args, data in cases:
        ours = subprocess.run([*_wfctl(cli), "jq", *args], input=data, capture_output=True, env=_env(cli), timeout=60)
        theirs = subprocess.run(["jq", *args], input=data, capture_output=True, timeout=60)
        assert (ours.returncode, ours.stdout, ours.stderr) == (theirs.returncode, theirs.stdout, theirs.stderr), args
