"""An answer's head no client reads (issue 45): a header holding `²` or any byte past ASCII, a header of
100 MB, too many headers, a Content-Length that is not digits. Each is the service's answer, so each is a
one-line service error (exit 1, `refused the answer of ...`, never "cannot reach", exit 7), on every path:
the httpx session (lists, gets) and the bulk import's lean writer (its creates and its report), and an
import's report never holds a raw exception."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.cli import Cli, Result
from tests.hostile.hostile_server import HostileServer
from tests.hostile.test_odd_answers import ROW, answer, odd_env, one_line, page, run

CLIENT = {"id": "c-1", "name": "Acme", "branchId": "b-1", "email": "", "phone": "", "createdOn": "2026-01-01T00:00:00Z"}
HUGE_HEADER = "X-Padding: " + "a" * (100 * 1024 * 1024)


def _sites_service(create: Callable[[bytes], bytes]) -> Callable[[str, bytes], bytes]:
    """A service with one client and no sites, whose creates `create(body)` answers."""

    def answers(line: str, body: bytes) -> bytes:
        if line.startswith("GET /api/clients/c-1/sites"):
            return answer(200, page([]))
        if line.startswith("GET /api/clients/c-1"):
            return answer(200, json.dumps(CLIENT))
        if line.startswith("POST /api/clients/c-1/sites"):
            return create(body)
        return answer(404, '{"title": "Not Found"}')

    return answers


def _import(cli: Any, url: str, tmp_path: Path, *extra: str) -> tuple[Any, list[dict[str, str]]]:
    source, report = _sources(tmp_path)
    result = run(cli, url, "sites", "import", str(source), "--client", "c-1", "--report", str(report), *extra)
    return result, _rows(report)


def _sources(directory: Path) -> tuple[Path, Path]:
    """A CSV file of two sites to import, and where its report goes."""
    source = directory / "sites.csv"
    source.write_text("name,address\nDepot 1,1 Quay\nDepot 2,2 Quay\n", encoding="utf-8")
    return source, directory / "report.csv"


def _rows(report: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(report.open(encoding="utf-8-sig"))) if report.exists() else []


#: Retry-After values no client can read: each import is paced for the whole budget (RetryPolicy, 60 s) first.
ODD_RETRY_AFTERS = ["\u00b2", "\u00e9t\u00e9", "\u00ff" * 40]


@pytest.fixture(scope="module")
def paced_out(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Result, list[dict[str, str]]]]]:
    """The import of two rows against a service answering every create 429 with each of ODD_RETRY_AFTERS, all
    at once as wfctl processes (each waits out its minute): value -> (the result, the report's rows)."""
    servers, started = [], {}
    for value in ODD_RETRY_AFTERS:
        servers.append(HostileServer("answer", answer=_sites_service(_refused(value))))
        directory = tmp_path_factory.mktemp("paced")
        with pytest.MonkeyPatch.context() as monkeypatch:  # Cli isolates os.environ too: only its env is kept
            cli = Cli(directory, monkeypatch)
        source, report = _sources(directory)
        started[value] = (cli.start("sites", "import", str(source), "--client", "c-1", "--report", str(report),
                                    "--concurrency", "2", env=odd_env(servers[-1].url)), report)
    try:
        yield {value: (Cli.finish(proc), _rows(report)) for value, (proc, report) in started.items()}
    finally:
        for each in servers:
            each.stop()


def _refused(value: str) -> Callable[[bytes], bytes]:
    """Every create answered 429 with `Retry-After: <value>`."""
    return lambda body: answer(429, '{"title": "slow down"}', f"Retry-After: {value}")


@pytest.mark.parametrize("value", ODD_RETRY_AFTERS)
def test_a_non_ascii_retry_after_on_every_create_is_a_service_error_in_the_report(paced_out, value):
    result, rows = paced_out[value]
    assert result.exit_code == 10, result
    assert "UnicodeEncodeError" not in result.stderr and "Traceback" not in result.stderr
    assert [row["status"] for row in rows] == ["failed", "failed"], rows
    for row in rows:
        assert row["error"] == "slow down (HTTP 429)", rows


def test_a_non_ascii_byte_in_any_header_of_an_error_is_the_error_itself(cli, server, tmp_path):
    headers = ("X-Note: caf\u00e9", "Retry-After: \u00b2", "Warning: 199 - \u00b2\u00b2")
    url = server(_sites_service(lambda body: answer(409, '{"title": "taken"}', *headers))).url
    result, rows = _import(cli, url, tmp_path)
    assert "Traceback" not in result.stderr
    assert {row["error"] for row in rows} == {"taken (HTTP 409)"}, rows


def test_a_non_ascii_header_on_a_list_and_a_get_is_read_as_any_answer(cli, server):
    url = server(lambda line, _: answer(200, json.dumps(ROW) if "/b-1 " in line else page([ROW]),
                                        "X-Note: caf\u00e9 \u00b2")).url
    listed = run(cli, url, "-o", "json", "branches", "list")
    assert listed.exit_code == 0 and json.loads(listed.stdout) == [ROW], listed
    got = run(cli, url, "-o", "json", "branches", "get", "b-1")
    assert got.exit_code == 0 and json.loads(got.stdout) == ROW, got


def test_a_100_mb_header_on_a_list_says_what_it_is(cli, server):
    tries: list[str] = []

    def answers(line: str, _: bytes) -> bytes:
        tries.append(line)
        return answer(200, page([ROW]), HUGE_HEADER)

    url = server(answers).url
    result = run(cli, url, "branches", "list")
    assert result.exit_code == 1, result
    assert one_line(result) == (f"error: refused the answer of {url}: the answer's status line and headers are "
                                "larger than 100 KiB")
    assert len(tries) == 1  # refused, not asked again


def test_a_100_mb_header_on_an_import_says_what_it_is(cli, server, tmp_path):
    url = server(_sites_service(lambda body: answer(201, json.dumps({**ROW, "clientId": "c-1"}), HUGE_HEADER))).url
    result, rows = _import(cli, url, tmp_path, "--concurrency", "2")
    assert result.exit_code == 10, result
    assert {row["error"] for row in rows} == {
        "refused the answer of " + url + ": a line of the answer's status line and headers is longer than 64 KiB"}, rows


def test_too_many_headers_on_an_import_say_what_they_are(cli, server, tmp_path):
    many = [f"X-H{n}: {n}" for n in range(150)]
    url = server(_sites_service(lambda body: answer(201, json.dumps({**ROW, "clientId": "c-1"}), *many))).url
    result, rows = _import(cli, url, tmp_path)
    assert result.exit_code == 10, result
    assert {row["error"] for row in rows} == {
        f"refused the answer of {url}: the answer has too many headers (got more than 100 headers)"}, rows


def test_a_content_length_of_a_superscript_digit_is_a_service_error(cli, server):
    """httpx (h11) refuses the header itself: the service answered, so it is not "cannot reach" (issue 45)."""
    url = server(lambda line, body: answer(200, page([ROW]), "Content-Length: \u00b2")).url
    result = run(cli, url, "branches", "list")
    assert result.exit_code == 1, result
    assert one_line(result) == (f"error: refused the answer of {url}: the answer's status line or headers are "
                                "not HTTP (bad Content-Length)")
