"""Fuzzing the command line (issue 12, "Done when"): random values for the options and JSON inputs of
the real program, in-process against the sandbox. Whatever comes in: no traceback and no "unexpected
error", only the exit codes of a clean outcome, and nothing sent when the input is refused (exit 2).

The CSV reader's half of the fuzz test lives with the bulk tests. Bounded: deadline off, 200 examples
a test (a few seconds each on one core); the examples are not stored (no database in the repo).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.resources.conftest import as_json

FUZZ = settings(max_examples=200, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

#: Text a command line can carry: anything but NUL (argv is NUL-terminated) and lone surrogates.
ARG = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)
NUMBERISH = st.one_of(st.integers(-2, 120).map(str), ARG, st.integers().map(str), st.floats(allow_nan=True).map(str),
                      st.sampled_from(["0", "-1", "1e3", "١٢", "0x10", " 7 ", "99999999999999999999999"]))
HOSTILE = st.one_of(ARG, st.sampled_from(["Broken [/] markup", "[link=https://evil.example]x[/link]", "=1+1",
                                          "\x1b[2J", "a\nb", "..", "", " ", "-", "--yes", "'", "\\", "|", ":"]))
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | ARG,
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ARG, inner, max_size=4),
                    max_leaves=20)
RECORD_FIELDS = st.fixed_dictionaries({}, optional={
    "name": JSON, "address": JSON, "email": JSON, "phone": JSON, "rates": JSON, "departments": JSON,
    "bannedWorkers": JSON, "assessmentRequired": JSON, "id": JSON})


def check(result: Any, allowed: set[int]) -> None:
    """The invariants of every fuzzed run."""
    assert "Traceback" not in result.stderr, result
    assert "unexpected error" not in result.stderr, result
    assert result.exit_code in allowed, result
    if result.exit_code == 2:
        assert sent(result) == [], result


def sent(result: Any) -> list[str]:
    """The requests a `-v` run sent (its `> METHOD URL` lines)."""
    return [line for line in result.stderr.splitlines() if line.startswith("> ") and "://" in line]


@pytest.fixture
def client_id(wf: Any, tag: str) -> str:
    branch = as_json(wf("branches", "create", "--name", f"{tag} fuzz", "-o", "json"))["id"]
    return str(as_json(wf("clients", "create", "--branch", branch, "--name", "fuzz", "-o", "json"))["id"])


@FUZZ
@given(page=NUMBERISH, size=NUMBERISH, limit=NUMBERISH, fmt=st.one_of(ARG, st.sampled_from(["json", "csv"])),
       fields=HOSTILE)
def test_list_options(wf: Any, page: str, size: str, limit: str, fmt: str, fields: str) -> None:
    check(wf("-v", "branches", "list", f"--page={page}", f"--page-size={size}", f"--limit={limit}",
             f"--output={fmt}", f"--fields={fields}"), {0, 2, 6})


def test_an_empty_department_between_bars(wf: Any, client_id: str) -> None:
    for value in ("a||b", "a|", "|"):
        r = wf("sites", "create", "--client", client_id, "--name", "x", f"--department={value}", "--dry-run")
        assert (r.exit_code, r.stderr) == (
            2, "error: --department: an empty department between two '|' (remove the extra '|')\n"), r


DEPARTMENT = HOSTILE


@FUZZ
@given(name=HOSTILE, rates=st.lists(HOSTILE, max_size=3), departments=st.lists(DEPARTMENT, max_size=3),
       banned=st.lists(HOSTILE, max_size=3), email=HOSTILE, fmt=st.sampled_from(["table", "json", "csv"]))
def test_create_options(wf: Any, client_id: str, name: str, rates: list[str], departments: list[str],
                        banned: list[str], email: str, fmt: str) -> None:
    args = [f"--name={name}", f"--email={email}", *(f"--rate={r}" for r in rates),
            *(f"--department={d}" for d in departments), *(f"--banned-worker={b}" for b in banned)]
    r = wf("-v", "sites", "create", "--client", client_id, *args, "--dry-run", f"--output={fmt}")
    check(r, {0, 2})
    assert sent(r) == [] or all(line.startswith("> GET ") for line in sent(r)), r  # a dry run writes nothing


@FUZZ
@given(url=st.one_of(HOSTILE, st.builds("{}://{}".format, st.sampled_from(["http", "https", "ftp", "HTTP"]),
                                        HOSTILE)))
def test_base_url(wf: Any, url: str) -> None:
    # 3: a well-formed URL that is not the one this profile logged in to ("run wfctl login"), found
    # before anything is sent.
    r = wf("-v", f"--base-url={url}", "branches", "list")
    check(r, {0, 2, 3})
    if r.exit_code == 3:
        assert sent(r) == [], r


@FUZZ
@given(method=st.one_of(st.sampled_from(["GET", "get", "POST"]), ARG), path=HOSTILE,
       headers=st.lists(HOSTILE, max_size=2), fields=st.lists(HOSTILE, max_size=3), paginate=st.booleans())
def test_api_options(wf: Any, method: str, path: str, headers: list[str], fields: list[str],
                     paginate: bool) -> None:
    # Under a path of its own ("." left out: no way back to a real endpoint), so a random request can
    # only be refused here or answered 404 (4) or 400 (6) there.
    args = ["api", method, "/api/fuzz/" + path.replace(".", "_"), *(f"--header={h}" for h in headers),
            *(f"--field={f}" for f in fields), *(["--paginate"] if paginate else [])]
    check(wf("-v", *args), {0, 2, 4, 6})


@FUZZ
@given(document=st.one_of(JSON, RECORD_FIELDS, st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
                          ARG.map(lambda text: {"raw": text})))
def test_from_file_and_input_json(wf: Any, tmp_path: Path, document: Any) -> None:
    path = tmp_path / "input.json"
    if isinstance(document, dict) and set(document) == {"raw"}:
        path.write_text(document["raw"], encoding="utf-8")  # any text, mostly not JSON
    elif isinstance(document, str) and document.startswith("["):
        path.write_text(document, encoding="utf-8")  # nested arrays, as deep as 3000 levels
    else:
        path.write_text(json.dumps(document), encoding="utf-8")
    r = wf("-v", "branches", "create", "--from-file", str(path), "--dry-run")
    check(r, {0, 2})
    assert sent(r) == [], r
    check(wf("-v", "api", "POST", "/api/fuzz", "--input", str(path)), {2, 4})
