"""The second half of test_certify_rules.py's rules: each broken rule flagged by its check and no other."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.certify.helpers import RULES, flagged_alone
from tests.fixtures.cli import Cli


@pytest.mark.parametrize("rule", RULES[len(RULES) // 2:])
def test_a_client_that_breaks_one_rule_is_flagged_by_its_check_alone(cli: Cli, tmp_path: Path, rule: str) -> None:
    flagged_alone(cli, tmp_path, rule)
