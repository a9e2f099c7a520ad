"""`wfctl audit` in a real terminal of 80 and 120 columns: each check's line, each finding's record with its
id whole, what was found wrapped to the terminal, and each fix on a line of its own that a person copies whole."""

from __future__ import annotations

from typing import Any

import pytest

from tests.audit.conftest import World
from tests.terminal.conftest import run_in_terminal
from wfctl.render.tables import cell_width as width

SIZES = [(24, 80), (40, 120)]


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_audit_reads_well_in_the_terminal(wf: Any, world: World, size: tuple[int, int]) -> None:
    rows, columns = size
    screen = run_in_terminal(wf, "audit", "--client", "Ashworth Foods", "--client", "Calder Logistics",
                             "--floor", "12.71", columns=columns, rows=rows)
    assert screen.exit_status == 1, screen.text
    lines = screen.lines
    headings = [line for line in lines if line and not line.startswith(" ")]
    assert headings[:7] == ["no-rates (1): sites without rates",
                            "under-floor (1): rates under the pay floor of --floor (an amount, or nlw)",
                            "skill-spelling (1): skills of a client that differ only by case or spacing",
                            "department-email (1): departments without a contact e-mail",
                            "assessment-document (1): sites that require an assessment but hold no document",
                            "inconsistent-bans (1): workers banned at some of a client's sites only",
                            "look-alike-sites (2): sites of different clients whose names look alike"]
    assert headings[7:] == ["8 findings in 5 sites", "not checked: under-charge-floor (--charge-floor)"]
    for line in lines:
        if not line.lstrip().startswith(("fix: ", "or: ")):  # a command stays on one line, to copy whole
            assert width(line) <= columns, f"wider than the terminal ({columns}): {line!r}"
    record = "  Ardwick Cross-Dock (site of Ashworth Foods)"
    assert lines.count(record) == 3  # no-rates, assessment-document, look-alike-sites
    last = max(index for index, line in enumerate(lines) if line == record)
    found = " ".join(line.strip() for line in lines[last + 1:last + 3])
    assert found.startswith(f"the name looks like 'ardwick crossdock ltd' (Calder Logistics, {world.crossdock})")
    assert f"    fix: wfctl rates set --site {world.bakery} --skill 'Picker Packer' --floor 12.71" in lines
    assert f"    fix: ban at every site: wfctl bans add W-1 --client {world.ashworth}" in lines
    assert f"    or:  lift it: wfctl bans remove W-1 --client {world.ashworth}" in lines
