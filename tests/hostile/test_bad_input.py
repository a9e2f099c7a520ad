"""Bad input is one line and exit 2, never "unexpected error: <PythonError>" (issue 12, Low 13), and
`api --paginate` on an answer that is not a page is bad usage (issue 14, section 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.resources.conftest import as_json


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def _sent(result: Any) -> list[str]:
    """The requests a `-v` run sent (its `> METHOD URL` lines)."""
    return [line for line in result.stderr.splitlines() if line.startswith("> ") and "http" in line]


@pytest.mark.parametrize("args", [
    ["branches", "create", "--from-file"],
    ["api", "POST", "/api/branches", "--input"],
])
def test_deeply_nested_json_is_one_line(wf: Any, tmp_path: Path, args: list[str]) -> None:
    path = tmp_path / "deep.json"
    path.write_text(_deep(100_000))
    r = wf("-v", *args, str(path))
    assert r.exit_code == 2, r  # was: unexpected error: RecursionError, exit 1
    assert r.stderr.splitlines()[-1] == f"error: {args[-1]} {path}: JSON nested more than 100 levels deep"
    assert _sent(r) == []
    path.write_text(_deep(101))  # parses, but deeper than any record: refused the same way
    assert wf(*args, str(path)).stderr == f"error: {args[-1]} {path}: JSON nested more than 100 levels deep\n"


@pytest.mark.parametrize(("text", "reason"), [
    ('{"name": NaN}', "not valid JSON: NaN is not a JSON value"),
    ('{"name": -Infinity}', "not valid JSON: -Infinity is not a JSON value"),
    ("1" * 5000, "not valid JSON: a number with too many digits"),
])
def test_json_python_takes_but_json_does_not(wf: Any, text: str, reason: str) -> None:
    r = wf("-v", "api", "POST", "/api/branches", "--input", "-", input=text)
    assert r.exit_code == 2, r
    assert r.stderr.splitlines()[-1] == f"error: --input stdin: {reason}"
    assert _sent(r) == []


def test_input_that_is_not_utf8(wf: Any, tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('{"name": "Stra\xdfe"}'.encode("latin-1"))
    r = wf("branches", "create", "--from-file", str(path))
    assert (r.exit_code, r.stderr) == (2, f"error: --from-file {path}: not UTF-8 text\n")


@pytest.mark.parametrize(("url", "reason"), [
    ("http://[::1", "not a valid URL (Invalid IPv6 URL)"),
    ("http://example.com:99999", "not a valid URL (Port out of range 0-65535)"),
    ("http://", "not a valid URL (no host)"),
    ("http://exa mple.com", "a URL cannot hold spaces or control characters"),
])
def test_a_base_url_that_is_no_url(cli: Any, url: str, reason: str) -> None:
    for r in (cli("--base-url", url, "branches", "list"), cli("branches", "list", env={"WFCTL_BASE_URL": url}),
              cli("--base-url", url, "doctor")):
        assert r.exit_code == 2, r  # was: unexpected error: InvalidURL (or ValueError in doctor), exit 1
        assert r.stderr.splitlines()[-1] == (
            f"error: Invalid value for '--base-url' (env var: 'WFCTL_BASE_URL'): {url!r}: {reason}")


def test_login_to_a_base_url_that_is_no_url(cli: Any) -> None:
    r = cli("login", "--base-url", "http://[::1", "--username", "u", "--password-stdin", "--credential-store", "file",
            input="pw")
    assert (r.exit_code, r.stderr) == (2, "error: invalid URL: Invalid port: ':1'\n")


@pytest.mark.parametrize(("args", "line"), [
    (["api", "GET", "/api/agency/", "-H", "Nämé: x"],
     "error: --header 'Nämé: x': a header name is ASCII letters, digits and !#$%&'*+-.^_`|~ only"),
    (["api", "GET", "/api/agency/", "-H", "X-A: b\nc"],
     "error: --header 'X-A: b\\nc': a header value is printable ASCII only (no line breaks)"),
    (["api", "GET", "/api/agency/", "-H", "X-A: Straße"],
     "error: --header 'X-A: Straße': a header value is printable ASCII only (no line breaks)"),
    (["api", "GET", "/api/agency/\nx"],
     "error: path '/api/agency/\\nx': a path cannot hold control characters (a line break, a tab, ...)"),
    (["api", "GET", "/api/agency/\x1b[2J"],
     "error: path '/api/agency/\\x1b[2J': a path cannot hold control characters (a line break, a tab, ...)"),
])
def test_api_paths_and_headers_that_cannot_be_sent(wf: Any, args: list[str], line: str) -> None:
    r = wf("-v", *args)
    assert r.exit_code == 2, r  # was: unexpected error: UnicodeEncodeError / InvalidURL (1), cannot reach (7)
    assert r.stderr.splitlines()[-1] == line
    assert _sent(r) == []


@pytest.mark.parametrize("verb", ["get", "update", "delete"])
@pytest.mark.parametrize("record_id", ["..", "."])
def test_an_id_that_is_not_one_path_segment(wf: Any, verb: str, record_id: str) -> None:
    extra = {"update": ["--name", "x"], "delete": ["--yes"]}.get(verb, [])
    r = wf("-v", "sites", verb, record_id, *extra)
    assert r.exit_code == 2, r  # was: exit 6, as if the service had rejected it
    assert r.stderr.splitlines()[-1] == f"error: invalid id {record_id!r}: an id is one path segment"
    assert _sent(r) == []


def test_paginate_on_an_answer_that_is_not_a_page(wf: Any) -> None:
    r = wf("api", "GET", "/api/agency/", "--paginate")
    assert r.exit_code == 2, r  # was: exit 1, as if the service had failed
    assert r.stderr == ("error: --paginate: cannot page through GET /api/agency/: the service's list answer is not "
                        "a pagination envelope (no data array); run it without --paginate\n")
    r = wf("api", "GET", "/api/agency/", "--paginate", "-o", "json")
    assert r.exit_code == 2 and '"title": "--paginate: cannot page through GET /api/agency/' in r.stderr


def test_paginate_still_pages(wf: Any, tag: str) -> None:
    ids = {as_json(wf("branches", "create", "--name", f"{tag} page {i}", "-o", "json"))["id"] for i in range(3)}
    rows = as_json(wf("api", "GET", "/api/branches", "-f", "pageSize=1", "--paginate", "-o", "json"))
    assert ids <= {row["id"] for row in rows}


@pytest.mark.parametrize("url", ["https://evil.example/api/agency/", "//evil.example/api/agency/"])
def test_api_to_another_origin_is_bad_usage(wf: Any, url: str) -> None:
    r = wf("-v", "api", "GET", url)
    assert r.exit_code == 2, r  # was: exit 1, as if the service had failed
    assert r.stderr.splitlines()[-1].startswith(f"error: {url}: not on the service's origin http://127.0.0.1:")
    assert _sent(r) == []


def test_an_api_path_holding_a_scheme_further_on_stays_a_path(wf: Any) -> None:
    r = wf("api", "GET", "/api/fuzz/x://y")
    assert (r.exit_code, r.stderr) == (4, "error: Not Found: no endpoint GET /api/fuzz/x://y (HTTP 404)\n")
    r = wf("api", "GET", "/api/branches?pageSize=1&next=https://evil.example/", "-o", "json")
    assert r.exit_code == 0 and len(as_json(r)["data"]) == 1, r  # was: refused as a foreign URL, exit 1


def test_a_base_url_with_a_user_name(cli: Any) -> None:
    r = cli("--base-url", "http://a@127.0.0.1:1", "branches", "list")
    assert r.exit_code == 2, r  # was: refused http://0 ... not the service origin, exit 1
    assert r.stderr.splitlines()[-1] == ("error: Invalid value for '--base-url' (env var: 'WFCTL_BASE_URL'): "
                                         "'http://a@127.0.0.1:1': a service URL cannot carry a user name or password")


def test_import_reads_a_named_pipe(wf: Any, tag: str, tmp_path: Path) -> None:
    """A FIFO is not a regular file, but a file all the same: read once, as stdin is (it was "no such file")."""
    import os
    import threading

    from tests.resources.conftest import make_tree

    client = make_tree(wf, tag)["client"]
    fifo = tmp_path / "sites.csv"
    os.mkfifo(fifo)
    text = f"name,address\n{tag} piped 1,1 Road\n{tag} piped 2,2 Road\n"
    writer = threading.Thread(target=fifo.write_text, args=(text,), daemon=True)
    writer.start()
    r = wf("sites", "import", str(fifo), "--client", client)
    writer.join(timeout=10)
    assert r.exit_code == 0, r
    names = sorted(s["name"] for s in as_json(wf("sites", "list", "--client", client, "-o", "json")))
    assert names == [f"{tag} piped 1", f"{tag} piped 2", f"{tag} site 1", f"{tag} site 2"]


def test_import_reads_a_process_substitution(wf: Any, tag: str, tmp_path: Path) -> None:
    """`wfctl sites import <(cmd)` in a real bash: the file is /dev/fd/N, a pipe."""
    import shutil
    import subprocess
    import sys

    from tests.fixtures.cli import REPO_ROOT
    from tests.resources.conftest import make_tree

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash")
    client = make_tree(wf, tag)["client"]
    script = f"{sys.executable} -m wfctl sites import <(printf 'name\\n{tag} subst\\n') --client {client}"
    proc = subprocess.run([bash, "-c", script], env=dict(wf.env, PYTHONPATH=str(REPO_ROOT)), cwd=str(tmp_path),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    names = sorted(s["name"] for s in as_json(wf("sites", "list", "--client", client, "-o", "json")))
    assert names == [f"{tag} site 1", f"{tag} site 2", f"{tag} subst"]
