"""wfctl exec: run a program with the profile's service URL and a token renewed as long as it runs."""

from __future__ import annotations

from typing import Annotated

import typer

from wfctl.commands.options import app_context


def exec_command(
    ctx: typer.Context,
    command: Annotated[list[str], typer.Argument(metavar="-- <command> [<arg>...]", show_default=False,
                                                 help="The program to run and its arguments, after --.")],
    no_masking: Annotated[bool, typer.Option("--no-masking", help="Let the program write to the terminal "
                                             "itself, its tokens shown as they are (default: each token wfctl "
                                             "gave it is replaced by <concealed by wfctl> in its stdout and "
                                             "stderr).")] = False,
) -> None:
    """Run a program with the profile's service URL and an access token in its environment.

    The program gets WFCTL_BASE_URL and WFCTL_ACCESS_TOKEN, which lasts until WFCTL_ACCESS_TOKEN_EXPIRES_AT
    (the token's own expiry; 15 minutes on the service's default). A wfctl or an SDK script
    (Client.from_environment()) the program starts asks wfctl for a fresh token whenever it needs one
    (WFCTL_TOKEN_HELPER), for as long as the program runs. The token is never on a command line. SIGTERM
    and SIGHUP are passed on to the program; the exit status is the program's.

    Examples:
      $ wfctl exec -- ./nightly-report.sh
      $ wfctl exec -p staging -- ./sync.py --all
      $ wfctl exec -- sh -c 'curl -H "Authorization: Bearer $WFCTL_ACCESS_TOKEN" "$WFCTL_BASE_URL/api/agency/"'
    """
    from wfctl.drivers.execrun import Masker, run
    from wfctl.drivers.execsetup import child_environment

    app_ctx = app_context(ctx)
    masker = None if no_masking else Masker()
    with app_ctx.client as client, child_environment(app_ctx.settings, client, masker) as env:
        code = run(command, env, masker=masker)
    raise typer.Exit(code)
