"""wfctl help <topic>: environment variables, the config file and its keys, exit codes, the CSV format.

The tables are built from wfctl.config.KEYS and wfctl.exit_codes.ExitCode, so they cannot drift
from the code (gh's `help_topic.go` is the model)."""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from wfctl.commands.options import app_context


class TopicsGroup(TyperGroup):
    """`wfctl help`: a word that is no topic is answered with the topics there are (exit 2)."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        from wfctl.cmdline.typercompat import UsageError

        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            near = difflib.get_close_matches(name, self.list_commands(ctx), n=1)
            topics = ", ".join(self.list_commands(ctx))
            root = ctx.find_root().command
            if getattr(root, "get_command", None) and root.get_command(ctx, name) is not None:
                raise UsageError(f"{name} is a command, not a help topic: run `wfctl {name} --help`; "
                                 f"the topics are {topics}", ctx)
            hint = f"did you mean {near[0]}? " if near else ""
            raise UsageError(f"no help topic {name!r}; {hint}the topics are {topics}", ctx)
        return super().resolve_command(ctx, args)


app = typer.Typer(
    cls=TopicsGroup,
    help="""Read about environment variables, the config file, exit codes, the CSV format, payroll and rates.

    Each topic prints plain text, fit for a pager or grep. Without a topic, lists the topics.

    Examples:
      $ wfctl help
      $ wfctl help environment
      $ wfctl help exit-codes
      $ wfctl help csv | less
      $ wfctl help rates
    """,
    invoke_without_command=True,
    no_args_is_help=False,
    rich_markup_mode=None,
)


@app.callback()
def topics(ctx: typer.Context) -> None:
    """Read about environment variables, the config file, exit codes, the CSV format, payroll and rates."""
    if ctx.invoked_subcommand is None:
        app_context(ctx).io.write(topics_text(ctx))


def topics_text(ctx: Any) -> str:
    """The topics of `wfctl help`, one a line with its summary (on stdout: `wfctl help` asked for them)."""
    from wfctl.cmdline.help_format import summary

    group = ctx.command
    names = group.list_commands(ctx)
    width = max(len(name) for name in names) + 2
    lines = [f"  {name.ljust(width)}{summary(group.get_command(ctx, name).help)}" for name in names]
    return ("Help topics: run `wfctl help <topic>`\n\n" + "\n".join(lines) + "\n\n"
            "Help on a command: `wfctl <command> --help`, e.g. `wfctl sites list --help`.\n")

# name, meaning. Variables that also set a profile key are added from wfctl.config.KEYS.
ENVIRONMENT: tuple[tuple[str, str], ...] = (
    ("WFCTL_PROFILE", "Profile to use (like --profile/-p). Default: default."),
    ("WFCTL_BASE_URL", "Service URL (like --base-url), e.g. https://wams.example.com."),
    ("WFCTL_OUTPUT", "Output format (like --output/-o): table, wide, json, jsonl, csv or yaml."),
    ("WFCTL_CONFIG", "Path of the config file, instead of $XDG_CONFIG_HOME/wfctl/config.toml."),
    ("WFCTL_ACCESS_TOKEN", "An access token used as is for this run: nothing is stored and nothing is "
                           "refreshed (CI jobs, hosts without a keyring)."),
    ("WFCTL_TOKEN_HELPER", "Set by `wfctl exec` for the program it runs: where that program's wfctl and SDK "
                           "ask for a fresh access token (a socket only the user can open)."),
    ("WFCTL_ACCESS_TOKEN_EXPIRES_AT", "Set by `wfctl exec`: when the WFCTL_ACCESS_TOKEN it gave expires (UTC)."),
    ("WFCTL_CREDENTIAL_STORE", "Where login keeps the tokens: keyring or file (like --credential-store)."),
    ("WFCTL_TIMEOUT", "Seconds to wait for one HTTP answer. Default: 30."),
    ("WFCTL_KEYRING_TIMEOUT", "Seconds to wait for the keyring before giving up (a locked keyring). "
                              "Default: 5."),
    ("WFCTL_BULK_HTTPX", "Set to 1 to send the rows of a bulk import through httpx instead of wfctl's "
                         "leaner http.client path (to rule that path out when troubleshooting)."),
    ("WFCTL_OUTAGE_SECONDS", "How long wfctl waits out an outage of the service (no answer, or HTTP "
                             "502/503/504) before it gives up: a command with its error, a bulk run "
                             "resumable (exit 7). Default: 60."),
    ("WFCTL_UNREACHABLE_SECONDS", "The older name of WFCTL_OUTAGE_SECONDS (read when that one is not set)."),
    ("WFCTL_CSV", "plain: CSV written to a file (`> FILE`, `export --file`) is byte for byte what a pipe gets "
                  "(no BOM; `-o csv` values without the ' before formula-like cells), for scripts; spreadsheet: "
                  "a pipe gets what a file gets. Default: by where it goes (docs/csv.md)."),
    ("WFCTL_FORCE_TTY", "Set to 1 to behave as on a terminal even through a pipe (tables, notes)."),
    ("WFCTL_SANDBOX_URL", "The running sandbox `wfctl sandbox reset|seed|tenant|faults|clock|journal` drive "
                          "(like their --url). Default: http://127.0.0.1:8765."),
    ("WFCTL_SANDBOX_CONTROL_TOKEN", "The token of a sandbox's control plane (`serve --control`), when no "
                                    "--control-token-file is given; never taken from the command line."),
    ("NO_COLOR", "Set to anything to turn colour off (like --no-color)."),
    ("XDG_CONFIG_HOME", "Base of the config directory (absolute paths only). Default: ~/.config on Linux; "
                        "the platform's folder on macOS and Windows."),
    ("XDG_CACHE_HOME", "Base of the cache directory (ids for shell completion). Default: ~/.cache on Linux; "
                       "~/Library/Caches on macOS, %LOCALAPPDATA% on Windows."),
    ("XDG_STATE_HOME", "Base of the state directory (the journals of bulk runs, for resume and `wfctl imports`). "
                       "Default: ~/.local/state on Linux; ~/Library/Application Support on macOS, "
                       "%LOCALAPPDATA% on Windows."),
    ("HTTPS_PROXY, HTTP_PROXY, ALL_PROXY", "Proxy to send requests through, e.g. http://proxy:3128."),
    ("NO_PROXY", "Hosts to reach directly, e.g. localhost,127.0.0.1,.internal.example.com."),
    ("SSL_CERT_FILE", "PEM file of the CAs to trust, instead of the operating system's store and certifi "
                      "(WFCTL_CA_BUNDLE wins over it). REQUESTS_CA_BUNDLE is not read."),
    ("SSL_CERT_DIR", "Directory of CA certificates to trust, instead of the operating system's store and "
                     "certifi."),
    ("PYTHON_KEYRING_BACKEND", "Keyring backend to use, e.g. keyring.backends.SecretService.Keyring."),
)


@app.command("environment")
def environment(ctx: typer.Context) -> None:
    """List environment variables, config file keys and exit codes.

    Everything wfctl reads besides its arguments, on one page. Flags win over environment
    variables, which win over the profile in the config file, which wins over the defaults.

    Examples:
      $ wfctl help environment
      $ WFCTL_PROFILE=staging wfctl branches list
      $ WFCTL_ACCESS_TOKEN="$(wfctl auth token)" ./nightly-report.sh
      $ HTTPS_PROXY=http://proxy.internal:3128 SSL_CERT_FILE=/etc/ssl/corp-ca.pem wfctl doctor
    """
    app_context(ctx).io.write(environment_text() + "\n" + config_text() + "\n" + exit_codes_text())


@app.command("config")
def config(ctx: typer.Context) -> None:
    """Describe the config file, its profiles and their keys.

    The file is TOML, written with mode 0600; each profile is a table under [profiles.NAME].
    Read and change it with `wfctl config list|get|set|unset`.

    Examples:
      $ wfctl help config
      $ wfctl config set base_url https://wams.example.com
      $ wfctl --profile staging config set credential_store file
    """
    app_context(ctx).io.write(config_text())


@app.command("exit-codes")
def exit_codes(ctx: typer.Context) -> None:
    """List wfctl's exit codes and what each one means.

    Scripts can rely on them: they change only with a CHANGELOG entry.

    Examples:
      $ wfctl help exit-codes
      $ wfctl sites get <site-id> || echo "failed with $?"
    """
    app_context(ctx).io.write(exit_codes_text())


@app.command("csv")
def csv(ctx: typer.Context) -> None:
    """Describe the CSV format of import, export and -o csv.

    Columns, cells (rates, departments, banned workers), empty cells, spreadsheet files, encodings,
    and what an import does. The same text as docs/csv.md, shipped with wfctl.

    Examples:
      $ wfctl help csv | less
      $ wfctl help csv | grep -A16 '^Cells'
    """
    io = app_context(ctx).io
    io.write(markdown_text(csv_text(), width=_topic_width(io.stdout_is_tty)))


@app.command("queries")
def queries(ctx: typer.Context) -> None:
    """Describe --jq, --jq-each, --sort-by, --columns, -o yaml and wfctl jq.

    Query options on every command that prints records, with worked examples from agency work (rates
    by skill across clients, sites without a rate, banned workers per client). The same text as
    docs/queries.md, shipped with wfctl.

    Examples:
      $ wfctl help queries | less
      $ wfctl help queries | grep -A12 '^Worked examples'
    """
    io = app_context(ctx).io
    io.write(markdown_text(topic_text("queries.md"), width=_topic_width(io.stdout_is_tty)))


@app.command("payroll")
def payroll(ctx: typer.Context) -> None:
    """Describe the pay calendar and rate changes for payroll and rates people.

    Pay weeks and week-ending dates, bank holidays and timesheet deadlines (`wfctl calendar`), and
    an April uplift that lands in the right week (`rates set --effective --floor nlw`), with worked
    examples. The same text as docs/payroll.md, shipped with wfctl.

    Examples:
      $ wfctl help payroll | less
    """
    io = app_context(ctx).io
    io.write(markdown_text(topic_text("payroll.md"), width=_topic_width(io.stdout_is_tty)))


@app.command("rates")
def rates(ctx: typer.Context) -> None:
    """Show the statutory minimum hourly rates `rates set --floor nlw` uses, with their source and date.

    The UK National Living Wage (21 and over) and National Minimum Wage rates from April 2024,
    shipped with wfctl, as `--floor nlw[:21+|18-20|16-17|apprentice]` reads them.

    Examples:
      $ wfctl help rates
      $ wfctl rates set --all-clients --skill Cleaner --floor nlw:18-20 --effective 2026-04-01 --dry-run
    """
    app_context(ctx).io.write(rates_text())


def rates_text() -> str:
    """The statutory rates table (wfctl.payroll.statutory), its source and the date it was checked."""
    from wfctl.payroll import statutory

    rows = statutory.table_rows()
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    table = "".join("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() + "\n"
                    for row in rows)
    bands = "".join(f"  {band.ljust(12)}{text}\n" for band, text in statutory.BAND_NAMES.items())
    import textwrap

    notes = (f"Source: {statutory.SOURCE}; checked {statutory.CHECKED}. A rate is in force from its date until "
             f"the next; the table answers for dates until {statutory.last_day()} (later ones: give the amount). "
             "A rise is due from the first pay week starting on or after its date (National Minimum Wage "
             "Regulations 2015, reg. 4(2)): `wfctl calendar effective 2026-04-01` names that week.")
    return ("Statutory minimum hourly rates (UK National Living Wage and National Minimum\nWage), in pounds\n\n"
            + table + "\n" + bands + "\n" + textwrap.fill(notes, 80) + "\n\n"
            "  wfctl rates set --all-clients --skill 'Picker Packer' --floor nlw \\\n"
            "      --effective 2026-04-01 --dry-run\n")


def _topic_width(tty: bool) -> int:
    """Columns a topic is wrapped to: the terminal's (60 to 100), or 80 in a pipe (a pager, a file)."""
    if not tty:
        return 80
    import shutil

    return max(60, min(100, shutil.get_terminal_size((80, 24)).columns))


