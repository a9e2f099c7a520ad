"""What the certification tests share: `certified`, the certifications of a module's rules, all at once."""

from __future__ import annotations

from typing import Any

import pytest

from tests.certify.helpers import REFERENCE, certify_at_once
from tests.fixtures.cli import Result


@pytest.fixture(scope="module")
def certified(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Result, Any]]:
    """The standard certification of the reference client breaking each rule of the module's `HALF`, started at
    once (helpers.certify_at_once) when the module's first test needs it: rule -> (the result, the JSON report)."""
    return certify_at_once(tmp_path_factory.mktemp("rules"),
                           {rule: ([*REFERENCE, rule], "standard") for rule in request.module.HALF})
