"""Output that does not wait for the whole list (issue 44): `export` in every format, `list --all` and
`api --paginate` write each record as soon as its page is read, so `| head -1` stops the reads at once
(counted by a proxy in front of a real sandbox); a file target is written under a temporary name and
renamed, so Ctrl-C leaves no file that looks complete; WFCTL_CSV=plain makes a file's CSV what a pipe gets."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.fixtures.cli import REPO_ROOT
from tests.fixtures.sandbox import ADMIN
from tests.pages.helpers import add_client, sdk_client
from wfctl.sandbox.injectors import FaultProxy

SITES = 2500  # 25 pages of 100, and 2,500 full records to read


class Counted:
    """A proxy in front of the sandbox that notes each request's path."""

    def __init__(self, upstream: str) -> None:
        self.paths: list[str] = []
        self.proxy = FaultProxy(upstream, drop=lambda method, path: False,
                                answer=lambda method, path: self.paths.append(path))
        self.url = self.proxy.url


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str, list[str]]]:
    from tests.fixtures.sandbox import SandboxServer

    # 20 ms an answer, as a remote service: a reader that leaves at once is not outrun by a local one's answers
    server = SandboxServer(str(tmp_path_factory.mktemp("streaming") / "sandbox.db"), latency_ms=20)
    try:
        client_id, ids = add_client(server, SITES, name="Streaming Ltd")
        yield server, client_id, ids
    finally:
        server.stop()


@pytest.fixture
def counted(cli: Any, served: tuple[Any, str, list[str]]) -> Iterator[Counted]:
    server = served[0]
    proxy = Counted(server.url)
    assert cli.login_as(proxy.url, *ADMIN).exit_code == 0
    try:
        yield proxy
    finally:
        proxy.proxy.stop()


def _wfctl(cli: Any, *args: str, stdout: Any = subprocess.PIPE, env: dict[str, str] | None = None) -> Any:
    full = dict(cli.env, PYTHONPATH=str(REPO_ROOT), **(env or {}))
    return subprocess.Popen([sys.executable, "-m", "wfctl", *args], env=full, stdout=stdout,
                            stderr=subprocess.PIPE, cwd=str(cli.tmp_path))


def _head_1(cli: Any, *args: str, size: int | None = None) -> tuple[bytes, int, bytes]:
    """`wfctl ARGS | head -1` (`size`: `| head -c SIZE`): the first line, then the pipe closed; (line, exit
    code, stderr)."""
    proc = _wfctl(cli, *args)
    assert proc.stdout is not None and proc.stderr is not None
    line = proc.stdout.readline() if size is None else proc.stdout.read(size)
    proc.stdout.close()  # the reader leaves, as head does
    code = proc.wait(timeout=60)
    return line, code, proc.stderr.read()


@pytest.mark.parametrize("args, first", [
    (("sites", "export", "-o", "jsonl"), "record"),
    (("sites", "export", "-o", "json"), "array"),
    (("sites", "export", "-o", "yaml"), "yaml"),
    (("sites", "export"), "csv"),
    (("sites", "list", "--all", "-o", "jsonl"), "item"),
])
def test_head_1_stops_the_reads_at_once(cli: Any, served: tuple[Any, str, list[str]], counted: Counted,
                                        args: tuple[str, ...], first: str) -> None:
    server, client_id, ids = served
    counted.paths.clear()
    line, code, err = _head_1(cli, *args, "--client", client_id, size=100 if first == "array" else None)
    assert (code, err) == (0, b"")
    with sdk_client(server) as api:
        record = api.get_record("site", ids[0])
    text = line.decode()
    if first == "record":
        assert json.loads(text) == record
    elif first == "array":  # a JSON array streamed: its first line opens it with the first record
        assert text.startswith('[{"id":"' + ids[0] + '",')
    elif first == "yaml":
        assert text == f"- id: {ids[0]}\n"
    elif first == "csv":
        assert text == ("id,clientId,name,address,phone,email,assessmentRequired,rates,departments,"
                        "bannedWorkers\r\n")
    else:
        assert json.loads(text)["id"] == ids[0] and json.loads(text)["name"] == "Site 000000"
    time.sleep(0.2)  # what was in flight when the reader left has arrived
    pages = [path for path in counted.paths if path.split("?")[0].endswith("/sites")]
    # the read-ahead opens as records are taken: a few pages of 25, a few full records of 2,500
    assert len(counted.paths) <= 20, counted.paths
    assert len(pages) <= 8, pages  # of 25


def test_api_paginate_streams_each_page(cli: Any, served: tuple[Any, str, list[str]], counted: Counted) -> None:
    _, client_id, ids = served
    counted.paths.clear()
    line, code, err = _head_1(cli, "api", "GET", f"/api/clients/{client_id}/sites", "--paginate", "-o", "jsonl")
    assert (code, err) == (0, b"")
    assert json.loads(line)["id"] == ids[0]
    time.sleep(0.2)
    assert len(counted.paths) <= 8, counted.paths  # of 25 pages


