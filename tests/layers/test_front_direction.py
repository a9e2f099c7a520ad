"""The CLI's front by direction (issue 22 §2 and §4): wfctl.cmdline.main, the entry point, sits on top and nothing
of wfctl imports it; the fast path (startup -> helpindex, completeanswer) sits below the Typer app and
imports none of it, so `--help` and a Tab press stay answered without typer, click or pydantic; the index
builder reaches the app through wfctl.cmdline.app, never through wfctl.cmdline.main (that was the cli -> help_format ->
startup -> main -> cli ring)."""

from __future__ import annotations

import ast

from tests.layers.imports import graph, modules

FAST_PATH = ["wfctl.cmdline.startup", "wfctl.cmdline.helpindex", "wfctl.cmdline.completeanswer"]
APP_SIDE = {"wfctl.cmdline.main", "wfctl.cmdline.app", "wfctl.cmdline.help_format", "wfctl.cmdline.indexbuilder", "wfctl.cmdline.coercion",
            "wfctl.cmdline.typercompat"}
HEAVY = {"typer", "click", "rich", "pydantic", "httpx"}


def _third_party(module: str) -> set[str]:
    tree = ast.parse(modules()[module].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):  # inside functions and under TYPE_CHECKING too
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_nothing_of_wfctl_imports_the_entry_point_but_dunder_main():
    edges = graph()
    importers = sorted(module for module, targets in edges.items() if "wfctl.cmdline.main" in targets)
    assert importers == ["wfctl.__main__"]


def test_the_fast_path_imports_nothing_of_the_typer_app():
    edges = graph()
    for module in FAST_PATH:
        assert edges[module] & APP_SIDE == set(), module
        assert _third_party(module) & HEAVY == set(), module
