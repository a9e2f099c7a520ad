"""The list quirks (G7): listings that change while they are read, and a service that ignores pageNumber.

`churn-pages`: a listing starts with a request for its page 1 (of one list and page size); the first
request of that listing for a later page first deletes the list's first record (page 1) and creates
one like it at the end (a new id, a createdOn after
every other), in one statement. The count stays the same and every
record after the first moves back one place: the record that was first on page 2 is now last on page
1, which was already read. Deterministic: one delete and one create per listing, whatever the timing. A
reader that asks for several later pages at once (wfctl's fetches ahead) gets them all from the list as
churned, whichever came first: the churn and the page's read are one synchronous step of the handler, and
the churn holds the lock. Which record is first is the list's order (createdOn, then id): records made in
the same second are in the order of their random ids, so a test names them by their place in the listing,
never by the order it made them in (tests/bulk/test_lying_lists.py).
Branches and clients are churned only among those with nothing bound to them (clients, staff logins,
sites), so that no row is left pointing at a deleted id.

`ignore-page-number`: every list request answers the rows of page 1 (pageNumber and cursor ignored);
the envelope still names the page asked for and links to the next one, so a reader that does not
remember what it was given reads the same rows forever.
"""

from __future__ import annotations

import calendar
import contextlib
import threading
import time
import uuid
from typing import Any

from wfctl.sandbox.clock import Clock

#: What must not point at a churned record: (table, column) per list table.
_BOUND = {"sites": (), "clients": (("sites", "client_id"),),
          "branches": (("clients", "branch_id"), ("users", "branch_id"))}


class Churn:
    """Which listings wait for their churn: one per list (its path and page size) at a time."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock = clock or Clock()
        self._armed: set[str] = set()
        self._lock = threading.Lock()

    def before_page(self, store: Any, listing: str, page: int, table: str, where: str, args: list[Any]) -> None:
        """Called before a page of `listing` is read: page 1 arms it, the next later page churns it."""
        with self._lock:  # held through the churn: a later page asked meanwhile is read after it, never before
            if page <= 1:
                self._armed.add(listing)
                return
            if listing not in self._armed:
                return
            self._armed.discard(listing)
            free = "".join(f" AND NOT EXISTS (SELECT 1 FROM {other} WHERE {other}.{column} = {table}.id)"
                           for other, column in _BOUND[table])
            latest = store.db.execute(f"SELECT max(created_on) FROM {table} WHERE {where}", args).fetchone()[0]
            with store.statement() as db:
                db.execute(f"UPDATE {table} SET id = ?, created_on = ? WHERE id = (SELECT id FROM {table} "
                           f"WHERE {where}{free} ORDER BY created_on, id LIMIT 1)",
                           (str(uuid.uuid4()), _after(latest, self.clock.time()), *args))


def _after(latest: Any, now: float) -> str:
    """Now, or a second after the list's latest createdOn when that is not earlier: the new record is last."""
    with contextlib.suppress(ValueError):
        now = max(now, calendar.timegm(time.strptime(str(latest), _FORM)) + 1)
    return time.strftime(_FORM, time.gmtime(now))


_FORM = "%Y-%m-%dT%H:%M:%SZ"
