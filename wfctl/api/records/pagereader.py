"""Every multi-page read: pages in the service's order, fetched several at a time.

The reader follows the service's links exactly as one-by-one paging would (every G8 form, loop
detection, no foreign origin); fetching ahead is only a guess of what the links will name. After the
first page, when its `nextPage` is "this list, page n+1" and the envelope gives `pageCount`, the next
pages are requested up to `concurrency` at a time, at most a window of pages ahead of what was
yielded (memory stays bounded by the window, not by the list). Each page's link is checked against
the page fetched ahead for it; a link that names anything else (a cursor, a different query) is
followed one by one from there, and what was fetched ahead is dropped. No `pageCount`, or no link of
that shape: the reader follows `nextPage` one by one.

Rows added or removed while paging move later rows between pages (G7 pages are offsets), and a
delete plus a create leave `totalRecordCount` as it was. So every boundary between two pages read by
number is checked once both pages are in: a few records around it are read again in one request
(`pageSize` s, `pageNumber` m, so that the block holds the offsets just before and at the boundary).
When that block shows a record of the page before, then only records not given yet, then a record of
the page after, nothing that existed throughout was skipped there, and the records in between (they
moved back onto the page before after it was read) are given before the page after's. Otherwise the
page before is read again and the check repeats, a bounded number of times; a list that does not
settle stops with PaginationError ("changed while it was read"): never a listing with a record
silently missing. A service that does not serve the small block as asked gets the weaker check: the
page before read again, its last record one already given. The checks run in the reader's pool
while the pages are fetched.

Every record id given is remembered for the whole listing (`_Ids`: 64-bit hashes in sorted arrays,
about 8 bytes a record, behind a fixed 128 KiB bitmap), so a record repeated on any later page is given
once; a page after the first whose records were all given already (a service ignoring `pageNumber`)
stops the listing with PaginationError instead of reading the same records forever. See
docs/commands.md for what `--all` promises.

Links that name the next page by number but also carry a cursor (the sandbox's change every 32 pages)
are fetched ahead by the link in hand; when a link no longer names what was fetched ahead, that is
dropped and the new link is fetched ahead, no further than the last one held (a cursor that changes on
every page: one by one, with no request wasted).

A 429 or 503 (or any retry) of one request pauses every request of the Client until its
`Retry-After` has passed (G18; the retry transport holds the pause): the readers slow down as one,
rather than each on its own.
"""

from __future__ import annotations

import heapq
import math
from array import array
from bisect import bisect_left
from collections.abc import Generator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from wfctl.api.errors import ApiError, ForeignOrigin, NotFound, PaginationError, ValidationFailed
from wfctl.api.records.page import Page
from wfctl.api.records.pagination import next_request, to_page

if TYPE_CHECKING:
    from typing import Protocol

    class Client(Protocol):
        """What the reader needs of `wfctl.api.Client` (named here so this module does not import it back)."""

        base_url: str

        def request(self, method: str, path: str | httpx.URL) -> Any: ...

#: Requests in flight for one multi-page read, unless the caller says otherwise.
DEFAULT_CONCURRENCY = 8
#: The largest page the service serves (G7): `--all` asks for it, and then takes what the envelope says.
MAX_PAGE_SIZE = 100
#: Pages fetched ahead of the one being yielded, per request in flight.
WINDOW_PER_REQUEST = 2
#: Stands for the page number in a template's text while it is split there.
_MARK = "wfctl0page0number0"
#: Times a boundary between two pages is checked (and the page before read again) before giving up.
SETTLE_ATTEMPTS = 4

CHANGED = "the list changed while it was read: records moved between pages faster than they could be read again; " \
          "run it again"


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
@dataclass
class _Read:
    """One page as the service answered it: where, which number, its page size, its rows."""

    url: httpx.URL
    number: int
    size: int
    rows: list[dict[str, Any]]


@dataclass
class _Ahead:
    """A page fetched ahead: its body, and the check of the boundary before it (the rows to give first)."""

    body: Future[Any]
    check: Future[list[dict[str, Any]]]


