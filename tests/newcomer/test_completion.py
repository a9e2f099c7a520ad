"""Shell completion: `wfctl completion` prints the scripts, completions/ is not stale, and real
bash, zsh and fish complete commands, options and option values with them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_component
from tests.newcomer.helpers import BIN, REPO_ROOT, clean_env, run_wfctl
from wfctl.commands.completion import FILE_NAMES, script

# (what is typed, a word the completion must offer)
CASES = [
    ("wfctl si", "sites"),              # a command
    ("wfctl completion fi", "fish"),    # an argument value
    ("wfctl --pro", "--profile"),       # an option
    ("wfctl -o cs", "csv"),             # an option value
    ("wfctl sites li", "list"),         # a command of a group
    ("wfctl sites get s-7", "s-7001"),  # a site id from the local cache
    ("wfctl sites list --client c-", "c-0042"),  # an option value from the local cache
    ("wfctl sites list --client Ac", "Acme"),    # a client by its name (the commands take names)
    ("wfctl sites get Quay", "Quayside"),        # a site by its name
    ("wfctl -p sl", "slow"),                     # a profile of the config file
    ("wfctl imports show 261124-a", "261124-a1b2c3"),  # a run of the profile
    # issue 36: values with a fixed set of choices, which offered file names
    ("wfctl sites import x.csv --on-existing u", "update"),
    ("wfctl config set outp", "output"),
    ("wfctl config set output cs", "csv"),
    ("wfctl config set allow_insecure_http t", "true"),
    ("wfctl rates set --skill Cle", "Cleaner"),  # a skill of the sites read
    ("wfctl audit --only assess", "assessment-document"),  # a check of the audit
    # issue 49: the options that name fields, the last item of a list (`-` kept: descending); a scope's --client;
    # --skill everywhere; a first item with its `-` is the option's value, not an option (as click parses it)
    ("wfctl sites list --fields id,na", "id,name"),
    ("wfctl clients list --sort-by na", "name"),
    ("wfctl sites list --sort-by name,-crea", "name,-createdOn"),
    ("wfctl sites list --sort-by -na", "-name"),
    ("wfctl clients list --sort-by -createdOn,-na", "-createdOn,-name"),
    ("wfctl rates list --client Ac", "Acme"),
    ("wfctl rates summary --skill Cle", "Cleaner"),
]
#: --columns' HEADER=SOURCE and rate:<skill>: bash splits a word at `=` and `:` (COMP_WORDBREAKS) before wfctl
#: sees it, so bash is asked these at a terminal (test_bash_at_a_terminal_...), where COMP_LINE tells the pieces.
COLUMNS_CASES = [
    ("wfctl sites list --columns Site=na", "Site=name"),
    ("wfctl sites list --columns Site=name,F=rate:Cle", "Site=name,F=rate:Cleaner"),
    ("wfctl sites list --columns banned:c", "banned:count"),
]


@pytest.mark.parametrize("shell", sorted(FILE_NAMES))
def test_completion_command_prints_the_script(shell: str, tmp_path: Path) -> None:
    proc = run_wfctl("completion", shell, env=clean_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == script(shell) + "\n"
    assert "_WFCTL_COMPLETE=complete_" + shell in proc.stdout


@pytest.mark.parametrize("directory", ["completions", "wfctl/completions"])
def test_generated_completion_files_are_not_stale(directory: str) -> None:
    for shell, name in FILE_NAMES.items():
        path = REPO_ROOT / directory / name
        assert path.read_text(encoding="utf-8") == script(shell) + "\n", (
            f"{path} is stale: run `python -m wfctl.commands.completion --write completions wfctl/completions`")


@pytest.fixture(scope="module")
def index_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The help and completion index, built once by a real first run (wfctl.cmdline.startup)."""
    home = tmp_path_factory.mktemp("index")
    proc = subprocess.run([str(BIN / "wfctl"), "--help"], capture_output=True, text=True,
                          env=clean_env(home), timeout=120)
    assert proc.returncode == 0, proc.stderr
    (path,) = (home / "cache" / "wfctl").glob("index-*.json")
    return path


