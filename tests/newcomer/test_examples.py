"""Issue 24 §2: every `$ wfctl ...` example of README.md, docs/*.md and the help texts runs as written on the
seeded sandbox. Each line runs through bash in a terminal (a pty, 120x40), in the order its page gives,
with the placeholders (`<site-id>`, `<client-id>`, a sample run id, the example service URL...) replaced by
real values of the seed; a prompt is answered as a person would (the password; `n` to a [y/N] question,
which exits 2). Lines that need what a test cannot have are skipped with the reason (a file the
repository does not have, a server that runs until Ctrl-C, a PostgreSQL database, a script of the reader's)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.cli import REPO_ROOT

pexpect = pytest.importorskip("pexpect")

ADMIN, PASSWORD = "admin@northwind.test", "sandbox-admin"
PAGES = ["README.md", *sorted(f"docs/{p.name}" for p in (REPO_ROOT / "docs").glob("*.md"))]
_PROMPT = re.compile(r"^\s*\$ ((?:[A-Z_]+=\S+ )*wfctl\b.*)$")
_RUN_ID = re.compile(r"\b\d{6}-[0-9a-f]{6}\b")
_SERVICE_URLS = ("https://wams.example.com", "https://staging.wams.example.com", "http://127.0.0.1:8765",
                 "http://127.0.0.1:8000", "http://127.0.0.1:8080", "<base-url>", "<url>")
#: options and words whose value is a file wfctl reads (it must be there for the line to run)
_READS = ("--from-file", "--input", "--ca-bundle", "--db", "ca_bundle", "import", "diff")


def page_examples(text: str) -> Iterator[tuple[int, str, str | None]]:
    """(line number, command, the error it shows or None) of each `$ wfctl ...` line of a Markdown page
    or help text; a line ending in a backslash goes on on the next one. An example whose shown output
    is an `error: ...` line is an example of a refusal: it must fail with that line."""
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        match = _PROMPT.match(lines[index])
        start = index
        index += 1
        if match is None:
            continue
        command = match.group(1)
        while command.rstrip().endswith("\\") and index < len(lines):
            command = command.rstrip()[:-1] + " " + lines[index].strip()
            index += 1
        shown = lines[index].strip() if index < len(lines) else ""
        yield start + 1, command, shown if shown.startswith("error: ") else None


def help_examples() -> list[tuple[str, int, str, str | None]]:
    from wfctl.cmdline.help_format import split_help
    from wfctl.cmdline.main import _command

    found: list[tuple[str, int, str, str | None]] = []

    def walk(command: Any, path: list[str]) -> None:
        _, examples = split_help(command.help)
        found.extend((" ".join(["wfctl", *path, "--help"]), number, line, error)
                     for number, line, error in page_examples(examples))
        for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
            if not sub.hidden:
                walk(sub, [*path, name])

    walk(_command(), [])
    return found


def all_examples() -> dict[str, list[tuple[int, str, str | None]]]:
    pages: dict[str, list[tuple[int, str, str | None]]] = {}
    for page in PAGES:
        pages[page] = list(page_examples((REPO_ROOT / page).read_text(encoding="utf-8")))
    pages["help"] = [(number, f"{where}: {line}", error) for where, number, line, error in help_examples()]
    for page, examples in pages.items():  # who removes comes last: `sandbox users remove` after `passwd`
        pages[page] = sorted(examples, key=lambda example: (example[1].split(": ")[0] if page == "help" else "",
                                                            " remove " in example[1]))
    return pages


class Seed:
    """The values the placeholders stand for, on this test's own seeded sandbox."""

    def __init__(self, cli: Any, url: str) -> None:
        self.url = url
        sites: list[tuple[dict[str, Any], dict[str, Any]]] = []
        clients = json.loads(cli("clients", "list", "--all", "-o", "json").stdout)
        for client in clients:
            for site in json.loads(cli("sites", "list", "--client", client["id"], "--all", "-o", "json").stdout):
                sites.append((client, site))
        chosen = None
        for client, site in sites:
            record = json.loads(cli("sites", "get", site["id"], "-o", "json").stdout)
            skills = {rate["skill"] for rate in record["rates"]}
            if {"Forklift Driver", "Picker Packer"} <= skills:
                chosen = (client, record)
                break
        assert chosen is not None, "the seed has a site with Forklift Driver and Picker Packer rates"
        self.client, self.site = chosen
        self.other_client = next(c for c in clients if c["id"] != self.client["id"])
        self.branch = self.client["branchId"]
        self.cli = cli

    def throwaway(self, line: str) -> str:
        """A delete example acts on a record made for it (a branch without clients, a client without sites):
        the seed's records have dependents (409), and later examples read them."""
        import uuid

        def made(*args: str) -> str:
            r = self.cli(*args, "--name", f"Throwaway {uuid.uuid4().hex[:8]}", "-o", "json")
            assert r.exit_code == 0, r
            return str(json.loads(r.stdout)["id"])

        if re.search(r"\bbranches delete\b|DELETE /api/branches/", line):
            return line.replace("<branch-id>", made("branches", "create"))
        if re.search(r"\bclients delete\b|DELETE /api/clients/", line):
            return line.replace("<client-id>", made("clients", "create", "--branch", self.branch))
        if re.search(r"\bsites delete\b|DELETE /api/sites/", line):
            site = made("sites", "create", "--client", self.client["id"])
            return line.replace("<site-id>", site).replace("629bac2d-3e1a-4f0e-9d7c-2f5c1b7e8a10", site)
        return line

    def fill(self, line: str, run_id: str | None) -> str:
        for url in _SERVICE_URLS:
            line = line.replace(url, self.url)
        line = (line.replace("<branch-id>", self.branch).replace("<other-client-id>", self.other_client["id"])
                .replace("<other-branch-id>", self.other_client["branchId"])
                .replace("<client-id>", self.client["id"]).replace("<site-id>", self.site["id"])
                .replace("629bac2d-3e1a-4f0e-9d7c-2f5c1b7e8a10", self.site["id"]).replace("<user>", ADMIN))
        workers = iter(["W-1", "W-2", "W-3"])
        line = re.sub("<worker-id>", lambda _: next(workers), line)
        if run_id is not None:
            line = _RUN_ID.sub(run_id, line.replace("<run-id>", run_id))
        return line


