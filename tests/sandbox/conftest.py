"""The sandbox suite runs on both backends: `backend` is sqlite or postgresql (a database of the session's
throw-away cluster), and `sandbox` / `sandbox_factory` here start servers on it. Clients of the shared
session sandbox, one per seeded login (logging in once per session)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import httpx
import pytest

from tests.fixtures.sandbox import (
    ADMIN,
    MANAGER,
    OTHER_ADMIN,
    SHARED_LOGIN_FAILURE_LIMIT,
    STAFF,
    SandboxServer,
    server_factory,
)
from tests.sandbox.helpers import all_pages, api_client


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def new_database(backend: str, request: pytest.FixtureRequest,
                 tmp_path_factory: pytest.TempPathFactory) -> Callable[[], str]:
    """A new empty database of the backend under test (a SQLite file, or a PostgreSQL database URL)."""
    if backend == "postgresql":
        return request.getfixturevalue("postgres").new_database  # type: ignore[no-any-return]
    directory = tmp_path_factory.mktemp("sqlite")
    count = itertools.count()
    return lambda: str(directory / f"sandbox-{next(count)}.db")


@pytest.fixture(scope="session")
def sandbox(new_database: Callable[[], str]) -> Iterator[SandboxServer]:
    server = SandboxServer(new_database(), login_failure_limit=SHARED_LOGIN_FAILURE_LIMIT)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def sandbox_factory(new_database: Callable[[], str]) -> Iterator[Callable[..., SandboxServer]]:
    yield from server_factory(new_database)


@pytest.fixture(scope="session")
def admin(sandbox: SandboxServer) -> Iterator[httpx.Client]:
    with api_client(sandbox, ADMIN) as client:
        yield client


@pytest.fixture(scope="session")
def manager(sandbox: SandboxServer) -> Iterator[httpx.Client]:
    with api_client(sandbox, MANAGER) as client:
        yield client


@pytest.fixture(scope="session")
def staff(sandbox: SandboxServer) -> Iterator[httpx.Client]:
    with api_client(sandbox, STAFF) as client:
        yield client


@pytest.fixture(scope="session")
def other_admin(sandbox: SandboxServer) -> Iterator[httpx.Client]:
    """The admin of the second agency (Southgate Recruitment)."""
    with api_client(sandbox, OTHER_ADMIN) as client:
        yield client


@pytest.fixture(scope="session")
def anonymous(sandbox: SandboxServer) -> Iterator[httpx.Client]:
    with api_client(sandbox, None) as client:
        yield client


@pytest.fixture(scope="session")
def staff_branch_id(admin: httpx.Client) -> str:
    """The branch the seeded staff login is bound to (the first seeded branch, G21)."""
    branches = all_pages(admin, "/api/branches")
    return next(b["id"] for b in branches if b["name"] == "Manchester Central")


@pytest.fixture(scope="session")
def other_branch_id(admin: httpx.Client) -> str:
    """A seeded Northwind branch that is not the staff login's."""
    branches = all_pages(admin, "/api/branches")
    return next(b["id"] for b in branches if b["name"] == "Leeds Riverside")

