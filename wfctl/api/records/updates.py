"""An update of exactly the fields it names (G13), on a deployment that keeps what a PUT leaves out
(the contract's decision; the sandbox) and on one that clears it (`--quirk put-clears`).

Keeping: the PUT body is the named fields only; a list edit sends that list, computed from a copy read
just before the PUT. Another writer's change to any other field stays, whenever it was made.

Clearing (`Client(put_clears=True)`, the profile setting `put_clears`, or learnt): the body has to be
the whole record, so the record is read just before the PUT and the change merged into it. A field
the change did not name that moved meanwhile is said (`Client.warn`: which field, the value kept). A
change another writer makes between that read and the PUT is reverted, and nothing can see it: the
service has no conditional PUT (docs/sdk.md).

A Client does not know which it talks to until it sees it: it sends the named fields, and when the
PUT's answer or the read-back shows fields it left out cleared, or the service refuses the body for a
field it did not name (a PUT that must carry the name), it sends the whole record at once, says so,
and sends whole records from then on (`client.put_clears` becomes True).

Either way, the record is read back after the PUT; when another writer's whole-record PUT replaced
the change, it is merged again into the record as it now is and sent again (UPDATE_ATTEMPTS, then
Conflict). A value the record holds that today's rules refuse (an e-mail without `@`), on a PUT that
must carry it, is named as the record's stored value (`stored_refusal`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from wfctl.api.errors import ApiError, Conflict, ValidationFailed
from wfctl.api.records.writes import record_of, record_path

if TYPE_CHECKING:
    from wfctl.api.net.lean import LeanSender

#: How often an update is merged into the record as it now is and sent again when the read-back shows
#: another writer replaced it.
UPDATE_ATTEMPTS = 4
#: The wait before an update's read-back (one PUT round trip, within these bounds; see `update_record`).
SETTLE_MIN, SETTLE_MAX = 0.05, 0.25

#: An update given as a function: from the current record to the changes to make to it.
Edit = Callable[[dict[str, Any]], dict[str, Any]]


def update_record(client: Any, kind: str, record_id: str, changes: dict[str, Any] | Edit, *,
                  current: dict[str, Any] | None = None, sender: LeanSender | None = None,
                  settle: bool = True, seen: dict[str, Any] | None = None,
                  sent: dict[str, Any] | None = None) -> dict[str, Any]:
    """Change exactly the fields in `changes`, on every deployment, and return the whole record.

    `changes` may be a function from the record to the changes (an edit such as "add banned worker
    W-2"), made again to each state of the record read; a field given the value it holds is not sent.
    `current` is the record as the caller read it just now (read here when None); on a deployment that
    clears what a PUT leaves out it is read again just before the PUT, and a field the change does not
    name that holds another value after it than in `seen` (the record as the caller first saw it;
    default `current`) is said. Read-only fields and the parent in `changes` are dropped. `settle`
    waits one round trip (at least SETTLE_MIN, at most SETTLE_MAX seconds) before the read-back, so
    that a writer who read the record just before this PUT has written too and is seen; bulk runs
    (a `sender`, or `settle=False`) skip the wait: their throughput is round trips. `sent` (a dict) is
    filled with the changed fields of the last PUT (left empty when the record held the change already)."""
    from wfctl.api.records.recordrules import same_record, writable_changes

    edit: Edit = changes if callable(changes) else _fixed(changes)
    seen = seen if seen is not None else current  # the first look: a field moved since is said (clearing)
    fresh = False  # `current` was read by this call, just before the PUT
    for _attempt in range(UPDATE_ATTEMPTS):
        if current is None or (client.put_clears and not fresh):
            current = client.get_record(kind, record_id)
            fresh = True
        seen = seen if seen is not None else current
        wanted = _differing(kind, current, writable_changes(kind, edit(current)))
        if not callable(changes):  # fixed values: the change is what differed at the first read (a field
            edit = _fixed(wanted)  # given the value it held is not the update's, whoever changes it later)
            changes = wanted
        if not wanted:
            return current  # the record holds the change already (another writer's update kept it)
        try:
            answer = _put(client, kind, record_id, current, wanted, sender)
            if sent is not None:
                sent.clear()
                sent.update(wanted)
        except _WantsWhole:  # refused, nothing changed: read it again and send the whole record
            fresh = False
            continue
        if settle and sender is None:
            time.sleep(min(max(answer.took, SETTLE_MIN), SETTLE_MAX))
        back = client.get_record(kind, record_id)
        if not answer.whole and _cleared(kind, current, wanted, back):
            answer = _write_back(client, kind, record_id, current, wanted, back, sender)
            back = client.get_record(kind, record_id)
        if same_record(writable_changes(kind, edit(back)), back):
            if client.put_clears:
                _tell_moved(client, kind, record_id, seen, wanted, back)
            return {**back, **{k: v for k, v in answer.record.items() if k not in back}}  # and modifiedOn
        current, fresh = back, True  # another writer replaced the record after this PUT: merge into it
    raise Conflict(f"another change to {kind} {record_id} kept replacing this one "
                   f"({UPDATE_ATTEMPTS} attempts); nothing of it is kept: run it again",
                   status=409, detail="the record changed under every attempt")


def put_body(put_clears: bool, kind: str, current: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """The PUT body of `changes` to `current`: the named fields whose value differs from `current`'s, or
    on a deployment that clears what a PUT leaves out, every writable field of `current` merged with them."""
    from wfctl.api.records.recordrules import update_body, writable_changes

    if put_clears:
        return update_body(kind, current, changes)
    return _differing(kind, current, writable_changes(kind, changes))


def stored_refusal(kind: str, record_id: str, current: dict[str, Any], changes: dict[str, Any],
                   body: dict[str, Any], exc: ValidationFailed) -> ValidationFailed | None:
    """`exc` (the service refused `body`) said of the values the record already holds, when it names
    one: a field the change did not name (sent because the PUT must carry the whole record), or a list
    entry the record holds (sent because a list edit sends the whole list). None when every field it
    names is the change's own."""
    from wfctl.api.records.recordrules import comparable

    stored: dict[str, list[str]] = {}
    own: dict[str, list[str]] = {}
    for location, messages in exc.errors.items():
        field, index = _located(location)
        value = body.get(field)
        if index is not None and isinstance(value, list) and index < len(value):
            value = value[index]
            held = [comparable(field, item) for item in (current.get(field) or [])]
            is_stored = comparable(field, value) in held
        else:
            is_stored = field in body and field not in changes
        if is_stored:
            stored[location] = [f"stored {_shown(value)}: {'; '.join(messages)}"]
        else:
            own[location] = messages
    if not stored:
        return None
    how = ("a PUT replaces the whole record here" if any(_located(k)[0] not in changes for k in stored)
           else "a list edit sends the whole list")
    fields = ", ".join(dict.fromkeys(_located(k)[0] for k in stored))
    return ValidationFailed(f"{kind} {record_id} holds a value the service's rules now refuse ({fields}), and this "
                            f"update must send it ({how}): correct the stored value first, or in the same update",
                            status=exc.status, detail=exc.detail if own else None, errors={**stored, **own})


# -- the PUT and what it shows -----------------------------------------------------------------
class _Answer:
    """A PUT's answer: the record it carries ({} when none), whether the body was the whole record,
    and how long the round trip took."""

    def __init__(self, record: dict[str, Any], whole: bool, took: float) -> None:
        self.record, self.whole, self.took = record, whole, took


def _put(client: Any, kind: str, record_id: str, current: dict[str, Any], wanted: dict[str, Any],
         sender: LeanSender | None) -> _Answer:
    """Send the PUT of `wanted` to `current`, as the deployment needs it (`put_body`). A named-fields
    body whose answer shows the fields it left out cleared is sent again at once as the whole record;
    one the service refuses for fields it does not carry raises _WantsWhole (nothing was changed)."""
    whole = bool(client.put_clears)
    body = put_body(whole, kind, current, wanted)
    started = time.monotonic()
    try:
        if sender is not None:
            record = record_of(sender.request("PUT", record_path(kind, record_id), body))
        else:
            record = record_of(client.request("PUT", record_path(kind, record_id), json=body))
    except ValidationFailed as exc:
        if not whole and exc.errors and all(_located(k)[0] not in body for k in exc.errors):
            _learn(client, kind, record_id, current, wanted, None)
            raise _WantsWhole from None
        raise stored_refusal(kind, record_id, current, wanted, body, exc) or exc from None
    answer = _Answer(record, whole, time.monotonic() - started)
    if not whole and record.get("id") is not None and _cleared(kind, current, wanted, record):
        return _write_back(client, kind, record_id, current, wanted, record, sender)
    return answer


def _write_back(client: Any, kind: str, record_id: str, current: dict[str, Any], wanted: dict[str, Any],
                shown: dict[str, Any], sender: LeanSender | None) -> _Answer:
    """The PUT cleared the fields it left out (`shown`): send the whole record at once, from `current`.
    When that fails, the warning names each cleared field and the value it held, then the error goes on."""
    cleared = _cleared(kind, current, wanted, shown)
    _learn(client, kind, record_id, current, wanted, shown)
    try:
        return _put(client, kind, record_id, current, wanted, sender)
    except ApiError:
        held = "; ".join(f"{name} {_shown(current.get(name))}" for name in cleared)
        client.warn(f"{kind} {record_id}: the fields the update cleared could not be written back; they held: {held}")
        raise


class _WantsWhole(Exception):
    """The service refused a named-fields PUT for fields it did not carry: nothing was changed."""


def _learn(client: Any, kind: str, record_id: str, current: dict[str, Any], wanted: dict[str, Any],
           shown: dict[str, Any] | None) -> None:
    """The deployment clears what a PUT leaves out (`shown` is the record with fields cleared, None when
    it refused the body instead): the client sends whole records from now on, and says so once."""
    if not client.put_clears:
        client.put_clears = True
        cleared = ", ".join(_cleared(kind, current, wanted, shown)) if shown is not None else ""
        what = (f"the service cleared the fields the update left out ({cleared}); they were written back at once "
                "from the record read before it" if cleared else "the service needs every field in a PUT")
        client.warn(f"{kind} {record_id}: {what}. This deployment clears what a PUT leaves out (G13): updates now "
                    "send the whole record, read just before each PUT (set put_clears to start that way)")


def _cleared(kind: str, before: dict[str, Any], wanted: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The writable fields `wanted` does not name that held a value in `before` and are empty in `after`."""
    from wfctl.api.records.recordrules import WRITABLE, comparable

    empty = {name: comparable(name, None) for name in WRITABLE[kind]}
    return [name for name in WRITABLE[kind] if name not in wanted and name in after
            and comparable(name, before.get(name)) != empty[name] and comparable(name, after.get(name)) == empty[name]]


def _tell_moved(client: Any, kind: str, record_id: str, seen: dict[str, Any], wanted: dict[str, Any],
                back: dict[str, Any]) -> None:
    """Say which fields the update did not name hold another value than at the first look (another
    writer's change while the whole record was sent), and the value each kept."""
    from wfctl.api.records.recordrules import WRITABLE, comparable

    moved = [name for name in WRITABLE[kind] if name not in wanted
             and comparable(name, seen.get(name)) != comparable(name, back.get(name))]
    if moved:
        kept = "; ".join(f"{name} {_shown(seen.get(name))} -> {_shown(back.get(name))}" for name in moved)
        client.warn(f"{kind} {record_id}: another writer changed {', '.join(moved)} while this update was made; "
                    f"the record keeps their value ({kept})")


def _fixed(changes: dict[str, Any]) -> Edit:
    """An edit that makes the same changes to any state of the record."""
    return lambda _record: changes


def _differing(kind: str, current: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """The fields of `changes` whose value differs from `current`'s (a field sent with the value it holds
    could only undo another writer's change made since `current` was read)."""
    from wfctl.api.records.recordrules import comparable

    return {k: v for k, v in changes.items() if comparable(k, v) != comparable(k, current.get(k))}


def _located(location: str) -> tuple[str, int | None]:
    """`rates[0].hourlyRate` -> ("rates", 0); `email` -> ("email", None)."""
    head = location.split(".", 1)[0]
    field, _, rest = head.partition("[")
    index = rest.split("]", 1)[0]
    return field, int(index) if index.isdigit() else None


def _shown(value: Any) -> str:
    """A value as a message quotes it: one line, at most 80 characters."""
    import json

    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(repr(text).split()) if isinstance(value, str) else " ".join(text.split())
    return text if len(text) <= 80 else text[:77] + "..."
