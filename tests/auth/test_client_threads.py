"""The SDK Client is shared by worker threads (bulk import): their first requests may start together."""

from __future__ import annotations

import threading
import time

import httpx

from tests.fixtures.sandbox import ADMIN, login_token
from wfctl.api import Client
from wfctl.api.session.auth import StaticTokenAuth


def test_threads_starting_together_share_one_http_session(sandbox, monkeypatch) -> None:
    made: list[httpx.Client] = []

    class SlowToBuild(httpx.Client):
        """Widens the window in which a second thread could build a session of its own."""

        def __init__(self, *args, **kwargs) -> None:
            time.sleep(0.05)
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(httpx, "Client", SlowToBuild)
    token = login_token(sandbox, *ADMIN)["accessToken"]
    client = Client(sandbox.url, auth=StaticTokenAuth(token, sandbox.url))
    start = threading.Barrier(8)
    names: list[str] = []

    def work() -> None:
        start.wait()
        names.append(client.get_agency()["name"])

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    client.close()

    assert names == ["Northwind Staffing"] * 8
    assert len(made) == 1
