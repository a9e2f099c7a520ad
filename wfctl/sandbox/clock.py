"""The sandbox's time: one clock every module asks, which a test (or a control plane) moves.

    clock = Clock()
    clock.time()            # seconds since the epoch, as the service sees them
    clock.iso()             # "2026-12-07T00:20:00Z", the form of createdOn and modifiedOn
    clock.advance(16 * 60)  # the 15-minute access token has now expired, without a wait

What the service *decides* with time reads this clock: access-token expiry and the refresh lifetime
(auth.py), the refresh grace window, the idempotency window (idempotency.py), createdOn and modifiedOn,
the login throttle's window (accounts.py), the rate limit's second (middleware.Throttle), the purge of
expired rows and the seed's dates. What only *measures* a wait on this machine (how long a request took,
how long a reservation is waited on, how long the database is deemed down) stays on `time.monotonic`:
moving the service's calendar must not make this process wait, or stop waiting, any differently.

A tenant (tenancy.py) may be moved on its own (`advance(seconds, tenant=agency_id)`): its requests then
see the sandbox's time plus its own offset, and no other tenant's time moves (issue 48).

The clock moves forward only (a service's time never runs back) and belongs to one process: with several
workers (PostgreSQL, supervisor.py) each has its own; see docs/sandbox.md, "Seams".
"""

from __future__ import annotations

import threading
import time

from wfctl.sandbox.tenancy import TENANT

ISO_FORM = "%Y-%m-%dT%H:%M:%SZ"


class Clock:
    """Wall time plus an offset that only grows (`advance`)."""

    def __init__(self) -> None:
        self._offset = 0.0
        self._tenants: dict[str, float] = {}
        self._lock = threading.Lock()

    @property
    def offset(self) -> float:
        """Seconds this clock is ahead of the machine's (for the request's tenant, with its own offset)."""
        return self._offset + self._tenant_offset()

    @property
    def per_tenant(self) -> bool:
        """Whether some tenant's time was moved on its own."""
        return bool(self._tenants)

    def time(self) -> float:
        """Now, in seconds since the epoch, as the service sees it (for the request's tenant)."""
        return time.time() + self._offset + self._tenant_offset()

    def iso(self, at: float | None = None) -> str:
        """`at` (default: now) in the service's timestamp form, UTC to the second."""
        return time.strftime(ISO_FORM, time.gmtime(self.time() if at is None else at))

    def advance(self, seconds: float, *, tenant: str | None = None) -> float:
        """Move the clock `seconds` forward (ValueError for a negative step), for `tenant` only when named;
        the new offset (the tenant's: the sandbox's plus its own)."""
        if seconds < 0:
            raise ValueError("the sandbox's clock moves forward only")
        with self._lock:
            if tenant is None:
                self._offset += seconds
                return self._offset
            self._tenants = {**self._tenants, tenant: self._tenants.get(tenant, 0.0) + seconds}
            return self._offset + self._tenants[tenant]

    def forget(self, tenant: str | None = None) -> None:
        """Every tenant's own offset dropped (a reset), or `tenant`'s alone (it was removed)."""
        with self._lock:
            self._tenants = {} if tenant is None else {
                name: offset for name, offset in self._tenants.items() if name != tenant}

    def _tenant_offset(self) -> float:
        if not self._tenants:
            return 0.0
        tenant = TENANT.get()
        return self._tenants.get(tenant, 0.0) if tenant is not None else 0.0
