"""No import cycles in wfctl/ (issue 22 §2), counting imports inside functions and under TYPE_CHECKING: a
ring of modules is one module in disguise, and the next change to any of them can break the import order.

KNOWN lists the rings not broken yet; the test fails on any other ring, and on a KNOWN one that is gone (so
the list only shrinks)."""

from __future__ import annotations

from tests.layers.imports import cycles, graph, shortest_cycle

KNOWN = [
]


def test_no_import_cycle_but_the_known_ones():
    edges = graph()
    found = cycles(edges)
    new = [" -> ".join(shortest_cycle(edges, ring)) for ring in found if ring not in KNOWN]
    assert new == [], "import cycles:\n" + "\n".join(new)
    assert [ring for ring in KNOWN if ring not in found] == [], "broken since: remove it from KNOWN"


def test_the_checker_sees_imports_inside_functions_and_under_type_checking(tmp_path):
    """The graph counts what a plain module-level reader would miss (else the test above cannot fail)."""
    edges = graph()
    assert "wfctl.factory" in edges["wfctl.context"]  # context imports it inside AppContext.client
    assert "wfctl.config" in edges["wfctl.factory"]  # factory names Settings under TYPE_CHECKING and inside
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
