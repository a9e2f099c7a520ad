"""`wfctl help queries` prints docs/queries.md, shipped in the package (issue 34)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def test_help_queries_prints_the_page_as_text(cli: Any) -> None:
    r = cli("help", "queries")
    assert (r.exit_code, r.stderr) == (0, ""), r
    assert r.stdout.splitlines()[:2] == ["Queries: ask, sort and shape", "============================"]
    assert "Worked examples from agency work\n--------------------------------\n" in r.stdout
    assert "    $ wfctl sites export --all-clients --arg skill \"forklift driver\" \\\n" in r.stdout
    for mark in ("```", "**", "](", "\n#"):
        assert mark not in r.stdout, mark


def test_the_shipped_copy_is_docs_queries_md() -> None:
    shipped = REPO / "wfctl" / "topics" / "queries.md"
    assert shipped.read_text(encoding="utf-8") == (REPO / "docs" / "queries.md").read_text(encoding="utf-8"), \
        "docs/queries.md changed: cp docs/queries.md wfctl/topics/queries.md"


def test_help_lists_the_queries_topic_and_the_options_point_to_it(cli: Any) -> None:
    r = cli("help", "--help")
    assert re.search(r"^  queries +Describe --jq, --jq-each, --sort-by, --columns, -o yaml and wfctl jq\.$",
                     r.stdout, re.M), r.stdout
    r = cli("sites", "list", "--help")
    assert "`wfctl help queries`" in r.stdout
    for option in ("--jq <filter>", "--jq-each <filter>", "--arg <name> <value>", "--argjson <name> <json>",
                   "--sort-by <field,...>", "--columns <header=source,...>"):
        assert f"  {option}" in r.stdout, option
    r = cli("jq", "--help")
    assert (r.exit_code, r.stdout.splitlines()[0]) == (0, "Usage: wfctl jq [OPTIONS] <filter> [<file>|-]"), r
