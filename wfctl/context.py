"""AppContext: what every command gets, built lazily (nothing here touches the network,
the keyring, httpx or pydantic until a command asks for it).

The top of the CLI's own modules: it reads settings (wfctl.config), builds the client (wfctl.factory)
and the output (wfctl.render.output); none of them imports it back. `GlobalOptions` (wfctl.config) and `IO`
(wfctl.render.streams) live below it and are re-exported here.
"""

from __future__ import annotations

import sys
from functools import cached_property
from typing import TYPE_CHECKING, Any

from wfctl.config import GlobalOptions as GlobalOptions
from wfctl.render.output import is_machine
from wfctl.render.streams import IO as IO

if TYPE_CHECKING:
    from wfctl.api.client import Client
    from wfctl.config import Settings
    from wfctl.render.output import Output

_current: AppContext | None = None


def current() -> AppContext | None:
    """The context of the running command (for the error boundary), or None before it exists."""
    return _current


def option_source(name: str, ctx: Any = None) -> str | None:
    """Where the root command's option `name` (`output`, `ca_bundle`, ...) took its value: "flag" (the
    command line), "env" (its environment variable: WFCTL_OUTPUT, ...) or None (its default, or no click
    context: a test building an AppContext). The one answer every caller asks (the JSON-errors rule,
    --ca-bundle left to the config layer when it came from WFCTL_CA_BUNDLE, `wfctl api`'s -o); the same
    words as a setting's source in `wfctl config list` (wfctl.config.Settings.source)."""
    if ctx is None:
        from wfctl.cmdline.typercompat import current_click_context

        ctx = current_click_context()
        if ctx is None:
            return None
    source = ctx.find_root().get_parameter_source(name)
    return _SOURCES.get(getattr(source, "name", ""))


_SOURCES = {"COMMANDLINE": "flag", "ENVIRONMENT": "env"}


class AppContext:
    def __init__(self, options: GlobalOptions) -> None:
        global _current
        self.options = options
        self.io = IO(no_color=options.no_color)
        # the format given with -o/--output on this command line (not through WFCTL_OUTPUT): it alone
        # asks for JSON errors on a terminal
        # (asked only when there is one: a plain `wfctl jq` runs without click, wfctl.cmdline.jqpath)
        self.output_flag = options.output if options.output and option_source("output") != "env" else None
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

        client = client_for_settings(self.settings, verbose=self.options.verbose, warn=self.io.warn)
        from wfctl.render.progress import NOTE

        # An outage ridden out is said on a terminal (a bulk run's progress line, or a line of its own).
        client._runs.watch_outages(NOTE.attach(sys.stderr if self.io.stderr_is_tty else None))
        return client

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
            return is_machine(self.output_flag)
        if self.io.stderr_is_tty:
            return False
        try:
            return is_machine(self.output_format())
        except Exception:
            return False

    #: The command's query options (--jq, --sort-by...: wfctl.render.shaped.Shape), set by its output group
    #: (wfctl.commands.output_options), so that every Output of the command applies them.
    shape: Any = None

    def output(self, override: str | None = None, fields: str | None = None, kind: str | None = None) -> Output:
        """How this command writes records; `fields` (`--fields`) of a `kind` record are checked here;
        the command's query options (`shape`) shape what it writes."""
        if self.shape:
            from wfctl.render.shaped import ShapedOutput

            return ShapedOutput(self.io, self.output_format(override), self.shape, fields=fields, kind=kind)
        from wfctl.render.output import Output

        return Output(self.io, self.output_format(override), fields=fields, kind=kind)
