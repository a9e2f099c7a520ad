"""The SDK's create protocol, on any deployment: a create applied once and reported once (G20, with
the look-up by natural key, G12, when an answer is lost). `Client.create_outcome`, `find_by_name` and
(for the bulk runs, `client._runs`) `find_same` are these functions; `client` is a Client (its `request`,
`send`, `get_record` and `iter_records`). The update protocol (G13) is wfctl.api.records.updates."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from wfctl.api.errors import Conflict, NetworkError, NotFound, ServerError
from wfctl.api.net.responses import decode_body, snippet
from wfctl.api.records.resources import resource

if TYPE_CHECKING:
    import httpx

    from wfctl.api.net.lean import LeanSender

#: How often a create whose answer was lost, and that its natural key does not find, is sent again.
LOST_ANSWER_RESENDS = 2
#: Answers to a create after which the record may exist all the same (a proxy's timeout, a crash after
#: the commit): looked up by natural key before the create is sent again.
MAYBE_APPLIED = frozenset({408, 425, 500, 502, 504})
#: How often a look-up by natural key reads a list that changed while it was read (records_to_look_up).
LOOKUP_READS = 4


class CreateOutcome(NamedTuple):
    """What a create did: `record` as the service holds it; `made`: this call (or the earlier call with
    the same key: a retry, a resumed run) made it; `sure`: False when it was found after a lost answer on
    a deployment that ignores Idempotency-Key, where nothing tells this call from another writer who made
    the same record at the same moment (it is taken as this call's; see `create_outcome`)."""

    record: dict[str, Any]
    made: bool
    sure: bool = True

    def created(self, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        """The record this call made; Conflict when another writer made it while the answer was lost."""
        if not self.made:
            raise Conflict(f"a {kind} named {body.get('name')!r} already exists: another writer made it while "
                           "this create's answer was lost", status=409,
                           detail="the service kept this create's Idempotency-Key and never applied it")
        return self.record


#: Said of a record taken as this call's that the service could not confirm was (`CreateOutcome.sure`).
UNSURE = ("found after its answer was lost; the service ignores Idempotency-Key, so another writer's "
          "identical create at that moment cannot be told apart")


def create_outcome(client: Any, kind: str, parent_id: str | None, body: dict[str, Any], *,
                   idempotency_key: str | None = None, sender: LeanSender | None = None,
                   maybe_applied: bool = False, find: Callable[[], dict[str, Any] | None] | None = None
                   ) -> CreateOutcome:
    """POST a new record, applied once and reported once on every deployment (G20); see CreateOutcome.

    The rule: a record that did not exist when the caller decided to create it (a single create, or
    an import's plan) and exists after this call's own POST holding what was sent is this call's. When
    the answer is lost (or a 408/425/5xx says the create may have been applied) the record is looked
    up by its natural key (`find`, default `find_same`): not there, the POST is sent again under the
    same key; there, the same key asks the service whose it is. A replay says it is this call's. A 409
    says another writer's on a service that keeps keys (our key was never applied), and nothing on one
    that ignores them: the same key once more tells the two apart (a service that keeps keys replays
    its 409). A fresh 2xx to the question comes from a deployment that ignores keys and names alike: the
    one it just made goes again. On a deployment that ignores keys the found record is taken as this
    call's, `sure=False`.

    A 409 to the first POST is raised (Conflict): the record existed. `maybe_applied` says an earlier
    call with this key may have been applied (a retry, a resumed run). An answer replayed for a record
    since deleted is not taken for done: the create is sent again under a new key. `sender` is a lean
    writer of bulk runs."""
    if body.get("id") not in (None, ""):  # a body that carries an id is that record (as an import row)
        from wfctl.api.errors import InvalidId

        raise InvalidId(f"the {kind} to create carries the id {body['id']!r}: it is that record, which "
                        f"update_record({kind!r}, {body['id']!r}, ...) changes; remove the id to create a new one")
    key = idempotency_key or new_idempotency_key()
    path = collection_path(kind, parent_id)
    look_up = find or (lambda: find_same(client, kind, parent_id, body))

    def post() -> tuple[dict[str, Any], bool]:
        if sender is not None:
            answer = sender.request("POST", path, body, key)
            return record_of(answer), sender.replayed()
        response = client.send("POST", path, json=body, idempotency_key=key)
        return record_of(decode_body(response)), was_replayed(response)

    doubt = maybe_applied  # an earlier POST with this key may have been applied
    asked = False  # a POST asked whose a found record is, and its answer was lost
    for resend in range(LOST_ANSWER_RESENDS + 1):
        last = resend == LOST_ANSWER_RESENDS
        found = None
        if doubt:
            if asked:
                same = same_records(client, kind, parent_id, body)
                if len(same) > 1:  # the question made one more: the deployment ignores keys and names
                    for extra in same[1:]:
                        client.request("DELETE", record_path(kind, str(extra["id"])))
                    return CreateOutcome(same[0], True, sure=False)
            found = look_up()
        try:
            record, replayed = post()
        except NetworkError:
            if last:
                raise
            doubt, asked = True, found is not None
            continue  # the answer is lost: look it up, and ask with the same key
        except ServerError as exc:
            if exc.status is not None and 200 <= exc.status < 300:
                record, replayed = {}, False  # applied, the answer not JSON: found below, as for an empty body
            elif exc.status not in MAYBE_APPLIED or last:
                raise
            else:
                doubt, asked = True, found is not None
                continue
        except Conflict as exc:
            if found is None and doubt:
                found = look_up()  # made meanwhile (our lost POST, or another writer's)
            if found is None:
                raise
            if exc.replayed:  # this key's own answer was the 409: the record is another writer's
                return CreateOutcome(found, False)
            return _whose(post, found)
        if record.get("id") is None:  # a 2xx without the record (G15): find what it made (G20)
            made = look_up()
            if made is None:
                raise ServerError(f"the service accepted the {kind} but did not answer with it, and no "
                                  f"{kind} named {body.get('name')!r} holds what was sent")
            return CreateOutcome(made, True)
        if replayed:
            try:
                client.get_record(kind, str(record["id"]))
            except NotFound:
                return create_outcome(client, kind, parent_id, body, sender=sender, find=find)
            return CreateOutcome(record, True)
        if found is not None and str(found.get("id")) != str(record["id"]):
            # a fresh create although the record was there: the deployment ignores keys and names, and
            # the one found is the earlier POST's; the one just made goes again
            client.request("DELETE", record_path(kind, str(record["id"])))
            return CreateOutcome(found, True, sure=False)
        return CreateOutcome(record, True)
    raise AssertionError("unreachable")


def _whose(post: Callable[[], tuple[dict[str, Any], bool]], found: dict[str, Any]) -> CreateOutcome:
    """After a 409 to a POST that asked whose the `found` record is: the same key once more. A service
    that keeps keys replays its 409 (this call's create was never applied: another writer's record); one
    that ignores them answers afresh and cannot say (the record is taken as this call's, unsure). An
    answer lost again is asked again; the last loss is raised."""
    for attempt in range(LOST_ANSWER_RESENDS + 1):
        try:
            record, _ = post()
        except Conflict as exc:
            return CreateOutcome(found, False) if exc.replayed else CreateOutcome(found, True, sure=False)
        except NetworkError:
            if attempt == LOST_ANSWER_RESENDS:
                raise
            continue
        except ServerError as exc:
            if exc.status is not None and 200 <= exc.status < 300:
                return CreateOutcome(found, True, sure=False)  # applied, the answer not JSON: cannot say
            if exc.status not in MAYBE_APPLIED or attempt == LOST_ANSWER_RESENDS:
                raise
            continue
        if record.get("id") is None:
            return CreateOutcome(found, True, sure=False)
        return CreateOutcome(record, True)  # the other record went meanwhile, and this POST made its own
    raise AssertionError("unreachable")


def same_records(client: Any, kind: str, parent_id: str | None, body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every record named as `body` that holds every field of it, in the service's order (oldest first)."""
    from wfctl.api.records.recordrules import natural_key, same_record

    wanted = natural_key(body.get("name"))
    out: dict[str, dict[str, Any]] = {}
    for record in records_to_look_up(client, kind, parent_id):
        if natural_key(record.get("name")) == wanted and str(record.get("id")) not in out:
            full = record if resource(kind).list_is_full else client.get_record(kind, str(record["id"]))
            if same_record(body, full):
                out[str(record.get("id"))] = full
    return list(out.values())


def records_to_look_up(client: Any, kind: str, parent_id: str | None) -> Iterator[dict[str, Any]]:
    """Every record of `kind` under `parent_id`, for a look-up by natural key (G12, G20). A list that
    changed while it was read (other writers' creates moving records between its pages, PaginationError)
    is read again from the start, up to LOOKUP_READS times: a look-up after a lost answer must not fail
    the row because the run's own creates kept the list moving. A record may be given twice."""
    from wfctl.api.errors import PaginationError
    from wfctl.api.records.pagereader import CHANGED

    for attempt in range(LOOKUP_READS):
        try:
            yield from client.iter_records(kind, parent_id)
            return
        except PaginationError as exc:
            if exc.title != CHANGED or attempt == LOOKUP_READS - 1:
                raise


def find_by_name(client: Any, kind: str, parent_id: str | None, name: Any) -> dict[str, Any] | None:
    """The record of `kind` under `parent_id` whose name has the natural key of `name` (G12), as the
    list shows it; None when there is none."""
    from wfctl.api.records.recordrules import natural_key

    wanted = natural_key(name)
    for record in records_to_look_up(client, kind, parent_id):
        if natural_key(record.get("name")) == wanted:
            return record
    return None


def find_same(client: Any, kind: str, parent_id: str | None, body: dict[str, Any]) -> dict[str, Any] | None:
    """The full record named as `body` that holds every field of `body` (a create of ours whose
    answer was lost), or None."""
    from wfctl.api.records.recordrules import same_record

    found = client.find_by_name(kind, parent_id, body.get("name"))
    if found is None:
        return None
    if not resource(kind).list_is_full:  # list items of clients and sites lack fields a create may carry
        found = client.get_record(kind, str(found["id"]))
    return found if same_record(body, found) else None


def collection_path(kind: str, parent_id: str | None = None) -> str:
    """Where records of `kind` are created: a site under its client, the others at the top."""
    return resource(kind).collection_path(parent_id)


def record_path(kind: str, record_id: str) -> str:
    return resource(kind).record_path(record_id)


def new_idempotency_key() -> str:
    import uuid  # only writes need one; uuid imports platform, a start-up cost

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
