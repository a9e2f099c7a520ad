"""The Client's methods for records: one generic method per verb for any kind the definitions name
(wfctl.api.records.resources), and the documented methods of each kind (`list_sites`, `get_branch`, ...) as thin
wrappers over them.

    client.list_records("site", client_id)      # pages, as list_sites(client_id)
    client.get_record("branch", branch_id)       # as get_branch(branch_id)
    client.delete_record("client", client_id)    # as delete_client(client_id)

Paths and relations come from the kind's definition: a nested kind is listed and created under its
parent's record (a client's sites), a top-level kind with a parent is listed filtered by the parent's id
(a branch's clients, G9 in wfctl.api.records.branchfilter). A kind no definition names is `UnknownKind` at the
call, never another kind's list. What a create or an update does beyond one request is
wfctl.api.records.writes (G20) and wfctl.api.records.updates (G13).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from wfctl.api.errors import InvalidId, ServerError
from wfctl.api.net.responses import snippet
from wfctl.api.records import branchfilter, listcheck, updates, writelog, writes
from wfctl.api.records.resources import resource
from wfctl.api.records.writes import record_of as _record

if TYPE_CHECKING:
    from wfctl.api.net.lean import LeanSender
    from wfctl.api.records.page import Page
    from wfctl.api.records.updates import Edit
    from wfctl.api.records.writelog import WriteObserver


class RecordMethods:
    """The record methods of wfctl.api.Client (its base class): `request`, `send` and `pages` are the
    Client's."""

    if TYPE_CHECKING:  # the Client's, of the same signatures
        write_observer: WriteObserver | None

        def request(self, *args: Any, **kwargs: Any) -> Any: ...

        def send(self, *args: Any, **kwargs: Any) -> Any: ...

        def pages(self, *args: Any, **kwargs: Any) -> Iterator[Page]: ...

    # -- any kind --------------------------------------------------------------------------------
    def list_records(self, kind: str, parent_id: str | None = None, *, page: int | None = None,
                     page_size: int | None = None, all_pages: bool = False, concurrency: int | None = None,
                     limit: int | None = None) -> Iterator[Page]:
        """Pages of the records of `kind`; under `parent_id` (a client's sites: required for a nested
        kind; a branch's clients: optional, filtered here where the service ignores the filter, G9). A row
        that names another parent in its own parent field is never given as this parent's (its page's
        `misplaced`, wfctl.api.records.listcheck).
        UnknownKind for a kind no definition names; ValueError for a parent given to a kind that has none."""
        spec = resource(kind)
        if spec.nested:
            if not parent_id:
                raise InvalidId(f"listing {spec.plural} needs the id of their {spec.parent}")
            # a listing that lies (another parent's records under this one): those rows never count as its
            return listcheck.own_pages(self.pages(spec.collection_path(parent_id), page=page, page_size=page_size,
                                                  all_pages=all_pages, concurrency=concurrency, limit=limit),
                                       kind, parent_id)
        if parent_id:
            if spec.parent is None:
                raise ValueError(f"{spec.plural} have no parent: listed without one, not under {parent_id!r}")
            return branchfilter.children(self, kind, parent_id, page, page_size, all_pages, concurrency=concurrency,
                                         limit=limit)
        else:
            path = spec.collection_path()
        return self.pages(path, page=page, page_size=page_size, all_pages=all_pages, concurrency=concurrency,
                          limit=limit)

    def iter_records(self, kind: str, parent_id: str | None = None, *, page_size: int | None = 100,
                     concurrency: int | None = None) -> Iterator[dict[str, Any]]:
        """Every record of `kind` (under `parent_id`: a client's sites, a branch's clients), page by page."""
        return _rows(self.list_records(kind, parent_id, page_size=page_size, all_pages=True, concurrency=concurrency))

    def get_record(self, kind: str, record_id: str) -> dict[str, Any]:
        """The whole record. An answer that is not a record (an empty body, `{}`, a list) is a
        ServerError: nothing is ever read as an empty record, so no update starts from one."""
        return fetched(self.request("GET", resource(kind).record_path(record_id)), f"{kind} {record_id}",
                       need_id=True)

    def create_record(self, kind: str, parent_id: str | None, body: dict[str, Any], *,
                      idempotency_key: str | None = None, sender: LeanSender | None = None,
                      maybe_applied: bool = False) -> dict[str, Any]:
        """POST a new record (a site under `parent_id`) and return it, applied once and reported once
        (G20): see `create_outcome`. A record of that name that another writer made raises Conflict,
        also when it was found after this call's answer was lost."""
        return self.create_outcome(kind, parent_id, body, idempotency_key=idempotency_key, sender=sender,
                                   maybe_applied=maybe_applied).created(kind, body)

    def create_outcome(self, kind: str, parent_id: str | None, body: dict[str, Any], *,
                       idempotency_key: str | None = None, sender: LeanSender | None = None,
                       maybe_applied: bool = False,
                       find: Callable[[], dict[str, Any] | None] | None = None) -> writes.CreateOutcome:
        """POST a new record; return (record, made, sure): see `writes.create_outcome`. The write observer is
        told of the record it made (wfctl.api.records.writelog)."""
        outcome = writes.create_outcome(self, kind, parent_id, body, idempotency_key=idempotency_key, sender=sender,
                                        maybe_applied=maybe_applied, find=find)
        if outcome.made:
            writelog.tell(self.write_observer, kind, outcome.record.get("id"), writelog.CREATE, body)
        return outcome

    def update_record(self, kind: str, record_id: str, changes: dict[str, Any] | Edit, *,
                      current: dict[str, Any] | None = None, sender: LeanSender | None = None,
                      settle: bool = True, seen: dict[str, Any] | None = None) -> dict[str, Any]:
        """Change exactly the fields in `changes`, on every deployment, and return the whole record: see
        `updates.update_record`."""
        resource(kind)
        sent: dict[str, Any] = {}
        record = updates.update_record(self, kind, record_id, changes, current=current, sender=sender, settle=settle,
                                       seen=seen, sent=sent)
        if sent:  # a change the record held already sent nothing
            writelog.tell(self.write_observer, kind, record_id, writelog.UPDATE, sent)
        return record

    def delete_record(self, kind: str, record_id: str, *, sender: LeanSender | None = None) -> dict[str, Any]:
        """DELETE the record; the service's answer ({status, message}, or {} for an empty body). `sender`:
        a bulk run's lean writer (wfctl.api.net.lean), one persistent connection a worker, as its creates."""
        path = resource(kind).record_path(record_id)
        if sender is not None:
            answer = sender.request("DELETE", path, None)
            answer = answer if isinstance(answer, dict) else {}
        else:
            answer = _record(self.request("DELETE", path))
        writelog.tell(self.write_observer, kind, record_id, writelog.DELETE)
        return answer

    def find_by_name(self, kind: str, parent_id: str | None, name: Any) -> dict[str, Any] | None:
        """The record of `kind` under `parent_id` whose name has the natural key of `name` (G12), as the
        list shows it; None when there is none."""
        return writes.find_by_name(self, kind, parent_id, name)

    # -- branches ----------------------------------------------------------------
    def list_branches(self, *, page: int | None = None, page_size: int | None = None,
                      all_pages: bool = False, concurrency: int | None = None,
                      limit: int | None = None) -> Iterator[Page]:
        return self.list_records("branch", page=page, page_size=page_size, all_pages=all_pages,
                                 concurrency=concurrency, limit=limit)

    def iter_branches(self, *, page_size: int | None = 100,
                      concurrency: int | None = None) -> Iterator[dict[str, Any]]:
        return self.iter_records("branch", page_size=page_size, concurrency=concurrency)

    def get_branch(self, branch_id: str) -> dict[str, Any]:
        return self.get_record("branch", branch_id)

    def create_branch(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> dict[str, Any]:
        return self.create_record("branch", None, body, idempotency_key=idempotency_key)

    def update_branch(self, branch_id: str, changes: dict[str, Any], *,
                      current: dict[str, Any] | None = None) -> dict[str, Any]:
        """Change the fields in `changes`, and only those (see `update_record`)."""
        return self.update_record("branch", branch_id, changes, current=current)

    def delete_branch(self, branch_id: str) -> dict[str, Any]:
        return self.delete_record("branch", branch_id)

    # -- clients -----------------------------------------------------------------
    def list_clients(self, *, branch_id: str | None = None, page: int | None = None,
                     page_size: int | None = None, all_pages: bool = False, concurrency: int | None = None,
                     limit: int | None = None) -> Iterator[Page]:
        """Pages of clients; with branch_id, pages of that branch's clients on every deployment (G9)."""
        return self.list_records("client", branch_id, page=page, page_size=page_size, all_pages=all_pages,
                                 concurrency=concurrency, limit=limit)

    def iter_clients(self, *, branch_id: str | None = None, page_size: int | None = 100,
                     concurrency: int | None = None) -> Iterator[dict[str, Any]]:
        return self.iter_records("client", branch_id, page_size=page_size, concurrency=concurrency)

    def get_client(self, client_id: str) -> dict[str, Any]:
        return self.get_record("client", client_id)

    def create_client(self, body: dict[str, Any], *, idempotency_key: str | None = None) -> dict[str, Any]:
        return self.create_record("client", None, body, idempotency_key=idempotency_key)

    def update_client(self, client_id: str, changes: dict[str, Any], *,
                      current: dict[str, Any] | None = None) -> dict[str, Any]:
        """Change the fields in `changes`, and only those (see `update_record`)."""
        return self.update_record("client", client_id, changes, current=current)

    def delete_client(self, client_id: str) -> dict[str, Any]:
        return self.delete_record("client", client_id)

    # -- sites -------------------------------------------------------------------
    def list_sites(self, client_id: str, *, page: int | None = None, page_size: int | None = None,
                   all_pages: bool = False, concurrency: int | None = None,
                   limit: int | None = None) -> Iterator[Page]:
        return self.list_records("site", client_id, page=page, page_size=page_size, all_pages=all_pages,
                                 concurrency=concurrency, limit=limit)

    def iter_sites(self, client_id: str, *, page_size: int | None = 100,
                   concurrency: int | None = None) -> Iterator[dict[str, Any]]:
        return self.iter_records("site", client_id, page_size=page_size, concurrency=concurrency)

    def get_site(self, site_id: str) -> dict[str, Any]:
        return self.get_record("site", site_id)

    def create_site(self, client_id: str, body: dict[str, Any], *,
                    idempotency_key: str | None = None) -> dict[str, Any]:
        return self.create_record("site", client_id, body, idempotency_key=idempotency_key)

    def update_site(self, site_id: str, changes: dict[str, Any], *,
                    current: dict[str, Any] | None = None) -> dict[str, Any]:
        """Change the fields in `changes`, and only those (see `update_record`)."""
        return self.update_record("site", site_id, changes, current=current)

    def delete_site(self, site_id: str) -> dict[str, Any]:
        return self.delete_record("site", site_id)


def fetched(body: Any, what: str, *, need_id: bool = False) -> dict[str, Any]:
    """A GET's answer as a record: anything else (an empty body, `{}`, a list) is a ServerError."""
    if isinstance(body, dict) and body and (not need_id or body.get("id") is not None):
        return body
    shown = "an empty body" if body in (None, "", {}) else snippet(str(body))
    raise ServerError(f"the service's answer for {what} is not a record", detail=f"it answered {shown}")


def _rows(pages: Iterable[Page]) -> Iterator[dict[str, Any]]:
    for page in pages:
        yield from page.data