def _shell_env(tmp_path: Path, index: Path | None = None) -> dict[str, str]:
    """A user's environment with ids in the completion cache and, given one, the index (so the shell
    gets the fast answers; without it, Typer's)."""
    assert (BIN / "wfctl").exists(), "the wfctl entry point is not installed next to this python"
    env = clean_env(tmp_path, TERM="dumb")
    cache = Path(env["XDG_CACHE_HOME"]) / "wfctl"
    cache.mkdir(parents=True, exist_ok=True)
    if index is not None:
        shutil.copy(index, cache / index.name)
    ids = {"site": [["s-7001", "Dock 7"], ["s-8001", "Yard"], ["s-9001", "Quayside"]],
           "client": [["c-0042", "Acme"]], "skill": [["Forklift Driver", "7 sites"], ["Cleaner", "6 sites"]]}
    code = ("import json, sys\nfrom wfctl.cmdline import completion_cache as c\n"
            "for kind, items in json.loads(sys.argv[1]).items():\n"
            "    c.remember(c.cache_file(None, None), kind, [tuple(i) for i in items])\n"
            # a run of the default profile, for `imports show|undo <TAB>`
            "from wfctl.runs import journal\n"
            "header = {'run': '261124-a1b2c3', 'kind': 'site', 'path': '/data/sites.csv', 'profile': 'default',\n"
            "          'started': '2026-11-24T08:30:00Z', 'nonce': '00'}\n"
            "j = journal.Journal(journal.journal_path(journal.runs_dir('default'), '261124-a1b2c3'), header)\n"
            "j.record(1, 'created', 's-1', name='Dock 1')\n"
            "j.finish({'created': 1})\n")
    subprocess.run([sys.executable, "-c", code, json.dumps(ids)], env=env, check=True, timeout=60,
                   cwd=str(REPO_ROOT))
    config = Path(env["XDG_CONFIG_HOME"]) / "wfctl" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[profiles.default]\nbase_url = "https://wams.example.com"\n\n'
                      '[profiles.slow]\nbase_url = "https://slow.example.com"\n', encoding="utf-8")
    return env


FAST = pytest.mark.parametrize("fast", [True, False], ids=["index", "typer"])
#: The lines a shell also asks of Typer (no index: a first run after an install, which then builds the index:
#: a second or two of CPU a line). Every command's every Tab press is compared, index against Typer, in each
#: shell's protocol in process (tests/newcomer/test_fast_path.py); here the real shells ask Typer one line of
#: each kind of answer (issue 46: the suite's time), and the index every line.
TYPER_TOO = {"wfctl si", "wfctl -o cs", "wfctl sites get s-7", "wfctl sites list --client Ac", "wfctl -p sl",
             "wfctl imports show 261124-a", "wfctl sites list --sort-by name,-crea",
             "wfctl sites list --columns Site=na"}


def _both(cases: list[tuple[str, str]]) -> list[Any]:
    """(line, expected, fast) of each case from the index, and of the TYPER_TOO lines from Typer too."""
    return [pytest.param(line, expected, fast, id=f"{'index' if fast else 'typer'}-{line}-{expected}")
            for fast in (True, False) for line, expected in cases if fast or line in TYPER_TOO]


