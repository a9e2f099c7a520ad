"""wfctl doctor: check the set-up, one pass/warn/fail line per check with what to do."""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Annotated, Any

import typer

from wfctl.commands.options import app_context
from wfctl.commands.output_options import AS_CONFIGURED, OutputOptions, takes_output
from wfctl.errors import keep_profile

if TYPE_CHECKING:
    from wfctl.config import Settings

PASS, WARN, FAIL = "pass", "warn", "fail"
SKEW_WARN_SECONDS = 60.0  # tokens are refreshed at most 60 s ahead of expiry
SKEW_FAIL_SECONDS = 300.0  # a third of a 15-minute token's life
PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY")
PROBE_PATH = "/api/agency/"
REFRESH_TOKEN_DAYS = 30  # G4


@dataclass
class Check:
    check: str
    status: str
    detail: str
    fix: str = ""


@takes_output()
def doctor(
    ctx: typer.Context,
    output: OutputOptions = AS_CONFIGURED,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds to wait for the service.",
                                           metavar="<seconds>")] = 5.0,
) -> None:
    """Check the config, the login, the keyring and the connection to the service.

    Runs every check even when one fails, and prints one line per check: pass, warn or fail,
    with what to do about it. Checks: the config file, the profile, the base URL, proxy and CA
    settings, the keyring backend (a real write, read and delete), the stored token, whether the
    service answers, and the clock skew against the service's Date header (15-minute tokens go
    wrong on a skewed clock). Exits 0 when nothing failed, 1 otherwise.

    Examples:
      $ wfctl doctor
      $ wfctl --profile staging doctor
      $ wfctl doctor -o json
      $ WFCTL_BASE_URL=http://127.0.0.1:8080 wfctl doctor --timeout 2
    """
    app = app_context(ctx)
    # A fix that says `wfctl login` names the profile this run checked (-p or WFCTL_PROFILE).
    checks = [replace(c, fix=keep_profile(c.fix)) for c in run_checks(app.options, timeout=timeout)]
    out = output.writer(app)
    if out.structured:
        # a passing check has nothing to fix: no "fix" key; indented on a terminal, compact in a pipe, as
        # every command's JSON (it was indented in a pipe too)
        out.records([{k: v for k, v in asdict(c).items() if k != "fix" or c.status != PASS} for c in checks])
    else:
        app.io.write(render(checks))
    if any(c.status == FAIL for c in checks):
        raise typer.Exit(1)


def run_checks(options: Any, *, timeout: float = 5.0) -> list[Check]:
    """Every check, in order; a check that cannot run because an earlier one failed says so."""
    from wfctl import config

    checks: list[Check] = []
    settings: Settings | None = None
    path = config.config_path()
    try:
        doc = config.read_document(path)
        if path.exists():
            mode = _mode(path)
            checks.append(Check("config file", WARN if "others" in mode else PASS, f"{path} ({mode})",
                                f"chmod 600 {path}"))
        else:
            checks.append(Check("config file", WARN, f"{path} does not exist yet",
                                "run `wfctl login --base-url <url>` (it writes the file), or set WFCTL_CONFIG"))
        settings = config.load_settings(options)
    except Exception as exc:
        checks.append(Check("config file", FAIL, _reason(exc), f"fix or remove {path}"))
        doc = {}
    if settings is None:
        return [*checks, Check("profile", FAIL, "not checked: the config file is unusable")]

    checks.append(_check_profile(settings, doc))
    checks.append(_check_base_url(settings))
    checks.extend(_check_tls_and_proxy(settings))
    keyring = _check_keyring(settings)
    checks.append(keyring)
    if keyring.status == FAIL and settings.credential_store == "keyring" and not os.environ.get("WFCTL_ACCESS_TOKEN"):
        checks.append(Check("token", FAIL, "not checked: the keyring does not work", keyring.fix))
    else:
        checks.append(_check_token(settings))
    checks.extend(_check_service(settings, timeout))
    return _without_proxy_secrets(checks)


