"""Odd answers a real service never sends on purpose, each seen from outside (issue 30 section 6): the
real CLI (in-process, through its error boundary) or the lean writer against a server of this package's
own that answers what the test says. Each ends as one line and its documented exit code, never a
traceback, and what was read before the odd part is still printed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.hostile.hostile_server import HostileServer
from wfctl.api import errors
from wfctl.api.client import Client
from wfctl.api.session.auth import StaticTokenAuth

ROW = {"id": "b-1", "name": "North", "address": "", "phone": "", "email": "", "createdOn": "2026-01-01T00:00:00Z"}


def answer(status: int, body: bytes | str, *headers: str) -> bytes:
    """A whole HTTP/1.1 answer: the status line, `headers` as given, the body (Content-Length added
    unless a header names it)."""
    data = body.encode() if isinstance(body, str) else body
    lines = [f"HTTP/1.1 {status} X", "Content-Type: application/json", "Connection: close", *headers]
    if not any(h.lower().startswith("content-length:") for h in headers):
        lines.append(f"Content-Length: {len(data)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + data  # as a header is read


def page(rows: list[Any], **fields: Any) -> str:
    return json.dumps({"data": rows, "pageNumber": 1, "pageSize": 10, "pageCount": 1,
                       "totalRecordCount": len(rows), **fields})


def run(cli: Any, url: str, *args: str) -> Any:
    return cli(*args, env=odd_env(url))


def odd_env(url: str) -> dict[str, str]:
    """What a wfctl run against the server at `url` needs: the service and a token."""
    return {"WFCTL_ACCESS_TOKEN": "odd-answers-token", "WFCTL_BASE_URL": url}


def one_line(result: Any) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result  # one line, no traceback
    return lines[0]


def lean(url: str) -> Any:
    sender = Client(url, auth=StaticTokenAuth("odd-answers-token", url))._runs.lean_writer()
    assert sender is not None
    return sender


# -- digits that str.isdigit takes and float/int do not ------------------------------------------------
def test_a_retry_after_of_a_superscript_digit_is_a_backoff_not_a_crash(cli, server):
    tries: list[str] = []

    def answers(line: str, body: bytes) -> bytes:
        tries.append(line)
        if len(tries) == 1:
            return answer(503, '{"title": "busy"}', "Retry-After: \u00b2")
        return answer(200, page([ROW]))

    url = server(answers).url
    result = run(cli, url, "-o", "json", "branches", "list")
    assert result.exit_code == 0 and json.loads(result.stdout) == [ROW], result
    assert len(tries) == 2


def test_the_lean_writer_reads_an_answer_whose_content_length_is_a_superscript_digit(server):
    created = json.dumps(ROW).encode()
    url = server(lambda line, body: answer(201, created, "Content-Length: \u00b2")).url
    assert lean(url).request("POST", "/api/branches", {"name": "North"}) == ROW


def test_the_lean_writer_waits_out_a_retry_after_of_a_superscript_digit(server):
    tries: list[str] = []

    def answers(line: str, body: bytes) -> bytes:
        tries.append(line)
        return answer(429, "", "Retry-After: \u00b2") if len(tries) == 1 else answer(200, json.dumps(ROW))

    url = server(answers).url
    assert lean(url).request("PUT", "/api/branches/b-1", {"name": "North"}) == ROW
    assert len(tries) == 2


# -- bodies that json.loads takes and no JSON reader does ----------------------------------------------
@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_in_a_page_is_refused_not_printed_as_json(cli, server, constant):
    body = page([ROW]).replace('"totalRecordCount": 1', f'"totalRecordCount": 1, "score": {constant}')
    url = server(lambda line, _: answer(200, body)).url
    result = run(cli, url, "-o", "json", "branches", "list")
    assert result.exit_code == 1 and result.stdout == "", result
    assert json.loads(one_line(result))["error"] == {
        "status": 200, "title": "the service answered with something that is not JSON",
        "detail": f"{constant} is not a JSON number", "errors": {}, "code": None}


def test_wfctl_api_prints_an_answer_holding_nan_as_the_service_wrote_it(cli, server):
    """`wfctl api` shows a body that is not JSON as its text: NaN is not re-encoded as if it were JSON."""
    url = server(lambda line, _: answer(200, '{"score": NaN}')).url
    result = run(cli, url, "api", "GET", "/api/anything", "-o", "json")
    assert result.exit_code == 0 and result.stdout == '{"score": NaN}\n', result


def test_the_lean_writer_refuses_nan(server):
    url = server(lambda line, _: answer(201, '{"id": "b-1", "hourlyRate": NaN}')).url
    with pytest.raises(errors.ServerError) as info:
        lean(url).request("POST", "/api/branches", {"name": "North"})
    assert info.value.detail == "NaN is not a JSON number"


def test_json_nested_200000_deep_is_one_line(cli, server):
    deep = page([ROW]).replace('"pageNumber": 1', '"x": ' + "[" * 200_000 + "]" * 200_000 + ', "pageNumber": 1')
    url = server(lambda line, _: answer(200, deep)).url
    result = run(cli, url, "branches", "list")
    assert result.exit_code == 1, result
    assert one_line(result) == "error: the service answered with JSON nested too deep to read (HTTP 200)"


def test_an_error_body_nested_200000_deep_is_one_line(cli, server):
    deep = "[" * 200_000 + "]" * 200_000
    url = server(lambda line, _: answer(404, deep)).url
    result = run(cli, url, "branches", "get", "b-1")
    assert result.exit_code == 4, result
    assert one_line(result) == "error: X: " + "[" * 197 + "... (HTTP 404)"


def test_a_refresh_answer_nested_200000_deep_is_one_line(cli, server):
    deep = "[" * 200_000 + "]" * 200_000

    def answers(line: str, _: bytes) -> bytes:
        if line.startswith("POST /identity/login "):
            return answer(200, '{"accessToken": "a", "refreshToken": "r", "expiresIn": 900}')
        if line.startswith("POST /identity/refresh "):
            return answer(200, deep)
        return answer(200, page([ROW]))

    url = server(answers).url
    assert cli.login_as(url, "admin@northwind.test", "pw").exit_code == 0
    (token_file,) = (cli.config_dir / "credentials").glob("*.json")
    token_file.write_text(json.dumps(dict(json.loads(token_file.read_text()), expires_at=1.0)))  # expired
    result = cli("branches", "list")
    assert result.exit_code == 3, result
    assert "the service's refresh answer was not a token pair" in one_line(result)


@pytest.mark.parametrize(("record", "kind"), [("[1, 2]", "an array"), ('"b-2"', "a string"), ("null", "null"),
                                              ("7", "a number")])
def test_a_record_that_is_not_an_object_is_an_error_not_dropped(cli, server, record, kind):
    body = page([ROW]).replace('"data": [', f'"data": [{record}, ')
    url = server(lambda line, _: answer(200, body)).url
    result = run(cli, url, "-o", "json", "branches", "list")
    assert result.exit_code == 1, result
    assert json.loads(one_line(result))["error"]["title"] == \
        f"the service's list answer holds a record that is not an object ({kind})"


# -- nextPage: what was read is printed before a link is refused ---------------------------------------
FOREIGN = "http://127.0.0.2:9/api/branches?pageNumber=2"


@pytest.mark.parametrize("args", [(), ("--limit", "1")])
def test_a_page_whose_foreign_link_is_not_needed_prints_and_succeeds(cli, server, args):
    """One page asked for (or a --limit that page 1 meets): its link is never followed, so never refused."""
    url = server(lambda line, _: answer(200, page([ROW], nextPage=FOREIGN, pageCount=2))).url
    result = run(cli, url, "-o", "json", "branches", "list", *args)
    assert result.exit_code == 0 and json.loads(result.stdout) == [ROW], result


def _a_list_whose_next_page_is_refused(cli, server, link: Any, page_count: int) -> str:
    """`branches list --all -o jsonl` of a first page whose nextPage is `link`: the page's row is printed,
    the run fails (exit 1) and nothing more is asked of the server; the error's title."""
    seen: list[str] = []

    def answers(line: str, _: bytes) -> bytes:
        seen.append(line)
        return answer(200, page([ROW], nextPage=link, pageCount=page_count))

    result = run(cli, server(answers).url, "-o", "jsonl", "branches", "list", "--all")
    assert result.exit_code == 1 and [json.loads(line) for line in result.stdout.splitlines()] == [ROW], result
    assert len(seen) == 1  # nothing was asked of the link
    return str(json.loads(one_line(result))["error"]["title"])


