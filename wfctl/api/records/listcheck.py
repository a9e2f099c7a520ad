"""Listings that lie (issue 43): what a record's own fields and the listing's own count prove.

A deployment may list a record under a parent that is not its own (a client's site list holding another
client's sites, each item's `clientId` naming its real client), or give fewer records than its envelope
counts (`totalRecordCount`). Every reader is guarded here, once:

- `own_pages`: the pages of a parent's records (a nested kind: a client's sites) keep only the rows whose
  own parent field names that parent, or that carry none; a row that names another parent is moved to
  `Page.misplaced`, so no reader (`bans where`, `audit`, `rates list --all-clients`, `export`) lists a
  record twice or under the wrong parent.
- `read_whole`: a listing read to decide deletes (a prune's, a diff's, a copy's source), checked to the
  end: the records given (misplaced ones included) must number what every page's `totalRecordCount` said,
  and no row may be misplaced; else `ListingUntrue`, and nothing is deleted on its word. A service that
  gives no `totalRecordCount` cannot be checked so: its listing is taken as it is (docs/imports.md).
- a listing that gave more records than its count, or whose count changed, had records deleted and
  created while it was read (the reader gives every record there throughout, wfctl.api.records.pagereader): it is
  read again, up to `READS` reads. A read that is whole by itself is taken; so are the records two
  consecutive reads both gave, when both counted the same and those records number it: a record both
  gave was there from the one read to the other, so when the earlier read ended, and as many as were
  there then are all of them (a proven snapshot). A record only the earlier read gave was gone before
  the later one ended (that read gives every record there throughout it): left out; one only the later
  read gave was created since the earlier began: `Listing.young`, never a delete (a copy's source keeps
  it). A list that never settles so stops with `ListingUntrue`, as before.

    listing = read_whole(client, "site", client_id)      # ListingUntrue: one line, exit 1
    for record in listing.records: ...
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from wfctl.api.errors import ListingUntrue
from wfctl.api.records.page import Page
from wfctl.api.records.resources import counted, resource

#: Ids named in a message before "and N more".
SHOWN = 5
#: Reads of a listing that changed while it was read, before it is given up (see the module).
READS = 3


def own_pages(pages: Iterator[Page], kind: str, parent_id: str) -> Iterator[Page]:
    """`pages` of the records of `kind` under `parent_id`, each row that names another parent in its own
    parent field moved from `data` to `misplaced` (a row without the field stays: its record is read by id
    where it matters, wfctl.plans.prune)."""
    name = resource(kind).parent_field
    try:
        for page in pages:
            if name is not None and any(_names_other(row, name, parent_id) for row in page.data):
                page.misplaced = [row for row in page.data if _names_other(row, name, parent_id)]
                page.data = [row for row in page.data if not _names_other(row, name, parent_id)]
            yield page
    finally:
        close = getattr(pages, "close", None)
        if close is not None:
            close()  # the reader's pool, at once


@dataclass
class Listing:
    """The records of one parent as read to the end: `records` (its own), `misplaced` (another parent's, as
    listed here), `counted` (the listing's own count; None when the service gives none). A listing that
    changed while it was read and was settled by a second read (see the module): `records` are the ones
    there when the earlier read ended, proven; `young` the ones created since, which only the later read
    gave (never a delete; a copy's source keeps them, so that its prune does not delete their copies)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    misplaced: list[dict[str, Any]] = field(default_factory=list)
    counted: int | None = None
    young: list[dict[str, Any]] = field(default_factory=list)

    @property
    def given(self) -> int:
        return len(self.records) + len(self.misplaced)


def read_whole(client: Any, kind: str, parent_id: str | None, *, concurrency: int | None = None,
               where: str = "", skip_misplaced: bool = False) -> Listing:
    """Every record of `kind` under `parent_id`, proven whole (see the module): ListingUntrue otherwise.
    `where` names the listing in the message (`client Pennine Foods Ltd`; default: the parent's id).
    `skip_misplaced`: another parent's rows are left in `misplaced` (the caller says so) instead of
    stopping the read; the count is checked all the same."""
    where = where or (f"{resource(kind).parent} {parent_id}" if parent_id else "")
    listing, counts = _read(client, kind, parent_id, concurrency)
    for _ in range(READS - 1):
        if not _changed(listing, counts, skip_misplaced):
            break
        again, again_counts = _read(client, kind, parent_id, concurrency)
        common = _in_both(listing, again)
        if len(counts) == 1 and again_counts == counts and common.given == min(counts):
            listing, counts = common, again_counts
            break
        listing, counts = again, again_counts
    check_whole(listing, kind, counts, where, skip_misplaced=skip_misplaced)
    return listing


def check_whole(listing: Listing, kind: str, counts: set[int], where: str, *, skip_misplaced: bool = False) -> None:
    """ListingUntrue when `listing` holds another parent's records (unless `skip_misplaced`), or gave another
    number of records than its count (or its count changed while it was read)."""
    spec = resource(kind)
    under = f" under {where}" if where else ""
    if listing.misplaced and not skip_misplaced:
        field_name = spec.parent_field or "parent"
        shown = ", ".join(f"{row.get('name', '')} ({row.get('id')}, {field_name} {row.get(field_name)})"
                          for row in listing.misplaced[:SHOWN])
        more = f" and {len(listing.misplaced) - SHOWN} more" if len(listing.misplaced) > SHOWN else ""
        raise ListingUntrue(f"the service listed {counted(kind, len(listing.misplaced))}{under} that belong to "
                            f"another {spec.parent}: {shown}{more}; its listing cannot be trusted to decide "
                            f"deletes: nothing was deleted")
    if not counts:
        return  # no count to check against (docs/imports.md: what is not proven)
    listing.counted = max(counts)
    if len(counts) > 1:
        raise ListingUntrue(f"the listing of {spec.plural}{under} changed while it was read (its count went "
                            f"from {min(counts)} to {max(counts)}): nothing was deleted; run it again")
    if listing.given != listing.counted:
        short = listing.given < listing.counted
        raise ListingUntrue(f"the listing of {spec.plural}{under} was {'short' if short else 'long'}: it gave "
                            f"{listing.given} records where its count (totalRecordCount) says {listing.counted}"
                            f"{'' if short else ' (records were added or deleted while it was read)'}; "
                            f"nothing was deleted on its word")


def _read(client: Any, kind: str, parent_id: str | None, concurrency: int | None) -> tuple[Listing, set[int]]:
    """One read of the listing to its end: what it gave, and every count its pages said."""
    listing = Listing()
    counts: set[int] = set()
    for page in client.list_records(kind, parent_id, page_size=100, all_pages=True, concurrency=concurrency):
        listing.records.extend(page.data)
        listing.misplaced.extend(page.misplaced)
        if "totalRecordCount" in page.raw:
            counts.add(page.total_record_count)
    return listing, counts


def _changed(listing: Listing, counts: set[int], skip_misplaced: bool) -> bool:
    """Whether a read shows records deleted or created while it was read (more records than its count, or
    a count that changed): worth reading again. A short read (records left out) or another parent's rows
    are the listing's own lie: a second read says the same."""
    if not counts or (listing.misplaced and not skip_misplaced):
        return False
    return len(counts) > 1 or listing.given > min(counts)


def _in_both(earlier: Listing, later: Listing) -> Listing:
    """The records both reads gave (as the later one gave them, in its order), and the later read's others
    (`young`). A record both gave was there throughout, from the one read to the other, so when the earlier
    read ended: when they number its count, they are all the records there then."""
    ids = {str(row.get("id")) for row in (*earlier.records, *earlier.misplaced)}
    return Listing(records=[row for row in later.records if str(row.get("id")) in ids],
                   misplaced=[row for row in later.misplaced if str(row.get("id")) in ids],
                   young=[row for row in later.records if str(row.get("id")) not in ids])


def _names_other(row: dict[str, Any], name: str, parent_id: str) -> bool:
    value = row.get(name)
    return value is not None and value != "" and str(value) != str(parent_id)
