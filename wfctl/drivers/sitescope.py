"""The sites a command works over (`rates`, `bans`): the scope options checked, the sites read with
progress on a terminal, and the scope as a run names it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wfctl.errors import CliError
from wfctl.text.safetext import one_line

if TYPE_CHECKING:
    from wfctl.context import AppContext


@dataclass
class Scope:
    client: list[str] = field(default_factory=list)
    branch: list[str] = field(default_factory=list)
    all_clients: bool = False
    site: list[str] = field(default_factory=list)

    def describe(self) -> str:
        import shlex

        if self.all_clients:
            return "--all-clients"
        return " ".join([*(f"--client {shlex.quote(c)}" for c in self.client),
                         *(f"--branch {shlex.quote(b)}" for b in self.branch),
                         *(f"--site {shlex.quote(s)}" for s in self.site)])


SCOPE_HINT = "give the sites: --client <client>, --branch <branch>, --all-clients or --site <site>"


def check_scope(client: list[str] | None, branch: list[str] | None, all_clients: bool,
                site: list[str] | None) -> None:
    if not (client or branch or all_clients or site):
        raise CliError(SCOPE_HINT)
    if all_clients and (client or branch or site):
        raise CliError("--all-clients already takes every site; leave out --client, --branch and --site")


def read_scope(app: AppContext, client: list[str] | None, branch: list[str] | None, all_clients: bool,
               site: list[str] | None, concurrency: int, label: str = "reading sites", *,
               output_to_terminal: bool | None = None) -> Iterator[tuple[dict[str, Any], str]]:
    """(full site record, client name) of every site in scope, in order; the count so far on a
    terminal's stderr (never in a pipe, where stderr may be a log, nor while the result is going to
    the same terminal: `output_to_terminal`, default whether stdout is one)."""
    from wfctl.api.domain import rates
    from wfctl.render.progress import Progress

    api = app.client
    clients = rates.clients_in_scope(api, clients=client or [], branches=branch or [], all_clients=all_clients)
    if output_to_terminal is None:
        output_to_terminal = app.io.stdout_is_tty
    shown = app.io.stderr_is_tty and not output_to_terminal
    progress = Progress(label, terminal=True, unit="sites") if shown else None
    if progress is not None:
        progress.start(None)

    def gone(summary: dict[str, Any]) -> None:
        app.io.write_err(f"site {one_line(str(summary.get('name')))} ({one_line(str(summary['id']))}) was deleted "
                     "while it was read: skipped\n")

    finished = False
    try:
        yield from rates.read_sites(api, clients, site_ids=site or [], concurrency=concurrency,
                                    on_site=progress.advance if progress is not None else None, on_gone=gone)
        finished = True
    finally:  # kept when every site is read; a read stopped (Ctrl-C) leaves no stale count behind
        if progress is not None:
            progress.stop(clear=not finished)