def skip_reason(line: str, cwd: Path, home: Path, url: str) -> str | None:
    """Why `line` cannot run in a test, or None."""
    if "sandbox serve" in line:
        return "a server that runs until Ctrl-C (tests/sandbox start it)"
    if "--control-token-file" in line:
        return "a sandbox started with --control (tests/certify start one)"
    if "sandbox certify" in line:
        return "a program of the reader's to certify (tests/certify run reference clients)"
    if "postgresql://" in line or "--database ..." in line:
        return "a PostgreSQL database of the reader's"
    if "--from-profile" in line:  # this test's profiles are all one sandbox: refused, same service and scope
        return "a second deployment of the reader's (--from-profile; tests/drift runs two)"
    foreign = re.search(r"https?://[^\s/\"']+", line.replace(url, ""))
    if foreign:
        return f"a service of the reader's ({foreign.group(0)})"
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        return None
    for index, word in enumerate(words):
        if word.startswith("./") or "=./" in word:  # `./fix.sh`, `EDITOR=./fix-rates.sh`
            return f"a script of the reader's ({word})"
        if word.startswith("WFCTL_CA_BUNDLE="):  # a file named in the environment, read as --ca-bundle's is
            value = word.partition("=")[2]
            path = Path(value.replace("~", str(home), 1) if value.startswith("~") else cwd / value)
            if not path.exists():
                return f"needs the file {value}, which the repository does not have"
        if word in _READS and index + 1 < len(words):
            value = words[index + 1]
            if value in ("-", "--dry-run") or value.startswith("-") or "=" in value:
                continue
            if word in ("import", "diff") and not re.search(r"\.(csv|xlsx|tsv|txt)$", value):
                continue
            path = Path(value.replace("~", str(home), 1) if value.startswith("~") else cwd / value)
            if not path.exists():
                return f"needs the file {value}, which the repository does not have"
    return None


def run_line(line: str, env: dict[str, str], cwd: Path, url: str) -> tuple[int, str, bool]:
    """(exit status, what the screen showed, whether a [y/N] question was answered no)."""
    child = pexpect.spawn("bash", ["-c", line], env=env, cwd=str(cwd), encoding="utf-8", timeout=45,
                          dimensions=(40, 120))
    said_no = False
    shown = ""
    patterns = [r"(Password for|New password for|Repeat the password)[^\r\n]*: ", r"Username: ", r"Service URL: ",
                r"\[y/N\]", pexpect.EOF,
                r"Reading the password from standard input[^\r\n]*", pexpect.TIMEOUT]
    while True:
        which = child.expect(patterns)
        shown += (child.before or "") + (child.after if isinstance(child.after, str) else "")
        if which == 6:
            child.terminate(force=True)
            return -1, shown + "\n(no end within 45 s)", said_no
        if which == 5:  # --password-stdin on a terminal: typed, then Ctrl-D
            child.sendline(PASSWORD)
            child.sendeof()
        elif which == 0:
            child.sendline(PASSWORD if "New password" not in str(child.after) and "Repeat" not in str(child.after)
                           else "a-new-password-1")
        elif which == 1:
            child.sendline(ADMIN)
        elif which == 2:
            child.sendline(url)
        elif which == 3:
            child.sendline("n")
            said_no = True
        else:
            break
    child.close()
    return child.exitstatus if child.exitstatus is not None else -1, shown, said_no


