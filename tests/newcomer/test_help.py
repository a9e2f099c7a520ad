"""Help a person can act on: every command's --help has a summary, a description and Examples
(this walks the command tree, so commands added later are held to it too); help topics."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.newcomer.helpers import REPO_ROOT, command_tree
from wfctl.cmdline.help_format import split_help

COMMANDS = [path for path, _ in command_tree()]


def _help(cli, path: list[str]) -> str:
    result = cli(*path, "--help")
    assert result.exit_code == 0, result
    return result.stdout


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: "wfctl " + " ".join(p))
def test_every_command_help_has_summary_description_and_examples(cli, path: list[str]) -> None:
    command = dict((tuple(p), c) for p, c in command_tree())[tuple(path)]
    prose, examples = split_help(command.help)
    name = "wfctl " + " ".join(path)
    summary, _, description = prose.partition("\n")
    assert summary.strip(), f"{name}: no one-line summary"
    assert len(summary) <= 100 and summary.rstrip().endswith("."), f"{name}: summary {summary!r}"
    assert description.strip(), f"{name}: no description after the summary line"
    lines = [line.strip() for line in examples.splitlines() if line.strip()]
    assert any(line.startswith("$ wfctl") for line in lines), f"{name}: no `$ wfctl ...` line under Examples:"
    assert all(not re.search(r"\b(ID|SITE_ID|CLIENT_ID|BRANCH_ID)\b", line) for line in lines), (
        f"{name}: placeholders read like <site-id>")

    text = _help(cli, path)
    assert "\nExamples:\n" in text
    assert "  $ wfctl" in text


def test_examples_block_is_verbatim_and_options_are_grouped_in_panels(cli) -> None:
    text = _help(cli, [])
    assert text.startswith("Usage: wfctl [OPTIONS] COMMAND [ARGS]...")
    assert "\nGlobal options:\n  -p, --profile <name>" in text
    assert "\nExamples:\n  $ wfctl login --base-url https://wams.example.com\n" in text
    sub = _help(cli, ["doctor"])
    assert "\nOutput:\n  -o, --output" in sub
    assert ("\nGlobal options (before or after the command; wfctl --help says more):\n"
            "  -p, --profile; --base-url; --ca-bundle; -v, --verbose; --no-color\n") in sub  # -o is the command's
    assert sub.index("Options:") < sub.index("Output:") < sub.index("Examples:")


def test_help_lists_the_short_help_option_on_every_path(cli) -> None:
    """`-h, --help` in the fast help (the index) as in Typer's; test_fast_path.py compares every command."""
    for args in ([], ["--help"], ["-h"], ["sites", "--help"], ["sites", "list", "-h"]):
        result = cli(*args)
        assert result.exit_code == 0, result
        assert "\n  -h, --help " in result.stdout, args


def test_help_topics_list_every_environment_variable_config_key_and_exit_code(cli) -> None:
    text = cli("help", "environment").stdout
    source = "\n".join(p.read_text() for p in (REPO_ROOT / "wfctl").rglob("*.py")
                       if "sandbox" not in p.parts)
    read = set(re.findall(r"\"((?:WFCTL|XDG)_[A-Z_]+)\"", source)) | set(re.findall(r"envvar=\"([A-Z_]+)\"", source))
    for name in sorted(read | {"NO_COLOR", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "SSL_CERT_FILE"}):
        assert name in text, f"`wfctl help environment` does not mention {name}"

    from wfctl.config import KEYS
    from wfctl.exit_codes import ExitCode

    for key in KEYS:
        assert f"\n  {key} " in text, key
    for code in ExitCode:
        assert re.search(rf"\n  {int(code)} +\S", text), code
    assert "config.toml" in text


def test_help_topics_print_to_stdout_only(cli) -> None:
    for topic in ("environment", "config", "exit-codes"):
        result = cli("help", topic)
        assert result.exit_code == 0 and result.stdout and not result.stderr, result


def test_docs_newcomer_page_exists() -> None:
    text = (REPO_ROOT / "docs" / "newcomer.md").read_text()
    for needle in ("Troubleshooting", "Performance: start-up", "wfctl completion bash"):
        assert needle in text
    assert Path(REPO_ROOT / "bench" / "startup.py").exists()