def test_every_format_streams_the_whole_list_in_order(cli: Any, served: tuple[Any, str, list[str]],
                                                       counted: Counted) -> None:
    """Streamed is still whole: every record once, in the service's order, each format a valid document."""
    _, client_id, ids = served
    outputs = {}
    for fmt in ("json", "jsonl", "yaml"):
        proc = _wfctl(cli, "sites", "list", "--client", client_id, "--all", "-o", fmt)
        out, err = proc.communicate(timeout=120)
        assert (proc.returncode, err) == (0, b"")
        outputs[fmt] = out.decode()
    listed = json.loads(outputs["json"])
    assert [row["id"] for row in listed] == ids
    assert [json.loads(line) for line in outputs["jsonl"].splitlines()] == listed
    assert yaml.safe_load(outputs["yaml"]) == listed
    proc = _wfctl(cli, "api", "GET", f"/api/clients/{client_id}/sites", "--paginate", "-o", "json")
    out, err = proc.communicate(timeout=120)
    assert (proc.returncode, json.loads(out)) == (0, listed)


def test_export_to_a_file_in_every_format(cli: Any, served: tuple[Any, str, list[str]], counted: Counted,
                                          tmp_path: Path) -> None:
    _, client_id, ids = served
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "sites.jsonl"
    r = cli("sites", "export", "--client", client_id, "-o", "jsonl", "--file", str(target))
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", "")
    rows = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert [row["id"] for row in rows] == ids and all("rates" in row for row in rows)
    assert os.listdir(tmp_path / "out") == ["sites.jsonl"]
    r = cli("sites", "export", "--client", client_id, "-o", "table", "--file", str(tmp_path / "x.txt"))
    assert (r.exit_code, r.stderr) == (2, "error: --file writes the import format (CSV or a workbook), or -o json, "
                                          "jsonl or yaml; a table prints to stdout: leave out --file, or give "
                                          "-o json, jsonl or yaml\n")


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_ctrl_c_leaves_no_file_that_looks_complete(cli: Any, sandbox_factory: Any, tmp_path: Path, fmt: str) -> None:
    server = sandbox_factory(latency_ms=20)
    client_id, _ = add_client(server, 400)
    assert cli.login_as(server.url, *ADMIN).exit_code == 0
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / f"sites.{fmt}"
    target.write_text("the old export\n", encoding="utf-8")
    proc = _wfctl(cli, "sites", "export", "--client", client_id, "-o", fmt, "--file", str(target))
    deadline = time.monotonic() + 60
    while not any(p.name != target.name and p.stat().st_size > 0 for p in folder.iterdir()):  # records written
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    said = f"interrupted: {target} was left as it was (an export stopped part-way writes no file)"  # issue 49
    last = err.decode().splitlines()[-1:]
    if fmt == "jsonl":  # -o jsonl: the error is the JSON object, its title the line
        assert (proc.returncode, [json.loads(line) for line in last]) == (130, [{"error": {
            "status": None, "code": "interrupted", "title": said, "detail": None, "errors": {}}}])
    else:
        assert (proc.returncode, last) == (130, [f"error: {said}"])
    assert [p.name for p in folder.iterdir()] == [target.name]  # no temporary file left
    assert target.read_text(encoding="utf-8") == "the old export\n"  # as it was


def test_csv_plain_makes_a_file_byte_for_byte_what_a_pipe_gets(cli: Any, served: tuple[Any, str, list[str]],
                                                               counted: Counted, tmp_path: Path) -> None:
    client_id, _ = add_client(served[0], 30)  # the bytes matter here, not the size
    plain = {}
    for args in (("sites", "export"), ("sites", "list", "-o", "csv")):
        command = (*args, "--client", client_id)
        piped = {}
        for mode in ("", "plain"):
            env = {"WFCTL_CSV": mode}
            proc = _wfctl(cli, *command, env=env)
            piped[mode] = proc.communicate(timeout=120)[0]
            path = tmp_path / f"{args[-1]}-{mode or 'auto'}.csv"
            with path.open("wb") as target:  # `> FILE`
                assert _wfctl(cli, *command, stdout=target, env=env).wait(timeout=120) == 0
            written = path.read_bytes()
            if mode == "plain":
                assert written == piped[mode]
            else:  # by default a file is for a spreadsheet: the BOM first
                assert written.startswith(b"\xef\xbb\xbfid,") and not piped[mode].startswith(b"\xef\xbb\xbf")
        assert piped["plain"] == piped[""]
        plain[args[1]] = piped["plain"]
    path = tmp_path / "export.csv"
    r = cli("sites", "export", "--client", client_id, "--file", str(path), env={"WFCTL_CSV": "plain"})
    assert (r.exit_code, path.read_bytes()) == (0, plain["export"])
    r = cli("sites", "list", "--client", client_id, "-o", "csv", env={"WFCTL_CSV": "excel"})
    assert (r.exit_code, r.stderr) == (2, "error: WFCTL_CSV=excel: expected plain or spreadsheet (or auto, the "
                                          "default)\n")
