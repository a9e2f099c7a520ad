"""G20 in the sandbox: a POST with `Idempotency-Key` is applied once, the same key and body replay its
answer, whatever the concurrency and in any server process (the key is the table's primary key)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from wfctl.sandbox.auth import Principal
from wfctl.sandbox.handling import Service, store_answer
from wfctl.sandbox.problems import ApiProblem, from_exception
from wfctl.sandbox.store import CommitUnknown

IDEMPOTENCY_WINDOW = 24 * 3600
IDEMPOTENCY_WAIT = 10.0  # seconds a request waits for the answer of another with the same key
IDEMPOTENCY_ABANDONED = 60.0  # seconds after which a reservation without an answer is taken over

Handler = Callable[[Request, Principal], Awaitable[Response]]


async def idempotent(api: Service, request: Request, who: Principal, key: str, handler: Handler) -> Response:
    """G20: a POST with `Idempotency-Key` is applied once; the same key and body replay the answer.

    The first request reserves the key (the table's primary key: of any number of concurrent requests,
    in any server process, one gets it), runs, and stores its answer there; a request that finds the
    key reserved waits for that answer. A create stores its answer in the transaction that stores its
    record (Service.create): both or neither. A 5xx answer releases the key, except when a create's
    COMMIT was lost on its way (the record may be stored): the next request with the key asks the
    database first (Service.resolve_unknown). A reservation left by a process that died mid-request is
    taken over after IDEMPOTENCY_ABANDONED seconds."""
    if not key.strip() or len(key) > 255:
        raise ApiProblem(400, "Idempotency-Key must be 1-255 characters",
                         errors={"Idempotency-Key": ["must be 1-255 characters"]})
    fingerprint = _fingerprint(request.url.path, await request.body())
    waited_until = time.monotonic() + IDEMPOTENCY_WAIT
    while True:
        now = time.time()
        reserved = api.db.execute(
            "INSERT INTO idempotency_keys (user_id, key, fingerprint, status, media_type, body, created_at) "
            "VALUES (?, ?, ?, 0, '', ?, ?) ON CONFLICT (user_id, key) DO UPDATE SET "
            "fingerprint = excluded.fingerprint, status = 0, media_type = '', body = excluded.body, "
            "created_at = excluded.created_at WHERE idempotency_keys.created_at < ? "
            "OR (idempotency_keys.status = 0 AND idempotency_keys.created_at < ?) RETURNING status",
            (who.user_id, key, fingerprint, b"", now, now - IDEMPOTENCY_WINDOW,
             now - IDEMPOTENCY_ABANDONED)).fetchone()
        if reserved is not None:
            return await _answer_once(api, request, who, key, handler)
        row = api.db.execute("SELECT fingerprint, status, media_type, body FROM idempotency_keys "
                              "WHERE user_id = ? AND key = ?", (who.user_id, key)).fetchone()
        if row is None:  # released meanwhile (that request failed): reserve it again
            continue
        if row[0] != fingerprint:
            raise ApiProblem(422, "this Idempotency-Key was already used with another request body")
        if row[1]:
            return Response(bytes(row[3]), status_code=row[1], media_type=row[2],
                            headers={"Idempotent-Replayed": "true"})
        if (who.user_id, key) in api.unknown:  # a create of this process whose COMMIT's outcome was lost
            answer = api.resolve_unknown((who.user_id, key))
            if answer is not None:
                return Response(bytes(answer.body), status_code=answer.status_code, media_type=answer.media_type,
                                headers={"Idempotent-Replayed": "true"})
            continue  # not stored: the key was released; reserve it again
        if time.monotonic() > waited_until:
            raise ApiProblem(503, "a request with this Idempotency-Key is still being answered; retry it",
                             headers={"Retry-After": "1"})
        await asyncio.sleep(0.02)


async def _answer_once(api: Service, request: Request, who: Principal, key: str, handler: Handler) -> Response:
    """Run the request that reserved `key`, and keep its answer (or release the key after a 5xx). A
    create keeps its answer itself, with its record (Service.create)."""
    request.state.idempotency_key = (who.user_id, key)
    try:
        response = await handler(request, who)
    except ApiProblem as exc:
        response = from_exception(exc)
    except CommitUnknown:
        raise  # the record may be stored: the reservation stays for the next request to resolve
    except BaseException:
        api.db.execute("DELETE FROM idempotency_keys WHERE user_id = ? AND key = ?", (who.user_id, key))
        raise
    if getattr(request.state, "idempotency_answered", False):
        return response
    if response.status_code < 500:
        store_answer(api.db, (who.user_id, key), response)
    else:
        api.db.execute("DELETE FROM idempotency_keys WHERE user_id = ? AND key = ?", (who.user_id, key))
    return response


def _fingerprint(path: str, raw: bytes) -> str:
    try:
        # Keys sorted, a key sent twice kept twice: such a body is a 400, and a body without the twin is
        # another body, not its replay.
        canonical = json.dumps(json.loads(raw, object_pairs_hook=_sorted_pairs), separators=(",", ":")).encode()
    except (ValueError, UnicodeDecodeError, RecursionError):
        canonical = raw
    return hashlib.sha256(path.encode() + b"\n" + canonical).hexdigest()


def _sorted_pairs(pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return sorted(pairs, key=lambda pair: pair[0])
