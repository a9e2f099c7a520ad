"""A sandbox with its control plane on, and the token file the CLI reads, for the control plane's tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.certify.helpers import CONTROL_TOKEN
from tests.fixtures.sandbox import SandboxServer


@pytest.fixture
def controlled(sandbox_factory: Callable[..., SandboxServer]) -> SandboxServer:
    return sandbox_factory(control_token=CONTROL_TOKEN)


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "control-token"
    path.write_text(CONTROL_TOKEN + "\n")
    return path
