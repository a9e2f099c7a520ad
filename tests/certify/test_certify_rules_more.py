"""The second half of test_certify_rules.py's rules: each broken rule flagged by its check and no other (all at
once, as there)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.certify.helpers import RULES, certify, flagged_alone, small_scenarios
from tests.fixtures.cli import Cli, Result

HALF = RULES[len(RULES) // 2:]  # certified at once (tests/certify/conftest.py)
# The first test's set-up runs the module's certifications at once: minutes when the machine is loaded.
pytestmark = pytest.mark.timeout(900)


@pytest.mark.parametrize("rule", HALF)
def test_a_client_that_breaks_one_rule_is_flagged_by_its_check_alone(certified: dict[str, tuple[Result, Any]],
                                                                      rule: str) -> None:
    flagged_alone(rule, *certified[rule])


def test_a_program_that_does_not_say_what_it_read_is_told_so(cli: Cli, tmp_path: Path) -> None:
    """The records check judges what the program says it read (CERTIFY_READ_FILE); a program that exits 0
    without saying gets that check's finding, whatever else it did."""
    result, report = certify(cli, tmp_path, "true", scenarios=small_scenarios(tmp_path, "plain"))
    assert result.exit_code == 1
    [plain] = report["scenarios"]
    records = next(check for check in plain["checks"] if check["name"] == "records")
    assert records == {"name": "records", "gap": "G7", "holds": False,
                       "findings": ["the program did not say which sites it read (CERTIFY_READ_FILE)"]}
