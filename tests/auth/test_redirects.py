"""Redirects (G8): the service's own are followed (httpx's rules for the method and the body), with the
token, at most MAX_REDIRECTS of them; one to another origin is refused before anything is sent there.

The sandbox answers a path with a trailing slash that it serves without one (`/api/branches/`) with a 307
to its own origin: a real redirect on a real socket. Loops and foreign origins are faults a real service
cannot be made to produce on demand: httpx.MockTransport."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest

from tests.fixtures.sandbox import ADMIN, login_token
from wfctl.api import errors
from wfctl.api.client import MAX_REDIRECTS, Client
from wfctl.api.session.auth import StaticTokenAuth
from wfctl.errors import exit_code_for, message_for

BASE = "https://wams.example.com"


def test_cli_follows_the_services_307_with_the_token_and_the_body(logged_in, sandbox):
    listed = logged_in("api", "GET", "/api/branches/", "-f", "pageSize=100")
    assert listed.exit_code == 0, listed
    assert json.loads(listed.stdout)["data"]  # the 307 was followed, with the token (else: 401)
    name = f"redirected-{uuid.uuid4().hex[:8]}"
    created = logged_in("api", "POST", "/api/branches/", "-f", f"name={name}", "-f", "phone=0161 496 0001")
    assert created.exit_code == 0, created
    assert json.loads(created.stdout)["name"] == name  # a 307 keeps the method and the body
    token = login_token(sandbox, *ADMIN)["accessToken"]
    with Client(sandbox.url, auth=StaticTokenAuth(token, sandbox.url)) as client:
        held = [b for b in client.iter_branches() if b["name"] == name]
    assert [b["phone"] for b in held] == ["0161 496 0001"]  # created once, as sent


class Recorder:
    """A service answering from `answers(request)`; every request it saw in `requests`."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        return self.answer(request)  # type: ignore[no-any-return]


def client(rec: Recorder) -> Client:
    return Client(BASE, transport=httpx.MockTransport(rec), auth=StaticTokenAuth("acc-1", BASE),
                  sleep=lambda _: None)


def moved(status: int, location: str) -> httpx.Response:
    return httpx.Response(status, headers={"Location": location})


def test_a_redirect_loop_stops_after_max_redirects():
    rec = Recorder(lambda request: moved(302, "/api/agency/"))
    with pytest.raises(errors.ServerError) as info:
        client(rec).get_agency()
    assert message_for(info.value) == f"too many redirects (more than {MAX_REDIRECTS})"
    assert exit_code_for(info.value) == 1
    assert len(rec.requests) == MAX_REDIRECTS + 1  # the request, and 5 redirects followed


def test_foreign_origin_after_a_same_origin_hop_is_refused_before_sending():
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/agency/":
            return moved(308, "/api/agency")
        return moved(302, "https://evil.example.com/api/agency")

    rec = Recorder(answer)
    with pytest.raises(errors.ForeignOrigin) as info:
        client(rec).get_agency()
    assert message_for(info.value) == ("the service redirected to https://evil.example.com, another origin; "
                                       "not followed, no token sent there")
    assert exit_code_for(info.value) == 1
    assert [str(r.url) for r in rec.requests] == [f"{BASE}/api/agency/", f"{BASE}/api/agency"]
    assert all(r.headers["Authorization"] == "Bearer acc-1" for r in rec.requests)


@pytest.mark.parametrize(("location", "shown"), [
    ("http://wams.example.com/api/agency", "http://wams.example.com"),  # another scheme: another origin
    ("//evil.example.com:8443/x", "https://evil.example.com:8443"),  # scheme-relative
    ("https://wams.example.com@evil.example.com/x", "https://evil.example.com"),
])
def test_every_form_of_another_origin_is_refused(location, shown):
    rec = Recorder(lambda request: moved(301, location))
    with pytest.raises(errors.ForeignOrigin) as info:
        client(rec).get_agency()
    assert message_for(info.value) == (f"the service redirected to {shown}, another origin; not followed, "
                                       "no token sent there")
    assert len(rec.requests) == 1


def _then_ok(status: int) -> Recorder:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/branches":
            return moved(status, "/api/branches/moved")
        return httpx.Response(200, json={"id": "b1", "name": "N", "method": request.method})

    return Recorder(answer)


@pytest.mark.parametrize(("status", "method", "then"), [
    (303, "POST", "GET"), (302, "POST", "GET"), (301, "POST", "GET"), (307, "POST", "POST"), (308, "POST", "POST"),
    (303, "PUT", "GET"), (302, "PUT", "GET"), (301, "PUT", "PUT"), (307, "PUT", "PUT"), (308, "PUT", "PUT"),
])
def test_the_method_and_body_after_a_redirect_are_httpx_s(status, method, then):
    """303 and 302: a GET without the body; 301: a POST becomes a GET, every other method stays (RFC 9110
    15.4.2: the method change is a historical one of POST); 307 and 308 keep the method and the body."""
    rec = _then_ok(status)
    client(rec).request(method, "/api/branches", json={"name": "N"}, idempotency_key="k-1")
    first, second = rec.requests
    assert (second.method, second.url.path) == (then, "/api/branches/moved")
    assert second.headers["Authorization"] == "Bearer acc-1"
    assert second.headers["Idempotency-Key"] == "k-1"
    if then == "GET":
        assert second.content == b"" and "Content-Length" not in second.headers
    else:
        assert second.content == first.content and json.loads(second.content) == {"name": "N"}


def test_the_bulk_writer_hands_a_redirect_to_the_client_which_follows_it(sandbox):
    """The lean writer (bulk imports) does not follow redirects itself: it hands the request to the Client,
    which follows the service's 307 as for any request (it returned None for the record before)."""
    token = login_token(sandbox, *ADMIN)["accessToken"]
    name = f"lean-redirected-{uuid.uuid4().hex[:8]}"
    with Client(sandbox.url, auth=StaticTokenAuth(token, sandbox.url)) as api:
        writer = api._runs.lean_writer()
        assert writer is not None
        made = writer.request("POST", "/api/branches/", {"name": name, "phone": "0161 496 0002"},
                              str(uuid.uuid4()))
        assert made["name"] == name and made["id"]
        assert writer.replayed() is False
        held = [b for b in api.iter_branches() if b["name"] == name]
    assert [b["id"] for b in held] == [made["id"]]  # created once
