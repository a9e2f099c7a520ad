"""The SDK's create protocol, on any deployment: a create applied once and reported once (G20, with
the look-up by natural key, G12, when an answer is lost). `Client.create_outcome`, `find_by_name` and
`find_same` are these functions; `client` is a Client (its `request`, `send`, `get_record` and
`iter_records`). The update protocol (G13) is wfctl.api.updates."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from wfctl.api.errors import Conflict, NetworkError, NotFound, ServerError
from wfctl.api.resources import RESOURCES
from wfctl.api.responses import decode_body, snippet

if TYPE_CHECKING:
    import httpx

    from wfctl.api.lean import LeanSender

#: How often a create whose answer was lost, and that its natural key does not find, is sent again.
LOST_ANSWER_RESENDS = 2
#: Answers to a create after which the record may exist all the same (a proxy's timeout, a crash after
#: the commit): looked up by natural key before the create is sent again.
MAYBE_APPLIED = frozenset({408, 425, 500, 502, 504})


def create_outcome(client: Any, kind: str, parent_id: str | None, body: dict[str, Any], *,
                   idempotency_key: str | None = None, sender: LeanSender | None = None,
                   maybe_applied: bool = False, find: Callable[[], dict[str, Any] | None] | None = None,
                   resend_first: bool = True) -> tuple[dict[str, Any], bool]:
    """POST a new record; return (the record, made): `made` is False when the record was found rather
    than made by this call (someone else made it, or a deployment that ignores keys cannot say).

    When an answer is lost (or a 408/425/5xx says the create may have been applied), the same POST is
    sent again under the same Idempotency-Key: the service replays the first answer if it applied it
    (G20: that record is ours), or applies it now. A 409 to such a resend means the record exists
    and nothing says it is ours (someone else made it, or the deployment ignores keys): it is looked
    up by its natural key and returned as found. A fresh 201 to a resend on a deployment that ignores
    keys and names alike may have made a second record: the one just made goes again, and the first
    is returned as found. `maybe_applied` says an earlier call with this key may have been applied
    (a retry, a resumed run); `find` looks the record up by its natural key (default: `find_same`),
    e.g. through a bulk run's name map. An answer replayed for a record since deleted is not taken
    for done: the create is sent again under a new key. `sender` is a lean writer of bulk runs.

    `resend_first=False` (one create, `create_record`): after a lost answer the record is looked up
    first and, found, taken as made by this call; right for a single create on every deployment
    (one that ignores keys and names and drops answers included), where nobody asks who made it.
    A bulk run, which records what it made so that undo takes back only that, resends first."""
    if body.get("id") not in (None, ""):  # a body that carries an id is that record (as an import row)
        from wfctl.api.errors import InvalidId

        raise InvalidId(f"the {kind} to create carries the id {body['id']!r}: it is that record, which "
                        f"update_record({kind!r}, {body['id']!r}, ...) changes; remove the id to create a new one")
    key = idempotency_key or new_idempotency_key()
    path = collection_path(kind, parent_id)
    look_up = find or (lambda: client.find_same(kind, parent_id, body))
    doubt = maybe_applied  # an earlier POST with this key may have been applied
    asked = False  # the last POST asked who made a record found by name, and its answer was lost too
    for resend in range(LOST_ANSWER_RESENDS + 1):
        last = resend == LOST_ANSWER_RESENDS
        if doubt:
            if asked and resend_first:
                same = same_records(client, kind, parent_id, body)
                if len(same) > 1:  # each resend made one: the deployment ignores keys and names
                    for extra in same[1:]:
                        client.request("DELETE", record_path(kind, str(extra["id"])))
                    return same[0], False
            found = look_up()
            if found is not None and not resend_first:
                return found, True
            asked = found is not None  # found: the same key again says whether it is this call's
        try:
            if sender is not None:
                answer = sender.request("POST", path, body, key)
                replayed = sender.replayed()
            else:
                response = client.send("POST", path, json=body, idempotency_key=key)
                answer, replayed = decode_body(response), was_replayed(response)
        except NetworkError:
            if last:
                raise
            doubt = True
            continue  # the answer is lost: look it up, and ask with the same key
        except ServerError as exc:
            if exc.status is not None and 200 <= exc.status < 300:
                answer, replayed = None, False  # applied, the answer not JSON: found below, as for an empty body
            elif exc.status not in MAYBE_APPLIED or last:
                raise
            else:
                doubt = True
                continue
        except Conflict:
            found = look_up() if doubt else None
            if found is None:
                raise
            return found, not resend_first
        record = record_of(answer)
        if record.get("id") is None:  # a 2xx without the record (G15): find what it made (G20)
            found = look_up()
            if found is None:
                raise ServerError(f"the service accepted the {kind} but did not answer with it, and no "
                                  f"{kind} named {body.get('name')!r} holds what was sent")
            return found, True
        if replayed:
            try:
                client.get_record(kind, str(record["id"]))
            except NotFound:
                return create_outcome(client, kind, parent_id, body, sender=sender, find=find,
                                           resend_first=resend_first)
            return record, True
        if asked and resend_first:
            twin = _twin(client, kind, parent_id, body, str(record["id"]))
            if twin is not None:
                return twin, False
        return record, True
    raise AssertionError("unreachable")


def same_records(client: Any, kind: str, parent_id: str | None, body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every record named as `body` that holds every field of it, in the service's order (oldest first)."""
    from wfctl.api.records import natural_key, same_record

    wanted = natural_key(body.get("name"))
    out = []
    for record in client.iter_records(kind, parent_id):
        if natural_key(record.get("name")) == wanted:
            full = record if kind == "branch" else client.get_record(kind, str(record["id"]))
            if same_record(body, full):
                out.append(full)
    return out


