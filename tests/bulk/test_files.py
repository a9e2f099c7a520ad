"""Files the bulk commands write (`--report`, `export --file`): checked before sending, written whole or
not at all, with a BOM so that a spreadsheet reads the characters right; their cells neutralised."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.bulk.helpers import new_client, site_names, without_ids, write
from tests.fixtures.cli import REPO_ROOT
from tests.fixtures.sandbox import ADMIN, login_token
from wfctl.files.errors import FileError
from wfctl.files.files import atomic_text_file, check_writable
from wfctl.files.reader import Row
from wfctl.views.report import write_report

BOM = "\ufeff".encode()


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# -- check_writable ------------------------------------------------------------------------------

def test_check_writable_names_the_file_and_the_cause(tmp_path: Path) -> None:
    with pytest.raises(FileError) as info:
        check_writable(str(tmp_path / "missing" / "r.csv"))
    assert info.value.message == f"cannot write {tmp_path}/missing/r.csv: no such directory {tmp_path}/missing"
    assert info.value.exit_code == 2
    with pytest.raises(FileError, match=f"^cannot write {tmp_path}: it is a directory$"):
        check_writable(str(tmp_path))
    check_writable(str(tmp_path / "r.csv"))
    assert leftovers(tmp_path) == []  # the check leaves nothing behind


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root may write anything")
def test_check_writable_without_permission(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(FileError, match=f"^cannot write {locked}/r.csv: Permission denied$"):
        check_writable(str(locked / "r.csv"))
    read_only = tmp_path / "r.csv"
    read_only.write_text("keep")
    read_only.chmod(0o400)
    with pytest.raises(FileError, match=f"^cannot write {read_only}: Permission denied$"):
        check_writable(str(read_only))


# -- atomic_text_file ----------------------------------------------------------------------------

def test_bom_and_atomic_replace(tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    with atomic_text_file(str(path), bom=True) as f:
        f.write("name\r\nStraße\r\n")
        assert not path.exists()  # nothing at the path until the file is complete
    assert path.read_bytes() == BOM + "name\r\nStraße\r\n".encode()
    with atomic_text_file(str(path), bom=False) as f:
        f.write("plain\n")
    assert path.read_bytes() == b"plain\n"
    assert leftovers(tmp_path) == ["out.csv"]


def test_a_failure_in_the_block_keeps_the_old_file_and_leaves_nothing(tmp_path: Path) -> None:
    path = write(tmp_path / "out.csv", "old\n")
    with pytest.raises(KeyError), atomic_text_file(str(path), bom=True) as f:
        f.write("half")
        raise KeyError("boom")
    assert path.read_text() == "old\n"
    assert leftovers(tmp_path) == ["out.csv"]


def test_an_os_error_of_other_code_keeps_its_own_message(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError), atomic_text_file(str(tmp_path / "out.csv"), bom=True):
        (tmp_path / "input.csv").read_text()
    assert leftovers(tmp_path) == []


WRITE_UNDER_A_LIMIT = """
import resource, signal, sys
from wfctl.files.files import atomic_text_file
from wfctl.files.errors import FileError
path, size = sys.argv[1], int(sys.argv[2])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # else the kernel ends the process
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
try:
    with atomic_text_file(path, bom=True) as f:
        for _ in range(size // 100):
            f.write("x" * 99 + "\\n")
except FileError as exc:
    print(exc.message)
"""


@pytest.mark.parametrize("size", [10_000, 1 << 20])  # failing at the last flush, and on a write
def test_a_write_that_fails_is_one_line_and_leaves_the_old_file(tmp_path: Path, size: int) -> None:
    """A real write failure: a process that may not grow a file past 4 KiB (EFBIG, as a full disk gives
    ENOSPC), in a child process so that the test run's own output is not limited."""
    path = tmp_path / "report.csv"
    path.write_text("old\n")
    done = subprocess.run([sys.executable, "-c", WRITE_UNDER_A_LIMIT, str(path), str(size)], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert done.stdout == f"cannot write {path}: File too large\n", done
    assert path.read_text() == "old\n"
    assert leftovers(tmp_path) == ["report.csv"]


# -- the report ----------------------------------------------------------------------------------

def test_report_cells_are_neutralised_the_service_text_too(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    rows = [(Row(1, 2, {"name": "=1+2", "phone": "'+44 1"}), "failed", "@id", "=HYPERLINK(\"http://x\")", ""),
            (Row(2, 3, {"name": "Plain", "phone": ""}), "updated", "-1", "", "phone: (empty) -> +44 1")]
    assert write_report(str(path), ["name", "phone"], rows) == 2
    data = path.read_bytes()
    assert data.startswith(BOM)
    got = list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    assert got == [["name", "phone", "status", "id", "error", "changes"],
                   ["'=1+2", "'+44 1", "failed", "'@id", "'=HYPERLINK(\"http://x\")", ""],
                   ["Plain", "", "updated", "'-1", "", "phone: (empty) -> +44 1"]]


def test_import_report_opens_in_a_spreadsheet(logged_in: Any, tmp_path: Path) -> None:
    cli = logged_in
    cid = new_client(cli)
    folder = tmp_path / "work"
    folder.mkdir()
    path = write(folder / "in.csv", "name,address\n=1+2,Straße 1\nB,x\n")
    r = cli("sites", "import", str(path), "--client", cid, "--report", str(folder / "r.csv"))
    assert r.exit_code == 0, r
    data = (folder / "r.csv").read_bytes()
    assert data.startswith(BOM + b"name,address,status,id,error,changes\r\n")
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    assert [(row["name"], row["address"], row["status"]) for row in rows] == [
        ("'=1+2", "Straße 1", "created"), ("B", "x", "created")]
    assert leftovers(folder) == ["in.csv", "r.csv"]


# -- export to a file ----------------------------------------------------------------------------

def sdk(sandbox: Any) -> Any:
    from wfctl.api import Client
    from wfctl.api.session.auth import StaticTokenAuth

    return Client(sandbox.url, auth=StaticTokenAuth(login_token(sandbox, *ADMIN)["accessToken"], sandbox.url))


def test_export_file_has_a_bom_and_imports_back(logged_in: Any, sandbox: Any, tmp_path: Path) -> None:
    from wfctl.runs.exporter import export_to_file

    cli = logged_in
    source, target = new_client(cli), new_client(cli)
    write(tmp_path / "in.csv", "name,address,rates\nStraße 1,Hof,w=12.50\n=Yard,x,\n")
    assert cli("sites", "import", str(tmp_path / "in.csv"), "--client", source).exit_code == 0
    path = tmp_path / "e.csv"
    assert export_to_file(sdk(sandbox), "site", str(path), parent_ids=[source]) == 2
    assert path.read_bytes().startswith(BOM + b"id,clientId,name,")
    r = cli("sites", "import", str(path), "--client", target)  # the source's client: row errors, nothing sent
    assert r.exit_code == 2 and "(--ignore-ids copies the row to 'Bulk " in r.stderr, r
    path.write_text(without_ids(path.read_text(encoding="utf-8-sig")), encoding="utf-8")
    r = cli("sites", "import", str(path), "--client", target)  # without ids, still the source's client
    assert r.exit_code == 2 and "(--ignore-ids copies the row to 'Bulk " in r.stderr, r
    r = cli("sites", "import", str(path), "--client", target, "--ignore-ids")
    assert r.exit_code == 0, r
    assert site_names(cli, target) == ["=Yard", "Straße 1"]


def test_export_that_fails_leaves_the_old_file(sandbox: Any, tmp_path: Path) -> None:
    from wfctl.api.errors import NotFound
    from wfctl.runs.exporter import export_to_file

    path = write(tmp_path / "e.csv", "old\n")
    with pytest.raises(NotFound):
        export_to_file(sdk(sandbox), "site", str(path), parent_ids=["no-such-client"])
    assert path.read_text() == "old\n"
    assert leftovers(tmp_path) == ["e.csv"]
