"""wfctl api: any endpoint of the service, authenticated."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any

import typer

from wfctl.commands.options import app_context, read_json_input
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output

if TYPE_CHECKING:
    from wfctl.api.client import Page
    from wfctl.render.output import Output

REQUEST_PANEL = "Request"
_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")
_CONTROL = re.compile("[\x00-\x1f\x7f]")
_ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://|//")  # a URL with a scheme, or scheme-relative
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # a header name (RFC 9110 token)
_HEADER_VALUE = re.compile(r"[\t\x20-\x7e]*")  # visible ASCII, spaces and tabs


@takes_output()
def api(
    ctx: typer.Context,
    method: Annotated[str, typer.Argument(help="HTTP method: GET, POST, PUT or DELETE.", metavar="<method>",
                                          show_default=False)],
    path: Annotated[str, typer.Argument(help="Path under the service URL, e.g. /api/branches.",
                                        metavar="<path>", show_default=False)],
    field: Annotated[list[str] | None, typer.Option(
        "--field", "-f", help="A key=value pair: a query parameter for GET and DELETE, a body field otherwise. "
        "true, false, null and plain numbers (no leading zero or +) are sent as JSON values. Repeatable.", metavar="<key=value>",
        rich_help_panel=REQUEST_PANEL)] = None,
    header: Annotated[list[str] | None, typer.Option(
        "--header", "-H", help="An extra request header, 'Name: value'. Repeatable.", metavar="<header>",
        rich_help_panel=REQUEST_PANEL)] = None,
    input_file: Annotated[str | None, typer.Option(
        "--input", help="The JSON request body from a file (- for stdin).", metavar="<file>",
        rich_help_panel=REQUEST_PANEL)] = None,
    paginate: Annotated[bool, typer.Option(
        "--paginate", help="Follow nextPage and print the records of every page.",
        rich_help_panel=REQUEST_PANEL)] = False,
    output: OutputOptions = AS_CONFIGURED,
) -> None:
    """Call any endpoint of the service with your login.

    The token is added and refreshed as for every command and sent only to the service's origin.
    The answer is printed as JSON (pretty on a terminal, compact in a pipe) whatever the configured
    output; with --paginate the records of every page are printed as one JSON list (one per line with
    -o jsonl, a table or csv with -o table or -o csv). Errors are reported and exit as for every command.

    Examples:
      $ wfctl api GET /api/agency/
      $ wfctl api GET /api/clients -f branchId=<branch-id> -f pageSize=50
      $ wfctl api GET /api/branches --paginate -o jsonl
      $ wfctl api POST /api/branches -f name="North Leeds" -f phone="+44 113 496 0000"
      $ wfctl api PUT /api/sites/<site-id> --input site.json
      $ wfctl api DELETE /api/sites/<site-id>
    """
    from wfctl.errors import CliError

    app_ctx = app_context(ctx)
    verb = method.upper()
    if verb not in ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"):
        raise CliError(f"unknown HTTP method {method!r}")
    if _CONTROL.search(path):
        raise CliError(f"path {path!r}: a path cannot hold control characters (a line break, a tab, ...)")
    pairs = [_pair(item) for item in field or []]
    headers = dict(_header(item) for item in header or [])
    query: dict[str, Any] | None = None
    body: Any = None
    if input_file is not None:
        body = read_json_input(input_file, "--input")
    if pairs:
        if verb in ("GET", "DELETE", "HEAD", "OPTIONS"):
            query = {k: (v if isinstance(v, str) else json.dumps(v)) for k, v in pairs}
        else:
            if body is None:
                body = {}
            if not isinstance(body, dict):
                raise CliError("--field needs the --input body to be a JSON object")
            body.update(dict(pairs))
    # JSON unless -o (before or after `api`) asks otherwise, as gh api: a configured default output
    # (WFCTL_OUTPUT, the profile's) is for the record commands, not for a raw answer
    asked = output.format or _output_flag(ctx)
    if output.shape:  # --jq, --sort-by ...: rendered as -o asks, json when it does not
        from wfctl.render.shaped import ShapedOutput

        out: Output = ShapedOutput(app_ctx.io, app_ctx.output(asked).format if asked else "json", output.shape)
    elif asked:
        out = app_ctx.output(asked)
    else:  # JSON on stdout; errors stay as the context decides (one human line on a terminal)
        from wfctl.render.output import Output as Writer

        out = Writer(app_ctx.io, "json")
    client = app_ctx.client
    url = _url(client.base_url, path)
    if paginate:
        if verb != "GET":
            raise CliError("--paginate works with GET only")
        out.records(_paginated_rows(client.pages(url, query), path))
        return
    response = client.send(verb, url, params=query, json=body, headers=headers)
    if not response.content.strip():
        return
    from wfctl.api.errors import ServerError
    from wfctl.api.net.responses import parse_json

    try:
        document = parse_json(response.content, status=response.status_code)
    except ServerError:  # not JSON (NaN included, which -o json would pass on): the service's text as it is
        text = response.text
        if app_ctx.io.stdout_is_tty:  # a person reads it: nothing in it may drive the terminal
            from wfctl.text.safetext import plain

            text = plain(text, keep_newlines=True)
        app_ctx.io.write(text if text.endswith("\n") else text + "\n")
        return
    out.value(document)


def _output_flag(ctx: typer.Context) -> str | None:
    """The global -o when it was given on the command line (not taken from WFCTL_OUTPUT)."""
    from wfctl.context import option_source

    root = ctx.find_root()
    if option_source("output", root) != "flag":
        return None
    value = root.params.get("output")
    return getattr(value, "value", value)


def _pair(item: str) -> tuple[str, Any]:
    from wfctl.errors import CliError

    key, sep, raw = item.partition("=")
    if not sep or not key:
        raise CliError(f"--field {item!r}: expected key=value")
    if raw in ("true", "false", "null") or _NUMBER.fullmatch(raw):
        return key, json.loads(raw)
    return key, raw  # "0161 496 0000", "+44 ...", "007" stay strings


def _header(item: str) -> tuple[str, str]:
    from wfctl.errors import CliError

    name, sep, value = item.partition(":")
    name, value = name.strip(), value.strip()
    if not sep or not name:
        raise CliError(f"--header {item!r}: expected 'Name: value'")
    if not _TOKEN.fullmatch(name):
        raise CliError(f"--header {item!r}: a header name is ASCII letters, digits and !#$%&'*+-.^_`|~ only")
    if not _HEADER_VALUE.fullmatch(value):
        raise CliError(f"--header {item!r}: a header value is printable ASCII only (no line breaks)")
    return name, value


def _url(base_url: str, path: str) -> str:
    """The absolute URL of `path`: under the service URL, or a URL of the service's own origin.

    Built here so that a path holding `://` further on (`/api/x?next=https://...`) stays a path."""
    from wfctl.api.net.origin import origin_of, same_origin
    from wfctl.errors import CliError

    if not _ABSOLUTE.match(path):
        return base_url + "/" + path.lstrip("/")
    if not same_origin(path, base_url):
        raise CliError(f"{path}: not on the service's origin {origin_of(base_url)}; "
                       "wfctl api sends your login there only")
    return path


def _paginated_rows(pages: Iterator[Page], path: str) -> Iterator[dict[str, Any]]:
    """The rows of every page; an answer that is not a page at all is a usage error (exit 2)."""
    from wfctl.api.errors import PaginationError
    from wfctl.errors import CliError

    try:
        first = next(pages, None)
    except PaginationError as exc:
        raise CliError(f"--paginate: cannot page through GET {path}: {exc.title}; run it without --paginate") from None
    if first is None:
        return
    yield from first.data
    for page in pages:
        yield from page.data

