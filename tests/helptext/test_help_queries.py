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
    r = cli("sites", "list", "--help")  # named on one line under Output, which keeps a 24-line screen for the
    # command's own arguments and options (tests/messages/test_first_minutes.py); the topic describes them
    assert "\n  --jq; --jq-each; --arg; --argjson; --sort-by; --columns (wfctl help queries)\n" in r.stdout, r.stdout
    r = cli("jq", "--help")
    assert (r.exit_code, r.stdout.splitlines()[0]) == (0, "Usage: wfctl jq [OPTIONS] <filter> [<file>]..."), r
