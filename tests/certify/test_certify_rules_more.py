"""The second half of test_certify_rules.py's rules: each broken rule flagged by its check and no other (all at
once, as there)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.certify.helpers import RULES, flagged_alone
from tests.fixtures.cli import Result

HALF = RULES[len(RULES) // 2:]  # certified at once (tests/certify/conftest.py)
# The first test's set-up runs the module's certifications at once: minutes when the machine is loaded.
pytestmark = pytest.mark.timeout(900)


@pytest.mark.parametrize("rule", HALF)
def test_a_client_that_breaks_one_rule_is_flagged_by_its_check_alone(certified: dict[str, tuple[Result, Any]],
                                                                      rule: str) -> None:
    flagged_alone(rule, *certified[rule])
