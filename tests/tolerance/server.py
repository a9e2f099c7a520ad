"""A deliberately different service: what a real deployment may do where the contract allows it.

A tiny stdlib HTTP server in a thread, with switchable behaviours (contract part 1, tolerance column):

- `next_page`: how `nextPage` is written: "url" (absolute, like the sandbox), "number", "string"
  (a numeric string), "relative" (a path with query), "object" ({"pageNumber": n}), "missing" (no field:
  pageNumber < pageCount decides), "cycle" (always page 2), "foreign" (an absolute URL on `foreign_url`);
- `errors`: the error body: "problem" (RFC 9457), "message" ({"message": ...}), "text" (text/plain),
  "html" (an HTML page);
- `put_clears`: a PUT replaces the record, so a field left out of the body is cleared (G13 tolerance);
- `ignore_branch_filter`: `GET /api/clients?branchId=` returns every client (G9 tolerance);
- `site_list_fields`: fields beyond the usual summary that a site list item carries.

Creates (POST) store whatever body they are given (any field, known or not) under a new id, so a test
can add a field to wfctl's definitions and see it reach the server and come back.

Every request is recorded in `requests` (method, path, query, headers, body) for assertions.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

TOKEN = "tolerance-token"
_KIND = {"branches": "branch", "clients": "client", "sites": "site"}
CREATED = "2026-01-02T03:04:05Z"


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any


@dataclass
class Behaviour:
    next_page: str = "url"
    errors: str = "problem"
    put_clears: bool = False
    ignore_branch_filter: bool = False
    foreign_url: str = "http://127.0.0.1:9"
    site_list_fields: tuple[str, ...] = ()


@dataclass
class State:
    branches: dict[str, dict[str, Any]] = field(default_factory=dict)
    clients: dict[str, dict[str, Any]] = field(default_factory=dict)
    sites: dict[str, dict[str, Any]] = field(default_factory=dict)


def seeded_state(sites: int = 25) -> State:
    state = State()
    for i in (1, 2):
        state.branches[f"b{i}"] = {"id": f"b{i}", "name": f"Branch {i}", "address": f"{i} High St",
                                   "phone": f"0{i}", "email": f"b{i}@example.com", "createdOn": CREATED}
    for i in range(1, 7):
        branch = "b1" if i <= 3 else "b2"
        state.clients[f"c{i}"] = {"id": f"c{i}", "name": f"Client {i}", "branchId": branch,
                                  "email": f"c{i}@example.com", "phone": f"07{i}", "billingAddress": f"{i} Bill Rd",
                                  "createdOn": CREATED}
    for i in range(1, sites + 1):
        state.sites[f"s{i:03d}"] = {
            "id": f"s{i:03d}", "clientId": "c1", "name": f"Site {i}", "address": f"{i} Dock Rd", "phone": "",
            "email": "", "assessmentRequired": i % 2 == 0, "createdOn": CREATED,
            "rates": [{"skill": "picker", "hourlyRate": 11.5}], "departments": [], "bannedWorkers": [],
            "documents": []}
    return state


class ToleranceServer:
    """`url`, `behaviour`, `state`, `requests`; `stop()`."""

    def __init__(self, behaviour: Behaviour | None = None, state: State | None = None) -> None:
        self.behaviour = behaviour or Behaviour()
        self.state = state or seeded_state()
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(_Handler):
            server_ref = outer

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def paths(self, method: str = "GET") -> list[str]:
        return [f"{r.path}?{'&'.join(f'{k}={v}' for k, v in sorted(r.query.items()))}"
                for r in self.requests if r.method == method]


class _Handler(BaseHTTPRequestHandler):
    server_ref: ToleranceServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    # -- routing ------------------------------------------------------------------------------
    def _dispatch(self, method: str) -> None:
        srv = self.server_ref
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        with srv._lock:
            srv.requests.append(Recorded(method, parts.path, query, dict(self.headers.items()), body))
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            return self._error(401, "Unauthorized", "no valid token")
        segments = [s for s in parts.path.split("/") if s][1:]  # drop "api"
        with srv._lock:
            self._route(method, segments, query, body)

    def _route(self, method: str, seg: list[str], query: dict[str, str], body: Any) -> None:
        st = self.server_ref.state
        table = {"branches": st.branches, "clients": st.clients, "sites": st.sites}
        if len(seg) == 1 and seg[0] in ("branches", "clients") and method == "GET":
            rows = list(table[seg[0]].values())
            if seg[0] == "clients" and query.get("branchId") and not self.server_ref.behaviour.ignore_branch_filter:
                rows = [r for r in rows if r["branchId"] == query["branchId"]]
            return self._page(rows, query)
        if len(seg) == 3 and seg[0] == "clients" and seg[2] == "sites" and method == "GET":
            if seg[1] not in st.clients:
                return self._error(404, "Not Found", f"client {seg[1]} not found")
            summary = ("id", "clientId", "name", "address", "phone", "email", "assessmentRequired", "createdOn",
                       *self.server_ref.behaviour.site_list_fields)
            rows = [{k: s[k] for k in summary if k in s} for s in st.sites.values() if s["clientId"] == seg[1]]
            return self._page(rows, query)
        if len(seg) == 3 and seg[0] == "clients" and seg[2] == "sites" and method == "POST":
            if seg[1] not in st.clients:
                return self._error(404, "Not Found", f"client {seg[1]} not found")
            return self._create("sites", dict(body or {}, clientId=seg[1]))
        if len(seg) == 1 and seg[0] in ("branches", "clients") and method == "POST":
            return self._create(seg[0], dict(body or {}))
        if len(seg) == 2 and seg[0] in table:
            records = table[seg[0]]
            record = records.get(seg[1])
            kind = _KIND[seg[0]]
            if record is None:
                return self._error(404, "Not Found", f"{kind} {seg[1]} not found")
            if method == "GET":
                return self._json(200, record)
            if method == "PUT":
                return self._put(seg[0], record, body)
            if method == "DELETE":
                children = [c for c in st.clients.values() if c["branchId"] == seg[1]] if seg[0] == "branches" else \
                    [s for s in st.sites.values() if s["clientId"] == seg[1]] if seg[0] == "clients" else []
                if children:
                    child = "clients" if seg[0] == "branches" else "sites"
                    return self._error(409, "Conflict", f"{kind} still has {len(children)} {child}")
                del records[seg[1]]
                return self._json(200, {"status": "success", "message": f"{kind} deleted"})
        return self._error(404, "Not Found", f"no route {method} /api/{'/'.join(seg)}")

    def _create(self, collection: str, body: dict[str, Any]) -> None:
        records = {"branches": self.server_ref.state.branches, "clients": self.server_ref.state.clients,
                   "sites": self.server_ref.state.sites}[collection]
        prefix = collection[0]
        number = len(records) + 1
        while f"{prefix}{number:03d}" in records:
            number += 1
        record = {"id": f"{prefix}{number:03d}", **body, "createdOn": CREATED}
        if collection == "sites":
            for name in ("rates", "departments", "bannedWorkers", "documents"):
                record.setdefault(name, [])
        records[record["id"]] = record
        self._json(201, record)

    def _put(self, collection: str, record: dict[str, Any], body: dict[str, Any]) -> None:
        writable = {"branches": ("name", "address", "phone", "email"),
                    "clients": ("name", "email", "phone", "billingAddress")}.get(collection)
        if writable and self.server_ref.behaviour.put_clears:
            for name in writable:
                record[name] = body.get(name, "")  # this deployment clears what a PUT leaves out
        else:
            record.update(body)
        record["updatedOn"] = "2026-01-03T00:00:00Z"
        self._json(200, record)

    # -- answers ------------------------------------------------------------------------------
    def _page(self, rows: list[dict[str, Any]], query: dict[str, str]) -> None:
        number = int(query.get("pageNumber", "1"))
        size = min(int(query.get("pageSize", "10")), 100)
        count = max(1, -(-len(rows) // size))
        envelope: dict[str, Any] = {"data": rows[(number - 1) * size:number * size], "pageNumber": number,
                                    "pageSize": size, "pageCount": count, "totalRecordCount": len(rows),
                                    "previousPage": None}
        nxt = number + 1 if number < count else None
        form = self.server_ref.behaviour.next_page
        path = urlsplit(self.path).path
        extra = "".join(f"&{k}={v}" for k, v in query.items() if k not in ("pageNumber", "pageSize"))
        if form == "missing":
            pass
        elif form == "cycle":
            envelope["nextPage"] = f"{self.server_ref.url}{path}?pageNumber=2&pageSize={size}{extra}"
        elif nxt is None:
            envelope["nextPage"] = None
        elif form == "url":
            envelope["nextPage"] = f"{self.server_ref.url}{path}?pageNumber={nxt}&pageSize={size}{extra}"
        elif form == "relative":
            envelope["nextPage"] = f"{path}?pageNumber={nxt}&pageSize={size}{extra}"
        elif form == "number":
            envelope["nextPage"] = nxt
        elif form == "string":
            envelope["nextPage"] = str(nxt)
        elif form == "object":
            envelope["nextPage"] = {"pageNumber": nxt, "pageSize": size}
        elif form == "foreign":
            envelope["nextPage"] = f"{self.server_ref.behaviour.foreign_url}{path}?pageNumber={nxt}&pageSize={size}"
        self._json(200, envelope)

    def _error(self, status: int, title: str, detail: str) -> None:
        form = self.server_ref.behaviour.errors
        if form == "message":
            self._send(status, "application/json", json.dumps({"message": detail}).encode())
        elif form == "text":
            self._send(status, "text/plain; charset=utf-8", detail.encode())
        elif form == "html":
            page = f"<!DOCTYPE html><html><head><title>{status} {title}</title></head>\n<body><h1>{title}</h1>" \
                   f"\n<p>{detail}</p></body></html>"
            self._send(status, "text/html; charset=utf-8", page.encode())
        else:
            problem = {"type": "about:blank", "title": title, "status": status, "detail": detail}
            self._send(status, "application/problem+json", json.dumps(problem).encode())

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, "application/json", json.dumps(obj).encode())

    def _send(self, status: int, content_type: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
