"""Every way a jq result leaves wfctl prints its numbers as jq 1.7+ does (libjq's own printer, issue 44):
`--jq` and `--jq-each` with -o json (a pipe and a terminal) and jsonl, `wfctl jq -o json`, and the
values a table or csv shows. The expected bytes are libjq 1.8.2's (`wfctl jq -c`, which is jq's printer)."""

from __future__ import annotations

from typing import Any

from tests.fixtures.sandbox import ADMIN

#: Literals keep their digits (`1.000`, `-0` read from input, `1E+2`, beyond a double's precision), a number
#: beyond a double prints as the largest one, a computed one in jq's shortest form (`1e+16`, not `1E+16`).
NUMBERS = "[1.000, 100000000000000000000001, 1e1000, 1e308 * 10, 3.0, 1e2, 0.1 + 0.2, 1e16 * 1, 1.5 * 2]"
PRINTED = ["1.000", "100000000000000000000001", "1E+1000", "1.7976931348623157e+308", "3.0", "1E+2",
           "0.30000000000000004", "1e+16", "3"]


def test_jq_query_results_print_numbers_as_jq_in_json_and_jsonl(cli: Any, sandbox: Any) -> None:
    r = cli("jq", "-nc", NUMBERS)
    assert (r.exit_code, r.stdout) == (0, "[" + ",".join(PRINTED) + "]\n"), r  # the oracle: libjq's printer
    cli.login_as(sandbox.url, *ADMIN)
    r = cli("agency", "show", "--jq", NUMBERS, "-o", "json")
    assert (r.exit_code, r.stdout) == (0, "[" + ",".join(PRINTED) + "]\n"), r  # a pipe: compact, as jq -c
    r = cli("agency", "show", "--jq", f"{NUMBERS} | .[]", "-o", "jsonl")
    assert (r.exit_code, r.stdout) == (0, "".join(f"{n}\n" for n in PRINTED)), r
    r = cli("agency", "show", "--jq", "{a: 1.000, b: [1e2, 2.50]}", "-o", "json", tty=True)
    assert (r.exit_code, r.stdout) == (0, '{\n  "a": 1.000,\n  "b": [\n    1E+2,\n    2.50\n  ]\n}\n'), r
    r = cli("branches", "list", "--all", "-o", "jsonl", "--jq-each", "{n: 1.000, m: (.name | length) * 0.5}")
    assert r.exit_code == 0 and r.stdout.splitlines()[0].startswith('{"n":1.000,"m":'), r
    assert all(line.startswith('{"n":1.000,') for line in r.stdout.splitlines()), r


def test_wfctl_jq_in_a_format_prints_jqs_numbers(cli: Any) -> None:
    data = '{"rate": 13.50, "zero": -0, "big": 100000000000000000000001}\n'
    r = cli("jq", "-o", "json", ".", input=data)
    assert (r.exit_code, r.stdout) == (0, '{"rate":13.50,"zero":-0,"big":100000000000000000000001}\n'), r
    r = cli("jq", "-o", "jsonl", ".rate, .zero", input=data)
    assert (r.exit_code, r.stdout) == (0, "13.50\n-0\n"), r
    r = cli("jq", "-o", "table", ".rate, .zero, .big", input=data)  # plain values a line, as jq -r
    assert (r.exit_code, r.stdout) == (0, "13.50\n-0\n100000000000000000000001\n"), r
    r = cli("jq", "-o", "csv", "{rate, zero}", input=data)  # a record's cells: the numbers jq prints
    assert (r.exit_code, r.stdout) == (0, "rate,zero\n13.50,-0\n"), r
    r = cli("jq", "-o", "yaml", "{rate, zero}", input=data)  # YAML's own numbers (1E+2 is no YAML float)
    assert (r.exit_code, r.stdout) == (0, "rate: 13.5\nzero: -0.0\n"), r