def test_a_list_whose_foreign_link_is_needed_prints_what_was_read_then_refuses(cli, server):
    assert _a_list_whose_next_page_is_refused(cli, server, FOREIGN, 1) == (
        "the service's nextPage points at http://127.0.0.2:9, another origin; not followed, no token sent there")


def test_a_list_in_a_table_prints_its_rows_before_the_refusal(cli, server):
    url = server(lambda line, _: answer(200, page([ROW], nextPage=FOREIGN, pageCount=1))).url
    result = run(cli, url, "branches", "list", "--all")
    assert result.exit_code == 1 and "b-1" in result.stdout and "North" in result.stdout, result
    assert one_line(result).startswith("error: the service's nextPage points at http://127.0.0.2:9")


@pytest.mark.parametrize("link", ["more", "true", "../sites?pageNumber=2"])
def test_a_next_page_that_is_not_a_link_of_this_list_is_not_followed(cli, server, link):
    assert _a_list_whose_next_page_is_refused(cli, server, link, 2) == (
        f"the service's nextPage {link!r} is not a link to a page of this list; not followed")


# -- the login's answer: what is stored must be usable later ------------------------------------------
def login_service(server: Callable[..., HostileServer], tokens: dict[str, Any]) -> HostileServer:
    def answers(line: str, _: bytes) -> bytes:
        if line.startswith("POST /identity/login "):
            return answer(200, json.dumps(tokens))
        if line.startswith("POST /identity/refresh "):
            return answer(200, '{"accessToken": "renewed-a", "refreshToken": "renewed-r", "expiresIn": 900}')
        if line.startswith("GET /api/agency/ "):
            return answer(200, '{"id": "a-1", "name": "Northwind Staffing"}')
        return answer(404, '{"title": "Not Found"}')

    return server(answers)