def csv_text() -> str:
    """The CSV reference (wfctl/topics/csv.md, a copy of docs/csv.md kept equal by a test)."""
    return topic_text("csv.md")


def topic_text(name: str) -> str:
    """A page shipped in wfctl/topics (a copy of docs/<name>, kept equal by a test)."""
    from importlib.resources import files

    return files("wfctl").joinpath("topics", name).read_text(encoding="utf-8")


def environment_text() -> str:
    from wfctl.config import KEYS

    rows = list(ENVIRONMENT)
    known = {name for names, _ in rows for name in names.split(", ")}
    rows += [(key.env, f"{key.help} (profile key {key.name}).") for key in KEYS.values()
             if key.env and key.env not in known]
    return ("Environment variables\n\n" + _table(rows)
            + "\nPrecedence: flag > environment variable > profile in the config file > default.\n")


def config_text() -> str:
    from wfctl.config import KEYS, config_path

    rows = []
    for key in KEYS.values():
        detail = key.help.rstrip(".") + "."
        if key.choices:
            detail += f" One of: {', '.join(key.choices)}."
        if key.default not in (None, ""):
            detail += f" Default: {str(key.default).lower() if isinstance(key.default, bool) else key.default}."
        if key.env:
            detail += f" Environment: {key.env}."
        rows.append((key.name, detail))
    return (
        "Config file\n\n"
        f"  Path: {config_path()}\n"
        "  (WFCTL_CONFIG overrides it; otherwise $XDG_CONFIG_HOME/wfctl/config.toml,\n"
        "  where XDG_CONFIG_HOME defaults to ~/.config.) Written atomically with mode 0600.\n\n"
        "  [profiles.default]\n"
        '  base_url = "https://wams.example.com"\n'
        '  credential_store = "keyring"\n\n'
        "  [profiles.staging]\n"
        '  base_url = "https://wams-staging.example.com"\n'
        '  credential_store = "file"\n\n'
        "Profile keys\n\n" + _table(rows)
        + "\nTokens are never written to the config file: they are kept in the keyring, or with\n"
        "credential_store = file in <config dir>/credentials/<profile>.json (mode 0600).\n"
    )


