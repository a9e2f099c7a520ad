"""A client of a running sandbox's control plane (control.py), for `wfctl sandbox reset|seed|tenant|faults|clock|
journal` and for an integrator's own tests (the pytest plugin, tests/fixtures's servers).

    control = ControlClient("http://127.0.0.1:8765", token)
    control.reset(); control.advance(16 * 60); control.journal(tenant="Acme")

Each failure is a ControlFailure with one line and what kind it is ("network", "auth", "not_found",
"conflict", "invalid", "failure"), so a command maps it to an exit code without reading HTTP itself.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

DEFAULT_URL = "http://127.0.0.1:8765"
_KINDS = {401: "auth", 403: "forbidden", 404: "not_found", 409: "conflict", 400: "invalid", 413: "invalid"}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)([smhd])")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class ControlFailure(Exception):
    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class ControlClient:
    def __init__(self, url: str, token: str, *, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self._client = httpx.Client(base_url=self.url + "/_control/", timeout=timeout, trust_env=False,
                                    headers={"Authorization": f"Bearer {token}"})

    def close(self) -> None:
        self._client.close()

    def reset(self) -> dict[str, Any]:
        return self._call("POST", "reset")

    def seed(self, document: Any, *, tenant: str | None = None) -> dict[str, Any]:
        return self._call("POST", "seed", json=document, params={"tenant": tenant} if tenant else None)

    def add_tenant(self, name: str, *, logins: list[dict[str, Any]] | None = None,
                   records: bool = True) -> dict[str, Any]:
        body: dict[str, Any] = {"name": name, "records": records}
        if logins is not None:
            body["logins"] = logins
        return self._call("POST", "tenants", json=body)

    def tenant(self, tenant: str) -> dict[str, Any]:
        """{"id", "name", "reuse_detections"} of one tenant (an id or a name)."""
        return self._call("GET", "tenants", params={"tenant": tenant})

    def remove_tenant(self, tenant: str) -> dict[str, Any]:
        """Remove one tenant (an id or a name) with its records, logins and tokens: how many of each went."""
        return self._call("DELETE", "tenants", params={"tenant": tenant})

    def behaviour(self, *, tenant: str | None = None) -> dict[str, Any]:
        return self._call("GET", "behaviour", params=_tenant(tenant))

    def change(self, *, tenant: str | None = None, **changes: Any) -> dict[str, Any]:
        """Play `changes` from the next request on: for every tenant, or for `tenant` (an id or a name) alone."""
        return self._call("PUT", "behaviour", json=changes, params=_tenant(tenant))

    def restore(self, *, tenant: str | None = None) -> dict[str, Any]:
        return self._call("DELETE", "behaviour", params=_tenant(tenant))

    def advance(self, seconds: float, *, tenant: str | None = None) -> dict[str, Any]:
        return self._call("POST", "clock", json={"advance": seconds}, params=_tenant(tenant))

    def journal(self, *, tenant: str | None = None, since: int = 0, bodies: bool = False) -> list[dict[str, Any]]:
        params: dict[str, Any] = {"since": since, "bodies": int(bodies)}
        if tenant:
            params["tenant"] = tenant
        return list(self._call("GET", "journal", params=params)["records"])

    def keep_bodies(self, keep: bool) -> dict[str, Any]:
        return self._call("PUT", "journal", json={"bodies": keep})

    def _call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        try:
            response = self._client.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            raise ControlFailure(f"cannot reach the sandbox's control plane at {self.url}: {exc}", "network") \
                from None
        try:
            answer = response.json()
        except ValueError:
            answer = {}
        if response.status_code >= 400 or not isinstance(answer, dict):
            detail = answer.get("detail") if isinstance(answer, dict) else None
            if "x-sandbox-control" not in response.headers:
                detail = f"{self.url} has no control plane (start it with: wfctl sandbox serve --control)"
            raise ControlFailure(f"{detail or response.reason_phrase} (HTTP {response.status_code})",
                                 _KINDS.get(response.status_code, "failure"))
        return answer


def _tenant(tenant: str | None) -> dict[str, str] | None:
    return {"tenant": tenant} if tenant else None


def parse_duration(text: str) -> float:
    """`90`, `90s`, `15m`, `1h30m`, `30d` -> seconds. ValueError for anything else."""
    spec = text.strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", spec):
        return float(spec)
    parts = _DURATION.findall(spec)
    if not parts or "".join(number + unit for number, unit in parts) != spec:
        raise ValueError(f"{text!r} is not a duration (e.g. 90s, 15m, 1h30m, 30d)")
    return sum(float(number) * _UNIT[unit] for number, unit in parts)
