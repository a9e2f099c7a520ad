"""The root Typer app: global options, the context, one add_typer per group, its click command.

A run registers only the group (or command) its arguments name, so `wfctl sites list` imports the sites
commands and not the other 70 modules of the tree (memory and start-up: README, Performance); anything else (`wfctl
--help` on the slow path, an unknown or missing command, the help index, `wfctl.cmdline.app.app`) has them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
import typer.main

from wfctl.cmdline.completion_cache import complete_profiles
from wfctl.cmdline.help_format import WfctlGroup
from wfctl.commands.output_options import OutputFormat, global_output_option
from wfctl.context import AppContext, GlobalOptions, option_source

if TYPE_CHECKING:
    from wfctl.cmdline.argv import CommandLine
    from wfctl.cmdline.typercompat import Command

GLOBAL_PANEL = "Global options"

_app = typer.Typer(
    name="wfctl",
    cls=WfctlGroup,  # plain-text help with option panels and Examples, for every command (no rich)
    help="""Administer the Workforce Agency Management Service: branches, clients and sites.

    Log in once per profile; wfctl keeps the tokens (keyring, or a 0600 file) and refreshes them.
    Output is a table on a terminal, or json, jsonl or csv for scripts (--output).

    Examples:
      $ wfctl login --base-url https://wams.example.com
      $ wfctl sites list --client <client-id>
      $ wfctl -o json branches get <branch-id>
      $ wfctl doctor
    """,
    epilog="Run `wfctl help environment` for environment variables, config keys and exit codes.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _base_url(ctx: typer.Context, value: str | None) -> str | None:
    """--base-url (or WFCTL_BASE_URL) that cannot be parsed as a URL is bad usage, found before anything runs."""
    if value is None or ctx.resilient_parsing:
        return value
    problem = _url_problem(value.strip())
    if problem:
        raise typer.BadParameter(f"{value!r}: {problem}")
    return value


def _url_problem(url: str) -> str | None:
    """Why `url` is not a URL a request can go to, or None (a missing scheme is left to the config's
    own check, which suggests one)."""
    from urllib.parse import urlsplit

    if any(ch.isspace() or not ch.isprintable() for ch in url):
        return "a URL cannot hold spaces or control characters"
    if "://" not in url:
        return None
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parsing the port is the check
    except ValueError as exc:
        return f"not a valid URL ({exc})"
    if not parts.hostname:
        return "not a valid URL (no host)"
    if "@" in parts.netloc:
        return "a service URL cannot carry a user name or password"
    return None


def _version(ctx: typer.Context, value: bool) -> None:
    if value and not ctx.resilient_parsing:  # not while the shell asks for completions
        from wfctl import __version__

        typer.echo(f"wfctl {__version__}")
        raise typer.Exit()


@_app.callback()
def root(
    ctx: typer.Context,
    profile: Annotated[str | None, typer.Option("--profile", "-p", envvar="WFCTL_PROFILE",
                       help="Profile in the config file.", rich_help_panel=GLOBAL_PANEL,
                       metavar="<name>", autocompletion=complete_profiles)] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", envvar="WFCTL_BASE_URL",
                        help="Service URL, e.g. https://wams.example.com.", rich_help_panel=GLOBAL_PANEL,
                        metavar="<url>", callback=_base_url)] = None,
    ca_bundle: Annotated[str | None, typer.Option("--ca-bundle", envvar="WFCTL_CA_BUNDLE",
                         help="PEM file of the CAs to trust for https (a private CA), instead of the "
                         "operating system's store and certifi.", rich_help_panel=GLOBAL_PANEL,
                         metavar="<file>")] = None,
    output: Annotated[OutputFormat | None, global_output_option(GLOBAL_PANEL)] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show requests and responses on stderr "
                       "(tokens and passwords redacted).", rich_help_panel=GLOBAL_PANEL)] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colour (also NO_COLOR).",
                        rich_help_panel=GLOBAL_PANEL)] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                       help="Print the version and exit.", rich_help_panel=GLOBAL_PANEL)] = False,
) -> None:
    if ca_bundle and option_source("ca_bundle", ctx) == "env":
        ca_bundle = None  # the config layer reads WFCTL_CA_BUNDLE itself, and says it came from there
    ctx.obj = AppContext(GlobalOptions(profile=profile, base_url=base_url,
                                       output=output.value if output else None,
                                       verbose=verbose, no_color=no_color, ca_bundle=ca_bundle,
                                       from_env=frozenset(name for name in ("base_url", "output")
                                                          if option_source(name, ctx) == "env")))


#: Every group and top-level command, in the order `wfctl --help` lists them: name -> (module, attribute);
#: a group's attribute is its Typer app, a command's its function.
ENTRIES: dict[str, tuple[str, str]] = {
    "login": ("wfctl.commands.auth.login", "login"),
    "logout": ("wfctl.commands.auth.logout", "logout"),
    "auth": ("wfctl.commands.auth", "app"),
    "config": ("wfctl.commands.config", "app"),
    "agency": ("wfctl.commands.agency", "app"),
    "branches": ("wfctl.commands.branches", "app"),
    "clients": ("wfctl.commands.clients", "app"),
    "sites": ("wfctl.commands.sites", "app"),
    "rates": ("wfctl.commands.rates", "app"),
    "bans": ("wfctl.commands.bans", "app"),
    "calendar": ("wfctl.commands.calendar", "app"),
    "imports": ("wfctl.commands.imports", "app"),
    "audit": ("wfctl.commands.audit", "audit"),
    "api": ("wfctl.commands.api", "api"),
    "exec": ("wfctl.commands.exec", "exec_command"),
    "jq": ("wfctl.commands.jq", "jq"),
    "doctor": ("wfctl.commands.doctor", "doctor"),
    "completion": ("wfctl.commands.completion", "completion"),
    "help": ("wfctl.commands.help", "app"),
    "sandbox": ("wfctl.commands.sandbox", "app"),
}
#: The entries that need the others: `wfctl help sites` says that sites is a command, not a topic.
NEEDS_ALL = frozenset({"help", "completion"})
_registered: list[str] = []


def register(names: Any = None) -> None:
    """Add the groups and commands `names` (None: all of them) to the app, each once, in ENTRIES' order."""
    import importlib

    for name, (module, attribute) in ENTRIES.items():
        if name in _registered or (names is not None and name not in names):
            continue
        entry = getattr(importlib.import_module(module), attribute)
        if isinstance(entry, typer.Typer):
            _app.add_typer(entry, name=name)
        else:
            _app.command(name, cls=getattr(entry, "command_class", None))(entry)  # wfctl jq's own parse
        _registered.append(name)
    order = list(ENTRIES)  # added one run at a time or all at once, listed in the same order

    def place(info: Any) -> int:
        name = info.name or getattr(info.callback, "__name__", "")
        return order.index(name) if name in order else len(order)

    _app.registered_commands.sort(key=place)
    _app.registered_groups.sort(key=place)