def render(checks: list[Check]) -> str:
    """Plain lines: `[pass] name: detail`, and an indented `-> fix` where there is one. Details hold
    text from outside (the service's answers, file names, settings): control characters are shown
    escaped, so nothing there can drive the terminal."""
    from wfctl.text.safetext import one_line

    width = max(len(c.check) for c in checks)
    lines = []
    for c in checks:
        lines.append(f"[{c.status}] {c.check.ljust(width)}  {one_line(c.detail)}")
        if c.fix and c.status != PASS:
            lines.append(f"       {' ' * width}  -> {one_line(c.fix)}")
    failed = sum(c.status == FAIL for c in checks)
    warned = sum(c.status == WARN for c in checks)
    lines.append("")
    lines.append(f"{len(checks)} checks: {failed} failed, {warned} warnings" if failed or warned
                 else f"{len(checks)} checks: all passed")
    return "\n".join(lines) + "\n"


# -- the checks ------------------------------------------------------------------------------


def _check_profile(settings: Settings, doc: dict[str, Any]) -> Check:
    profiles = doc.get("profiles", {})
    where = repr(settings.profile)
    if settings.profile in profiles:
        return Check("profile", PASS, f"{where}, in the config file")
    if profiles:
        return Check("profile", WARN, f"{where} is not in the config file (it has: {', '.join(sorted(profiles))})",
                     "pick one with --profile/WFCTL_PROFILE, or run `wfctl login` to create this one")
    return Check("profile", WARN, f"{where}; the config file has no profiles yet",
                 "run `wfctl login --base-url <url>`")


def _check_base_url(settings: Settings) -> Check:
    url = settings.base_url
    if not url:
        return Check("base URL", FAIL, "not set",
                     "run `wfctl login --base-url <url>`, or pass --base-url / set WFCTL_BASE_URL")
    from wfctl.api.net.origin import origin

    source = settings.source("base_url")
    try:
        scheme, host, _ = origin(url)  # parsed exactly as the HTTP layer parses it
    except Exception:
        scheme, host = "", ""
    if scheme not in ("http", "https") or not host:
        return Check("base URL", FAIL, f"{url} (from {source}) is not an http(s) URL",
                     "use a URL like https://wams.example.com")
    from wfctl.api.net.origin import is_loopback

    if scheme == "http" and not is_loopback(host):  # the G19 guard's own test
        if settings.allow_insecure_http:
            return Check("base URL", WARN, f"{url} (from {source}): plain http, allowed by allow_insecure_http",
                         "use https:// so tokens are not sent in clear text")
        return Check("base URL", FAIL, f"{url} (from {source}): wfctl will not send a token over plain http "
                     "to a non-loopback host", "use https://, or `wfctl config set allow_insecure_http true`")
    return Check("base URL", PASS, f"{url} (from {source})")


def _check_tls_and_proxy(settings: Settings) -> list[Check]:
    proxies, bad = [], []
    for name in PROXY_VARIABLES:
        value = os.environ.get(name) or os.environ.get(name.lower())
        if not value:
            continue
        proxies.append(f"{name}={_strip_credentials(value)}")
        if name != "NO_PROXY" and not _valid_proxy_url(value):
            bad.append(name)
    if bad:
        proxy = Check("proxy", FAIL, f"{', '.join(bad)} is not a valid URL: {', '.join(proxies)}",
                      "write it as http://host:port; in a user name or password write `/` as %2F, "
                      "`@` as %40 and `:` as %3A")
    else:
        proxy = Check("proxy", PASS, ", ".join(proxies) if proxies else "none (direct connection)")
    return [proxy, _check_tls(settings)]


