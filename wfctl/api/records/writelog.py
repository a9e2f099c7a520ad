"""What the SDK tells of each write it makes: one `Write` a create, update or delete of one record (and an
update of the agency), given to the Client's optional observer (`Client(write_observer=...)`) once the
service has answered it. The SDK only tells: it never writes a file of its own. The CLI installs its write
history as the observer (wfctl.history, by wfctl.factory), so `wfctl history` will be a reader of what
every write path already left, not a new write path.

A write made by a journalled bulk run carries the run's id (`Write.run`): the run's workers say which run
they serve (`in_run`), so an observer can tell a single write from one row of a run, whose journal holds it.
An observer that fails never fails the write: its error is logged (`wfctl.api` logger) and the write's
answer is returned as if it had not been asked.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

#: The verbs a Write names.
CREATE, UPDATE, DELETE = "create", "update", "delete"

_run: contextvars.ContextVar[str] = contextvars.ContextVar("wfctl_write_run", default="")


@dataclass(slots=True)
class Write:
    """One write the service answered: `kind` (site, client, branch, agency), `record_id`, `verb` (create,
    update, delete), `fields` (what was sent: a create's body, an update's changed fields; {} for a delete),
    `time` (UTC, `YYYY-MM-DDThh:mm:ssZ`), `run` (the journalled run it is a row of, "" for a single write)."""

    kind: str
    record_id: str
    verb: str
    fields: dict[str, Any] = field(default_factory=dict)
    time: str = ""
    run: str = ""


class WriteObserver(Protocol):
    """Told of each write a Client made (from the thread that made it: bulk workers call it at once)."""

    def wrote(self, write: Write) -> None: ...


@contextlib.contextmanager
def in_run(run_id: str) -> Iterator[None]:
    """The writes made in this block (this thread or task) are rows of journalled run `run_id`."""
    token = _run.set(run_id)
    try:
        yield
    finally:
        _run.reset(token)


def tell(observer: WriteObserver | None, kind: str, record_id: Any, verb: str,
         fields: dict[str, Any] | None = None) -> None:
    """Give `observer` (None: nobody asked) the Write of one answered write."""
    if observer is None:
        return
    write = Write(kind, "" if record_id is None else str(record_id), verb, dict(fields or {}), _now(), _run.get())
    try:
        observer.wrote(write)
    except Exception:  # an observer's fault is its own: the write was made
        logging.getLogger("wfctl.api").warning("the write observer failed on %s %s %s", verb, kind, write.record_id,
                                               exc_info=True)


_second: list[Any] = [-1, ""]  # the last second formatted, and its text: a bulk run's workers write many a second


def _now() -> str:
    second = int(time.time())
    cached = _second
    if cached[0] != second:
        cached[:] = [second, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second))]
    return str(cached[1])
