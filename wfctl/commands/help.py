"""wfctl help <topic>: environment variables, the config file and its keys, exit codes, the CSV format.

The tables are built from wfctl.config.KEYS and wfctl.exit_codes.ExitCode, so they cannot drift
from the code (gh's `help_topic.go` is the model)."""

from __future__ import annotations

import typer

from wfctl.commands.options import app_context

app = typer.Typer(
    help="""Read about environment variables, the config file, exit codes and the CSV format.

    Each topic prints plain text, fit for a pager or grep.

    Examples:
      $ wfctl help environment
      $ wfctl help config
      $ wfctl help exit-codes
      $ wfctl help csv | less
    """,
    no_args_is_help=True,
    rich_markup_mode=None,
)

# name, meaning. Variables that also set a profile key are added from wfctl.config.KEYS.
ENVIRONMENT: tuple[tuple[str, str], ...] = (
    ("WFCTL_PROFILE", "Profile to use (like --profile/-p). Default: default."),
    ("WFCTL_BASE_URL", "Service URL (like --base-url), e.g. https://wams.example.com."),
    ("WFCTL_OUTPUT", "Output format (like --output/-o): table, wide, json, jsonl or csv."),
    ("WFCTL_CONFIG", "Path of the config file, instead of $XDG_CONFIG_HOME/wfctl/config.toml."),
    ("WFCTL_ACCESS_TOKEN", "An access token used as is for this run: nothing is stored and nothing is "
                           "refreshed (CI jobs, hosts without a keyring)."),
    ("WFCTL_CREDENTIAL_STORE", "Where login keeps the tokens: keyring or file (like --credential-store)."),
    ("WFCTL_TIMEOUT", "Seconds to wait for one HTTP answer. Default: 30."),
    ("WFCTL_KEYRING_TIMEOUT", "Seconds to wait for the keyring before giving up (a locked keyring). "
                              "Default: 5."),
    ("WFCTL_BULK_HTTPX", "Set to 1 to send the rows of a bulk import through httpx instead of wfctl's "
                         "leaner http.client path (to rule that path out when troubleshooting)."),
    ("WFCTL_UNREACHABLE_SECONDS", "How long a bulk import keeps retrying while nothing gets through to the "
                                  "service before it stops, resumable (exit 7). Default: 30."),
    ("WFCTL_FORCE_TTY", "Set to 1 to behave as on a terminal even through a pipe (tables, notes)."),
    ("NO_COLOR", "Set to anything to turn colour off (like --no-color)."),
    ("XDG_CONFIG_HOME", "Base of the config directory. Default: ~/.config."),
    ("XDG_CACHE_HOME", "Base of the cache directory (ids for shell completion). Default: ~/.cache."),
    ("XDG_STATE_HOME", "Base of the state directory (the journals of bulk runs, for resume and `wfctl imports`). "
                       "Default: ~/.local/state."),
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
      $ wfctl help csv | grep -A8 '^### Cells'
    """
    app_context(ctx).io.write(csv_text())


def csv_text() -> str:
    """The CSV reference (wfctl/topics/csv.md, a copy of docs/csv.md kept equal by a test)."""
    from importlib.resources import files

    return files("wfctl").joinpath("topics", "csv.md").read_text(encoding="utf-8")


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
        ExitCode.USAGE: "Bad usage, or input rejected before anything was sent.",
        ExitCode.AUTH: "Not logged in, or the login cannot be refreshed: run `wfctl login`.",
        ExitCode.NOT_FOUND: "Not found (404).",
        ExitCode.CONFLICT: "Conflict (409): a duplicate name, or a record that still has dependents.",
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
            + "\nWith -o json or -o jsonl, an error is also one JSON object on stderr:\n"
            '  {"error": {"status": ..., "title": ..., "detail": ..., "errors": ...}}\n')


def _table(rows: list[tuple[str, str]]) -> str:
    import textwrap

    width = max(len(name) for name, _ in rows) + 2
    lines = []
    for name, text in rows:
        wrapped = textwrap.wrap(text, width=max(40, 100 - width - 2)) or [""]
        lines.append(f"  {name.ljust(width)}{wrapped[0]}")
        lines.extend(f"  {' ' * width}{more}" for more in wrapped[1:])
    return "\n".join(lines) + "\n"