def test_an_expires_in_of_1e300_is_no_lifetime_and_auth_status_reads(cli, server):
    """G2's next rule applies: an opaque token is taken to live 900 s from receipt."""
    url = login_service(server, {"accessToken": "opaque-a", "refreshToken": "opaque-r", "expiresIn": 1e300}).url
    assert cli.login_as(url, "admin@northwind.test", "pw").exit_code == 0
    result = cli("auth", "status", "-o", "json")
    assert result.exit_code == 0, result
    status = json.loads(result.stdout)
    assert 890 <= status["accessTokenExpiresIn"] <= 900, status
    assert status["agency"] == "Northwind Staffing"


def test_an_expiry_stored_past_what_a_date_holds_is_refreshed_not_a_crash(cli, server):
    """A token file an earlier version wrote from `expiresIn: 1e300`: the expiry is unknown, so the pair
    is refreshed before use, and `auth status` reads."""
    service = login_service(server, {"accessToken": "opaque-a", "refreshToken": "opaque-r", "expiresIn": 60})
    assert cli.login_as(service.url, "admin@northwind.test", "pw").exit_code == 0
    (token_file,) = (cli.config_dir / "credentials").glob("*.json")
    token_file.write_text(json.dumps(dict(json.loads(token_file.read_text()), expires_at=1e300)))
    result = cli("auth", "status", "-o", "json")
    assert result.exit_code == 0, result
    assert 890 <= json.loads(result.stdout)["accessTokenExpiresIn"] <= 900, result
    assert [line.split()[1] for line in service.requests] == ["/identity/login", "/identity/refresh", "/api/agency/"]


@pytest.mark.parametrize("token", ["abc\r\nX-Injected: 1", "abc\n", "tok\u00e9n", "a\x00b"])
def test_a_token_that_cannot_be_sent_back_is_refused_at_login_not_stored(cli, server, token):
    url = login_service(server, {"accessToken": token, "refreshToken": "r", "expiresIn": 900}).url
    result = cli.login_as(url, "admin@northwind.test", "pw")
    assert result.exit_code == 3, result
    assert one_line(result) == ("error: the service's token answer holds a token (accessToken) that cannot be sent back "
                                "(a control character, or a character outside ASCII)")
    assert not list(cli.config_dir.glob("credentials/*.json"))  # nothing stored


def test_a_stored_token_holding_crlf_is_a_damaged_file_not_cannot_reach(cli, server):
    url = login_service(server, {"accessToken": "good", "refreshToken": "r", "expiresIn": 900}).url
    assert cli.login_as(url, "admin@northwind.test", "pw").exit_code == 0
    (token_file,) = (cli.config_dir / "credentials").glob("*.json")
    token_file.write_text(json.dumps(dict(json.loads(token_file.read_text()), access_token="ab\r\ncd")))
    result = cli("branches", "list")
    assert result.exit_code == 3, result
    assert one_line(result) == f"error: token file {token_file} is damaged; run `wfctl login`"


@pytest.mark.parametrize("tty", [True, False], ids=["terminal", "pipe"])
def test_an_error_line_shows_a_bidirectional_override_escaped(cli, server, tty):
    """The service's own words (not repr'd by anyone): an override would show the rest of the line reversed."""
    detail = json.dumps({"title": "Not Found", "detail": "no branch \u202egpj.exe"}, ensure_ascii=False)
    url = server(lambda line, _: answer(404, detail)).url
    result = cli("branches", "get", "b-1", env={"WFCTL_ACCESS_TOKEN": "odd-answers-token", "WFCTL_BASE_URL": url},
                 tty=tty)
    assert result.exit_code == 4, result
    assert one_line(result) == "error: Not Found: no branch \\u202egpj.exe (HTTP 404)"
