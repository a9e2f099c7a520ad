"""The one executor (wfctl.runs.engine) runs any plan of actions: each journalled under its own key, and
a run stopped by its journal or by a run-wide error ends the actions in flight before it returns. A prune's
delete is just another action (here one that deletes from an in-memory service)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from wfctl.runs import journal
from wfctl.runs.engine import Executor, RunContext, Stopped


@dataclass
class Delete:
    """A record the file no longer holds, deleted: its intent journalled first, then its outcome."""

    key: int
    record_id: str
    service: dict[str, str]

    def apply(self, run: RunContext) -> None:
        assert run.journal is not None
        run.journal.intend(self.key, record_id=self.record_id)
        name = self.service.pop(self.record_id)
        run.journal.record(self.key, "deleted", self.record_id, name=name)
        run.report(self.key)


def new_journal(tmp_path: Path) -> journal.Journal:
    return journal.Journal(str(tmp_path / "run.journal"), {"run": "r", "kind": "site"}, durable=False)


def test_a_plan_of_deletes_runs_journalled_by_action(tmp_path: Path) -> None:
    service = {f"id-{n}": f"Site {n}" for n in range(1, 41)}
    log = new_journal(tmp_path)
    done: list[int] = []
    plan = (Delete(n, f"id-{n}", service) for n in range(1, 41))
    Executor(RunContext(None, log, progress=done.append), 8).run(plan)
    log.finish({"deleted": 40})
    assert service == {} and sorted(done) == list(range(1, 41))
    _, entries, end = journal.read(log.path)
    assert {(e.row, e.status, e.id) for e in entries.values()} == {(n, "deleted", f"id-{n}") for n in range(1, 41)}
    assert end is not None


def test_a_journal_that_cannot_be_written_stops_the_run(tmp_path: Path) -> None:
    class Failing(Delete):
        def apply(self, run: RunContext) -> None:
            raise journal.JournalError(str(tmp_path), "no space left on device")

    log = new_journal(tmp_path)
    with pytest.raises(Stopped) as stopped:
        Executor(RunContext(None, log), 4).run(Failing(n, f"id-{n}", {}) for n in range(1, 100))
    log.finish(None)
    assert stopped.value.cause == "journal" and "no space left on device" in stopped.value.message


def test_a_run_wide_error_is_raised_once_the_actions_in_flight_have_ended(tmp_path: Path) -> None:
    started, ended = threading.Event(), threading.Event()

    class Slow(Delete):
        def apply(self, run: RunContext) -> None:
            if self.key == 1:
                started.wait(5)
                raise PermissionError("not logged in")
            started.set()
            ended.wait(0.2)
            ended.set()

    with pytest.raises(PermissionError):
        Executor(RunContext(None, new_journal(tmp_path)), 2).run(Slow(n, "", {}) for n in (2, 1, 3, 4))
    assert ended.is_set()  # the action in flight ended before the error was raised


def test_an_api_double_without_a_lean_writer_is_enough(tmp_path: Path) -> None:
    api: Any = object()
    run = RunContext(api, None, lean=True)
    assert run.sender is None and not run.stopping()
    run.halt(Stopped("interrupted", "interrupted"))
    run.halt(Stopped("journal", "later"))  # the first reason is kept
    assert run.stopping() and run.stopped is not None and run.stopped.cause == "interrupted"
