"""Clients of the shared session sandbox, one per seeded login (logging in once per session)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.fixtures.sandbox import ADMIN, MANAGER, OTHER_ADMIN, STAFF, SandboxServer
from tests.sandbox.helpers import all_pages, api_client


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

