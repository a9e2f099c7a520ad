"""The second half of test_certify_rules.py's rules: each broken rule flagged by its check and no other."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.certify.helpers import RULES, certify, flagged_alone, small_scenarios
from tests.fixtures.cli import Cli


@pytest.mark.parametrize("rule", RULES[len(RULES) // 2:])
def test_a_client_that_breaks_one_rule_is_flagged_by_its_check_alone(cli: Cli, tmp_path: Path, rule: str) -> None:
    flagged_alone(cli, tmp_path, rule)


def test_a_program_that_does_not_say_what_it_read_is_told_so(cli: Cli, tmp_path: Path) -> None:
    """The records check judges what the program says it read (CERTIFY_READ_FILE); a program that exits 0
    without saying gets that check's finding, whatever else it did."""
    result, report = certify(cli, tmp_path, "true", scenarios=small_scenarios(tmp_path, "plain"))
    assert result.exit_code == 1
    [plain] = report["scenarios"]
    records = next(check for check in plain["checks"] if check["name"] == "records")
    assert records == {"name": "records", "gap": "G7", "holds": False,
                       "findings": ["the program did not say which sites it read (CERTIFY_READ_FILE)"]}
