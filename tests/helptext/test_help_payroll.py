"""`wfctl help payroll` prints docs/payroll.md, shipped in the package; `wfctl help rates` the statutory rates
table with its source and the date it was checked (issue 35 §2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def test_the_shipped_copy_is_docs_payroll_md() -> None:
    shipped = REPO / "wfctl" / "topics" / "payroll.md"
    assert shipped.read_text(encoding="utf-8") == (REPO / "docs" / "payroll.md").read_text(encoding="utf-8"), \
        "docs/payroll.md changed: cp docs/payroll.md wfctl/topics/payroll.md"


def test_help_payroll_prints_the_page_as_text(cli: Any) -> None:
    r = cli("help", "payroll")
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout.splitlines()[:2] == ["Payroll and rates: the agency's calendar",
                                         "========================================"]
    assert "    $ wfctl calendar effective 2026-04-01\n" in r.stdout
    for mark in ("```", "**", "](", "\n#"):
        assert mark not in r.stdout, mark


def test_help_rates_shows_the_table_its_source_and_date(cli: Any) -> None:
    r = cli("help", "rates")
    assert (r.exit_code, r.stderr) == (0, "")
    lines = r.stdout.splitlines()
    assert lines[3:7] == ["  from        21+    18-20  16-17  apprentice",
                          "  2024-04-01  11.44  8.60   6.40   6.40",
                          "  2025-04-01  12.21  10.00  7.55   7.55",
                          "  2026-04-01  12.71  10.85  8.00   8.00"]
    text = " ".join(r.stdout.split())
    assert "Source: GOV.UK, National Minimum Wage and National Living Wage rates" in text
    assert "checked 2026-11-27" in text and "answers for dates until 2027-03-31" in text
    assert max(len(line) for line in lines) <= 80
    listed = cli("help")
    assert "  rates " in listed.stdout and "  payroll " in listed.stdout