def _twin(client: Any, kind: str, parent_id: str | None, body: dict[str, Any], made: str) -> dict[str, Any] | None:
    """After a resend answered by a fresh create: another record of that name holding the same fields
    (the first send was applied on a deployment that ignores keys and names) is kept, and the one
    just made deleted again. None when there is no such record."""
    for full in same_records(client, kind, parent_id, body):
        if str(full.get("id")) != made:
            client.request("DELETE", record_path(kind, made))
            return full
    return None


def find_by_name(client: Any, kind: str, parent_id: str | None, name: Any) -> dict[str, Any] | None:
    """The record of `kind` under `parent_id` whose name has the natural key of `name` (G12), as the
    list shows it; None when there is none."""
    from wfctl.api.records import natural_key

    wanted = natural_key(name)
    for record in client.iter_records(kind, parent_id):
        if natural_key(record.get("name")) == wanted:
            return record
    return None


def find_same(client: Any, kind: str, parent_id: str | None, body: dict[str, Any]) -> dict[str, Any] | None:
    """The full record named as `body` that holds every field of `body` (a create of ours whose
    answer was lost), or None."""
    from wfctl.api.records import same_record

    found = client.find_by_name(kind, parent_id, body.get("name"))
    if found is None:
        return None
    if kind != "branch":  # list items of clients and sites lack fields a create may carry
        found = client.get_record(kind, str(found["id"]))
    return found if same_record(body, found) else None


def collection_path(kind: str, parent_id: str | None = None) -> str:
    """Where records of `kind` are created: a site under its client, the others at the top."""
    return RESOURCES[kind].collection_path(parent_id)


def record_path(kind: str, record_id: str) -> str:
    return RESOURCES[kind].record_path(record_id)


def new_idempotency_key() -> str:
    import uuid  # only writes need one; uuid imports platform (~4 ms)

    return str(uuid.uuid4())


def was_replayed(response: httpx.Response) -> bool:
    """Whether the service replayed an earlier answer for this Idempotency-Key (a sandbox extension)."""
    return response.headers.get("idempotent-replayed", "").lower() == "true"




def record_of(body: Any) -> dict[str, Any]:
    if isinstance(body, dict):
        return body
    if body is None:
        return {}
    raise ServerError("the service answered with an unexpected document", detail=snippet(str(body)))