@pytest.mark.real_component
@pytest.mark.parametrize(("line", "expected", "fast"), _both(CASES))
def test_bash_completes(line: str, expected: str, fast: bool, tmp_path: Path, index_file: Path) -> None:
    require_component("bash")
    words = line.split(" ")
    program = (
        f"source {REPO_ROOT / 'completions' / 'wfctl.bash'}\n"
        f"COMP_WORDS=({' '.join(words)}); COMP_CWORD={len(words) - 1}\n"
        f"complete -p wfctl >/dev/null || exit 3\n"
        f"_wfctl_completion wfctl {words[-1]} {words[-2]}\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    proc = subprocess.run(["bash", "--norc", "--noprofile", "-c", program], capture_output=True, text=True,
                          env=_shell_env(tmp_path, index_file if fast else None), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert expected in proc.stdout.split("\n"), proc.stdout


@pytest.mark.real_component
@pytest.mark.parametrize(("line", "expected", "fast"), _both(CASES + COLUMNS_CASES))
def test_fish_completes(line: str, expected: str, fast: bool, tmp_path: Path, index_file: Path) -> None:
    require_component("fish")
    program = f"source {REPO_ROOT / 'completions' / 'wfctl.fish'}; complete -C '{line}'"
    proc = subprocess.run(["fish", "--no-config", "-c", program], capture_output=True, text=True,
                          env=_shell_env(tmp_path, index_file if fast else None), timeout=60)
    assert proc.returncode == 0, proc.stderr
    offered = [entry.split("\t")[0] for entry in proc.stdout.splitlines()]
    assert expected in offered, proc.stdout


@pytest.mark.real_component
@pytest.mark.parametrize(("line", "expected", "fast"), _both(CASES + COLUMNS_CASES))
def test_zsh_completes_from_fpath_on_the_first_tab(line: str, expected: str, fast: bool, tmp_path: Path,
                                                   index_file: Path) -> None:
    """A real interactive zsh (in a pty) with the generated _wfctl on $fpath and compinit."""
    require_component("zsh")
    pexpect = pytest.importorskip("pexpect")
    zdotdir = tmp_path / "zdot"
    zdotdir.mkdir()
    (zdotdir / ".zshrc").write_text(
        f"fpath=({REPO_ROOT / 'completions'} $fpath)\n"
        "autoload -Uz compinit && compinit -u -d " + str(tmp_path / "zcompdump") + "\n"
        "unsetopt beep\nPS1='READY> '\n")
    env = _shell_env(tmp_path, index_file if fast else None)
    env["ZDOTDIR"] = str(zdotdir)
    child = pexpect.spawn("zsh", ["-i"], env=env, encoding="utf-8", timeout=30, dimensions=(40, 200))
    try:
        child.expect("READY> ")
        child.send(line + "\t")
        child.expect(expected + " ", timeout=30)  # the word completed and a space after it
    finally:
        child.close(force=True)


@FAST
@pytest.mark.parametrize(("line", "expected"), COLUMNS_CASES)
def test_bash_answer_completes_a_columns_source(line: str, expected: str, fast: bool, tmp_path: Path,
                                                index_file: Path) -> None:
    env = _shell_env(tmp_path, index_file if fast else None)
    env.update(_WFCTL_COMPLETE="complete_bash", COMP_WORDS=line, COMP_CWORD=str(len(line.split(" ")) - 1))
    proc = subprocess.run([str(BIN / "wfctl")], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert expected in proc.stdout.split("\n"), proc.stdout


def test_bash_says_when_a_scopes_client_shows_only_some(tmp_path: Path) -> None:
    """Issue 49: the `--client` of `rates`, `bans` and `audit` completed nothing (file names); it completes as
    every `--client` does: nothing typed, by the names a person knows (bash shows no descriptions, so bare ids
    said nothing), an id where two clients share a name, and past its cap says so as a line of bash's list."""
    env = _shell_env(tmp_path, None)
    code = ("from wfctl.cmdline import completion_cache as c\n"
            "c.remember(c.cache_file(None, None), 'client', [(f'c-{i:04d}', f'Client {i % 599}') for i in range(600)])\n")
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60, cwd=str(REPO_ROOT))
    env.update(_WFCTL_COMPLETE="complete_bash", COMP_WORDS="wfctl rates list --client ", COMP_CWORD="4")
    proc = subprocess.run([str(BIN / "wfctl")], capture_output=True, text=True, env=env, timeout=60)
    offered = proc.stdout.split("\n")
    assert offered[:3] == ["c-0000", "Client 1", "Client 2"] and offered[499] == "Client 499", proc.stdout
    assert offered[500] == " (the first 500 client records only: type more of the id or name)", proc.stdout
    env.update(_WFCTL_COMPLETE="complete_zsh", _TYPER_COMPLETE_ARGS="wfctl rates list --client ")
    proc = subprocess.run([str(BIN / "wfctl")], capture_output=True, text=True, env=env, timeout=60)
    assert '"c-0001":"Client 1"' in proc.stdout, proc.stdout  # zsh shows the name beside the id
    env.update(_WFCTL_COMPLETE="complete_bash")
    env.update(COMP_WORDS="wfctl bans where W-1 --client c-059", COMP_CWORD="5")  # past the first 500
    proc = subprocess.run([str(BIN / "wfctl")], capture_output=True, text=True, env=env, timeout=60)
    assert proc.stdout.split("\n")[-2] == "c-0599" and "records only" not in proc.stdout, proc.stdout


def test_completion_answers_quickly(tmp_path: Path) -> None:
    """One TAB press runs wfctl once (twice in fish); keep it interactive."""
    env = clean_env(tmp_path, _WFCTL_COMPLETE="complete_bash", COMP_WORDS="wfctl sites ", COMP_CWORD="2")
    wfctl = shutil.which("wfctl", path=env["PATH"]) or str(BIN / "wfctl")
    started = time.perf_counter()
    proc = subprocess.run([wfctl], capture_output=True, text=True, env=env, timeout=60)
    elapsed = time.perf_counter() - started
    assert proc.returncode == 0, proc.stderr
    assert "list" in proc.stdout.split()
    assert elapsed < float(os.environ.get("WFCTL_TEST_TAB_SECONDS", "2.0"))


@pytest.mark.real_component
@FAST
def test_fish_describes_an_id_with_its_record_name(fast: bool, tmp_path: Path, index_file: Path) -> None:
    """Where the shell shows descriptions (fish, zsh), a completed id says which record it is."""
    require_component("fish")
    program = f"source {REPO_ROOT / 'completions' / 'wfctl.fish'}; complete -C 'wfctl sites get s-'"
    proc = subprocess.run(["fish", "--no-config", "-c", program], capture_output=True, text=True,
                          env=_shell_env(tmp_path, index_file if fast else None), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["s-7001\tDock 7", "s-8001\tYard", "s-9001\tQuayside"], proc.stdout


def test_zsh_protocol_carries_the_record_name(tmp_path: Path) -> None:
    """The zsh protocol answer (what _wfctl shows beside each candidate) holds the record's name."""
    env = _shell_env(tmp_path, None)
    env.update(_WFCTL_COMPLETE="complete_zsh", _TYPER_COMPLETE_ARGS="wfctl sites get s-8")
    proc = subprocess.run([str(BIN / "wfctl")], capture_output=True, text=True, env=env, timeout=60)
    assert '"s-8001":"Yard"' in proc.stdout, proc


def test_zsh_protocol_offers_names_and_says_when_the_list_stopped_at_its_limit(tmp_path: Path) -> None:
    """A name typed completes to the name (its id beside it); a cached list that stopped at its limit says
    so beside the last candidate; a name with a space is offered to bash too (its script quotes it)."""
    env = _shell_env(tmp_path, None)
    env.update(_WFCTL_COMPLETE="complete_zsh", _TYPER_COMPLETE_ARGS="wfctl sites get Do")
    proc = subprocess.run([str(BIN / "wfctl")], capture_output=True, text=True, env=env, timeout=60)
    assert '"Dock 7":"s-7001"' in proc.stdout, proc
    bash = dict(env, _WFCTL_COMPLETE="complete_bash", COMP_WORDS="wfctl sites get Do", COMP_CWORD="3")
    proc = subprocess.run([str(BIN / "wfctl")], capture_output=True, text=True, env=bash, timeout=60)
    assert (proc.returncode, proc.stdout) == (0, "Dock 7\n"), proc
    code = ("from wfctl.cmdline import completion_cache as c\n"
            "c.remember(c.cache_file(None, None), 'branch', [(f'b-{i:04d}', f'Branch {i}') for i in range(600)])\n")
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60, cwd=str(REPO_ROOT))
    env.update(_TYPER_COMPLETE_ARGS="wfctl clients list --branch b-0")
    proc = subprocess.run([str(BIN / "wfctl")], capture_output=True, text=True, env=env, timeout=60)
    assert '"b-0499":"Branch 499 (the first 500 branch records only' in proc.stdout, proc  # zsh escapes the ':'
    assert "type more of the id or name)" in proc.stdout, proc
    assert "b-0500" not in proc.stdout
    env.update(_TYPER_COMPLETE_ARGS="wfctl clients list --branch b-055")  # issue 36: past the first 500 too
    proc = subprocess.run([str(BIN / "wfctl")], capture_output=True, text=True, env=env, timeout=60)
    assert '"b-0555":"Branch 555"' in proc.stdout and "records only" not in proc.stdout, proc


class _BashAtTerminal:
    """A real interactive bash in a pty with the generated script sourced: what a Tab press leaves on the line."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.pexpect = pytest.importorskip("pexpect")
        env = dict(env, PATH=f"{BIN}{os.pathsep}{env.get('PATH', os.defpath)}", INPUTRC="/dev/null")
        self.child = self.pexpect.spawn("bash", ["--norc", "--noprofile"], env=env, encoding="utf-8",
                                        dimensions=(40, 120), timeout=30, cwd=str(cwd))
        self.child.sendline(f"source {REPO_ROOT / 'completions' / 'wfctl.bash'}; bind 'set page-completions off'; "
                            "bind 'set completion-query-items 10000'; PS1='ready> '")
        self.child.expect_exact("ready> ")

    def completed(self, typed: str) -> list[str]:
        """What the command line holds after `typed` and a Tab: printf shows each word of it."""
        self.child.send(typed + "\t")
        time.sleep(1.0)
        self.child.send("\x01printf '<%s>' \r")  # Ctrl-A: the line's start; the words as the shell parses them
        self.child.expect(r"<wfctl><([^\r\n]*)>ready> ")
        return ["wfctl", *self.child.match.group(1).split("><")]

    def close(self) -> None:
        self.child.sendcontrol("c")
        self.child.sendline("exit")
        self.child.expect(self.pexpect.EOF)


@pytest.mark.real_component
def test_bash_inserts_names_quoted_and_says_when_it_shows_only_some(tmp_path: Path, index_file: Path) -> None:
    """Issue 36, in a real bash at a terminal: a name with a space completed (it was never offered in bash) and
    inserted quoted, so the command gets it as one word; more candidates than one answer offers end with a
    line saying so (bash shows no descriptions); an id past them completes when more of it is typed."""
    require_component("bash")
    env = _shell_env(tmp_path, index_file)
    code = ("from wfctl.cmdline import completion_cache as c\n"
            "c.remember(c.cache_file(None, None), 'branch', [(f'b-{i:04d}', f'Branch {i}') for i in range(600)])\n")
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60, cwd=str(REPO_ROOT))
    bash = _BashAtTerminal(env, tmp_path)
    assert bash.completed("wfctl sites get Doc") == ["wfctl", "sites", "get", "Dock 7"]
    assert bash.completed("wfctl clients list --branch b-0555") == ["wfctl", "clients", "list", "--branch", "b-0555"]
    bash.child.send("wfctl clients list --branch b-0\t\t")
    bash.child.expect_exact("(the first 500 branch records only: type more of the id or name)")
    bash.close()


@pytest.mark.real_component
@FAST
@pytest.mark.parametrize(("typed", "words"), [
    ("wfctl sites list --columns Site=na", ["--columns", "Site=name"]),
    ("wfctl sites list --columns Site=name,F=rate:Cle", ["--columns", "Site=name,F=rate:Cleaner"]),
    ("wfctl sites list --columns F=rate:Fork", ["--columns", "F=rate:Forklift Driver"]),
    ("wfctl sites list --columns banned:c", ["--columns", "banned:count"]),
    ("wfctl sites list --columns=Site=na", ["--columns=Site=name"]),
    ("wfctl sites list --sort-by -na", ["--sort-by", "-name"]),
    ("wfctl --profile=sl", ["--profile=slow"]),
    ("wfctl --profile=", ["--profile=default"]),  # the only profile (a config of one, below)
])
def test_bash_at_a_terminal_completes_words_it_splits_at_equals_and_colons(
        typed: str, words: list[str], fast: bool, tmp_path: Path, index_file: Path) -> None:
    """Issue 49: bash splits a word at `=` and `:` (COMP_WORDBREAKS), so `--columns` sources completed nothing
    in bash; the script joins the pieces again and gives back only what replaces the last one."""
    require_component("bash")
    env = _shell_env(tmp_path, index_file if fast else None)
    if typed.endswith("="):
        Path(env["XDG_CONFIG_HOME"], "wfctl", "config.toml").write_text(
            '[profiles.default]\nbase_url = "https://wams.example.com"\n', encoding="utf-8")
    bash = _BashAtTerminal(env, tmp_path)
    try:
        assert bash.completed(typed) == typed.split(" ")[:-len(words)] + words
    finally:
        bash.close()


def test_fish_describes_a_profile_with_its_url_and_a_run_with_its_file(tmp_path: Path) -> None:
    require_component("fish")
    env = _shell_env(tmp_path, None)
    for line, wanted in (("wfctl -p ", ["default\thttps://wams.example.com", "slow\thttps://slow.example.com"]),
                         ("wfctl imports undo ", ["261124-a1b2c3\tsite sites.csv 2026-11-24T08:30:00Z complete"])):
        program = f"source {REPO_ROOT / 'completions' / 'wfctl.fish'}; complete -C '{line}'"
        proc = subprocess.run(["fish", "--no-config", "-c", program], capture_output=True, text=True, env=env,
                              timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines() == wanted, proc.stdout