@pytest.fixture
def world(cli: Any, sandbox_factory: Any, tmp_path: Path) -> dict[str, Any]:
    server = sandbox_factory()
    for profile in ("default", "staging", "legacy", "ci"):
        r = cli("-p", profile, "login", "--base-url", server.url, "-u", ADMIN, "--password-stdin",
                "--credential-store", "file", input=PASSWORD)
        assert r.exit_code == 0, r
    seed = Seed(cli, server.url)
    cwd = tmp_path / "work"
    cwd.mkdir()
    shutil.copy(REPO_ROOT / "examples" / "sites.csv", cwd / "sites.csv")
    sandbox_factory(db_path=str(tmp_path / "sandbox.db")).stop()  # of `wfctl sandbox serve --db sandbox.db`
    shutil.copy(tmp_path / "sandbox.db", cwd / "sandbox.db")
    r = cli("sites", "import", str(cwd / "sites.csv"))  # a run, for the examples of imports show|undo
    assert r.exit_code == 0, r
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "wfctl").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m wfctl "$@"\n')
    (bin_dir / "less").write_text("#!/bin/sh\ncat > /dev/null\n")  # a pager would wait for a key
    for shim in ("wfctl", "less"):
        (bin_dir / shim).chmod(0o755)
    env = dict(cli.env, PYTHONPATH=str(REPO_ROOT), TERM="xterm-256color", PATH=f"{bin_dir}:{os.environ['PATH']}",
               WAMS_URL=server.url, WAMS_USER=ADMIN, PASSWORD=PASSWORD, WAMS_PASSWORD=PASSWORD,
               TOKEN=cli("auth", "token").stdout.strip(), VISUAL="", EDITOR="true")
    env.pop("COLUMNS", None)  # EDITOR: `edit` examples open an editor that saves the file as shown ("no changes")
    for directory in (".config/fish/completions", ".local/share/bash-completion/completions", ".zfunc"):
        (cli.home / directory).mkdir(parents=True, exist_ok=True)  # as the shells' own packages make them
    return {"cli": cli, "seed": seed, "cwd": cwd, "env": env, "url": server.url}


EXAMPLES = all_examples()


def test_the_pages_have_examples() -> None:
    assert len(EXAMPLES["README.md"]) > 30 and len(EXAMPLES["help"]) > 100


# Hundreds of examples a page (the help texts'), each bounded at 45 s: the suite's 300 s is for one test's
# work, and on a machine shared with other engineers' runs the help texts' examples took over 300 s.
@pytest.mark.timeout(900)
@pytest.mark.parametrize("page", sorted(EXAMPLES))
def test_every_example_runs_as_written(world: dict[str, Any], page: str) -> None:
    cli, seed, cwd, env = world["cli"], world["seed"], world["cwd"], world["env"]
    failures, skipped, ran = [], [], 0
    last_help = ""
    for number, written, error in EXAMPLES[page]:
        where, line = written.split(": ", 1) if page == "help" else (page, written)
        if page == "help" and where != last_help:  # each command's examples start from the same accounts
            shutil.copy(cwd.parent / "sandbox.db", cwd / "sandbox.db")
            last_help = where
        runs = [run["run"] for run in json.loads(cli("imports", "list", "-o", "json").stdout)
                if not run.get("undo") and run.get("state") == "complete"] \
            if "<run-id>" in line or _RUN_ID.search(line) else []  # one an undo can take back
        line = seed.fill(seed.throwaway(line), runs[0] if runs else None)
        reason = skip_reason(line, cwd, cli.home, world["url"])
        if reason:
            skipped.append(f"{where}:{number}: {reason}")
            continue
        code, shown, said_no = run_line(line, env, cwd, world["url"])
        ran += 1
        tail = "\n      ".join(shown.strip().splitlines()[-4:])
        if error is not None:  # an example of a refusal: the error shown, with the same words (ids filled in)
            if code == 0 or seed.fill(error, None) not in shown.replace("\r\n", "\n").splitlines():
                failures.append(f"{where}:{number}: exit {code}, not {error!r}: {line}\n      {tail}")
        elif code != 0 and not (said_no and code == 2) and not (code == 1 and re.search(r"\b(diff|audit)\b", line)):
            # (a diff's exit 1 is its answer: something differs; an audit's: something was found)
            failures.append(f"{where}:{number}: exit {code}: {line}\n      {tail}")
        if "logout" in line:  # the next examples expect the login back
            cli("login", "--base-url", world["url"], "-u", ADMIN, "--password-stdin", "--credential-store", "file",
                input=PASSWORD)
    print(f"{page}: {ran} ran, {len(skipped)} skipped:\n  " + "\n  ".join(skipped))
    assert not failures, f"{len(failures)} of {ran} examples failed:\n" + "\n".join(failures)
