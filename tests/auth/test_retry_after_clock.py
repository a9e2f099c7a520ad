"""`Retry-After` as an HTTP date from a server whose clock is off (issue 25 section 4): the date is the
server's clock, so it is judged against the answer's own `Date` header. Two hours ahead, wfctl used to
give up at once (the wait looked longer than the cap); two hours behind, it retried without waiting.
No server can be made to run on a wrong clock on demand: httpx.MockTransport."""

from __future__ import annotations

import time
from email.utils import formatdate

import httpx
import pytest

from wfctl.api.client import Client
from wfctl.api.net.transport import RetryPolicy

BASE = "https://wams.example.com"


def _run(skew: float, wait: int, *, date_header: bool = True) -> tuple[list[float], int]:
    """A GET answered 503 with `Retry-After: <server now + wait>` by a server whose clock is `skew`
    seconds off, then 200. Returns the waits wfctl made and how many requests the server saw."""
    seen: list[str] = []

    def service(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if len(seen) > 1:
            return httpx.Response(200, json={"name": "A"})
        server_now = time.time() + skew
        headers = {"Retry-After": formatdate(server_now + wait, usegmt=True)}
        if date_header:
            headers["Date"] = formatdate(server_now, usegmt=True)
        return httpx.Response(503, headers=headers, json={"title": "busy"})

    waits: list[float] = []
    client = Client(BASE, transport=httpx.MockTransport(service), retry=RetryPolicy(max_attempts=3),
                    sleep=waits.append)
    assert client.request("GET", "/api/agency/") == {"name": "A"}
    return waits, len(seen)


@pytest.mark.parametrize("skew", [2 * 3600, -2 * 3600, 0])
def test_a_retry_after_date_is_judged_by_the_servers_own_clock(skew):
    waits, requests = _run(skew, 5)
    assert requests == 2
    assert len(waits) == 1 and 4.0 <= waits[0] <= 5.0, waits


def test_without_a_date_header_the_local_clock_judges():
    waits, requests = _run(0, 5, date_header=False)
    assert requests == 2 and len(waits) == 1 and 4.0 <= waits[0] <= 5.0, waits
