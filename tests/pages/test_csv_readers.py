"""What a script's CSV reader sees in wfctl's `-o csv` (issue 44): docs/csv.md's claim about the BOM,
measured. `sites list -o csv` and `sites export` are written to a file (`> FILE`) and to a pipe, by default
and with WFCTL_CSV=plain (the setting that makes the file byte for byte what the pipe gets), and read by
Python's `csv.DictReader` (encoding "utf-8" and "utf-8-sig"), pandas' `read_csv` and csvkit's `csvcut -n`
and `csvjson`: the name each gives the first column, and the phone it reads."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas
import pytest

from tests.fixtures.sandbox import ADMIN
from tests.pages.test_streaming import _wfctl

PHONE = "+44 1482 000000"
BIN = Path(sys.executable).parent  # csvkit's programs, installed with the test extra


def _readers(path: Path) -> dict[str, tuple[str, str]]:
    """(first column's name, the phone) as each reader sees them."""
    seen = {}
    for encoding in ("utf-8", "utf-8-sig"):
        with open(path, encoding=encoding, newline="") as f:
            reader = csv.DictReader(f)
            row = next(reader)
            seen[f"csv.DictReader {encoding}"] = (next(iter(row)), row["phone"])
    frame = pandas.read_csv(path, dtype=str)
    seen["pandas.read_csv"] = (str(frame.columns[0]), str(frame["phone"][0]))
    names = subprocess.run([str(BIN / "csvcut"), "-n", str(path)], capture_output=True, text=True, check=True)
    records = json.loads(subprocess.run([str(BIN / "csvjson"), str(path)], capture_output=True, text=True,
                                        check=True).stdout)
    first = names.stdout.splitlines()[0].split(": ", 1)[1]  # `  1: id`
    seen["csvcut -n"] = (first, records[0]["phone"])  # csvcut names, csvjson reads the values
    seen["csvjson"] = (next(iter(records[0])), records[0]["phone"])
    return seen


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory, sandbox: Any) -> dict[tuple[str, str, str], Path]:
    """(command, target, WFCTL_CSV) -> the CSV it wrote, for one client with one site whose phone starts `+`."""
    from tests.fixtures.cli import Cli

    folder = tmp_path_factory.mktemp("csv-readers")
    mp = pytest.MonkeyPatch()
    try:
        cli = Cli(folder, mp)
        assert cli.login_as(sandbox.url, *ADMIN).exit_code == 0
        r = cli("clients", "create", "--branch", "Manchester Central", "--name", "Readers Ltd", "-o", "json",
                "--jq", ".id")
        assert r.exit_code == 0, r
        client_id = json.loads(r.stdout)
        r = cli("sites", "create", "--client", client_id, "--name", "Hull Dock", "--address", "1 Dock Rd",
                "--phone", PHONE, "--email", "", "--no-assessment-required")
        assert r.exit_code == 0, r
        files = {}
        for command in (("sites", "list", "-o", "csv"), ("sites", "export")):
            for mode in ("", "plain"):
                env = {"WFCTL_CSV": mode}
                path = folder / f"{command[1]}-{mode or 'auto'}-file.csv"
                with path.open("wb") as target:  # `> FILE`
                    assert _wfctl(cli, *command, "--client", client_id, stdout=target, env=env).wait(timeout=120) == 0
                files[(command[1], "file", mode)] = path
                proc = _wfctl(cli, *command, "--client", client_id, env=env)  # `| reader`
                piped = folder / f"{command[1]}-{mode or 'auto'}-pipe.csv"
                piped.write_bytes(proc.communicate(timeout=120)[0])
                assert proc.returncode == 0
                files[(command[1], "pipe", mode)] = piped
        yield files
    finally:
        mp.undo()


READERS = ["csv.DictReader utf-8", "csv.DictReader utf-8-sig", "pandas.read_csv", "csvcut -n", "csvjson"]


@pytest.mark.parametrize("command", ["list", "export"])
def test_a_file_by_default_names_the_first_column_with_the_bom_for_utf_8_readers_only(
        written: dict[tuple[str, str, str], Path], command: str) -> None:
    path = written[(command, "file", "")]
    assert path.read_bytes().startswith(b"\xef\xbb\xbfid,")
    phone = f"'{PHONE}"  # a file is for a spreadsheet: the formula-like cell protected, by list too
    assert _readers(path) == {
        "csv.DictReader utf-8": ("\ufeffid", phone),  # the BOM read as a character of the first name
        "csv.DictReader utf-8-sig": ("id", phone),
        "pandas.read_csv": ("id", phone),  # pandas and csvkit take the BOM off
        "csvcut -n": ("id", phone),
        "csvjson": ("id", phone),
    }


@pytest.mark.parametrize("command", ["list", "export"])
@pytest.mark.parametrize("mode", ["", "plain"])
def test_a_pipe_and_a_plain_file_read_the_same_in_every_reader(written: dict[tuple[str, str, str], Path],
                                                                command: str, mode: str) -> None:
    pipe = written[(command, "pipe", mode)]
    assert pipe.read_bytes() == written[(command, "pipe", "")].read_bytes()  # WFCTL_CSV=plain: a pipe as ever
    phone = f"'{PHONE}" if command == "export" else PHONE  # export keeps its `'` everywhere: import takes it off
    assert _readers(pipe) == dict.fromkeys(READERS, ("id", phone))
    if mode == "plain":
        assert written[(command, "file", "plain")].read_bytes() == pipe.read_bytes()