class _Reader:
    def __init__(self, client: Client, concurrency: int, limit: int | None) -> None:
        self.client = client
        self.concurrency = max(1, int(concurrency))
        self.limit = limit
        self._pool: ThreadPoolExecutor | None = None
        self._ahead: dict[int, _Ahead] = {}  # page number -> the page fetched ahead by the template
        self._template: httpx.URL | None = None  # this list with any pageNumber: pages are addressable
        self._url_parts = ("", "")  # the template as text, before and after its pageNumber's value
        self._key_parts = ("", "")  # the same for its request key
        self._checked = False  # whether the pages fetched by the template have their boundaries checked
        self._next_number = 0  # the next page number to fetch ahead
        self._last_number = 0  # the last page worth fetching ahead (pageCount, or what `limit` needs)
        self._before: Future[Any] | _Read | None = None  # the page before the next one fetched ahead
        self._first_url: httpx.URL | None = None  # the list as first asked: the checks' blocks are read from it
        self._blocks = True  # whether the service serves a check's block as asked (until it does not)
        self._since: int | None = None  # the page whose link first carried the links' current form (cursor)
        self._stretch: int | None = None  # how many pages the links' last form held, once one changed
        self._opened = WINDOW_PER_REQUEST  # how far ahead pages may be fetched: doubles with each page given

    def pages(self, url: httpx.URL, all_pages: bool) -> Generator[Page, None, None]:
        from wfctl.api.records.page import request_key

        self._first_url = url
        seen: set[int] = set()  # the pages' request keys, as hashes (a page's link can be long)
        given_ids = _Ids()
        given = 0
        previous: _Read | None = None  # the last page, as the service answered it
        body = self._get(url)
        check: Future[list[dict[str, Any]]] | None = None
        key = request_key(url)
        while True:
            if hash(key) in seen:
                raise PaginationError(f"the service's pages loop back to {key}")
            seen.add(hash(key))
            refused: ApiError | None = None
            try:
                nxt = next_request(body, url, self.client.base_url)
            except (ForeignOrigin, PaginationError) as exc:  # a link not followed: the page is given first
                nxt, refused = None, exc
            page = to_page(body, next_url=None if nxt is None else str(nxt))
            del body
            read = _Read(url, page.page_number, page.page_size, page.data)
            moved: list[dict[str, Any]] = []
            if check is not None:
                moved = check.result()
            elif previous is not None and self._checkable(previous, read):
                moved = self._settle(previous, read)
            rows = given_ids.fresh(moved)
            fresh = given_ids.fresh(page.data)
            if previous is not None and page.data and not fresh and not rows:
                raise PaginationError(f"the service answered page {page.page_number} with only records it had "
                                      "already given (does it ignore pageNumber?); stopped")
            page.data = rows + fresh
            ahead = None
            if all_pages and nxt is not None:
                next_key = request_key(nxt)
                self._plan(page, read, nxt, given)
                ahead = self._take(page.page_number, next_key)
                if ahead is None and self._template is None:  # the links changed: fetch ahead by the new one
                    self._plan(page, read, nxt, given)
                    ahead = self._take(page.page_number, next_key)
            previous = read
            given += len(page.data)
            if self.limit is not None and given >= self.limit:
                all_pages = False
            yield page
            del page, rows, fresh, moved
            if refused is not None and all_pages:
                raise refused
            if not all_pages or nxt is None:
                return
            self._opened *= 2  # taken: a reader that stops after the first page (`| head -1`) sent few requests
            self._top_up()
            url, key = nxt, next_key
            if ahead is not None:
                body, check = ahead.body.result(), ahead.check
            else:
                body, check = self._get(url), None

    def close(self) -> None:
        self._drop_ahead()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def _get(self, url: httpx.URL | str) -> Any:
        return self.client.request("GET", url)

    def _plan(self, page: Page, read: _Read, nxt: httpx.URL, given: int) -> None:
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
        if self._since is None:
            self._since = number
        from wfctl.api.records.page import request_key

        marked = nxt.copy_set_param("pageNumber", _MARK)
        url_parts, key_parts = str(marked).split(_MARK), request_key(marked).split(_MARK)
        if len(url_parts) != 2 or len(key_parts) != 2:
            return  # the mark is not where pages can be named by number alone: one by one
        self._url_parts, self._key_parts = (url_parts[0], url_parts[1]), (key_parts[0], key_parts[1])
        self._checked = self._by_offset(nxt)
        self._template, self._next_number, self._last_number = nxt, number + 1, last
        self._before = read
        self._top_up()

    def _take(self, number: int, key: str) -> _Ahead | None:
        """The page fetched ahead for the link of page `number` (its request key `key`), or None. A link
        that is not the one the pages ahead were fetched by (another cursor, another query) drops them:
        they are followed one by one from here, or fetched ahead again by the new link. How many pages
        the last link held (its stretch) bounds how far the next one is fetched ahead: a service whose
        cursor changes every 32 pages (the sandbox's) or on every page is not sent pages that its next
        link will not name. A link that holds longer than that is fetched ahead a quarter further."""
        if self._template is None:
            return None
        if key == f"{self._key_parts[0]}{number + 1}{self._key_parts[1]}":  # the link they were fetched by
            ahead = self._ahead.pop(number + 1, None)
            if ahead is None and self._next_number == number + 1:  # beyond how far it was expected to hold
                if self._stretch is not None:
                    self._stretch += max(1, self._stretch // 4)
                self._top_up()
                ahead = self._ahead.pop(number + 1, None)
            return ahead
        if self._since is not None:
            self._stretch = max(1, number - self._since)
        self._since = number
        self._drop_ahead()
        return None

    def _top_up(self) -> None:
        if self._template is None:
            return
        window = min(self.concurrency * WINDOW_PER_REQUEST, self._opened)
        last = self._last_number
        if self._stretch is not None and self._since is not None:
            last = min(last, self._since + self._stretch)  # the page whose link is expected to change
        while self._next_number <= last and len(self._ahead) < window:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="wfctl-pages")
            url = f"{self._url_parts[0]}{self._next_number}{self._url_parts[1]}"  # the template's, by number
            body = self._pool.submit(self._get, url)
            check: Future[list[dict[str, Any]]] = Future()
            if self._checked:
                before, self._before = self._before, body
                body.add_done_callback(lambda done, before=before, url=url, check=check:  # type: ignore[misc]
                                       self._check_later(before, done, httpx.URL(url), check))
            else:  # a link holding a cursor: the service's own position, no boundary to check
                check.set_result([])
            self._ahead[self._next_number] = _Ahead(body, check)
            self._next_number += 1

    def _check_later(self, before: Future[Any] | _Read | None, body: Future[Any], url: httpx.URL,
                     check: Future[list[dict[str, Any]]]) -> None:
        """Once a page fetched ahead is in: check the boundary before it in the pool (its result: the rows
        to give before the page's)."""
        if body.cancelled() or body.exception() is not None or not check.set_running_or_notify_cancel():
            if not check.done():
                check.set_result([])  # the page's own error is what the reader reports
            return

        def run() -> None:
            try:
                check.set_result(self._check(before, body.result(), url))
            except BaseException as exc:  # handed to the reader, which raises it
                check.set_exception(exc)

        pool = self._pool
        try:
            if pool is None:
                raise RuntimeError("closed")
            pool.submit(run)
        except RuntimeError:  # the reader was closed meanwhile: nobody waits for this check
            check.set_result([])

    def _check(self, before: Future[Any] | _Read | None, body: Any, url: httpx.URL) -> list[dict[str, Any]]:
        if before is None:
            return []
        if isinstance(before, Future):
            prev_url = url.copy_set_param("pageNumber", str(int(url.params["pageNumber"]) - 1))
            page = to_page(before.result(), next_url=None)
            before = _Read(prev_url, page.page_number, page.page_size, page.data)
        page = to_page(body, next_url=None)
        read = _Read(url, page.page_number, page.page_size, page.data)
        return self._settle(before, read) if self._checkable(before, read) else []

    def _drop_ahead(self) -> None:
        for ahead in self._ahead.values():
            ahead.body.cancel()
            ahead.check.cancel()
        self._ahead.clear()
        self._template = None
        self._before = None

    # -- the boundary between two pages ---------------------------------------------------------
    def _settle(self, before: _Read, after: _Read) -> list[dict[str, Any]]:
        """The rows to give between page `before` and page `after` (both as read): the ones that moved
        back across the boundary after `before` was read. PaginationError when it does not settle."""
        given = {_id(row) for row in before.rows}
        following = {_id(row) for row in after.rows}
        if after.rows and following <= given:
            return []  # the same records again: the reader stops the listing, saying so
        offset = before.number * before.size  # of the first row of page `after`, in the service's list
        moved: list[dict[str, Any]] = []
        for _ in range(SETTLE_ATTEMPTS):
            block = self._block(offset) if self._blocks else None
            if block is not None:
                rows, ended = block
                between = _between(rows, given, following, ended)
                if between is not None:
                    return moved + [row for row in between if _id(row) not in given]
            # the page before, by its offset (its link may hold a cursor: the block is read by offset)
            again = to_page(self._get(self._offset_url(before) or before.url), next_url=None).data
            between = _between(again, given, following, len(again) < before.size)
            if between is not None:
                return moved + [row for row in between if _id(row) not in given]
            if before.number > 1 and again and not any(_id(row) in given for row in again):
                break  # a page's worth of records or more gone before it: what moved cannot be placed
            if block is None and (not again or _id(again[-1]) in given):
                return moved  # the weaker check: the page before ends where it did
            for row in again:
                if _id(row) not in given:
                    given.add(_id(row))
                    moved.append(row)
        raise PaginationError(CHANGED)

    def _checkable(self, before: _Read, after: _Read) -> bool:
        """Whether the boundary between two pages is checked: pages by number (offsets) only. A link that
        carries more than the list's own query and a page number (a cursor, a token) is the service's
        own position in the list, and reading offsets around it would cost the service a scan each."""
        return _follows(before, after) and self._by_offset(after.url)

    def _by_offset(self, url: httpx.URL) -> bool:
        """Whether `url` names a page by the list's own query and a page number alone (no cursor, no token)."""
        if self._first_url is None:
            return False
        own = set(self._first_url.params.keys()) | {"pageNumber", "pageSize"}
        return all(name in own for name in url.params)

    def _offset_url(self, read: _Read) -> httpx.URL | None:
        if self._first_url is None:
            return None
        return self._first_url.copy_set_param("pageSize", str(read.size)).copy_set_param("pageNumber",
                                                                                         str(read.number))

    def _block(self, offset: int) -> tuple[list[dict[str, Any]], bool] | None:
        """The rows around `offset` (at offset-1 and offset, and one before when there is), read in one
        request, and whether the list ends inside them; None when the service does not serve it as asked."""
        shape = _block_shape(offset)
        if shape is None or self._first_url is None:
            return None
        size, number = shape
        url = self._first_url.copy_set_param("pageSize", str(size)).copy_set_param("pageNumber", str(number))
        try:
            body = self._get(url)
        except (ValidationFailed, NotFound):
            self._blocks = False
            return None
        page = to_page(body, next_url=None)
        raw = body.get("data") if isinstance(body, dict) else None
        if page.page_size != size or page.page_number != number or not isinstance(raw, list) or len(raw) > size:
            self._blocks = False  # e.g. a service with one page size: the weaker check from now on
            return None
        return page.data, len(raw) < size


