"""The sandbox's identity endpoints (G1-G4, G22): login, with its throttle (accounts.py) and a password check
that costs the same whether the user exists, refresh, and logout (G22)."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import Response

from wfctl.sandbox import validation as v
from wfctl.sandbox.auth import dummy_hash, verify_password
from wfctl.sandbox.handling import (
    Service,
    json_answer,
    log_note,
    read_body,
)
from wfctl.sandbox.problems import ApiProblem
from wfctl.sandbox.seed import is_published


async def login(api: Service, request: Request) -> Response:
    field = api.quirks.login_field  # G1 tolerance: another name for the user field
    schema = v.LOGIN if field == "username" else {field: v.LOGIN["username"], "password": v.LOGIN["password"]}
    body = v.validate(await read_body(request), schema, required=(field, "password"))
    username = body[field]
    user = api.tokens.find_user(username)
    stored = user[1] if user else dummy_hash()
    # scrypt is deliberately slow: keep it off the event loop. It runs whether the user exists or not,
    # and whether the login is locked or not, so the time of an answer tells neither.
    verified = await asyncio.to_thread(verify_password, body["password"], stored)
    address = request.client.host if request.client else ""
    wait = api.throttle.locked_for(username, address)
    if wait:  # even a right password: the lock holds until the failures leave the window
        log_note(request, f"login throttled: {username}")
        raise ApiProblem(429, "too many failed logins for this user name or from this address; try again in "
                              f"{_minutes(wait)}", headers={"Retry-After": str(wait)})
    if user is None or not verified or (api.exposed and is_published(username, body["password"])):
        api.throttle.failed(username, address)
        log_note(request, f"login failed: {username}")
        raise ApiProblem(401, "wrong username or password", headers={"WWW-Authenticate": "Bearer"})
    api.throttle.succeeded(username)
    log_note(request, username, user=username)
    return json_answer(_token_answer(api, api.tokens.login(user[0])))


async def refresh(api: Service, request: Request) -> Response:
    body = v.validate(await read_body(request), v.REFRESH,
                      required=("accessToken", "refreshToken"))
    return json_answer(_token_answer(api, api.tokens.refresh(body["accessToken"], body["refreshToken"])))


async def logout(api: Service, request: Request) -> Response:
    """G22 (a sandbox extension): 204 whether the refresh token named a login or not."""
    body = v.validate(await read_body(request), v.LOGOUT, required=("refreshToken",))
    api.tokens.logout(body["refreshToken"])
    return Response(status_code=204)


def _token_answer(api: Service, tokens: dict[str, object]) -> dict[str, object]:
    if api.quirks.no_expires_in:  # G2 tolerance
        tokens.pop("expiresIn", None)
    return tokens


def _minutes(seconds: int) -> str:
    minutes = -(-seconds // 60)
    return f"{seconds} seconds" if seconds < 60 else f"{minutes} minute{'s' if minutes != 1 else ''}"
