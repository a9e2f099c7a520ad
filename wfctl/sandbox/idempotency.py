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
from wfctl.sandbox.handling import KeyRef, Service, release, store_answer
from wfctl.sandbox.problems import ApiProblem, from_exception
from wfctl.sandbox.store import CommitUnknown, Store

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
    database first (Service.resolve_unknown).

    A reservation names its holder (`Store.holder`: the process, and on PostgreSQL its database session;
    kept in `media_type` while the key has no answer). A reservation whose holder is gone is taken over
    at once rather than waited on: one of this process that it is no longer answering (its request failed
    with the database and could not release it), one of a process that died or of a database session that
    ended (a restart, a lost connection, a killed worker: its uncommitted create went with it). A
    reservation a failed request could not release (the database refused that too) is released by the
    next request of its process. Only a reservation whose holder cannot be judged (written by an earlier
    version) is taken over after IDEMPOTENCY_ABANDONED seconds."""
    if not key.strip() or len(key) > 255:
        raise ApiProblem(400, "Idempotency-Key must be 1-255 characters",
                         errors={"Idempotency-Key": ["must be 1-255 characters"]})
    if api.unreleased:  # reservations a failed request could not release: released now
        _release_pending(api)
    fingerprint = _fingerprint(request.url.path, await request.body())
    waited_until = time.monotonic() + IDEMPOTENCY_WAIT
    ref = (who.user_id, key)
    while True:
        now = api.clock.time()
        holder = api.store.holder()
        reserved = api.db.execute(
            "INSERT INTO idempotency_keys (user_id, key, fingerprint, status, media_type, body, created_at) "
            "VALUES (?, ?, ?, 0, ?, ?, ?) ON CONFLICT (user_id, key) DO UPDATE SET "
            "fingerprint = excluded.fingerprint, status = 0, media_type = excluded.media_type, "
            "body = excluded.body, created_at = excluded.created_at WHERE idempotency_keys.created_at < ? "
            "OR (idempotency_keys.status = 0 AND idempotency_keys.created_at < ?) RETURNING status",
            (*ref, fingerprint, holder, b"", now, now - IDEMPOTENCY_WINDOW,
             now - IDEMPOTENCY_ABANDONED)).fetchone()
        if reserved is not None:
            return await _answer_once(api, request, who, ref, holder, handler)
        row = api.db.execute("SELECT fingerprint, status, media_type, body FROM idempotency_keys "
                              "WHERE user_id = ? AND key = ?", ref).fetchone()
        if row is None:  # released meanwhile (that request failed): reserve it again
            continue
        if row[0] != fingerprint:
            raise ApiProblem(422, "this Idempotency-Key was already used with another request body")
        if row[1]:
            return Response(bytes(row[3]), status_code=row[1], media_type=row[2],
                            headers={"Idempotent-Replayed": "true"})
        if ref in api.unknown:  # a create of this process whose COMMIT's outcome was lost
            answer = api.resolve_unknown(ref)
            if answer is not None:
                return Response(bytes(answer.body), status_code=answer.status_code, media_type=answer.media_type,
                                headers={"Idempotent-Replayed": "true"})
            continue  # not stored: the key was released; reserve it again
        if _gone(api, ref, row[2]):
            taken = api.db.execute(
                "UPDATE idempotency_keys SET media_type = ?, created_at = ? WHERE user_id = ? AND key = ? "
                "AND status = 0 AND media_type = ? RETURNING status", (holder, now, *ref, row[2])).fetchone()
            if taken is not None:
                return await _answer_once(api, request, who, ref, holder, handler)
            continue  # answered or taken over by another meanwhile: look again
        if time.monotonic() > waited_until:
            raise ApiProblem(503, "a request with this Idempotency-Key is still being answered; retry it",
                             headers={"Retry-After": "1"})
        await asyncio.sleep(0.02)


def _gone(api: Service, ref: KeyRef, holder: str) -> bool:
    """Whether the holder of a reservation is gone (see `idempotent`)."""
    if not holder:
        return False  # reserved by an earlier version of the sandbox: its time limit applies
    if api.store.mine(holder):  # this process: gone unless a request of it is still answering
        return ref not in api.answering
    return api.store.holder_gone(holder)


async def _answer_once(api: Service, request: Request, who: Principal, ref: KeyRef, holder: str,
                       handler: Handler) -> Response:
    """Run the request that reserved `key`, and keep its answer (or release the key after a 5xx). A
    create keeps its answer itself, with its record (Service.create), if it still holds the key."""
    request.state.idempotency_key = ref
    request.state.idempotency_holder = holder
    api.answering.add(ref)
    try:
        response = await handler(request, who)
    except ApiProblem as exc:
        response = from_exception(exc)
    except CommitUnknown:
        raise  # the record may be stored: the reservation stays for the next request to resolve
    except BaseException:
        _release(api, ref, holder)
        raise
    finally:
        api.answering.discard(ref)
    if getattr(request.state, "idempotency_answered", False):
        return response
    if response.status_code < 500:
        store_answer(api.db, ref, response, holder)
    else:
        _release(api, ref, holder)
    return response


def _release(api: Service, ref: KeyRef, holder: str) -> None:
    """Release a reservation after its request failed; when the database cannot take that either (it is
    why the request failed), the next request of this process releases it (`idempotent`)."""
    try:
        release(api.db, ref, holder)
    except Exception:
        api.unreleased[ref] = holder


def _release_pending(api: Service) -> None:
    """The releases failed requests could not make; those the database still refuses are kept for later
    (the request at hand goes on: its own writes say whether the database can serve it)."""
    for ref, holder in list(api.unreleased.items()):
        try:
            release(api.db, ref, holder)
        except Exception:
            return
        api.unreleased.pop(ref, None)


def release_abandoned(store: Store) -> int:
    """At a server's start (a worker started again included): release the reservations whose holder is gone
    (a process that died, a database session that ended); how many. Waiting requests would take them over
    anyway (`idempotent`); released here, no retry has to find them first."""
    rows = store.db.execute("SELECT user_id, key, media_type FROM idempotency_keys WHERE status = 0").fetchall()
    released = 0
    for user_id, key, holder in rows:
        if holder and not store.mine(holder) and store.holder_gone(holder):
            release(store.db, (user_id, key), holder)
            released += 1
    return released


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
