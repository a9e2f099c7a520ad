"""An in-memory stand-in for wfctl.api.Client, for unit tests of the planner and runner.

End-to-end behaviour (HTTP, idempotency keys, dropped connections) is tested against the real sandbox;
this fake only lets the bulk logic be tested alone and fast. Thread-safe like the real Client."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from typing import Any

from wfctl.api.errors import Conflict, NetworkError, NotFound


class FakeApi:
    base_url = "http://fake.test"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.branches: dict[str, dict[str, Any]] = {}
        self.clients: dict[str, dict[str, Any]] = {}
        self.sites: dict[str, dict[str, Any]] = {}
        self.keys: dict[str, dict[str, Any]] = {}
        self.calls: list[str] = []
        self.lose_answers: set[str] = set()  # site names whose create answer is "lost" once

    def add_client(self, name: str, branch_id: str = "b1") -> str:
        cid = f"c{next(self._ids)}"
        self.clients[cid] = {"id": cid, "name": name, "branchId": branch_id, "email": "", "phone": "",
                             "billingAddress": ""}
        return cid

    # clients
    def iter_clients(self, *, branch_id: str | None = None, page_size: int | None = 100) -> Iterator[dict[str, Any]]:
        return iter([c for c in self.clients.values() if branch_id in (None, c["branchId"])])

    def get_client(self, client_id: str) -> dict[str, Any]:
        if client_id not in self.clients:
            raise NotFound("Not Found", status=404)
        return dict(self.clients[client_id])

    # sites
    def iter_sites(self, client_id: str, *, page_size: int | None = 100) -> Iterator[dict[str, Any]]:
        self.calls.append(f"list {client_id}")
        keep = ("id", "clientId", "name", "address", "phone", "email", "assessmentRequired")
        return iter([{k: s.get(k) for k in keep} for s in list(self.sites.values()) if s["clientId"] == client_id])

    def get_site(self, site_id: str) -> dict[str, Any]:
        self.calls.append(f"get {site_id}")
        return dict(self.sites[site_id])

    def create_site(self, client_id: str, body: dict[str, Any], *, idempotency_key: str | None = None) -> dict[str, Any]:
        with self._lock:
            self.calls.append(f"create {body['name']}")
            if idempotency_key in self.keys:
                return self.keys[idempotency_key]
            for s in self.sites.values():
                if s["clientId"] == client_id and s["name"].casefold() == body["name"].casefold():
                    raise Conflict("Conflict", status=409)
            sid = f"s{next(self._ids)}"
            site = {"address": "", "phone": "", "email": "", "assessmentRequired": False, "rates": [],
                    "departments": [], "bannedWorkers": [], **body, "id": sid, "clientId": client_id}
            self.sites[sid] = site
            if idempotency_key:
                self.keys[idempotency_key] = dict(site)
            if body["name"] in self.lose_answers:
                self.lose_answers.discard(body["name"])
                raise NetworkError("connection closed")
            return dict(site)

    def update_site(self, site_id: str, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.calls.append(f"update {site_id}")
            self.sites[site_id].update(body)
            return dict(self.sites[site_id])
