"""No module over 500 lines in wfctl/ unless its docstring, in its first lines, says why it is one piece
(issue 22 §4): a long module is usually several ideas, and the next change to one of them drags the others."""

from __future__ import annotations

import ast
from pathlib import Path

import wfctl

LIMIT = 500
PACKAGE = Path(wfctl.__file__).parent


def _says_why(path: Path) -> bool:
    """Its docstring's first ten lines say "one piece" (and why, in the same sentence)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return "one piece" in "\n".join(doc.splitlines()[:10]).lower()


def test_every_module_over_500_lines_says_why_it_is_one_piece():
    long = {str(path.relative_to(PACKAGE.parent)): sum(1 for _ in path.open(encoding="utf-8"))
            for path in sorted(PACKAGE.rglob("*.py"))}
    unexplained = [f"{name}: {lines} lines" for name, lines in long.items() if lines > LIMIT
                   and not _says_why(PACKAGE.parent / name)]
    assert unexplained == []


def test_the_check_reads_the_docstring(tmp_path):
    piece = tmp_path / "piece.py"
    piece.write_text('"""A facade.\n\nOne piece, though over 500 lines: a method per endpoint."""\n', encoding="utf-8")
    assert _says_why(piece)
    piece.write_text('"""A facade."""\n# one piece\n', encoding="utf-8")
    assert not _says_why(piece)
