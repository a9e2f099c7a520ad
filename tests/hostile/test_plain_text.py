"""What the service or a file sent is shown as plain text: never Rich markup, never terminal control
(issue 12, Medium 1). On a terminal (in-process, and a real pty at 120 columns) and in a pipe."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.cli import REPO_ROOT
from tests.resources.conftest import as_json

BROKEN = "Broken [/] markup"
LINK = "[link=https://evil.example/x]Click to renew login[/link]"
ESC = "Red \x1b[31malert\x1b[0m \x9b2J bell\x07"  # C0 (ESC, BEL) and C1 (CSI) controls
ESC_SHOWN = r"Red \x1b[31malert\x1b[0m \x9b2J bell\x07"


@pytest.fixture
def branches(wf: Any, tag: str) -> dict[str, str]:
    """Three branches with hostile names (made unique by a prefix); name -> id."""
    ids = {}
    for name in (BROKEN, LINK, ESC):
        ids[name] = as_json(wf("branches", "create", "--name", f"{tag} {name}", "-o", "json"))["id"]
    return ids


def test_a_markup_name_does_not_break_the_list_on_a_terminal(wf: Any, branches: dict[str, str], tag: str) -> None:
    r = wf("--no-color", "branches", "list", "--all", "--fields", "id,name", tty=True)
    assert r.exit_code == 0, r  # was: error: unexpected error: MarkupError ..., exit 1
    assert r.stderr == ""
    lines = r.stdout.splitlines()
    assert f"{branches[BROKEN]}  {tag} {BROKEN}" in [" ".join(line.split(None, 1)).replace(" ", "  ", 1)
                                                     for line in lines if line.strip()]
    assert f"{tag} {LINK}" in r.stdout  # the markup shown as typed, not turned into a link
    assert f"{tag} {ESC_SHOWN}" in r.stdout
    assert "\x1b" not in r.stdout and "\x9b" not in r.stdout and "\x07" not in r.stdout


def test_default_list_columns_on_a_terminal_keep_markup_as_text(wf: Any, branches: dict[str, str]) -> None:
    r = wf("branches", "list", "--all", tty=True)
    assert r.exit_code == 0, r
    assert r.stderr == ""
    assert "\x1b]8;" not in r.stdout  # no OSC 8 hyperlink
    assert "\x1b[31m" not in r.stdout and "\x9b" not in r.stdout and "\x07" not in r.stdout


def test_list_in_a_pipe_escapes_control_characters(wf: Any, branches: dict[str, str], tag: str) -> None:
    r = wf("branches", "list", "--all", "--fields", "id,name")
    assert r.exit_code == 0, r
    assert re.search(rf"^{branches[ESC]}  {re.escape(tag + ' ' + ESC_SHOWN)}$", r.stdout, re.M), r.stdout
    assert re.search(rf"^{branches[LINK]}  {re.escape(tag + ' ' + LINK)}$", r.stdout, re.M), r.stdout
    assert "\x1b" not in r.stdout


@pytest.mark.parametrize("tty", [True, False], ids=["terminal", "pipe"])
def test_get_shows_fields_and_sections_as_text(wf: Any, tag: str, tty: bool) -> None:
    branch = as_json(wf("branches", "create", "--name", f"{tag} sections", "-o", "json"))["id"]
    client = as_json(wf("clients", "create", "--branch", branch, "--name", "c", "-o", "json"))["id"]
    site = as_json(wf("sites", "create", "--client", client, "--name", BROKEN, "--address", "line 1\nline 2",
                      "--rate", "Fork [b]lift=12", "--department", "Goods [/] in:Ann \x1b[2J Lee",
                      "--banned-worker", "w-[/]-\x1b]8;;https://evil.example\x07", "-o", "json"))
    r = wf("--no-color", "sites", "get", site["id"], tty=tty)
    assert r.exit_code == 0, r
    assert r.stderr == ""
    out = [line.rstrip() for line in r.stdout.splitlines()]
    assert any(line.startswith("name") and line.endswith(BROKEN) for line in out), out
    assert any(line.startswith("address") and line.endswith("line 1 line 2") for line in out), out
    assert any(line.strip().startswith("Fork [b]lift") and line.endswith("12.00") for line in out), out
    assert any(line.strip().startswith("Goods [/] in") and line.endswith(r"Ann \x1b[2J Lee") for line in out), out
    assert r"  w-[/]-\x1b]8;;https://evil.example\x07" in out, out
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout


def test_error_lines_escape_what_the_service_sent(wf: Any) -> None:
    r = wf("api", "POST", "/api/branches", "-f", "bad\x1b[2Jfield=1", "-f", "name=x[/]")
    assert r.exit_code == 6, r
    assert r.stderr == ("error: Bad Request: the request has invalid fields; "
                        "bad\\x1b[2Jfield: unknown field (HTTP 400)\n")


def test_json_writes_c1_controls_escaped(wf: Any, branches: dict[str, str]) -> None:
    for args in (["branches", "get", branches[ESC], "-o", "json"],
                 ["branches", "list", "--all", "-o", "json"], ["branches", "list", "--all", "-o", "jsonl"],
                 ["api", "GET", f"/api/branches/{branches[ESC]}"]):
        r = wf(*args)
        assert r.exit_code == 0, r
        assert "\\u009b2J" in r.stdout and "\x9b" not in r.stdout and "\x1b" not in r.stdout, args
    assert json.loads(wf("branches", "get", branches[ESC], "-o", "json").stdout)["name"].endswith(ESC)


def test_json_text_escapes_del_in_otherwise_ascii_text_and_c1_in_any() -> None:
    """DEL is ASCII: the fast path for ASCII text must still escape it."""
    from wfctl.text.safetext import json_text

    assert json_text('{"name":"a\x7fb"}') == '{"name":"a\\u007fb"}'
    assert json_text('{"name":"é\x85\x7f"}') == '{"name":"é\\u0085\\u007f"}'
    assert json_text('{"name":"plain"}') == '{"name":"plain"}'


def test_the_compact_encoder_writes_what_json_writes() -> None:
    """wfctl's one compact encoder (the C encoder made once) against json's own, value for value."""
    from wfctl.render.tables import compact

    plain = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False).encode
    values = ["s", "é\x7f\"\\\n\u2028", 3, -0.0, 1e100, 2.5, float("inf"), None, True, [], {}, {1: "k"},
              {"rates": [{"skill": "Picker", "hourlyRate": 11.5}], "bannedWorkers": ["W-1"], "x": {"y": [None]}}]
    for value in values:
        assert compact(value) == plain(value), value
    with pytest.raises(TypeError):
        compact({"a": object()})


def test_progress_names_a_markup_file_as_text(wf: Any, tag: str, tmp_path: Path) -> None:
    branch = as_json(wf("branches", "create", "--name", f"{tag} progress", "-o", "json"))["id"]
    client = as_json(wf("clients", "create", "--branch", branch, "--name", "c", "-o", "json"))["id"]
    path = tmp_path / "[link=mailto:x@evil.example]sites \x1b[2J.csv"
    path.write_text("name\nA\nB\n", encoding="utf-8")
    r = wf("sites", "import", str(path), "--client", client, tty=True)
    assert r.exit_code == 0, r
    assert r"importing [link=mailto:x@evil.example]sites \x1b[2J.csv" in r.stderr  # was: a link, a raw ESC
    assert "\x1b[2J" not in r.stderr


def test_progress_line_in_a_pipe_escapes_the_file_name() -> None:
    import io

    from wfctl.render.progress import Progress

    stream = io.StringIO()
    progress = Progress("importing a\x1b[2Jb [/].csv", terminal=False, interval=0, stream=stream)
    progress.start(1)
    progress.advance("created")
    assert stream.getvalue().startswith(r"importing a\x1b[2Jb [/].csv: 1/1 rows, ok 1, failed 0")


def test_a_real_terminal_at_120_columns_shows_the_markup_name(wf: Any, branches: dict[str, str], tag: str) -> None:
    pexpect = pytest.importorskip("pexpect")
    env = dict(wf.env, PYTHONPATH=str(REPO_ROOT), TERM="xterm-256color")
    env.pop("COLUMNS", None)  # the pty's own size decides
    for args in (["branches", "list", "--all", "--fields", "id,name"], ["branches", "get", branches[BROKEN]]):
        child = pexpect.spawn(sys.executable, ["-m", "wfctl", *args], env=env, encoding="utf-8", timeout=60,
                              dimensions=(50, 120), cwd=str(wf.tmp_path))
        child.expect(pexpect.EOF)
        child.close()
        text = re.sub(r"\x1b\[[0-9;]*m", "", child.before or "")  # Rich's own bold, only
        assert child.exitstatus == 0, text
        assert f"{tag} {BROKEN}" in text, text
        assert "unexpected error" not in text


@pytest.fixture
def text_server() -> Any:
    """A service that answers in plain text with terminal control in it (the sandbox only speaks JSON)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status = 400 if self.path.startswith("/bad") else 200
            body = "first\x1b[2J\r\n\tsecond \x1b]8;;https://evil.example\x07link\x9b\n".encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_api_text_answer_on_a_terminal_is_plain(cli: Any, text_server: str) -> None:
    env = {"WFCTL_ACCESS_TOKEN": "t"}
    r = cli("--base-url", text_server, "api", "GET", "/text", env=env, tty=True)
    assert (r.exit_code, r.stderr) == (0, ""), r
    assert r.stdout == "first\\x1b[2J\n\tsecond \\x1b]8;;https://evil.example\\x07link\\x9b\n"
    piped = cli("--base-url", text_server, "api", "GET", "/text", env=env)
    assert piped.stdout == "first\x1b[2J\r\n\tsecond \x1b]8;;https://evil.example\x07link\x9b\n"  # data, as sent


