"""schemathesis against a running sandbox, with the project's own OpenAPI document.

Every operation of wfctl/sandbox/openapi.json is fuzzed with data generated from the document,
authenticated as the seeded admin, over a real socket: no 5xx, and every response (status code,
content type, headers, body) conforms to the document. Bounded examples keep it well under a minute.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Callable, Iterator
from importlib import resources
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from tests.fixtures.sandbox import ADMIN, SandboxServer, login_token

MAX_EXAMPLES = int(os.environ.get("WFCTL_FUZZ_EXAMPLES", "25"))  # CI default: well under a minute
# Every check of schemathesis but the two that judge whether a request should have been accepted:
# - "schema-valid data is accepted" cannot hold, because the field rules of G11 go beyond what the document
#   can say (names are trimmed so "  " is empty, skills unique within a site, banned workers unique);
# - "schema-invalid data is rejected" counts an unknown query parameter as invalid (the sandbox ignores
#   them, as HTTP services do) and a case without Authorization as unauthenticated, while this test always
#   sends the admin's token.
# Both kinds of cases still run (positive and negative data): every answer must be no 5xx and conform to
# the document (status code, content type, headers, body schema), which is what the contract promises.
EXCLUDED_CHECKS = [schemathesis.checks.positive_data_acceptance, schemathesis.checks.negative_data_rejection]


@pytest.fixture(scope="module")
def fuzzed_sandbox(new_database: Callable[[], str]) -> Iterator[SandboxServer]:
    """A sandbox of its own (on each backend): the fuzzer changes the agency and creates records freely."""
    server = SandboxServer(new_database())
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def admin_headers(fuzzed_sandbox: SandboxServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {login_token(fuzzed_sandbox, *ADMIN)['accessToken']}"}


# The document ships in the package; the server's port is only known at run time (base_url per call).
schema = schemathesis.openapi.from_dict(
    json.loads(resources.files("wfctl.sandbox").joinpath("openapi.json").read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def known_ids(fuzzed_sandbox: SandboxServer, admin_headers: dict[str, str]) -> dict[str, list[str]]:
    """Real ids of the seeded records, so that half the item operations reach a record (200/409 answers)."""
    with httpx.Client(base_url=fuzzed_sandbox.url, headers=admin_headers, timeout=10) as client:
        branches = client.get("/api/branches", params={"pageSize": 100}).json()["data"]
        clients = client.get("/api/clients", params={"pageSize": 100}).json()["data"]
        sites = [s for c in clients[:3]
                 for s in client.get(f"/api/clients/{c['id']}/sites", params={"pageSize": 100}).json()["data"]]
    return {"branchId": [b["id"] for b in branches], "clientId": [c["id"] for c in clients],
            "siteId": [s["id"] for s in sites]}


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
          database=None)
def test_the_sandbox_conforms_to_its_openapi_document(case: Any, fuzzed_sandbox: SandboxServer,
                                                      admin_headers: dict[str, str],
                                                      known_ids: dict[str, list[str]]) -> None:
    seed = zlib.crc32(repr((case.body, case.query, case.path_parameters)).encode())
    for name in list(case.path_parameters or {}):
        if name in known_ids and seed % 2 == 0:
            case.path_parameters[name] = known_ids[name][seed % len(known_ids[name])]
    case.call_and_validate(base_url=fuzzed_sandbox.url, headers=admin_headers, timeout=10,
                           excluded_checks=EXCLUDED_CHECKS)
