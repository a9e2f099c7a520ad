"""G9 in the SDK: a branch's clients (the records of a top-level kind under a parent: its definition's
`parent_field`), trusting the service's `branchId` filter while its rows show it applied it, else
filtering every client here and paging them as a filtering service would."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from wfctl.api.errors import PaginationError
from wfctl.api.records.page import Page
from wfctl.api.records.resources import resource


def children(client: Any, kind: str, parent_id: str, page: int | None, page_size: int | None,
             all_pages: bool, *, concurrency: int | None = None, limit: int | None = None) -> Iterator[Page]:
    """Pages of the records of `kind` whose parent is `parent_id`: a branch's clients, on every deployment."""
    spec = resource(kind)
    if spec.parent_field is None or spec.nested:
        raise ValueError(f"{spec.plural} are not listed by a filter on their parent")
    return _filtered(client, spec.collection_path(), spec.parent_field, parent_id, page, page_size, all_pages,
                     concurrency=concurrency, limit=limit)


def _filtered(client: Any, path: str, field: str, branch_id: str, page: int | None, page_size: int | None,
              all_pages: bool, *, concurrency: int | None = None, limit: int | None = None) -> Iterator[Page]:
    """G9: trust the service's `branchId` filter while its rows show it applied it; where it
    ignores the filter, page through every client, keep the branch's, and number and count those
    pages (with the page size the service serves) as a filtering service would have.

    A first page of the branch's clients only does not show that the filter was applied (on a
    service that ignores it, the first clients may all be the branch's): when more pages follow,
    the unfiltered count decides (the same count = ignored, or every client is the branch's, where
    filtering here gives the same answer)."""
    pages = client.pages(path, {field: branch_id}, page=page,
                         page_size=page_size, all_pages=all_pages, concurrency=concurrency, limit=limit)
    first = next(pages)
    if (all(str(row.get(field)) == branch_id for row in first.data)
            and not branch_filter_ignored(client, first, path)):
        yield first
        for later in pages:
            if any(str(row.get(field)) != branch_id for row in later.data):
                raise PaginationError(f"the service applied the {field} filter to some pages only")
            yield later
        return
    pages.close()
    size = max(1, first.page_size)
    rows = [row for p in client.pages(path, concurrency=concurrency)
            for row in p.data if str(row.get(field)) == branch_id]
    count = max(1, -(-len(rows) // size))
    number = page or 1
    while True:
        yield Page(rows[(number - 1) * size:number * size], number, size, count, len(rows))
        number += 1
        if not all_pages or number > count:
            return


def branch_filter_ignored(client: Any, first: Page, path: str) -> bool:
    """Whether a service whose page `first` (of `/api/clients?branchId=`) holds only the branch's
    clients may have ignored the filter: it counts as many clients as there are in all."""
    if not first.data:
        return False  # no client at all, or a page past the end either way
    if first.page_number <= 1 and first.next_url is None and first.page_count <= 1:
        return False  # the whole list is this page: every client is the branch's
    every = next(client.pages(path, page_size=1, all_pages=False))
    return every.total_record_count == first.total_record_count
