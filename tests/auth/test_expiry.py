"""When the access token expires (G2), with a local clock that is off: a JWT's lifetime (`exp - iat`)
counts from the moment the token was received, so a skewed clock does not make every command refresh."""

from __future__ import annotations

import base64
import json
import time

import httpx

from wfctl.api.client import Client
from wfctl.api.session.auth import TokenAuth
from wfctl.api.session.store import FileStore, TokenPair

BASE = "https://wams.example.com"


def jwt(**claims: float) -> str:
    def part(data: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part(claims)}.sig"


def test_jwt_lifetime_counts_from_receipt():
    now = 1_700_000_000.0
    server_now = now - 3600  # the local clock is an hour ahead of the service
    token = jwt(iat=server_now, exp=server_now + 900)
    pair = TokenPair.from_response({"accessToken": token, "refreshToken": "r"}, username=None,
                                   base_url=None, now=now)
    assert pair.expires_at == now + 900
    assert not pair.needs_refresh(now + 10)
    assert pair.needs_refresh(now + 850)


def test_expiry_precedence():
    now = 1_700_000_000.0
    token = jwt(iat=now - 3600, exp=now - 2700)
    # expiresIn wins over the JWT
    assert TokenPair.from_response({"accessToken": token, "expiresIn": 60}, username=None, base_url=None,
                                   now=now).expires_at == now + 60
    # exp alone, ahead of the local clock: used as it is
    assert TokenPair.from_response({"accessToken": jwt(exp=now + 300)}, username=None, base_url=None,
                                   now=now).expires_at == now + 300
    # exp alone, already past by the local clock (which must be ahead): the 900 s default
    assert TokenPair.from_response({"accessToken": jwt(exp=now - 10)}, username=None, base_url=None,
                                   now=now).expires_at == now + 900
    # nonsense numbers are ignored
    for bad in ({"exp": float("inf")}, {"exp": True}, {"iat": now, "exp": now - 5}):
        pair = TokenPair.from_response({"accessToken": jwt(**bad), "expiresIn": "soon"}, username=None,
                                       base_url=None, now=now)
        assert pair.expires_at == now + 900
    assert TokenPair.from_response({"accessToken": "opaque", "expiresIn": float("inf")}, username=None,
                                   base_url=None, now=now).expires_at == now + 900


def test_a_skewed_clock_does_not_make_every_command_refresh(tmp_path):
    """The service's clock is an hour behind ours and it sends JWTs without expiresIn."""
    skew = 3600.0
    state = {"refreshes": 0, "token": ""}

    def issue() -> dict[str, str]:
        service_now = time.time() - skew
        state["token"] = jwt(iat=service_now, exp=service_now + 900, n=state["refreshes"])
        return {"accessToken": state["token"], "refreshToken": f"r{state['refreshes']}"}

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/identity/refresh":
            state["refreshes"] += 1
            return httpx.Response(200, json=issue())
        assert request.headers["Authorization"] == f"Bearer {state['token']}"
        return httpx.Response(200, json={"name": "A"})

    store = FileStore(tmp_path / "t.json", tmp_path / "t.lock")
    store.save(TokenPair.from_response(issue(), username="u", base_url=BASE))  # the login
    for _ in range(3):  # three commands, each a new process
        client = Client(BASE, auth=TokenAuth(store, BASE), transport=httpx.MockTransport(handle))
        assert client.get_agency() == {"name": "A"}
    assert state["refreshes"] == 0
