"""AppContext: what every command gets, built lazily (nothing here touches the network,
the keyring, httpx or pydantic until a command asks for it)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from wfctl.safetext import plain

if TYPE_CHECKING:
    from wfctl.api.client import Client
    from wfctl.config import Settings
    from wfctl.output import Output

_current: AppContext | None = None


def current() -> AppContext | None:
    """The context of the running command (for the error boundary), or None before it exists."""
    return _current


@dataclass
class GlobalOptions:
    profile: str | None = None
    base_url: str | None = None
    output: str | None = None
    verbose: bool = False
    no_color: bool = False
    ca_bundle: str | None = None


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


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

    def write(self, text: str) -> None:
        """Raw data to stdout."""
        sys.stdout.write(text)

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


def _on_command_line(name: str) -> bool:
    """Whether the running command's option `name` came from the command line (not from its envvar).
    Asked while the root callback runs; outside a click context (a test), whatever is set counts."""
    from wfctl.typercompat import current_click_context

    ctx = current_click_context()
    if ctx is None:
        return True
    source = ctx.get_parameter_source(name)
    return source is None or source.name != "ENVIRONMENT"


class AppContext:
    def __init__(self, options: GlobalOptions) -> None:
        global _current
        self.options = options
        self.io = IO(no_color=options.no_color)
        # the format given with -o/--output on this command line (not through WFCTL_OUTPUT): it alone
        # asks for JSON errors on a terminal
        self.output_flag = options.output if _on_command_line("output") else None
        _current = self

    @cached_property
    def settings(self) -> Settings:
        """Resolved settings: flag > environment > profile > default."""
        from wfctl.config import load_settings

        return load_settings(self.options)

    @cached_property
    def client(self) -> Client:
        """The authenticated API client for the active profile."""
        from wfctl.factory import client_for_settings

        return client_for_settings(self.settings, verbose=self.options.verbose)

    def output_format(self, override: str | None = None) -> str:
        """--output after the subcommand wins over the global one, then WFCTL_OUTPUT/profile, then table."""
        if override:
            self.options.output = self.output_flag = override  # so errors of this command use the same format
            return override
        if self.options.output:
            return self.options.output
        try:
            configured = self.settings.output
        except Exception:  # an unreadable config must not hide the real error behind it
            configured = None
        return configured or "table"

    def json_errors(self) -> bool:
        """Errors as a JSON object (contract, part 2): with -o json/jsonl on the command line, or a
        json/jsonl format from the environment or the config when stderr is not a terminal; otherwise
        one human line (a person at a terminal reads a sentence, whatever the config says)."""
        if self.output_flag:
            return self.output_flag in ("json", "jsonl")
        if self.io.stderr_is_tty:
            return False
        try:
            return self.output_format() in ("json", "jsonl")
        except Exception:
            return False

    def output(self, override: str | None = None, fields: str | None = None) -> Output:
        from wfctl.output import Output

        return Output(self.io, self.output_format(override), fields=fields)
