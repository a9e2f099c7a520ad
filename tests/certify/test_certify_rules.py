"""Each reference client that breaks one rule is flagged by the right check and no other (issue 48 §3), in the
standard scenarios: the first half of the rules here, the second in test_certify_rules_more.py (two files, so
the parallel test run spreads them). Each file's certifications run at once, each in a wfctl process of its own
(helpers.certify_at_once), and each test asserts on its own."""

from __future__ import annotations

from typing import Any

import pytest

from tests.certify.clients.reference import BREAKS
from tests.certify.helpers import FLAGGED_BY, RULES, flagged_alone
from tests.fixtures.cli import Result

HALF = RULES[: len(RULES) // 2]  # certified at once (tests/certify/conftest.py)
# The first test's set-up runs the module's certifications at once: minutes when the machine is loaded.
pytestmark = pytest.mark.timeout(900)


def test_every_broken_rule_has_its_check() -> None:
    assert set(FLAGGED_BY) == set(BREAKS) and len(BREAKS) >= 20


@pytest.mark.parametrize("rule", HALF)
def test_a_client_that_breaks_one_rule_is_flagged_by_its_check_alone(certified: dict[str, tuple[Result, Any]],
                                                                      rule: str) -> None:
    flagged_alone(rule, *certified[rule])
