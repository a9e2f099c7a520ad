"""IO: the program's streams (stdout for data; stderr for notes, warnings and errors), and whether each
is a terminal. Commands write through it only (tests/layers/test_command_output.py). Below `wfctl.render.output`, which writes through it, and `wfctl.context`, which makes one per
command; no rich until a table asks for its console."""

from __future__ import annotations

import os
import sys
from functools import cached_property
from typing import Any

from wfctl.text.safetext import plain


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


#: What `WFCTL_CSV` may say: CSV for a program (no BOM, values as they are) or for a spreadsheet.
CSV_MODES = ("plain", "spreadsheet")


class _ProcessOrOwn:
    """`write_err` on the class (`IO.write_err(text)`: a helper with no IO at hand) writes to the process's
    stderr; on an IO, to that IO's stderr (a recorded one in a test)."""

    def __get__(self, io: IO | None, owner: type) -> Any:
        return lambda text: (io.stderr if io is not None else sys.stderr).write(text)


class IO:
    """The program's streams. Data goes to stdout; notes, progress and errors to stderr.

    `stdin`, `stdout`, `stderr`: the streams it reads and writes (default: the process's, looked up when
    used, so a stream replaced under it is followed); a test gives its own (`TestIO`), as gh's
    `iostreams.Test()`. `WFCTL_FORCE_TTY=1` makes wfctl behave as on a terminal (for scripts that drive it
    through a pipe and want the human output, and for tests)."""

    def __init__(self, *, no_color: bool = False, stdin: Any = None, stdout: Any = None, stderr: Any = None) -> None:
        self._stdin, self._stdout, self._stderr = stdin, stdout, stderr
        force = os.environ.get("WFCTL_FORCE_TTY", "") not in ("", "0")
        self.stdout_is_tty = force or _isatty(self.stdout)
        self.stderr_is_tty = force or _isatty(self.stderr)
        self.stdin_is_tty = force or _isatty(self.stdin)
        self.can_prompt = self.stdin_is_tty and self.stderr_is_tty
        self.color = self.stdout_is_tty and not no_color and "NO_COLOR" not in os.environ

    @property
    def stdin(self) -> Any:
        return sys.stdin if self._stdin is None else self._stdin

    @property
    def stdout(self) -> Any:
        return sys.stdout if self._stdout is None else self._stdout

    @property
    def stderr(self) -> Any:
        return sys.stderr if self._stderr is None else self._stderr

    #: The terminal's width for a table (None: what Rich finds out, COLUMNS or the terminal's).
    width: int | None = None

    @cached_property
    def stdout_is_pipe(self) -> bool:
        """Whether stdout goes to another program (a pipe or a socket), not to a file or a terminal."""
        import stat

        try:
            mode = os.fstat(self.stdout.fileno()).st_mode
        except (AttributeError, OSError, ValueError):  # not a real stream (io.UnsupportedOperation is one)
            return False
        return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)

    @cached_property
    def stdout_is_new_file(self) -> bool:
        """Whether stdout writes a regular file from its start (`> FILE`), not a pipe, a terminal or `>>`:
        a file a spreadsheet may open, which needs a BOM to read UTF-8 (docs/csv.md)."""
        import stat

        try:
            fd = self.stdout.fileno()
            return (stat.S_ISREG(os.fstat(fd).st_mode) and os.lseek(fd, 0, os.SEEK_CUR) == 0
                    and self.stdout.tell() == 0)
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

    def write(self, text: str) -> None:
        """Raw data to stdout."""
        self.stdout.write(text)

    def flush(self) -> None:
        """What was written to stdout, out now (a streamed list's each page: the reader need not wait)."""
        self.stdout.flush()

    #: Text to stderr as the caller wrote it (a question, a run's outcome, a line a command words itself;
    #: the caller escapes what it quotes). Needs no instance: a helper with no IO at hand calls
    #: `IO.write_err(...)`, which writes to the process's stderr.
    write_err = _ProcessOrOwn()

    def note(self, text: str) -> None:
        """A hint for a person: shown on a terminal only, never in a pipeline's stderr.
        Control characters in `text` (it may quote the service or a file) are shown escaped."""
        if self.stderr_is_tty:
            self.stderr.write(plain(text, keep_newlines=True) + "\n")

    def warn(self, text: str) -> None:
        """Always shown, on stderr (control characters escaped, as for `note`)."""
        self.stderr.write(f"warning: {plain(text, keep_newlines=True)}\n")

    @cached_property
    def console(self) -> Any:
        """A rich Console on stdout (imports rich on first use)."""
        from rich.console import Console

        width = (self.width or None) if self.stdout_is_tty else 10_000
        return Console(file=self.stdout, force_terminal=self.stdout_is_tty, no_color=not self.color,
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

    def write(self, text: str) -> None:
        self._out.write(text)

    def flush(self) -> None:
        self._out.flush()


class TestIO(IO):
    """Recorded streams for a test of a command's run half (gh's `iostreams.Test()`): stdin, stdout and
    stderr are text buffers; `tty` says whether they stand for a terminal, `width` its columns, `color`
    whether colour is on. `out` and `err` are what was written."""

    __test__ = False  # not a pytest test class

    def __init__(self, stdin: str = "", *, tty: bool = False, width: int = 80, color: bool = False) -> None:
        import io

        super().__init__(stdin=io.StringIO(stdin), stdout=io.StringIO(), stderr=io.StringIO())
        self.stdout_is_tty = self.stderr_is_tty = self.stdin_is_tty = self.can_prompt = tty
        self.color = color and tty
        self.width = width

    @property
    def out(self) -> str:
        return str(self.stdout.getvalue())

    @property
    def err(self) -> str:
        return str(self.stderr.getvalue())
