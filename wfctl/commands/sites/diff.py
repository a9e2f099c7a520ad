"""wfctl sites diff."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.cmdline.completion_cache import complete_branch_ids, complete_client_ids
from wfctl.commands import bulkoptions as bulk
from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.commands.verbs import verb


@verb("diff")
@takes_output()
@bulk.takes_diff_options()
def diff_sites(
    ctx: typer.Context,
    file: bulk.DiffFile = None,
    client: Annotated[list[str] | None, typer.Option(
        "--client", help="Compare the sites of this client: its id, the beginning of the id, or its name "
        "(repeatable).", metavar="<client-id>", rich_help_panel=bulk.INPUT_PANEL,
        autocompletion=complete_client_ids)] = None,
    branch: Annotated[str | None, typer.Option(
        "--branch", help="Compare the sites of every client of this branch.", metavar="<branch-id>",
        rich_help_panel=bulk.INPUT_PANEL, autocompletion=complete_branch_ids)] = None,
    all_clients: Annotated[bool, typer.Option("--all-clients", help="Compare the sites of every client.",
                                              rich_help_panel=bulk.INPUT_PANEL)] = False,
    asked: bulk.DiffAsked = bulk.DIFF_ASKED,
    output: OutputOptions = AS_CONFIGURED,
) -> int:
    """Compare sites with a file or another profile, sending nothing.

    The file is planned as `wfctl sites import FILE --on-existing update --dry-run` plans it, so the two
    never disagree: sites only in the file, sites only in the service (within the scope: --client,
    --branch or --all-clients), and sites that differ, field by field (service -> file). Exit 0 when
    nothing differs, 1 when something does, 2 (or another error's code) when it cannot tell.

    With --from-profile, the same client in another profile's deployment is compared (looked up by the
    same reference in each; sites matched by name, as ids differ).

    Examples:
      $ wfctl sites diff sites.xlsx --client "Pennine Foods Ltd"
      $ wfctl sites diff sites.csv --all-clients --ignore-fields phone -o jsonl
      $ wfctl sites diff sites.csv --all-clients --markdown > drift.md
      $ wfctl sites diff --from-profile staging --client "Pennine Foods Ltd"
    """
    from wfctl.drivers.driftrun import ScopeArgs, diff_file

    return diff_file(app_context(ctx), "site", file, ScopeArgs(tuple(client or ()), branch, all_clients), asked,
                     output)
