"""The run's one stop rule (issue 46): `wfctl.runs.engine.stop_cause` decides for every action (an import's
row, a site's rates or bans, an edited site, an undo's row, a prune's delete) whether an error it met stops
the run, and why; `RunContext.stop_for` stops it. The errors are made as the SDK raises them (no server)."""

from __future__ import annotations

from typing import Any

import pytest

from wfctl.api.errors import ApiError, Conflict, NetworkError, NotLoggedIn, ServerError, ValidationFailed
from wfctl.runs.engine import RunContext, stop_cause
from wfctl.runs.journal import JournalError


class _Runs:
    """A Client's run support whose outage has lasted the whole budget: a 503 then is the service down (as
    `RunSupport.outlasted_outage` says it)."""

    def outlasted_outage(self, exc: Exception) -> NetworkError | None:
        if isinstance(exc, ServerError) and exc.status == 503:
            return NetworkError("the service is unavailable (HTTP 503 for 60 s)")
        return None

    def interrupt_waits(self) -> None:
        pass

    def outage(self) -> float | None:
        return None

    def lean_writer(self) -> None:
        return None


class _Client:
    _runs = _Runs()


@pytest.mark.parametrize(("error", "cause", "message"), [
    (JournalError("/runs/r.journal", "No space left on device"), "journal",
     "cannot write the journal (/runs/r.journal): no space left on device"),
    (NetworkError("connection refused"), "unreachable", "the service is unreachable (connection refused)"),
    (NotLoggedIn("the login cannot be refreshed"), "unreachable", "the login cannot be refreshed"),
    (ServerError("unavailable", status=503), "unreachable",
     "the service is unreachable (the service is unavailable (HTTP 503 for 60 s))"),
])
def test_what_every_further_row_would_meet_stops_the_run(error: Exception, cause: str, message: str) -> None:
    stopped = stop_cause(error, _Client())
    assert stopped is not None
    assert (stopped.cause, stopped.message.lower()) == (cause, message.lower())
    run = RunContext(_Client(), None)
    assert run.stop_for(error) is True
    assert run.stopping() and run.stopped is not None and run.stopped.cause == cause


@pytest.mark.parametrize("error", [ValidationFailed("name is required", status=400), Conflict("exists", status=409),
                                   ServerError("boom", status=500), ApiError("refused")])
def test_a_rows_own_error_is_its_outcome(error: Any) -> None:
    assert stop_cause(error, _Client()) is None
    run = RunContext(_Client(), None)
    assert run.stop_for(error) is False
    assert not run.stopping()
