"""One answer to "where did this option come from" (issue 22 §3): `wfctl.context.option_source` alone asks
click (`get_parameter_source`); the JSON-errors rule, --ca-bundle taken from WFCTL_CA_BUNDLE and `wfctl api`'s
-o call it (three copies of the question before). What each prints is pinned by the tests that drive it:
tests/messages/test_errors.py (WFCTL_OUTPUT=json on a terminal), tests/auth/test_tls.py (ca_bundle from env),
tests/newcomer/test_first_minute.py (`wfctl api` with WFCTL_OUTPUT=table)."""

from __future__ import annotations

import ast

from tests.layers.imports import modules


def test_only_option_source_asks_click_where_an_option_came_from():
    askers = sorted(
        name
        for name, path in modules().items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "get_parameter_source"
    )
    assert askers == ["wfctl.context"]
