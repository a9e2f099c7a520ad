"""References to records as people give them: the id, a unique beginning of the id, or the name.

    from wfctl.api import Client
    from wfctl.api.records.refs import resolve

    with Client.from_environment() as client:  # or wfctl.profiles.client(): a profile's login
        branch_id = resolve(client, "branch", "Manchester")          # by name
        site_id = resolve(client, "site", "Dock 4", parent=client_id)  # a site by name within its client
        site_id = resolve(client, "site", "dcc45e91")                  # the beginning of its id

An id that looks like a whole one (a UUID, G16) is used as it is, with no request: scripts that pass
ids pay nothing. Anything else is first read as an id (one GET: a deployment whose ids are not UUIDs
pays that request; a reference with white space is a name, not read as an id), then, when there is no
such record, looked up in the list of that kind (the service
filters lists by nothing but a client's branch), read from the first page, stopping at an exact id:

1. the record whose id is the reference;
2. the record whose name is the reference exactly;
3. the record whose name is the reference as the service compares names (G12: `natural_key`, so
   `irwell logistics` finds `Irwell Logistics`);
4. the record whose id begins with the reference (at least `MIN_PREFIX` characters).

The first rule that matches decides. Several records matching it is `AmbiguousReference` (it lists them
with their ids); none is `NoSuchRecord` ("no branch 'X'"), never an empty answer. A site is looked for
within its client when `parent` is given, else across the agency (every client's sites); a client
within its branch when `parent` is given, else across the agency.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from wfctl.api.errors import InvalidId, NotFound
from wfctl.api.records.resources import resource

#: A whole id as the service makes them (G16: UUID strings): used as it is, no request.
WHOLE_ID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
#: The shortest beginning of an id taken as one (shorter, a name's few letters would match ids by chance).
MIN_PREFIX = 4
#: How many candidates an ambiguity error lists.
SHOWN_CANDIDATES = 10


@dataclass(frozen=True)
class Candidate:
    """One record a reference could mean: its id, name and (a site or client found across the agency)
    its parent, as shown (`client 'Irwell Logistics'`)."""

    id: str
    name: str
    parent: str = ""

    def shown(self) -> str:
        return f"{_quoted(self.name)} {self.id}" + (f" of {self.parent}" if self.parent else "")


class NoSuchRecord(NotFound):
    """A reference that matches no record: `no branch 'X'` (exit 4 in the CLI), never an empty answer."""

    def __init__(self, kind: str, ref: str, *, parent: str | None = None, parent_kind: str | None = None,
                 hint: str = "") -> None:
        self.kind = kind
        self.ref = ref
        within = f" of {parent_kind} {parent}" if parent and parent_kind else ""
        super().__init__(f"no {kind} {_quoted(ref)}{within}" + (f"; {hint}" if hint else ""))


class AmbiguousReference(InvalidId):
    """A reference that matches several records (exit 2 in the CLI); `candidates` lists them."""

    def __init__(self, kind: str, ref: str, candidates: list[Candidate], how: str) -> None:
        self.kind = kind
        self.ref = ref
        self.candidates = candidates
        shown = "; ".join(c.shown() for c in candidates[:SHOWN_CANDIDATES])
        more = f"; and {len(candidates) - SHOWN_CANDIDATES} more" if len(candidates) > SHOWN_CANDIDATES else ""
        super().__init__(f"{_quoted(ref)} {how} {len(candidates)} {resource(kind).plural}: {shown}{more}; "
                         "give the id (or more of it)")


def is_whole_id(ref: str) -> bool:
    """Whether `ref` looks like a whole id (then it is used as it is, with no look-up)."""
    return bool(WHOLE_ID.match(ref))


def resolve(api: Any, kind: str, ref: str, *, parent: str | None = None) -> str:
    """The id of the `kind` record ("branch", "client", "site") that `ref` names (see the module's
    rules). `parent`: the id of the client a site belongs to, or of the branch a client belongs to, to
    look for the name there only. A whole id is returned as it is, unchecked: `require` checks it.
    Raises NoSuchRecord, AmbiguousReference (and the ApiErrors of the listing); UnknownKind for a kind
    no definition names (wfctl.api.records.resources)."""
    parent_field = resource(kind).parent_field
    text = str(ref)
    if not text.strip():
        raise InvalidId(f"an empty {kind} reference: give the {kind}'s id or name")
    if is_whole_id(text):
        return text
    if any(ch.isspace() for ch in text):  # no id has white space: a name, looked up at once
        return _search(api, kind, text, parent).id
    try:  # an id of a deployment whose ids are not UUIDs, or a name: one GET tells an id
        record = api.get_record(kind, text)
    except NotFound:
        return _search(api, kind, text, parent).id
    if parent is not None and parent_field and str(record.get(parent_field)) != parent:
        return _search(api, kind, text, parent).id  # another parent's record: the name within this one
    return text


def kind_of(api: Any, record_id: str, *, besides: str) -> str | None:
    """The kind, other than `besides`, of the record whose id is `record_id` (one GET a kind), or None: what a
    404 for a whole id of the wrong kind tells a person (`sites get <a client's id>`). Any error is None."""
    from wfctl.api.errors import ApiError
    from wfctl.api.records.resources import RESOURCES

    for other in RESOURCES:
        if other == besides:
            continue
        try:
            api.get_record(other, record_id)
        except ApiError:
            continue
        return str(other)
    return None


def require(api: Any, kind: str, record_id: str, ref: str | None = None) -> dict[str, Any]:
    """The record `record_id` (one GET); NoSuchRecord (named as `ref`, the reference given) when the
    service has none."""
    try:
        record: dict[str, Any] = api.get_record(kind, record_id)
    except NotFound:
        raise NoSuchRecord(kind, ref or record_id) from None
    return record


def _search(api: Any, kind: str, ref: str, parent: str | None) -> Candidate:
    exact: list[Candidate] = []
    folded: list[Candidate] = []
    prefixed: list[Candidate] = []
    too_short = 0  # ids that begin with a reference too short to be taken as an id's beginning
    names: list[str] = []  # every name seen, for a did-you-mean when none matches
    key = _natural_key(ref)
    lowered = ref.lower()
    try:
        for candidate in _candidates(api, kind, parent):
            names.append(candidate.name)
            if candidate.id == ref:
                return candidate  # an id that is not a UUID (another deployment's ids): as it is
            if candidate.name == ref:
                exact.append(candidate)
            elif _natural_key(candidate.name) == key:
                folded.append(candidate)
            elif candidate.id.lower().startswith(lowered):
                if len(ref) >= MIN_PREFIX:
                    prefixed.append(candidate)
                else:
                    too_short += 1
    except NotFound:
        if parent is not None:  # the parent itself is not there
            raise NoSuchRecord(str(resource(kind).parent), parent) from None
        raise
    for found, how in ((exact, "names"), (folded, "names"), (prefixed, "begins the ids of")):
        if len(found) == 1:
            return found[0]
        if found:
            raise AmbiguousReference(kind, ref, found, how)
    hint = ""
    if too_short:
        ids = "an id begins" if too_short == 1 else f"{too_short} ids begin"
        hint = f"{ids} with it, but the beginning of an id needs at least {MIN_PREFIX} characters"
    elif (near := nearest_name(ref, names)) is not None:
        hint = f"did you mean {_quoted(near)}?"
    raise NoSuchRecord(kind, ref, parent=parent, parent_kind=resource(kind).parent, hint=hint)


def nearest_name(ref: str, names: list[str]) -> str | None:
    """The one name of `names` closest to `ref` as the service compares names (a slip of a letter or two:
    `Penine Foods Ltd`, `Trafford Park Bakry`), or None when none is near."""
    import difflib

    by_key: dict[str, str] = {}
    for name in names:
        by_key.setdefault(_natural_key(name), name)
    close = difflib.get_close_matches(_natural_key(ref), list(by_key), n=1, cutoff=0.8)
    return by_key[close[0]] if close else None


def _candidates(api: Any, kind: str, parent: str | None) -> Iterator[Candidate]:
    """Every record `ref` could name, from the list of `kind` (read in pages of 100, the first page first):
    within `parent` when given; else across the agency, each with its parent (a nested kind's records
    parent by parent: every client's sites)."""
    spec = resource(kind)
    if spec.nested and parent is None:
        for owner in [*_candidates(api, str(spec.parent), None)]:
            try:
                yield from _listed(api.list_records(kind, owner.id, page_size=100, all_pages=True),
                                   f"{spec.parent} {_quoted(owner.name)}")
            except NotFound:  # deleted while we looked
                continue
        return
    pages = api.list_records(kind, parent, page_size=100, all_pages=True)
    if parent is None and spec.parent_field:  # a branch's clients: each with its branch's id
        yield from _listed(pages, of=(str(spec.parent), spec.parent_field))
        return
    yield from _listed(pages)


def _listed(pages: Any, parent: str = "", of: tuple[str, str] | None = None) -> Iterator[Candidate]:
    """The records of `pages` as candidates; `parent`: theirs, as shown; `of` (kind, field): each record's
    parent read from its field (`branch <id>`)."""
    for page in pages:
        for row in page.data:
            if row.get("id") is not None:
                where = parent
                if of is not None:
                    where = f"{of[0]} {row[of[1]]}" if row.get(of[1]) else ""
                yield Candidate(str(row["id"]), str(row.get("name") or ""), where)


def _natural_key(name: str) -> str:
    from wfctl.api.records.recordrules import natural_key

    return natural_key(name)


def _quoted(text: str) -> str:
    """'text' on one line: what the user typed, shown as typed (control characters escaped)."""
    shown = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(text))
    return f"'{shown}'"
