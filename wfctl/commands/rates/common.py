"""What `rates list`, `summary` and `set` share: the scope, read with progress on a terminal."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from wfctl.errors import CliError
from wfctl.output import is_machine
from wfctl.safetext import one_line
from wfctl.streams import IO

if TYPE_CHECKING:
    from wfctl.context import AppContext

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
    from wfctl.api import rates
    from wfctl.progress import Progress

    api = app.client
    clients = rates.clients_in_scope(api, clients=client or [], branches=branch or [], all_clients=all_clients)
    if output_to_terminal is None:
        output_to_terminal = app.io.stdout_is_tty
    shown = app.io.stderr_is_tty and not output_to_terminal
    progress = Progress(label, terminal=True, unit="sites") if shown else None
    if progress is not None:
        progress.start(None)

    def gone(summary: dict[str, Any]) -> None:
        IO.write_err(f"site {one_line(str(summary.get('name')))} ({one_line(str(summary['id']))}) was deleted "
                     "while it was read: skipped\n")

    try:
        yield from rates.read_sites(api, clients, site_ids=site or [], concurrency=concurrency,
                                    on_site=progress.advance if progress is not None else None, on_gone=gone)
    finally:
        if progress is not None:
            progress.stop()


def rate_error(exc: Exception) -> CliError:
    """A RateError as the CLI's one line, exit 2."""
    return CliError(str(exc))


def shown_amounts(rows: list[dict[str, Any]], fmt: str, names: tuple[str, ...], signed: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Rows for `fmt`: JSON keeps the numbers; a table and CSV show money with two decimals (13.50),
    a change with its sign (+0.36)."""
    if is_machine(fmt) or fmt == "yaml":  # the document's numbers
        return rows
    out = []
    for row in rows:
        row = dict(row)
        for name in names:
            value = row.get(name)
            if isinstance(value, int | float):
                row[name] = f"{value:+.2f}" if name in signed else f"{value:.2f}"
        out.append(row)
    return out