def __getattr__(name: str) -> Any:
    """`wfctl.cmdline.app.app`: the Typer app with every command (a run's own has only the one asked for:
    root_command)."""
    if name == "app":
        register()
        return _app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_root_commands: dict[str | None, Command] = {}


def root_command(line: CommandLine | None = None) -> Command:
    """The click command of the app. With a command `line`, one that has only the group or command it
    names (wfctl.cmdline.main runs it); without, or when it names none that wfctl has, one with every command
    (wfctl.cmdline.indexbuilder builds the help index from it). Each is built once per process: typer builds the
    command anew on every call of the app, which a process running wfctl many times (the tests) would pay
    each time."""
    if line is None:
        return _built(None)
    guess = _chosen(next((word for word in line.words if word in ENTRIES), None))  # the root's options: next
    command = _built(guess)
    word = _chosen(line.walk(command).command_word)  # the root's options are the same in every build
    return command if word == guess else _built(word)


def _chosen(word: str | None) -> str | None:
    """The entry to build a run's command with: None (all of them) for no word, an unknown one (click
    suggests the nearest), and the entries that need the others."""
    return word if word in ENTRIES and word not in NEEDS_ALL else None


def _built(chosen: str | None) -> Command:
    if chosen not in _root_commands:
        from wfctl.commands.output_options import pair_options

        register(None if chosen is None else {chosen})
        command = typer.main.get_command(_app)
        pair_options(command)
        _root_commands[chosen] = command
    return _root_commands[chosen]
