"""What the sandbox plays, held in one object that can be changed while it runs.

    behaviour = Behaviour(quirks=["put-clears"], access_ttl=900)
    behaviour.quirks.put_clears              # asked by the handler, on each request
    behaviour.change(quirks=["errors=text"], latency_ms=20, faults=Faults(unavailable=True))
    behaviour.change(faults=Faults())        # the outage is over: the next request is served

Everything a deployment may do differently, or a test may make it do, is one field of `Played` (a
frozen value): the quirks (quirks.py), the access-token lifetime, the rate limit, the latency and the
injected faults. `Behaviour` holds the current one and swaps it whole on `change`, so a request that
reads `behaviour.now` once sees one consistent set, and a change takes effect between two requests.
No reader copies a field at start-up: the handlers ask `Service.quirks` (this object's), each request
asks which value is played and gets the middleware stack built for it (middleware.AsPlayed, built once a
value), and the access-token lifetime is read when a token is issued.

A tenant (an agency, tenancy.py) may play something of its own: `change(tenant=agency_id, ...)` starts
from what the sandbox plays for all and changes that tenant's value only; `now` is the value of the
request's tenant (tenancy.TENANT) when it has one, else the sandbox's. So a certification plays each
scenario as a tenant of one sandbox, and tenants never share what is played (issue 48).

A change lives in this process only. Under `--workers N` (PostgreSQL) each worker has its own
`Behaviour`, set from the same options at start; a control plane that changes one would have to reach
every worker (a row in the database that each reads when its version changes): docs/sandbox.md, "Seams".
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from wfctl.sandbox.quirks import Quirks, parse_quirks
from wfctl.sandbox.tenancy import TENANT
from wfctl.sandbox.tokenforms import DEFAULT_JWT_SIZE

DEFAULT_ACCESS_TTL = 900


@dataclass(frozen=True)
class Faults:
    """Faults the sandbox plays on purpose, beyond the quirks: off by default.

    `unavailable`: every request is answered as by a database that cannot serve now (503 with
    Retry-After, faults.unavailable_response): a 503 window, opened and closed between two requests."""

    unavailable: bool = False

    def names(self) -> list[str]:
        return ["unavailable"] if self.unavailable else []


@dataclass(frozen=True)
class Played:
    """One consistent set of what the sandbox plays (see the module's docstring)."""

    quirks: Quirks = field(default_factory=Quirks)
    access_ttl: int = DEFAULT_ACCESS_TTL
    rate_limit: int = 0
    latency_ms: int = 0
    faults: Faults = field(default_factory=Faults)
    #: the tokens issued (tokenforms.py): "opaque", or "jwt" of `token_size` characters
    token_form: str = "opaque"
    token_size: int = DEFAULT_JWT_SIZE


class Behaviour:
    """The one changeable holder of `Played`: read it per request, change it at any time."""

    def __init__(self, *, quirks: Quirks | Iterable[str] | None = None, access_ttl: int = DEFAULT_ACCESS_TTL,
                 rate_limit: int | None = None, latency_ms: int = 0, faults: Faults | None = None,
                 token_form: str = "opaque", token_size: int = DEFAULT_JWT_SIZE) -> None:
        self._lock = threading.Lock()
        self._now = _checked(Played(), quirks=quirks, access_ttl=access_ttl, rate_limit=rate_limit,
                             latency_ms=latency_ms, faults=faults, token_form=token_form, token_size=token_size)
        self._tenants: dict[str, Played] = {}

    @property
    def now(self) -> Played:
        """What is played now for the request's tenant: read once per request for one consistent set."""
        if self._tenants:
            tenant = TENANT.get()
            if tenant is not None:
                return self._tenants.get(tenant, self._now)
        return self._now

    @property
    def quirks(self) -> Quirks:
        return self.now.quirks

    @property
    def per_tenant(self) -> bool:
        """Whether some tenant plays something of its own (tenancy.TenantScope then names each request's)."""
        return bool(self._tenants)

    @property
    def limits_rate(self) -> bool:
        """Whether the sandbox plays a rate limit for all: its requests are counted per tenant
        (middleware.Throttle), so tenancy.TenantScope names each request's tenant then too."""
        return bool(self._now.rate_limit)

    def of(self, tenant: str | None) -> Played:
        """What `tenant` plays (None: the sandbox's value for all)."""
        return self._tenants.get(tenant, self._now) if tenant is not None else self._now

    def forget(self, tenant: str | None = None) -> None:
        """`tenant` plays the sandbox's value again (None: every tenant does)."""
        with self._lock:
            if tenant is None:
                self._tenants = {}
            else:
                self._tenants = {name: value for name, value in self._tenants.items() if name != tenant}

    @property
    def access_ttl(self) -> int:
        return self._now.access_ttl

    @property
    def faults(self) -> Faults:
        return self._now.faults

    def change(self, *, tenant: str | None = None, **changes: Any) -> Played:
        """Play something else from the next request on (for `tenant` only, when named): any of `quirks` (names as `--quirk` spells them,
        or a Quirks), `access_ttl`, `rate_limit` (None or 0: off), `latency_ms`, `faults`, `token_form`,
        `token_size`. What is not
        named stays. ValueError (nothing changed) for an unknown name or a bad value."""
        unknown = set(changes) - _FIELDS
        if unknown:
            raise ValueError(f"no such behaviour: {', '.join(sorted(unknown))}; known: {', '.join(sorted(_FIELDS))}")
        with self._lock:
            if tenant is None:
                self._now = _checked(self._now, **changes)
                return self._now
            played = _checked(self._tenants.get(tenant, self._now), **changes)
            self._tenants = {**self._tenants, tenant: played}  # swapped whole: readers take no lock
            return played


# ---- private helpers --------------------------------------------------------------------------

_FIELDS = {"quirks", "access_ttl", "rate_limit", "latency_ms", "faults", "token_form", "token_size"}


def _checked(base: Played, **changes: Any) -> Played:
    values: dict[str, Any] = {}
    if "quirks" in changes:
        values["quirks"] = parse_quirks(changes["quirks"])
    if "access_ttl" in changes:
        values["access_ttl"] = _whole(changes["access_ttl"], "access_ttl", minimum=1)
    if "rate_limit" in changes:
        values["rate_limit"] = _whole(changes["rate_limit"] or 0, "rate_limit", minimum=0)
    if "latency_ms" in changes:
        values["latency_ms"] = _whole(changes["latency_ms"] or 0, "latency_ms", minimum=0)
    if "faults" in changes:
        faults = changes["faults"] if changes["faults"] is not None else Faults()
        if not isinstance(faults, Faults):
            raise ValueError("faults must be a Faults")
        values["faults"] = faults
    if "token_form" in changes or "token_size" in changes:
        from wfctl.sandbox.tokenforms import check_form

        form = changes.get("token_form", base.token_form)
        size = _whole(changes.get("token_size", base.token_size), "token_size", minimum=1)
        check_form(form, size)
        values.update(token_form=form, token_size=size)
    return replace(base, **values)


def _whole(value: Any, name: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be a whole number of at least {minimum}, not {value!r}")
    return value
