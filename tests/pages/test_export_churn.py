"""`sites export` when a listed site is deleted before its full record is read (issue 25 §3): skipped,
said on stderr, the rest exported. A real sandbox; the delete happens right after the list answered."""

from __future__ import annotations

import csv
import io
from typing import Any

import httpx

from tests.fixtures.sandbox import ADMIN, auth_headers
from tests.pages.helpers import add_client, sdk_client
from wfctl.runs.exporter import export


def test_a_site_deleted_between_list_and_read_is_skipped(sandbox_factory: Any, capsys: Any) -> None:
    server = sandbox_factory()
    client_id, ids = add_client(server, 30)
    headers = auth_headers(server, *ADMIN)

    class DeleteAfterList(httpx.BaseTransport):
        def __init__(self) -> None:
            self.inner = httpx.HTTPTransport()
            self.done = False

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            response = self.inner.handle_request(request)
            if request.url.path.endswith("/sites") and not self.done:
                self.done = True
                response.read()
                with httpx.Client(base_url=server.url, headers=headers) as other:
                    assert other.delete(f"/api/sites/{ids[7]}").status_code == 200
                return httpx.Response(response.status_code, headers=response.headers, content=response.content)
            return response

        def close(self) -> None:
            self.inner.close()

    out = io.StringIO()
    with sdk_client(server, transport=DeleteAfterList()) as api:
        count = export(api, "site", out, parent_ids=[client_id], concurrency=4)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert count == len(rows) == 29
    assert [row["name"] for row in rows] == [f"Site {i:06d}" for i in range(30) if i != 7]
    assert capsys.readouterr().err == f"site Site 000007 ({ids[7]}) was deleted while the export ran: skipped\n"
