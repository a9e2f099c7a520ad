"""wfctl completion: print the shell completion script for bash, zsh or fish.

The scripts are typer's (the same protocol as `--install-completion`: the shell runs wfctl with
`_WFCTL_COMPLETE=complete_<shell>` and wfctl answers with candidates: from the index of
wfctl.cmdline.startup when it can, without loading typer, else through typer). The generated files live in
`completions/` and, for installed copies, in the package's `wfctl/completions/`; regenerate both with

    python -m wfctl.commands.completion --write completions wfctl/completions
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from wfctl.commands.options import app_context
from wfctl.render.streams import IO

PROG_NAME = "wfctl"
COMPLETE_VAR = "_WFCTL_COMPLETE"
FILE_NAMES = {"bash": "wfctl.bash", "zsh": "_wfctl", "fish": "wfctl.fish"}

#: The bash script is wfctl/completions/wfctl.bash, its one copy (completions/wfctl.bash links to it): typer's
#: (the same protocol: COMP_WORDS and COMP_CWORD in, one candidate a line out), and two things it lacks. bash splits a word at `=` and `:` (COMP_WORDBREAKS: `--columns Site=rate:Cle` reaches the
#: function as `Site`, `=`, `rate`, `:`, `Cle`): the words are joined again where the line (COMP_LINE) has
#: no space between them, wfctl is asked with them whole, and each candidate is given back without what bash
#: keeps before the piece it replaces (nothing, right after a `=` or `:`; git's and npm's scripts trim the same
#: way; a `--opt=value` answer is the value, as click gives it). A candidate with a space or another character
#: the shell reads (a name: `Dock 7`) is inserted quoted (`Dock\ 7`): readline's filename quoting, turned on for such an answer only
#: (on for every answer, a folder named `sites` would turn `wfctl si<TAB>` into `sites/`).
BASH_FILE = Path(__file__).resolve().parent.parent / "completions" / FILE_NAMES["bash"]


class Shell(StrEnum):
    bash = "bash"
    zsh = "zsh"
    fish = "fish"


def completion(
    ctx: typer.Context,
    shell: Annotated[Shell, typer.Argument(help="The shell: bash, zsh or fish.", metavar="<shell>",
                                           show_default=False)],
) -> None:
    """Print the shell completion script for bash, zsh or fish.

    Completes commands, options and option values (for example the formats of --output). Load the
    script from your shell's start-up file, or save it where your shell looks for completions. The
    same files ship in the wheel under wfctl/completions/.

    Examples:
      $ eval "$(wfctl completion bash)"
      $ wfctl completion bash > ~/.local/share/bash-completion/completions/wfctl
      $ wfctl completion zsh > ~/.zfunc/_wfctl
      $ wfctl completion fish > ~/.config/fish/completions/wfctl.fish
    """
    app_context(ctx).io.write(script(shell.value) + "\n")


def script(shell: str) -> str:
    """The completion script for `shell` (bash, zsh or fish)."""
    from wfctl.cmdline.typercompat import get_completion_script

    text = get_completion_script(prog_name=PROG_NAME, complete_var=COMPLETE_VAR, shell=shell)
    if shell == "bash":
        text = BASH_FILE.read_text(encoding="utf-8").removesuffix("\n")
    if shell == "zsh":
        # As a file on $fpath, compinit autoloads it at the first TAB: complete right away then,
        # and register the function only when sourced (typer's script only registers, so the
        # first TAB after autoload would complete nothing). This is click 8's zsh script shape.
        text = text.replace(
            f"compdef _{PROG_NAME}_completion {PROG_NAME}",
            "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n"
            f"  _{PROG_NAME}_completion \"$@\"\n"
            "else\n"
            f"  compdef _{PROG_NAME}_completion {PROG_NAME}\n"
            "fi",
        )
    return text


def register_shells() -> None:
    """Make the completion protocol answer (called by main when `_WFCTL_COMPLETE` is set)."""
    from wfctl.cmdline.typercompat import init_completion

    init_completion()


def write_files(directory: Path) -> list[Path]:
    """Write the three scripts into `directory`; returns their paths."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for shell, name in FILE_NAMES.items():
        path = directory / name
        path.write_text(script(shell) + "\n", encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "--write":
        IO.write_err("usage: python -m wfctl.commands.completion --write DIR [DIR ...]\n")
        sys.exit(2)
    for target in sys.argv[2:]:
        for path in write_files(Path(target)):
            IO.write_err(f"wrote {path}\n")
