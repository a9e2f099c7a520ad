"""`wfctl jq` prints through jq's own printer into memory (`jqlib.Printer`: jv_dumpf into an
open_memstream FILE, issue 44's speed), or where the C library has no open_memstream through
jv_dump_string (`jqlib.StringPrinter`): both print the same bytes, across the batches results are written
in, for every way of printing `wfctl jq` has."""

from __future__ import annotations

import json
from typing import Any

import pytest

from wfctl.render import jqlib

VALUES = [{"id": i, "name": f"Site {i}", "rate": 13.250, "note": "caf\u00e9 \u0000 end" if i % 7 == 0 else None}
          for i in range(1100)]  # more than two batches of results
TEXT = "".join(json.dumps(value, ensure_ascii=False) + "\n" for value in VALUES).replace("13.25", "13.250")
CASES = [
    ["."],
    ["-c", "{id, name}"],
    ["-r", ".note // .name"],  # a text with a NUL in it, as -r prints it
    ["-j", ".name"],
    ["-ra", ".note // empty"],
    ["--seq", "-c", ".id, .name"],
    ["--tab", "-S", "."],
    ["-C", "-c", "."],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(case) for case in CASES])
def test_both_printers_print_what_jq_prints(cli: Any, monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    assert isinstance(jqlib.printer(), jqlib.Printer)  # this machine's C library has open_memstream
    memstream = cli("jq", *args, input=TEXT)
    assert memstream.exit_code == 0, memstream
    monkeypatch.setattr(jqlib, "_libc", lambda: None)
    assert isinstance(jqlib.printer(), jqlib.StringPrinter)
    string = cli("jq", *args, input=TEXT)
    assert (string.exit_code, string.stdout, string.stderr) == (0, memstream.stdout, memstream.stderr)


def test_the_printer_keeps_every_digit_and_every_byte(cli: Any) -> None:
    r = cli("jq", "-c", ".", input='{"a": 1.000, "b": -0, "c": 100000000000000000001}\n')
    assert (r.exit_code, r.stdout) == (0, '{"a":1.000,"b":-0,"c":100000000000000000001}\n'), r
    r = cli("jq", "-r", ".[]", input='["a\\u0000b", "\\u00e9"]')
    assert (r.exit_code, r.stdout) == (0, "a\x00b\n\u00e9\n"), r


def test_a_filter_that_halts_still_halts_where_others_are_not_asked(cli: Any) -> None:
    # the run asks libjq whether the program halted only when its text says `halt` (jqlib.Program.can_halt)
    r = cli("jq", '.[] | if . == 2 then "stop\\n" | halt_error(3) else . end', input="[1, 2, 3]")
    assert (r.exit_code, r.stdout, r.stderr) == (3, "1\n", "stop\n"), r
    r = cli("jq", "-n", '"halt", 1')  # the word in a text: nothing halts
    assert (r.exit_code, r.stdout) == (0, '"halt"\n1\n'), r