def exit_codes_text() -> str:
    from wfctl.exit_codes import ExitCode

    meaning = {
        ExitCode.OK: "Success.",
        ExitCode.FAILURE: "The service failed (5xx), or an unexpected error.",
        ExitCode.USAGE: "Bad usage, or input rejected before anything was sent; also `n` (or Enter) "
                        "answered to a question such as `Delete site ...? [y/N]`: nothing was done.",
        ExitCode.AUTH: "Not logged in, or the login cannot be refreshed: run `wfctl login`.",
        ExitCode.NOT_FOUND: "Not found (404).",
        ExitCode.CONFLICT: "Conflict (409): a duplicate name, or a record that still has dependents; "
                           "also another run of the same import (or undo) in progress.",
        ExitCode.INVALID: "Rejected by the service's validation (400/422).",
        ExitCode.NETWORK: "Network failure or timeout, after retries.",
        ExitCode.FORBIDDEN: "Forbidden (403): not allowed for your role.",
        ExitCode.PARTIAL: "A bulk run where some rows failed (the others were done).",
        ExitCode.LOCAL_FAULT: "A local fault: a file wfctl keeps could not be written (disk full, a size "
                              "limit). Nothing was lost (a bulk run stops, resumable); free some space and "
                              "run the same command again.",
        ExitCode.INTERRUPTED: "Interrupted (Ctrl-C).",
    }
    rows = [(str(int(code)), meaning.get(code, code.name.replace("_", " ").lower() + "."))
            for code in ExitCode]
    return ("Exit codes\n\n" + _table(rows)
            + "\nWith -o json or -o jsonl, an error is one JSON object on stderr, always with\n"
            "the same keys:\n"
            '  {"error": {"status": 404, "code": null, "title": "Not Found",\n'
            '             "detail": "no site 2f0c...", "errors": {}}}\n'
            "status is the service's HTTP status, or null for an error found by wfctl\n"
            "itself (no answer, bad usage), which has a code instead: the name of its exit\n"
            "code in lower case (usage, auth, not_found, network, local_fault, ...). detail\n"
            "is null when it would repeat title; errors maps a field to its messages.\n"
            "\nA jq filter (--jq, --jq-each, wfctl jq) ends as jq does: 5 when it fails on the\n"
            "data (the JSON error's code is jq), or the status it gives halt_error.\n")