def _check_tls(settings: Settings) -> Check:
    """Which CAs https connections trust (wfctl.api.net.tls decides; this says which and checks it)."""
    bundle = settings.ca_bundle
    if bundle:
        from wfctl.api.errors import CaBundleError
        from wfctl.api.net.tls import ssl_context

        source = settings.source("ca_bundle")
        try:
            count = ssl_context(bundle).cert_store_stats().get("x509_ca", 0)
        except CaBundleError as exc:
            return Check("TLS", FAIL, f"{exc.title} (ca_bundle from {source})",
                         "point ca_bundle at a PEM file of your CA's certificates: --ca-bundle <file>, "
                         "WFCTL_CA_BUNDLE, or `wfctl config set ca_bundle <file>`")
        return Check("TLS", PASS, f"trusting only the CAs in ca_bundle {bundle} (from {source}): "
                     f"{count} CA certificate{'s' if count != 1 else ''}")
    ca_file, ca_dir, requests_bundle = (os.environ.get(n) for n in
                                        ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE"))
    if ca_file and not os.path.isfile(ca_file):
        return Check("TLS", FAIL, f"SSL_CERT_FILE={ca_file} does not exist", "point SSL_CERT_FILE at a PEM file")
    if ca_dir and not os.path.isdir(ca_dir):
        return Check("TLS", FAIL, f"SSL_CERT_DIR={ca_dir} is not a directory", "point SSL_CERT_DIR at a directory")
    if ca_file or ca_dir:
        return Check("TLS", PASS, f"trusting {'SSL_CERT_FILE=' + ca_file if ca_file else 'SSL_CERT_DIR=' + str(ca_dir)}")
    if requests_bundle:
        return Check("TLS", WARN, f"REQUESTS_CA_BUNDLE={requests_bundle} is set, but wfctl ignores it",
                     f"pass --ca-bundle {requests_bundle}, or set WFCTL_CA_BUNDLE or the profile's ca_bundle")
    from wfctl.api.net.tls import os_store_available

    if not os_store_available():
        return Check("TLS", WARN, "trusting the certifi CA bundle only: the truststore package is missing, "
                     "so the operating system's certificate store is not used",
                     "pip install truststore, or set ca_bundle for a private CA")
    return Check("TLS", PASS, "trusting the operating system's certificate store and the certifi bundle "
                 "(set ca_bundle for a private CA)")


def _check_keyring(settings: Settings) -> Check:
    note = " (not needed now: WFCTL_ACCESS_TOKEN is set)" if os.environ.get("WFCTL_ACCESS_TOKEN") else ""
    if settings.credential_store == "file":
        return Check("keyring", PASS, f"not used: profile keeps its tokens in a file (credential_store = file){note}")
    from wfctl.api.session.keyringstore import KeyringStore
    from wfctl.api.session.store import TokenPair

    probe = KeyringStore("__wfctl_doctor__", settings.config_dir / "doctor.lock")
    try:
        backend = probe.check()
        probe.save(TokenPair("wfctl-doctor-probe", None, time.time() + 60, time.time()))
        probe.delete()
    except Exception as exc:
        return Check("keyring", FAIL, _reason(exc) + note,
                     "start and unlock a keyring (gnome-keyring with D-Bus), or run "
                     "`wfctl login --credential-store file`, or set WFCTL_ACCESS_TOKEN")
    return Check("keyring", PASS, f"{backend}: write, read and delete work{note}")


def _check_token(settings: Settings) -> Check:
    if os.environ.get("WFCTL_ACCESS_TOKEN"):
        return Check("token", PASS, "WFCTL_ACCESS_TOKEN is set: used as is, nothing stored, no refresh")
    try:
        store = _store_for(settings)
        pair = store.load()
        if pair is not None and pair.refresh_in_doubt:
            with store.lock(timeout=10):  # a refresh under way in another process marks the pair too
                pair = store.load()
    except Exception as exc:
        return Check("token", FAIL, _reason(exc), "run `wfctl login`")
    problem = store.mode_problem() if store.kind == "file" else None
    if problem:
        return Check("token", FAIL, f"token file {store.path}: {problem}",
                     f"chmod 600 {store.path}; others may have read the tokens, so also "
                     "`wfctl logout` and `wfctl login`")
    if pair is None:
        return Check("token", FAIL, f"not logged in (profile {settings.profile!r})",
                     "run `wfctl login`" + (" --base-url <url>" if not settings.base_url else ""))
    who = f"{pair.username or 'unknown user'} at {pair.base_url or 'unknown URL'}"
    if pair.refresh_in_doubt:
        from wfctl.api.session.auth import in_doubt_message

        return Check("token", FAIL, f"{who}: {in_doubt_message(settings.profile, pair)}", "run `wfctl login`")
    if pair.base_url and settings.base_url and pair.base_url.rstrip("/") != settings.base_url.rstrip("/"):
        return Check("token", WARN, f"stored login is for {pair.base_url}, but the base URL is {settings.base_url}",
                     "run `wfctl login` for this URL")
    left = pair.seconds_left()
    if pair.refresh_token and pair.obtained_at and time.time() - pair.obtained_at > REFRESH_TOKEN_DAYS * 86400:
        return Check("token", WARN, f"{who}: last refreshed over {REFRESH_TOKEN_DAYS} days ago; "
                     "the refresh token has probably expired", "run `wfctl login`")
    if left > 0:
        return Check("token", PASS, f"{who}: access token valid for {_duration(left)}"
                     + (", refresh token kept" if pair.refresh_token else ""))
    if pair.refresh_token:
        return Check("token", PASS, f"{who}: access token expired {_duration(-left)} ago; "
                     "it is refreshed on the next command")
    return Check("token", FAIL, f"{who}: access token expired and there is no refresh token", "run `wfctl login`")


def _check_service(settings: Settings, timeout: float) -> list[Check]:
    if not settings.base_url:
        return [Check("service", WARN, "not checked: no base URL"),
                Check("clock", WARN, "not checked: no base URL")]
    import httpx

    url = settings.base_url.rstrip("/") + PROBE_PATH
    options: dict[str, Any] = {}
    if url.lower().startswith("https://"):  # the CAs every other command trusts
        from wfctl.api.errors import CaBundleError
        from wfctl.api.net.tls import ssl_context

        try:
            options["verify"] = ssl_context(settings.ca_bundle)
        except CaBundleError:
            return [Check("service", FAIL, "not checked: the CA bundle cannot be used (see the TLS check)",
                          "fix ca_bundle (see the TLS check)"),
                    Check("clock", WARN, "not checked: the service was not asked")]
    started = time.monotonic()
    try:
        client = httpx.Client(timeout=timeout, trust_env=True, follow_redirects=False, **options)
    except Exception as exc:  # a proxy setting httpx cannot use; its text may hold a piece of a password
        fix = ("a socks proxy needs the socksio package: `pip install 'httpx[socks]'`"
               if isinstance(exc, ImportError) else "fix the proxy settings (see the proxy check)")
        return [Check("service", FAIL, f"not checked: the proxy settings cannot be used ({type(exc).__name__})",
                      fix),
                Check("clock", WARN, "not checked: the service was not asked")]
    try:
        with client:
            response = client.get(url, headers={"Accept": "application/json"})
    except httpx.ConnectError as exc:
        fix = ("a private CA? pass --ca-bundle <file> with its certificate (or set ca_bundle in the profile, "
               "or WFCTL_CA_BUNDLE); also check the proxy settings" if "CERTIFICATE" in str(exc).upper()
               else "check the URL, your network, and HTTPS_PROXY/NO_PROXY")
        return [Check("service", FAIL, f"cannot connect to {url}: {_reason(exc)}", fix),
                Check("clock", WARN, "not checked: the service did not answer")]
    except httpx.HTTPError as exc:
        return [Check("service", FAIL, f"{url}: {_reason(exc)}",
                      "check the URL, your network, and HTTPS_PROXY/NO_PROXY; try --timeout 15"),
                Check("clock", WARN, "not checked: the service did not answer")]
    elapsed = time.monotonic() - started
    received = time.time()
    status = response.status_code
    if status in (200, 401, 403):
        why = {401: " without a token, as expected", 403: " without a token"}.get(status, "")
        service = Check("service", PASS, f"{url} reachable (answered {status}{why}) in {elapsed * 1000:.0f} ms")
    elif status == 404:
        service = Check("service", FAIL, f"{url} answered 404: this does not look like the service's API",
                        "check the base URL (the service root, without /api)")
    else:
        service = Check("service", WARN if status < 500 else FAIL, f"{url} answered {status}",
                        "check the base URL; the service may be having trouble")
    return [service, _check_clock(response.headers.get("Date"), received, elapsed)]


def _check_clock(date_header: str | None, received: float, elapsed: float) -> Check:
    if not date_header:
        return Check("clock", WARN, "the service sent no Date header; skew unknown")
    from email.utils import parsedate_to_datetime

    try:
        server = parsedate_to_datetime(date_header).timestamp()
    except (TypeError, ValueError):
        return Check("clock", WARN, f"unreadable Date header {date_header!r}; skew unknown")
    skew = received - elapsed / 2 - server  # positive: the local clock is ahead
    direction = "ahead of" if skew > 0 else "behind"
    text = f"local clock is {abs(skew):.0f} s {direction} the service"
    fix = "sync the clock (e.g. `timedatectl set-ntp true`); tokens last 15 minutes"
    if abs(skew) > SKEW_FAIL_SECONDS:
        return Check("clock", FAIL, text, fix)
    if abs(skew) > SKEW_WARN_SECONDS:
        return Check("clock", WARN, text, fix)
    return Check("clock", PASS, text if abs(skew) >= 2 else "in step with the service (within 2 s)")


# -- helpers ---------------------------------------------------------------------------------


def _store_for(settings: Settings) -> Any:
    """The profile's token store, exactly as the HTTP layer builds it."""
    from wfctl.factory import store_for_settings

    return store_for_settings(settings)


def _split_userinfo(value: str) -> tuple[str, str, str]:
    """(scheme part, userinfo, the rest) of a proxy setting, with or without a scheme. The userinfo
    is everything before the last `@`: a password may hold `:`, `/` or `@` unencoded."""
    scheme = ""
    head, sep, rest = value.partition("://")
    if sep and head and all(c.isalnum() or c in "+-." for c in head):
        scheme, value = head + sep, rest
    if "@" not in value:
        return scheme, "", value
    userinfo, _, host = value.rpartition("@")
    return scheme, userinfo, host


def _valid_proxy_url(value: str) -> bool:
    """Whether httpx can use `value` as a proxy (it reads one without a scheme as http://)."""
    import httpx

    try:
        url = httpx.URL(value if "://" in value else "http://" + value)
    except Exception:
        return False
    return bool(url.host)


def _strip_credentials(value: str) -> str:
    """`http://user:secret@proxy:3128`, `user:secret@proxy:3128` -> `http://***@proxy:3128`,
    `***@proxy:3128`: doctor output gets pasted into tickets."""
    scheme, userinfo, rest = _split_userinfo(value)
    return f"{scheme}***@{rest}" if userinfo else value


def _without_proxy_secrets(checks: list[Check]) -> list[Check]:
    """Mask proxy credentials wherever a check quotes them (an error message naming the proxy URL)."""
    secrets = []
    for name in PROXY_VARIABLES:
        for value in (os.environ.get(name), os.environ.get(name.lower())):
            userinfo = _split_userinfo(value)[1] if value else ""
            if userinfo:
                secrets.append(userinfo)
    if not secrets:
        return checks
    secrets.sort(key=len, reverse=True)

    def scrub(text: str) -> str:
        for secret in secrets:
            text = text.replace(secret + "@", "***@").replace(secret, "***")
        return text

    return [Check(c.check, c.status, scrub(c.detail), scrub(c.fix)) for c in checks]


def _mode(path: Any) -> str:
    try:
        mode = path.stat().st_mode & 0o777
    except OSError:
        return "unreadable"
    return f"mode {mode:04o}" + ("" if mode & 0o077 == 0 else ", readable by others")


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    if seconds < 172800:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} days"


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:300]
