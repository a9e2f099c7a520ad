"""Every multi-page read: pages in the service's order, fetched several at a time.

The reader follows the service's links exactly as one-by-one paging would (every G8 form, loop
detection, no foreign origin); fetching ahead is only a guess of what the links will name. After the
first page, when its `nextPage` is "this list, page n+1" and the envelope gives `pageCount`, the next
pages are requested up to `concurrency` at a time, at most a window of pages ahead of what was
yielded (memory stays bounded by the window, not by the list). Each page's link is checked against
the page fetched ahead for it; a link that names anything else (a cursor, a different query) is
followed one by one from there, and what was fetched ahead is dropped. No `pageCount`, or no link of
that shape: the reader follows `nextPage` one by one.

Rows added or removed while paging move later rows between pages (G7 pages are offsets). The reader
drops a row that the previous page already gave (a shift forward), and when the service's
`totalRecordCount` changed between two pages (rows may have shifted back) it reads the previous page
again and gives the rows that moved onto it before the next page's. See docs/commands.md for what `--all` promises.

A 429 or 503 (or any retry) of one request pauses every request of the Client until its
`Retry-After` has passed (G18; the retry transport holds the pause): the readers slow down as one,
rather than each on its own.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import httpx

from wfctl.api.errors import PaginationError
from wfctl.api.pagination import next_request, to_page

if TYPE_CHECKING:
    from wfctl.api.client import Client, Page

#: Requests in flight for one multi-page read, unless the caller says otherwise.
DEFAULT_CONCURRENCY = 8
#: The largest page the service serves (G7): `--all` asks for it, and then takes what the envelope says.
MAX_PAGE_SIZE = 100
#: Pages fetched ahead of the one being yielded, per request in flight.
WINDOW_PER_REQUEST = 2


def read_pages(client: Client, url: httpx.URL, *, all_pages: bool = True, concurrency: int | None = None,
               limit: int | None = None) -> Generator[Page, None, None]:
    """Yield the pages of the list at `url` (an absolute, same-origin URL holding the query), in order.

    `all_pages=False`: the first page only. `limit`: stop once that many rows were yielded, and fetch
    no page beyond the ones those rows need."""
    reader = _Reader(client, concurrency or DEFAULT_CONCURRENCY, limit)
    try:
        yield from reader.pages(url, all_pages)
    finally:
        reader.close()


# -- internals ---------------------------------------------------------------------------------
class _Reader:
    def __init__(self, client: Client, concurrency: int, limit: int | None) -> None:
        self.client = client
        self.concurrency = max(1, int(concurrency))
        self.limit = limit
        self._pool: ThreadPoolExecutor | None = None
        self._ahead: dict[str, Future[Any]] = {}  # request key -> the page's body, fetched ahead
        self._template: httpx.URL | None = None  # this list with any pageNumber: pages are addressable
        self._next_number = 0  # the next page number to fetch ahead
        self._last_number = 0  # the last page worth fetching ahead (pageCount, or what `limit` needs)

    def pages(self, url: httpx.URL, all_pages: bool) -> Generator[Page, None, None]:
        from wfctl.api.client import _request_key

        seen: set[str] = set()
        given = 0
        previous: tuple[httpx.URL, set[str], int | None] | None = None  # the last page: url, row ids, total
        body = self._get(url)
        while True:
            key = _request_key(url)
            if key in seen:
                raise PaginationError(f"the service's pages loop back to {key}")
            seen.add(key)
            nxt = next_request(body, url, self.client.base_url)
            page = to_page(body, next_url=None if nxt is None else str(nxt))
            del body
            if previous is not None:
                page.data = self._mend(page, previous)
            if all_pages and nxt is not None:
                self._plan(page, nxt, given)
            ids = {str(row.get("id")) for row in page.data}
            previous = (url, ids, _total(page))
            given += len(page.data)
            if self.limit is not None and given >= self.limit:
                all_pages = False
            yield page
            del page
            if not all_pages or nxt is None:
                return
            ahead = self._ahead.pop(_request_key(nxt), None)
            if ahead is None and self._ahead:
                self._drop_ahead()  # the links went elsewhere: follow them one by one from here
            self._top_up()
            url = nxt
            body = ahead.result() if ahead is not None else self._get(url)

    def close(self) -> None:
        self._drop_ahead()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def _get(self, url: httpx.URL) -> Any:
        return self.client.request("GET", url)

    def _plan(self, page: Page, nxt: httpx.URL, given: int) -> None:
        """After the first page: fetch ahead when its link is this list's page n+1 and the count is known."""
        if self._template is not None or self.concurrency < 2:
            return
        number, count = page.page_number, page.page_count
        if count <= number + 1 or nxt.params.get("pageNumber") != str(number + 1):
            return  # one page to go (nothing to gain), or no count, or a cursor: one by one
        last = count
        if self.limit is not None:
            wanted = self.limit - given - len(page.data)
            last = min(count, number + max(0, math.ceil(wanted / max(1, page.page_size))))
        self._template, self._next_number, self._last_number = nxt, number + 1, last
        self._top_up()

    def _top_up(self) -> None:
        if self._template is None:
            return
        from wfctl.api.client import _request_key

        window = self.concurrency * WINDOW_PER_REQUEST
        while self._next_number <= self._last_number and len(self._ahead) < window:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="wfctl-pages")
            url = self._template.copy_set_param("pageNumber", str(self._next_number))
            self._ahead[_request_key(url)] = self._pool.submit(self._get, url)
            self._next_number += 1

    def _drop_ahead(self) -> None:
        for future in self._ahead.values():
            future.cancel()
        self._ahead.clear()
        self._template = None

    def _mend(self, page: Page, previous: tuple[httpx.URL, set[str], int | None]) -> list[dict[str, Any]]:
        """This page's rows without the ones the previous page gave (rows shifted forward), preceded by
        rows that moved back onto the previous page after it was read (the count changed meanwhile)."""
        url, given_ids, total = previous
        rows = [row for row in page.data if str(row.get("id")) not in given_ids]
        now = _total(page)
        if total is None or now is None or now == total:
            return rows
        again = to_page(self._get(url), next_url=None)
        moved = [row for row in again.data if str(row.get("id")) not in given_ids]
        here = {str(row.get("id")) for row in rows}
        return [row for row in moved if str(row.get("id")) not in here] + rows


def _total(page: Page) -> int | None:
    """The envelope's totalRecordCount, or None when the service does not give it."""
    return page.total_record_count if "totalRecordCount" in page.raw else None