def _table(rows: list[tuple[str, str]]) -> str:
    import textwrap

    width = max(len(name) for name, _ in rows) + 2
    lines = []
    for name, text in rows:
        wrapped = textwrap.wrap(text, width=max(40, 78 - width - 2)) or [""]
        lines.append(f"  {name.ljust(width)}{wrapped[0]}")
        lines.extend(f"  {' ' * width}{more}" for more in wrapped[1:])
    return "\n".join(lines) + "\n"


def markdown_text(markdown: str, width: int = 80) -> str:
    """A Markdown topic as plain text for a terminal or a pager: headings underlined (`###` headings
    as their bare words, so `grep -A8 '^Cells'` finds them), paragraphs and list items wrapped to
    `width`, code blocks indented as they are, tables as one block a row (each cell named by its
    column), and no `**`, backquotes or link syntax."""
    import re
    import textwrap

    def inline(text: str) -> str:
        text = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", lambda m: m.group(1), text)
        text = text.replace("**", "").replace("\\|", "\x00")
        return text.replace("`", "")

    def cells(line: str) -> list[str]:
        line = line.strip().replace("\\|", "\x00").strip("|")
        return [inline(cell.strip()).replace("\x00", "|") for cell in line.split("|")]

    out: list[str] = []
    lines = markdown.splitlines()
    index = 0

    def blank() -> None:
        if out and out[-1] != "":
            out.append("")

    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if stripped.startswith("```"):
            indent = " " * (len(line) - len(line.lstrip()) + 4)
            index += 1
            while index < len(lines) and not lines[index].strip().startswith("```"):
                code = lines[index]
                out.append((indent + code.strip("\n")[len(line) - len(line.lstrip()):]).rstrip())
                index += 1
            index += 1
            continue
        heading = re.match(r"(#{1,6})\s+(.*)", line)
        if heading:
            blank()
            title = inline(heading.group(2)).replace("\x00", "|")
            out.append(title)
            if len(heading.group(1)) <= 2:
                out.append(("=" if len(heading.group(1)) == 1 else "-") * len(title))
            out.append("")
            index += 1
            continue
        if stripped.startswith("|"):
            header = cells(stripped)
            index += 1
            if index < len(lines) and re.fullmatch(r"\|?[\s:|-]+\|?", lines[index].strip()):
                index += 1
            while index < len(lines) and lines[index].strip().startswith("|"):
                row = cells(lines[index])
                out.extend(textwrap.wrap(row[0], width=width, initial_indent="  ", subsequent_indent="  "))
                for name, value in zip(header[1:], row[1:], strict=False):
                    out.extend(textwrap.wrap(f"{name}: {value}", width=width, initial_indent="      ",
                                             subsequent_indent="        "))
                index += 1
            out.append("")
            continue
        if not stripped:
            blank()
            index += 1
            continue
        item = re.match(r"(\s*)([-*]|\d+\.)\s+(.*)", line)
        lead = len(line) - len(line.lstrip())
        first, rest = ("", "")
        if item:
            first = " " * lead + item.group(2) + " "
            rest = " " * len(first)
            words = [item.group(3)]
        else:
            first = rest = " " * lead
            words = [stripped]
        index += 1
        while index < len(lines):
            nxt = lines[index]
            if (not nxt.strip() or nxt.strip().startswith(("```", "|", "#"))
                    or re.match(r"\s*([-*]|\d+\.)\s+", nxt)):
                break
            words.append(nxt.strip())
            index += 1
        text = inline(" ".join(words)).replace("\x00", "|")
        out.extend(textwrap.wrap(text, width=width, initial_indent=first, subsequent_indent=rest,
                                 break_long_words=False, break_on_hyphens=False))
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"