def _follows(before: _Read, after: _Read) -> bool:
    """Whether `after` is the page right after `before`, by number, in pages of the same size."""
    return (after.url.params.get("pageNumber") == str(before.number + 1) and after.number == before.number + 1
            and before.size > 0 and len(before.rows) == before.size and after.size == before.size)


def _block_shape(offset: int) -> tuple[int, int] | None:
    """(pageSize, pageNumber) of a small page holding offsets offset-1 and offset, and one before them."""
    if offset < 1:
        return None
    for size in range(3, 64):
        position = (offset - 1) % size
        if 1 <= position <= size - 2 or (offset == 1 and position == 0):
            return size, (offset - 1) // size + 1
    return None


def _between(rows: list[dict[str, Any]], given: set[str], following: set[str],
             ended: bool) -> list[dict[str, Any]] | None:
    """The rows between the last one of `given` and the next one of `following` in `rows` (one read,
    so they are neighbours in the list at one moment: nothing else lies between them); None when `rows`
    do not show that. A list that ends inside `rows` may show no row of `following` (all deleted)."""
    last = None
    for index, row in enumerate(rows):
        if _id(row) in given:
            last = index
    if last is None:
        return None
    for index in range(last + 1, len(rows)):
        if _id(rows[index]) in following:
            return rows[last + 1:index]
    return rows[last + 1:] if ended else None


