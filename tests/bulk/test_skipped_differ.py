"""An edited export imported without `--on-existing update` (issue 30 §5): the rows skipped because their
record exists say how many differ from the service and which option sends their changes, where the run
said `skipped (exist) 3` and dropped the edits in silence. A change the site list carries (address) and
one only the full record has (a rate) both count."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.bulk.helpers import new_client, write

FILE = ("name,address,rates\n"
        "North Yard,1 Dock Rd,Picker=11.50\n"
        "South Yard,2 Dock Rd,Picker=11.50\n"
        "East Yard,3 Dock Rd,Picker=11.50\n")


def test_skipped_rows_that_differ_are_counted_and_the_option_named(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    assert cli("sites", "import", str(write(tmp_path / "a.csv", FILE)), "--client", cid).exit_code == 0
    held = cli("sites", "export", "--client", cid).stdout
    r = cli("sites", "import", str(tmp_path / "a.csv"), "--client", cid)  # the same file: nothing differs
    assert r.exit_code == 0 and r.stderr.count("\n") == 1 and r.stderr.endswith(": skipped (exist) 3\n"), r
    edited = write(tmp_path / "b.csv", FILE.replace("1 Dock Rd", "1 Quay St").replace("2 Dock Rd,Picker=11.50",
                                                                                      "2 Dock Rd,Picker=12.00"))
    r = cli("sites", "import", str(edited), "--client", cid)
    assert r.exit_code == 0, r
    assert r.stderr.splitlines()[1:] == ["2 of the 3 rows skipped (exist) differ from the service: their changes "
                                         "were not sent; --on-existing update sends them"], r
    assert cli("sites", "export", "--client", cid).stdout == held  # nothing was sent
    r = cli("sites", "import", str(edited), "--client", cid, "--dry-run")
    assert r.stdout.endswith("skipped (exist)  3\ninvalid          0\n"), r
    assert r.stderr == ("2 of the 3 rows skipped (exist) differ from the service: a run would not send their "
                        "changes; --on-existing update sends them\n"), r
    r = cli("sites", "import", str(edited), "--client", cid, "-o", "json")
    assert (json.loads(r.stdout)["skipped"], json.loads(r.stdout)["skippedDiffer"]) == (3, 2), r
    r = cli("sites", "import", str(edited), "--client", cid, "--on-existing", "update")
    assert r.exit_code == 0 and r.stderr.endswith(": updated 2, unchanged 1\n"), r
