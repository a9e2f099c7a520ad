"""What the sandbox answers when a request fails for a reason of its own, not the request's.

- A database that cannot serve now (disk full, read-only, too many connections, a transaction aborted
  past its retries, a lost connection: `Store.unavailable` says which) is an outage: `503` with
  `Retry-After`, and one line in the server's log, no traceback. A client rides it out as any outage.
- Anything else is a fault of the sandbox: `500`, its traceback logged once, and `Connection: close`,
  since the connection's state is unknown after it. Either way the client is told whether the connection
  stays: it is never closed under a kept-alive client without a word.

`Failsafe` catches both around every middleware but ErrorForm (which rewrites the problem it answers),
so a fault in the rate limiter's counter or in a handler ends the same way.
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from wfctl.sandbox.problems import problem_response

#: Seconds a client is told to wait (Retry-After) when the database is unavailable.
RETRY_AFTER = 1
UNAVAILABLE = "the sandbox's database is unavailable (restarting or down); retry shortly"
#: uvicorn's error log: the one `wfctl sandbox serve` shows.
log = logging.getLogger("uvicorn.error")


def unavailable_response(scope: Scope, reason: str) -> Any:
    """The 503 of a database that cannot serve now, and its one log line."""
    log.warning("%s %s: 503, the database is unavailable: %s", scope.get("method", "?"), scope.get("path", ""),
                " ".join(reason.split()))
    return problem_response(503, UNAVAILABLE, headers={"Retry-After": str(RETRY_AFTER)})


class Failsafe:
    """Pure ASGI: a request that raises is answered here (503 or 500, see the module's docstring)."""

    def __init__(self, app: ASGIApp, store: Any) -> None:
        self.app = app
        self.store = store

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            if started:  # the answer is under way: nothing can be said any more; uvicorn closes
                raise
            reason = self.store.unavailable(exc)
            if reason is not None:
                response = unavailable_response(scope, reason)
            else:
                log.error("%s %s: 500, internal error", scope.get("method", "?"), scope.get("path", ""),
                          exc_info=exc)
                response = problem_response(500, f"internal error: {type(exc).__name__}",
                                            headers={"Connection": "close"})
            await response(scope, receive, send)