def test_a_text_error_from_the_service_is_one_plain_line(cli: Any, text_server: str) -> None:
    r = cli("--base-url", text_server, "api", "GET", "/bad", env={"WFCTL_ACCESS_TOKEN": "t"})
    assert r.exit_code == 6, r
    assert r.stderr == ("error: Bad Request: first\\x1b[2J second \\x1b]8;;https://evil.example\\x07link\\x9b "
                        "(HTTP 400)\n")


BIDI = "Invoice \u202egpj.exe\u202c \u2067isolated\u2069"  # RLO ... PDF, RLI ... PDI
BIDI_SHOWN = r"Invoice \u202egpj.exe\u202c \u2067isolated\u2069"


@pytest.mark.parametrize("tty", [True, False], ids=["terminal", "pipe"])
def test_bidirectional_overrides_from_the_service_are_shown_escaped(wf: Any, tag: str, tty: bool) -> None:
    """An override or isolate would make a terminal show what follows reversed (`exe.jpg` for `gpj.exe`):
    every human-readable output shows it escaped, JSON writes it as \\u202e (the same string to a reader),
    and CSV keeps it, so export -> import round-trips."""
    branch = as_json(wf("branches", "create", "--name", f"{tag} {BIDI}", "-o", "json"))["id"]
    for args in (["branches", "list", "--all", "--fields", "id,name"], ["branches", "get", branch]):
        r = wf(*args, tty=tty)
        assert r.exit_code == 0, r
        assert f"{tag} {BIDI_SHOWN}" in r.stdout and not any(c in r.stdout for c in "\u202e\u202c\u2067\u2069"), r
    r = wf("branches", "get", branch, "-o", "json", tty=tty)
    assert "\\u202e" in r.stdout and "\u202e" not in r.stdout, r
    assert json.loads(r.stdout)["name"] == f"{tag} {BIDI}"
    r = wf("branches", "list", "--all", "-o", "csv")
    assert f"{tag} {BIDI}" in r.stdout, r  # data for a file: as the service holds it
