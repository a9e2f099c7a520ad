"""IO: the program's streams (stdout for data; stderr for notes, warnings and errors), and whether each
is a terminal. Commands write through it only (tests/layers/test_command_output.py). Below `wfctl.output`, which writes through it, and `wfctl.context`, which makes one per
command; no rich until a table asks for its console."""

from __future__ import annotations

import os
import sys
from functools import cached_property
from typing import Any

from wfctl.safetext import plain


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


#: What `WFCTL_CSV` may say: CSV for a program (no BOM, values as they are) or for a spreadsheet.
CSV_MODES = ("plain", "spreadsheet")


class IO:
    """The program's streams. Data goes to stdout; notes, progress and errors to stderr.

    `WFCTL_FORCE_TTY=1` makes wfctl behave as on a terminal (for scripts that drive it through a
    pipe and want the human output, and for tests)."""

    def __init__(self, *, no_color: bool = False) -> None:
        force = os.environ.get("WFCTL_FORCE_TTY", "") not in ("", "0")
        self.stdout_is_tty = force or _isatty(sys.stdout)
        self.stderr_is_tty = force or _isatty(sys.stderr)
        self.stdin_is_tty = force or _isatty(sys.stdin)
        self.can_prompt = self.stdin_is_tty and self.stderr_is_tty
        self.color = self.stdout_is_tty and not no_color and "NO_COLOR" not in os.environ

    @cached_property
    def stdout_is_pipe(self) -> bool:
        """Whether stdout goes to another program (a pipe or a socket), not to a file or a terminal."""
        import stat

        try:
            mode = os.fstat(sys.stdout.fileno()).st_mode
        except (AttributeError, OSError, ValueError):  # not a real stream (io.UnsupportedOperation is one)
            return False
        return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)

    @cached_property
    def stdout_is_new_file(self) -> bool:
        """Whether stdout writes a regular file from its start (`> FILE`), not a pipe, a terminal or `>>`:
        a file a spreadsheet may open, which needs a BOM to read UTF-8 (docs/csv.md)."""
        import stat

        try:
            fd = sys.stdout.fileno()
            return (stat.S_ISREG(os.fstat(fd).st_mode) and os.lseek(fd, 0, os.SEEK_CUR) == 0
                    and sys.stdout.tell() == 0)
        except (AttributeError, OSError, ValueError):
            return False

    @cached_property
    def csv_mode(self) -> str | None:
        """`WFCTL_CSV`: "plain" (CSV in a file as a pipe gets it: no BOM, no `'` before a formula-like cell
        of `-o csv`), "spreadsheet" (in a pipe as a file gets it), or None: by where it goes (docs/csv.md)."""
        value = os.environ.get("WFCTL_CSV", "").strip().lower()
        if value in ("", "auto"):
            return None
        if value not in CSV_MODES:
            from wfctl.clierror import CliError

            raise CliError(f"WFCTL_CSV={plain(value)}: expected plain or spreadsheet (or auto, the default)")
        return value

    @staticmethod
    def write(text: str) -> None:
        """Raw data to stdout."""
        sys.stdout.write(text)

    @staticmethod
    def flush() -> None:
        """What was written to stdout, out now (a streamed list's each page: the reader need not wait)."""
        sys.stdout.flush()

    @staticmethod
    def write_err(text: str) -> None:
        """Text to stderr as the caller wrote it (a question, a run's outcome, a line a command words itself;
        the caller escapes what it quotes). Needs no instance: a helper with no IO at hand calls
        `IO.write_err(...)`."""
        sys.stderr.write(text)

    def note(self, text: str) -> None:
        """A hint for a person: shown on a terminal only, never in a pipeline's stderr.
        Control characters in `text` (it may quote the service or a file) are shown escaped."""
        if self.stderr_is_tty:
            sys.stderr.write(plain(text, keep_newlines=True) + "\n")

    def warn(self, text: str) -> None:
        """Always shown, on stderr (control characters escaped, as for `note`)."""
        sys.stderr.write(f"warning: {plain(text, keep_newlines=True)}\n")

    @cached_property
    def console(self) -> Any:
        """A rich Console on stdout (imports rich on first use)."""
        from rich.console import Console

        width = None if self.stdout_is_tty else 10_000
        return Console(file=sys.stdout, force_terminal=self.stdout_is_tty, no_color=not self.color,
                       highlight=False, soft_wrap=not self.stdout_is_tty, width=width)


class FileIO(IO):
    """The program's streams with its data going to a file (`export -o jsonl --file F`) instead of stdout:
    written for a program (no terminal, no colour); notes and errors stay on stderr."""

    stdout_is_pipe = False
    stdout_is_new_file = True  # a file written from its start: CSV in it as `> FILE` gets it (docs/csv.md)

    def __init__(self, io: IO, out: Any) -> None:  # `out`: an open text file
        where = ("console", "stdout_is_pipe", "stdout_is_new_file")  # what io found out about its stdout
        vars(self).update({name: value for name, value in vars(io).items() if name not in where})
        self.stdout_is_tty = False
        self.color = False
        self._out = out

    def write(self, text: str) -> None:  # type: ignore[override]
        self._out.write(text)

    def flush(self) -> None:  # type: ignore[override]
        self._out.flush()
