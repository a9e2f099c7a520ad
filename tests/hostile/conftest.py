"""Hostile records, files and options: a sandbox of this package's own (its records have names no other
package's exact-output tests expect) and a CLI logged in to it, as in tests/resources; and `server`, hostile
servers that answer what a test says."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.hostile.hostile_server import HostileServer
from tests.resources.conftest import service, tag, wf

__all__ = ["server", "service", "tag", "wf"]


@pytest.fixture
def server() -> Iterator[Callable[..., HostileServer]]:
    """`server(answers)`: a HostileServer whose every answer is `answers(request_line, request_body)`."""
    servers: list[HostileServer] = []

    def start(answers: Callable[[str, bytes], bytes]) -> HostileServer:
        servers.append(HostileServer("answer", answer=answers))
        return servers[-1]

    yield start
    for each in servers:
        each.stop()
