"""jq's own test suite (jq 1.8.2, the libjq the `jq` package links: tests/query/jqsuite/) through `wfctl jq`,
in process (issue 44).

Each case runs as `wfctl jq -c -- PROGRAM` with the case's input on stdin, and is judged as jq's
`--run-tests` judges it (src/jq_test.c): the results equal the expected ones as jq compares values (libjq's
`jv_equal`), no more and no fewer; a `%%FAIL` program does not compile and, unless `IGNORE MSG`, its message
is jq's last (here on one line: `error: jq: error: ... at <top-level>, line 1, column 8`). Every case agrees
except DIFFERENCES, each with its reason; docs/queries.md lists them with the count.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from wfctl.render import jqlib
from wfctl.render.query import MODULES

SUITE = Path(__file__).parent / "jqsuite"
FILES = ["jq", "onig", "man", "manonig", "optional", "base64", "uri"]
MODULE_SENTENCE = f"error: {MODULES}\n"

#: (file, line of the program) -> why wfctl answers otherwise. The suite's runner gives jq a library path of
#: test modules (tests/modules); wfctl offers no modules, and says so in one sentence.
DIFFERENCES: dict[tuple[str, int], str] = {
    **{("jq", line): "modules are not offered" for line in (1900, 1904, 1908, 1912, 1917, 1921, 1925, 1929,
                                                              1969, 1973, 1977, 1993)},
    ("man", 686): "the environment is withheld: $ENV is {}",
    ("man", 690): "the environment is withheld: env is {}",
}


@dataclass
class Case:
    file: str
    line: int
    program: str
    input: str | None  # None: a %%FAIL case (the program must not compile)
    expected: list[str]
    check_message: bool = False


def cases(name: str) -> list[Case]:
    """The cases of one file, read as src/jq_test.c reads them."""
    lines = (SUITE / f"{name}.test").read_text(encoding="utf-8").split("\n")
    found: list[Case] = []
    index, must_fail, check = 0, False, False

    def skip(text: str) -> bool:
        stripped = text.lstrip(" \t")
        return stripped == "" or stripped.startswith("#")

    while index < len(lines):
        text = lines[index]
        index += 1
        if skip(text):
            continue
        if text in ("%%FAIL", "%%FAIL IGNORE MSG"):
            must_fail, check = True, text == "%%FAIL"
            continue
        case = Case(name, index, text, None, [], check)
        if not must_fail:
            case.input = lines[index]
            index += 1
        while index < len(lines) and not skip(lines[index]):
            case.expected.append(lines[index])
            index += 1
        found.append(case)
        must_fail = check = False
    return found


def disagreement(cli: Any, case: Case) -> str | None:
    """None when wfctl jq answers as jq's suite says, else what it answered."""
    # a program that starts with a dash after `--`; any other as a person types it, which runs without the
    # app (wfctl.cmdline.jqpath, whose answers tests/query/test_jq_path.py holds to the app's)
    words = ["--", case.program] if case.program.startswith("-") else [case.program]
    r = cli("jq", "-c", *words, input=(case.input or "") + "\n")
    if case.input is None:
        if r.exit_code != 2 or r.stdout:
            return f"compiled: {r}"
        if not case.check_message:  # %%FAIL IGNORE MSG: not compiling is the answer
            return None
        if r.stderr == MODULE_SENTENCE:
            return "modules are not offered"
        messages = [line[:-1] if line.endswith(":") else line for line in case.expected if line.startswith("jq: error")]
        said = r.stderr.removeprefix("error: ")  # jq's errors, one after another on the line: the suite's
        if not said.endswith(f"{'; '.join(messages)}\n"):  # runner reads the last
            return f"message: {r.stderr!r}, expected {messages!r}"
        return None
    results = r.stdout.split("\n")[:-1]  # not splitlines: U+2028 and U+0085 are text inside a result
    if r.stderr == MODULE_SENTENCE or "module not found" in r.stderr:
        return "modules are not offered"
    if len(results) != len(case.expected):
        return f"{len(results)} results, expected {len(case.expected)}: {r}"
    for got, expected in zip(results, case.expected, strict=True):
        if not jqlib.equal(got.encode(), expected.encode()):
            return f"{got!r}, expected {expected!r}"
    return None


@pytest.mark.parametrize("name", FILES)
def test_jq_suite_agrees_but_for_the_documented_differences(cli: Any, name: str) -> None:
    differ = {}
    for case in cases(name):
        answer = disagreement(cli, case)
        if answer is not None:
            differ[(case.file, case.line)] = f"{case.program!r}: {answer}"
    documented = {key for key in DIFFERENCES if key[0] == name}
    assert {key: differ[key] for key in differ.keys() - documented} == {}
    assert documented - differ.keys() == set()  # a documented difference gone: take it out of the list


def test_the_suite_is_jq_1_8_2s_879_cases() -> None:
    counts = {name: len(cases(name)) for name in FILES}
    assert sum(counts.values()) == 879, counts
    assert len(DIFFERENCES) == 14
