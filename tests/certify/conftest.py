"""What the certification tests share: `certified`, the certifications of a module's rules, all at once; a sandbox
with its control plane on, and the token file the CLI reads, for the control plane's tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.certify.helpers import CONTROL_TOKEN, REFERENCE, certify_at_once
from tests.fixtures.cli import Result
from tests.fixtures.sandbox import SandboxServer


@pytest.fixture(scope="module")
def certified(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Result, Any]]:
    """The standard certification of the reference client breaking each rule of the module's `HALF`, started at
    once (helpers.certify_at_once) when the module's first test needs it: rule -> (the result, the JSON report)."""
    return certify_at_once(tmp_path_factory.mktemp("rules"),
                           {rule: ([*REFERENCE, rule], "standard") for rule in request.module.HALF})


@pytest.fixture
def controlled(sandbox_factory: Callable[..., SandboxServer]) -> SandboxServer:
    return sandbox_factory(control_token=CONTROL_TOKEN)


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "control-token"
    path.write_text(CONTROL_TOKEN + "\n")
    return path
