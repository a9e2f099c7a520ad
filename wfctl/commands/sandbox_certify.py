"""wfctl sandbox certify: grade an integrator's program from its own traffic (wfctl/sandbox/certify/)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Annotated

import typer

from wfctl.commands.sandbox_accounts import INSTALL_HINT
from wfctl.commands.sandbox_control import TokenFile, control_failures, read_token
from wfctl.errors import CliError
from wfctl.exit_codes import ExitCode
from wfctl.render.streams import IO


def certify(
    command: Annotated[list[str], typer.Argument(metavar="-- <command> [<args>]",
                                                 help="The program to certify, after --.")],
    scenarios: Annotated[str, typer.Option("--scenarios", metavar="standard|<file>",
                                           help="The scenarios to play: the standard set, or a scenario file "
                                                "(JSON; docs/sandbox.md).")] = "standard",
    seed: Annotated[int, typer.Option("--seed", min=0, metavar="<n>",
                                      help="What is chosen at random (the same seed asks the same).")] = 0,
    report_json: Annotated[Path | None, typer.Option("--report-json", metavar="<file>",
                                                     help="Write the report as JSON.")] = None,
    junit: Annotated[Path | None, typer.Option("--junit", metavar="<file>",
                                               help="Write the report as JUnit XML (one test a check and "
                                                    "scenario).")] = None,
    markdown: Annotated[Path | None, typer.Option("--markdown", metavar="<file>",
                                                  help="Write the report as Markdown.")] = None,
    url: Annotated[str | None, typer.Option("--url", metavar="<url>",
                                            help="Play on this running sandbox (serve --control), each scenario "
                                                 "a tenant of its own; default: a sandbox of this run's.")] = None,
    control_token_file: TokenFile = None,
) -> None:
    """Certify a client of the service: run it once per scenario and grade its traffic.

    Each scenario is a fresh tenant of one sandbox, with its logins, sample records, a quirk set and a
    fault profile; several certifications can share a running sandbox (--url). The program gets CERTIFY_BASE_URL, CERTIFY_USERNAME, CERTIFY_PASSWORD and its task
    (CERTIFY_CLIENT_ID, CERTIFY_NEW_SITE, CERTIFY_SITE_ID, CERTIFY_SITE_PHONE) in its environment; each check
    names the contract's gap decision it holds the program to. Exit 0 when every check holds, 1 otherwise.

    Examples:
        $ wfctl sandbox certify -- python3 my_client.py
        $ wfctl sandbox certify --seed 7 --report-json report.json --junit junit.xml -- ./client.sh
        $ wfctl sandbox certify --url http://127.0.0.1:8765 --control-token-file .sandbox-token -- ./client.sh
    """
    if importlib.util.find_spec("fastapi") is None or importlib.util.find_spec("uvicorn") is None:
        raise CliError(INSTALL_HINT)
    from wfctl.sandbox.certify.runner import certify as run
    from wfctl.sandbox.certify.scenarios import ScenarioError, load_scenarios

    try:
        played = load_scenarios(scenarios)
    except ScenarioError as exc:
        raise CliError(f"--scenarios: {exc}") from None
    if not command:
        raise CliError("name the program to certify after --: wfctl sandbox certify -- <command> [<args>...]")
    from wfctl.sandbox.certify.target import Sandbox

    with control_failures():
        shared = Sandbox(url, read_token(control_token_file)) if url else None
        try:
            if shared is not None:
                shared.check()  # before the first scenario: a wrong --url or token is one line, nothing played
            report = run(command, played, seed=seed, sandbox=shared,
                         progress=lambda name: IO.write_err(f"playing {name} ...\n"))
        finally:
            if shared is not None:
                shared.close()
    for path, text in ((report_json, report.json()), (junit, report.junit()), (markdown, report.markdown())):
        if path is not None:
            try:
                path.write_text(text, encoding="utf-8")
            except OSError as exc:
                raise CliError(f"{path}: {(exc.strerror or str(exc)).lower()}", ExitCode.LOCAL_FAULT) from None
    IO().write(report.summary())
    if not report.holds:
        raise typer.Exit(1)