def _id(row: dict[str, Any]) -> str:
    return str(row.get("id"))


class _Ids:
    """The ids given so far in one listing, in little memory: a set of the recent ones' hashes, and
    sorted arrays of 64-bit hashes (8 bytes a record), merged so that there are few of them. Two ids
    of the same hash are one id here: at 100,000 records, about one chance in 10^9. A bitmap of 2^20
    bits (128 KiB, whatever the listing's size) in front answers most new ids without a search: only
    an id whose bit is set already (a repeat, or about one new id in ten at 100,000) is looked up."""

    RECENT = 4096
    BITS = 1 << 20

    def __init__(self) -> None:
        self._recent: set[int] = set()
        self._runs: list[array[int]] = []
        self._bits = bytearray(self.BITS >> 3)

    def fresh(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The rows whose ids were not given yet (a row without an id is always new), remembering them."""
        out = []
        bits, recent, mask = self._bits, self._recent, self.BITS - 1
        for row in rows:
            value = row.get("id")
            if value is None:
                out.append(row)
                continue
            key = hash(value if type(value) is str else str(value))
            spot = key & mask
            byte, bit = spot >> 3, 1 << (spot & 7)
            if bits[byte] & bit:
                if key in recent or self._in_runs(key):
                    continue
            else:
                bits[byte] |= bit
            recent.add(key)
            out.append(row)
            if len(recent) >= self.RECENT:
                self._flush()
                recent = self._recent
        return out

    def _in_runs(self, key: int) -> bool:
        for run in self._runs:  # a few sorted arrays: a binary search each
            index = bisect_left(run, key)
            if index < len(run) and run[index] == key:
                return True
        return False

    def _flush(self) -> None:
        run = array("q", sorted(self._recent))
        self._recent = set()
        while self._runs and len(self._runs[-1]) <= len(run):
            run = array("q", heapq.merge(self._runs.pop(), run))
        self._runs.append(run)
