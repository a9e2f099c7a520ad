"""`wfctl sites import|export` end to end against the sandbox (real socket, real CLI entry point)."""

from __future__ import annotations

import csv
import io
import json
import uuid
from pathlib import Path
from typing import Any

from tests.bulk.helpers import export_rows, new_client, site_names, site_rows, without_ids, write

DATA = Path(__file__).parent / "data"


def as_rows(cli: Any, client_id: str) -> list[dict[str, Any]]:
    r = cli("sites", "list", "--client", client_id, "--all", "-o", "json")
    assert r.exit_code == 0, r
    return list(json.loads(r.stdout))


def report(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))


def test_formats_import_exactly(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    for name in ("bom_crlf.csv", "semicolon.csv", "quoted.csv"):
        r = cli("sites", "import", str(DATA / name), "--client", cid)
        assert r.exit_code == 0, r
    r = cli("sites", "list", "--client", cid, "--all", "-o", "json")
    by_name = {s["name"]: s for s in json.loads(r.stdout)}
    assert set(by_name) == {"Hull depot", "Leeds hub", "York", "Bath", "Dock, North"}
    hull = json.loads(cli("sites", "get", by_name["Hull depot"]["id"], "-o", "json").stdout)
    assert hull["phone"] == "+44 1482 000000"
    assert hull["assessmentRequired"] is True
    assert hull["rates"] == [{"skill": "forklift", "hourlyRate": 12.5}, {"skill": "picker", "hourlyRate": 11}]
    assert hull["departments"] == [{"name": "Goods in", "contactPerson": "Ann Lee", "email": "ann@example.com"}]
    assert hull["bannedWorkers"] == ["w-1", "w-2"]
    dock = json.loads(cli("sites", "get", by_name["Dock, North"]["id"], "-o", "json").stdout)
    assert dock["address"] == '12 "Quay" St\r\nFloor 2'
    assert dock["departments"][0]["name"] == "Goods in: east"
    assert dock["bannedWorkers"] == ["w|1", "w2"]
    assert by_name["Bath"]["address"] == "Line one\nLine two"


def test_client_by_name_and_by_id(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    name = f"Harbour Foods {tmp_path.name[-12:]}"
    cid = new_client(cli, name)
    by_name = write(tmp_path / "by_name.csv", (DATA / "client_by_name.csv").read_text().replace("Harbour Foods", name)
                    .replace("harbour foods", name.lower()))
    assert cli("sites", "import", str(by_name)).exit_code == 0
    by_id = write(tmp_path / "by_id.csv", (DATA / "client_by_id.csv").read_text().replace("{client_id}", cid))
    assert cli("sites", "import", str(by_id)).exit_code == 0
    assert site_names(cli, cid) == ["Id depot A", "Id depot B", "Name depot A", "Name depot B"]


def test_invalid_rows_stop_the_run_exit_2_with_report(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    r = cli("sites", "import", str(DATA / "invalid_cells.csv"), "--client", cid, "--report", str(tmp_path / "r.csv"))
    assert r.exit_code == 2, r
    assert "invalid: row 2 (line 3), column email: 'not-an-email' is not an e-mail address" in r.stderr
    assert "18 of 19 rows are invalid; nothing was sent" in r.stderr
    assert site_names(cli, cid) == []
    rows = report(tmp_path / "r.csv")
    assert len(rows) == 19
    assert [row["status"] for row in rows].count("invalid") == 18
    assert rows[17] == {**rows[17], "name": "valid row", "status": "not sent", "id": "", "error": ""}
    assert "email: 'not-an-email' is not an e-mail address" in rows[1]["error"]


def test_cp1252_and_unknown_columns_exit_2(logged_in: Any) -> None:
    cli = logged_in
    cid = new_client(cli)
    r = cli("sites", "import", str(DATA / "cp1252.csv"), "--client", cid)
    assert r.exit_code == 2 and "line 2 is not UTF-8" in r.stderr, r
    r = cli("sites", "import", str(DATA / "unknown_column.csv"), "--client", cid)
    assert r.exit_code == 2 and "column colour: unknown column" in r.stderr, r


def test_skip_invalid_imports_the_rest_exit_10(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    r = cli("sites", "import", str(DATA / "invalid_cells.csv"), "--client", cid, "--skip-invalid",
            "--report", str(tmp_path / "r.csv"))
    assert r.exit_code == 10, r
    assert site_names(cli, cid) == ["valid row"]
    rows = report(tmp_path / "r.csv")
    created = [row for row in rows if row["status"] == "created"]
    assert len(created) == 1 and created[0]["id"]


def test_dry_run_plans_and_rerun_creates_nothing(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    name = f"Plan {uuid.uuid4().hex[:10]}"
    cid = new_client(cli, name)
    path = write(tmp_path / "s.csv", site_rows(30))
    r = cli("sites", "import", str(path), "--client", cid, "--dry-run")
    assert r.exit_code == 0, r
    assert r.stdout.endswith("to create        30\nto update        0\nunchanged        0\n"
                             "skipped (exist)  0\ninvalid          0\n"), r
    assert r.stdout.startswith(f"row 1  create  =Site0\n  in client {name}\n  address: 0 Dock Road"), r
    assert r.stdout.count("  create  ") == 30
    assert site_names(cli, cid) == []
    r = cli("sites", "import", str(path), "--client", cid, "--report", str(tmp_path / "r.csv"))
    assert r.exit_code == 0, r
    assert {row["status"] for row in report(tmp_path / "r.csv")} == {"created"}
    r = cli("sites", "import", str(path), "--client", cid, "-o", "json")
    assert r.exit_code == 0, r
    assert json.loads(r.stdout)["created"] == 0 and json.loads(r.stdout)["skipped"] == 30
    r = cli("sites", "import", str(path), "--client", cid, "--dry-run", "-o", "json")
    plan = json.loads(r.stdout)
    assert plan["rows"] == [] and plan["summary"]["skipped"] == 30 and plan["summary"]["dryRun"] is True
    # changed rows: update plans only what differs
    changed = path.read_text().replace("site3@example.com", "changed@example.com")
    write(path, changed)
    r = cli("sites", "import", str(path), "--client", cid, "--dry-run", "--on-existing", "update")
    site3 = next(s for s in as_rows(cli, cid) if s["name"] == "Site 00003")
    assert r.stdout == (f"row 4  update  Site 00003  ({site3['id']})\n  in client {name}\n"
                        "  email: site3@example.com -> changed@example.com\n"
                        "to create        0\nto update        1\nunchanged        29\n"
                        "skipped (exist)  0\ninvalid          0\n"), r
    r = cli("sites", "import", str(path), "--client", cid, "--dry-run", "--on-existing", "update", "-o", "jsonl")
    assert json.loads(r.stdout.splitlines()[0]) == {
        "row": 4, "action": "update", "status": "updated", "id": site3["id"], "name": "Site 00003",
        "changes": {"email": {"old": "site3@example.com", "new": "changed@example.com"}},
        "parent": {"id": cid, "name": name}}
    planned = tmp_path / "planned.csv"
    r = cli("sites", "import", str(path), "--client", cid, "--dry-run", "--on-existing", "update",
            "--report", str(planned))
    assert [(row["name"], row["status"], row["changes"]) for row in report(planned) if row["status"] != "unchanged"] \
        == [("Site 00003", "update", "email: site3@example.com -> changed@example.com")], r
    done = tmp_path / "done.csv"
    r = cli("sites", "import", str(path), "--client", cid, "--on-existing", "update", "-o", "json",
            "--report", str(done))
    assert json.loads(r.stdout)["updated"] == 1, r
    assert [(row["status"], row["changes"]) for row in report(done) if row["status"] != "unchanged"] == \
        [("updated", "email: site3@example.com -> changed@example.com")]
    r = cli("sites", "import", str(path), "--client", cid, "--on-existing", "fail")
    assert r.exit_code == 2 and "already exists" in r.stderr


def test_stdin_pipe_and_formula_roundtrip(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    source, target = new_client(cli), new_client(cli)
    assert cli("sites", "import", "-", "--client", source, input=site_rows(14)).exit_code == 0
    exported = cli("sites", "export", "--client", source).stdout
    assert ",'=Site0," in exported and ",'+44 1482 000000," in exported
    assert cli("sites", "import", "-", "--client", target, "--ignore-ids", input=exported).exit_code == 0
    assert export_rows(cli, source) == export_rows(cli, target)


def test_roundtrip_1000_sites_field_for_field(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    source, target = new_client(cli), new_client(cli)
    path = write(tmp_path / "s.csv", site_rows(1000))
    r = cli("sites", "import", str(path), "--client", source, "--concurrency", "8")
    assert r.exit_code == 0, r
    exported = cli("sites", "export", "--client", source, "--file", str(tmp_path / "e.csv"))
    assert exported.exit_code == 0
    (tmp_path / "e.csv").write_text(without_ids((tmp_path / "e.csv").read_text(encoding="utf-8-sig")), encoding="utf-8")
    r = cli("sites", "import", str(tmp_path / "e.csv"), "--client", target, "--ignore-ids")  # a copy
    assert r.exit_code == 0, r
    a, b = export_rows(cli, source), export_rows(cli, target)
    assert len(a) == 1000
    assert a == b
    # and field for field against the full records
    ra = json.loads(cli("sites", "list", "--client", source, "--all", "-o", "json").stdout)
    one = next(s for s in ra if s["name"] == "Site 00001")
    full = json.loads(cli("sites", "get", one["id"], "-o", "json").stdout)
    assert full["rates"] == [{"skill": "Forklift Driver", "hourlyRate": 11.01},
                             {"skill": "Picker|Packer", "hourlyRate": 12.5}]
    assert full["departments"][1] == {"name": "Night: Shift", "contactPerson": "Bo", "email": ""}
    assert full["phone"] == "+44 1482 000001"


def test_a_plan_mixes_creates_made_from_checked_rows_with_updates(logged_in: Any, tmp_path: Path) -> None:
    """A plan's creates (the fast check's and the model's), updates and invalid rows, in file order; each
    line is the JSON encoder's text of its row object, under -o json and -o jsonl alike."""
    cli = logged_in
    name = f"Plan {uuid.uuid4().hex[:10]}"
    cid = new_client(cli, name)
    header = "Name;Address;Phone;AssessmentRequired;Rates;BannedWorkers\r\n"
    seed = tmp_path / "seed.csv"
    seed.write_text(header + "Old A;1 Road;;TRUE;A=1;W-1\r\nOld B;2 Road;;;;\r\n", encoding="utf-8-sig", newline="")
    assert cli("sites", "import", str(seed), "--client", cid).exit_code == 0
    path = tmp_path / "plan.csv"
    path.write_text(header + "Old A;1 New Road;;TRUE;A=1;W-1\r\n"  # update
                    + 'New "C";"3; Road";\'+44 1;yes;A=1.5|B=12;W-2| W-3\r\n'  # create, fast check
                    + "Old B;2 Road;;;;\r\n"  # unchanged
                    + "Sep\x1c;;;no;[];\r\n"  # create, the model's (str.strip would take \x1c off)
                    + "new \"c\";;;;;\r\n"  # the same name as row 2: invalid
                    + "Bad;;;maybe;;\r\n",  # invalid
                    encoding="utf-8-sig", newline="")
    args = ["sites", "import", str(path), "--client", cid, "--dry-run", "--on-existing", "update", "--skip-invalid"]
    r = cli(*args, "-o", "json")
    assert r.exit_code == 10, r  # issue 36: as the run it plans (it exited 0)
    assert r.stderr.endswith("2 invalid rows would not be sent (the run exits 10 for them)\n"), r.stderr
    document = json.loads(r.stdout.splitlines()[0])
    rows = document["rows"]
    assert [(row["row"], row["action"]) for row in rows] == [(1, "update"), (2, "create"), (4, "create")]
    assert rows[1] == {"row": 2, "action": "create", "status": "created", "id": None, "name": 'New "C"', "changes": {
        "name": {"old": None, "new": 'New "C"'}, "address": {"old": None, "new": "3; Road"},
        "phone": {"old": None, "new": "+44 1"}, "assessmentRequired": {"old": None, "new": True},
        "rates": {"old": None, "new": [{"skill": "A", "hourlyRate": 1.5}, {"skill": "B", "hourlyRate": 12}]},
        "bannedWorkers": {"old": None, "new": ["W-2", "W-3"]}}, "parent": {"id": cid, "name": name}}
    assert rows[2]["name"] == "Sep\x1c" and rows[2]["changes"]["rates"] == {"old": None, "new": []}
    encoder = json.JSONEncoder(ensure_ascii=False, check_circular=False, separators=(",", ":"))  # as `list -o json`
    assert r.stdout.startswith('{"rows":[' + ",".join(encoder.encode(row) for row in rows) + '],"summary":')
    assert (document["summary"]["created"], document["summary"]["updated"], document["summary"]["unchanged"],
            document["summary"]["invalid"]) == (2, 1, 1, 2)
    r = cli(*args, "-o", "jsonl")
    assert r.stdout.splitlines()[:3] == [encoder.encode(row) for row in rows], r
    r = cli(*args, "--report", str(tmp_path / "r.csv"))
    assert r.stdout.startswith("row 1  update  Old A  (")
    assert r.stdout.splitlines()[1] == f"  in client {name}", r
    assert f"row 2  create  New \"C\"\n  in client {name}\n  address: 3; Road\n  phone: +44 1\n  assessmentRequired: true\n" \
           "  rates: A=1.50|B=12.00\n  bannedWorkers: W-2|W-3\nrow 4  create  " in r.stdout  # issue 36: as the file
    with open(tmp_path / "r.csv", encoding="utf-8-sig", newline="") as f:  # as the input: `;`
        statuses = [row["status"] for row in csv.DictReader(f, delimiter=";")]
    assert statuses == ["update", "create", "unchanged", "create", "invalid", "invalid"]
    assert site_names(cli, cid) == ["Old A", "Old B"]  # a plan sends nothing
