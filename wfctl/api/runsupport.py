"""What wfctl's own bulk runs need of a Client beyond the SDK: not part of the SDK's API.

`client._runs` (a `RunSupport`) gives the run engine (wfctl.runs) the fast writer, a way to end the
Client's waits when a run stops, what the Client knows of an outage of the service, and the look-up of a
create a stopped run may have applied (an undo's preview, `find_same`). A script uses the
Client's public methods; these change with the runs that need them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wfctl.api.errors import ApiError, NetworkError

if TYPE_CHECKING:
    from wfctl.api.net.lean import LeanSender


class RunSupport:
    """A bulk run's handle on one Client (its transport's retry policy and pause)."""

    def __init__(self, client: Any) -> None:
        self._client = client  # a wfctl.api.Client (not imported: the Client imports this module)

    def lean_writer(self) -> LeanSender | None:
        """A sender for many JSON writes from worker threads (bulk import), or None.

        It keeps one plain `http.client` connection per thread: with 8 threads creating sites, far more
        requests a second than through the shared httpx session (README, Performance). Tokens (the
        Client's token source, asked on every request), refresh, error mapping and the G19 check stay with
        the Client, and its retry policy and pause decide for the lean writer too. None where the lean path
        would change behaviour: a proxy, a verbose log, a custom transport, or WFCTL_BULK_HTTPX=1."""
        from wfctl.api.net.lean import LeanSender

        client = self._client
        if (client._insecure or client._log is not None or client._inner_transport is not None
                or not LeanSender.usable(client.base_url)):
            return None
        retrying = client._transport()  # its policy and pause are the lean writer's too
        return LeanSender(client, policy=retrying.policy, pause=retrying.pause)

    def find_same(self, kind: str, parent_id: str | None, body: dict[str, Any]) -> dict[str, Any] | None:
        """The full record named as `body` that holds every field of `body` (a create of a run whose answer
        was lost), or None."""
        from wfctl.api.records.writes import find_same

        return find_same(self._client, kind, parent_id, body)

    def interrupt_waits(self) -> None:
        """End every wait of the Client's requests to send again (a Retry-After, a backoff), those under
        way and those to come, with `Interrupted`: the caller is stopping (a bulk run's Ctrl-C)."""
        if self._client._http is not None:
            self._client._transport().pause.interrupt()

    def watch_outages(self, observer: Any) -> None:
        """`observer.begin(pause)` when the Client's requests start riding out an outage of the service,
        `observer.end(pause)` when none does any more (`pause.outage()`: for how long): the CLI's note."""
        self._client._observer = observer
        if self._client._http is not None:
            self._client._transport().pause.observer = observer

    def outage(self) -> float | None:
        """Seconds the service has been down by the Client's account (no answer, or 502/503/504, while its
        requests are sent again: wfctl.api.net.retry), else None; for a caller to say that it waits."""
        return self._client._transport().pause.outage() if self._client._http is not None else None

    def outlasted_outage(self, exc: Exception) -> NetworkError | None:
        """As a NetworkError, `exc` when it ended a request because the service had been down for the whole
        outage the policy rides out (no answer, or 502/503/504 on every try): every further request would
        meet the same, so a bulk run stops there, resumable (exit 7). Else None."""
        from wfctl.api.net.retry import OUTAGE_STATUSES

        outage = self.outage()
        if outage is None or outage < self._client._transport().policy.outage_time:
            return None
        if isinstance(exc, NetworkError):
            return exc
        if isinstance(exc, ApiError) and exc.status in OUTAGE_STATUSES:
            return NetworkError(f"the service is unavailable (HTTP {exc.status} for {outage:.0f} s)",
                                detail=exc.one_line())
        return None
