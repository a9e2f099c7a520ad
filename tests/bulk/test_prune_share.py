"""Issue 49: `--max-delete-share` takes a percent (`25%`), as `rates set --max-change 31%` does, and a
fraction (`0.25`) still; anything else is one line, exit 2, before anything is read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import write
from tests.bulk.test_prune import client_with_sites, held, site_file


def test_a_percent_and_a_fraction_are_the_same_share(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid, name, names = client_with_sites(cli, tmp_path, 4)
    half = write(tmp_path / "half.csv", site_file(names[:2]))
    for share in ("25%", "0.25"):
        r = cli("sites", "import", str(half), "--client", cid, "--prune", "--yes", "--max-delete-share", share)
        assert r.exit_code == 12, r
        assert r.stderr.endswith(f"error: would delete 2 sites of 4 in client {name} (50%), over --max-delete-share "
                                 "25%; nothing was sent: review the list above, then give --allow-deletes 2 to go "
                                 "ahead\n"), r
    r = cli("sites", "import", str(half), "--client", cid, "--prune", "--yes", "--max-delete-share", "50%")
    assert r.exit_code == 0, r
    assert sorted(held(cli, cid)) == names[:2]


@pytest.mark.parametrize(("given", "said"), [
    ("25", "--max-delete-share '25': a fraction is at most 1; for a percent, write 25%"),
    ("101%", "--max-delete-share '101%': give a share of the scope from 0% to 100%, as a percent (25%) or a "
             "fraction (0.25)"),
    ("abc", "--max-delete-share 'abc': give a share of the scope from 0% to 100%, as a percent (25%) or a "
            "fraction (0.25)"),
    ("-0.1", "--max-delete-share '-0.1': give a share of the scope from 0% to 100%, as a percent (25%) or a "
             "fraction (0.25)"),
], ids=["bare-number", "over-100", "text", "negative"])
def test_a_share_that_is_not_one_is_refused_in_one_line(logged_in: Any, tmp_path: Path, given: str, said: str) -> None:
    path = write(tmp_path / "s.csv", site_file(["Site 00"]))
    r = logged_in("sites", "import", str(path), "--client", "Pennine Foods Ltd", "--prune", "--max-delete-share", given)
    assert (r.exit_code, r.stderr) == (2, f"error: {said}\n")
    r = logged_in("sites", "copy", "--from-profile", "other", "--client", "x", "--max-delete-share", given)
    assert (r.exit_code, r.stderr) == (2, f"error: {said}\n")
