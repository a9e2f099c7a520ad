"""Profiles and settings: where the config file lives, how a setting is resolved, how the file is written.

Precedence for every setting: flag > environment > profile > default. The file is TOML, read with
tomllib and written with tomli_w, atomically (temp file, fsync, rename) with mode 0600 (directories
wfctl creates are 0700, whatever the umask: see wfctl.fsutil). A file that cannot be parsed is
reported with its path and line and is never overwritten.

    [profiles.default]
    base_url = "https://wams.example.com"
    credential_store = "file"

Light module: no httpx, keyring, pydantic, typer or rich imports.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wfctl.clierror import CliError
from wfctl.exit_codes import ExitCode
from wfctl.render.output import FORMATS

DEFAULT_PROFILE = "default"
CREDENTIAL_STORES = ("keyring", "file")


@dataclass(frozen=True)
class Key:
    """A profile setting: its type, default, environment variable and help line."""

    name: str
    kind: str  # "str", "bool", "float" or "path" (a file; `~` expanded, made absolute)
    default: Any
    env: str | None
    help: str
    choices: tuple[str, ...] = ()


KEYS: dict[str, Key] = {
    k.name: k
    for k in (
        Key("base_url", "str", None, "WFCTL_BASE_URL", "Service URL, e.g. https://wams.example.com"),
        Key("output", "str", None, "WFCTL_OUTPUT", "Default output format", tuple(FORMATS)),
        Key("credential_store", "str", "keyring", "WFCTL_CREDENTIAL_STORE",
            "Where the token pair is kept: keyring or file", CREDENTIAL_STORES),
        Key("login_username_field", "str", "username", None,
            "Name of the username field in the login request body (G1), e.g. email"),
        Key("allow_insecure_http", "bool", False, None,
            "Allow sending tokens over plain http:// to a non-loopback host"),
        Key("put_clears", "bool", False, None,
            "The service clears what a PUT leaves out (G13): updates send the whole record (found out anyway)"),
        Key("username", "str", None, None, "Username offered by `wfctl login`"),
        Key("timeout", "float", 30.0, "WFCTL_TIMEOUT", "Seconds to wait for one HTTP answer"),
        Key("ca_bundle", "path", None, "WFCTL_CA_BUNDLE",
            "PEM file of the CAs to trust for https (a private CA), instead of the OS store and certifi"),
        Key("credential_process", "command", None, None,
            "A command that prints the access token as JSON, run when a token is needed (docs/auth.md)"),
    )
}


@dataclass
class GlobalOptions:
    """The root command's options (`wfctl -p staging -o json ...`): the flags of flag > environment >
    profile > default, and how to talk (verbose, colour). Built by the root callback (wfctl.cmdline.app)."""

    profile: str | None = None
    base_url: str | None = None
    output: str | None = None
    verbose: bool = False
    no_color: bool = False
    ca_bundle: str | None = None
    from_env: frozenset[str] = frozenset()  # options whose value came from their WFCTL_* variable, not a flag


class ConfigError(CliError):
    """The config file or a setting is unusable (exit 2)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.USAGE, title="config error")


@dataclass
class Settings:
    """Every setting of the active profile, resolved, with where each value came from."""

    profile: str
    config_path: Path
    base_url: str | None = None
    output: str | None = None
    credential_store: str = "keyring"
    login_username_field: str = "username"
    allow_insecure_http: bool = False
    put_clears: bool = False
    username: str | None = None
    timeout: float = 30.0
    ca_bundle: str | None = None
    credential_process: list[str] | None = None
    sources: dict[str, str] = field(default_factory=dict)  # key -> "flag" | "env" | "profile" | "default"

    @property
    def config_dir(self) -> Path:
        return self.config_path.parent

    def source(self, key: str) -> str:
        return self.sources.get(key, "default")


# -- paths ---------------------------------------------------------------------


def config_path() -> Path:
    """`WFCTL_CONFIG`, else `config.toml` in the config directory (wfctl.dirs: `$XDG_CONFIG_HOME/wfctl`, else
    the platform's)."""
    from wfctl.dirs import config_file

    return config_file()


# -- reading -------------------------------------------------------------------


def read_document(path: Path | None = None) -> dict[str, Any]:
    """The whole config file as a dict ({} when it does not exist). A broken file raises ConfigError
    naming the file and the line."""
    path = path or config_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    import tomllib  # here, not at the top: without a config file (WFCTL_BASE_URL, CI) it is not needed

    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"config file {path} is not UTF-8 text; fix or remove it") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}; fix or remove it") from None
    profiles = doc.get("profiles", {})
    if not isinstance(profiles, dict) or not all(isinstance(v, dict) for v in profiles.values()):
        raise ConfigError(f"config file {path}: [profiles] must hold tables like [profiles.default]")
    return doc


def profile_names(doc: dict[str, Any]) -> list[str]:
    return sorted(doc.get("profiles", {}))


def missing_profile_message(name: str, path: Path | None = None) -> str | None:
    """"no profile 'nosuch' (profiles: default, mgr, staff); ..." when the config file has profiles but
    not `name`; None otherwise (no file yet, or the profile exists)."""
    import shlex

    names = profile_names(read_document(path))
    if not names or name in names:
        return None
    return (f"no profile {name!r} (profiles: {', '.join(names)}); "
            f"to create it, run `wfctl -p {shlex.quote(name)} login --base-url <url>`")


def load_settings(options: GlobalOptions | None = None, *, profile: str | None = None) -> Settings:
    """Resolve the active profile's settings: flag > environment > profile > default."""
    path = config_path()
    doc = read_document(path)
    flags: dict[str, Any] = {}
    if options is not None:
        profile = profile or options.profile
        # a value from WFCTL_BASE_URL/WFCTL_OUTPUT is read below as the environment's (and named so)
        if options.base_url and "base_url" not in options.from_env:
            flags["base_url"] = options.base_url
        if options.output and "output" not in options.from_env:
            flags["output"] = options.output
        if options.ca_bundle:
            flags["ca_bundle"] = _coerce(KEYS["ca_bundle"], options.ca_bundle, "--ca-bundle")
    name = profile or os.environ.get("WFCTL_PROFILE") or str(doc.get("default_profile") or DEFAULT_PROFILE)
    stored = doc.get("profiles", {}).get(name, {})
    settings = Settings(profile=name, config_path=path)
    for key in KEYS.values():
        value, source = key.default, "default"
        if key.name in stored:
            value, source = _coerce(key, stored[key.name], f"config file {path}, profile {name!r}"), "profile"
        if key.env and os.environ.get(key.env):
            value, source = _coerce(key, os.environ[key.env], f"environment variable {key.env}"), "env"
        if key.name in flags:
            value, source = flags[key.name], "flag"
        setattr(settings, key.name, value)
        settings.sources[key.name] = source
    if settings.base_url:
        settings.base_url = normalize_base_url(settings.base_url)
    return settings


def normalize_base_url(url: str) -> str:
    url = url.strip()
    if "://" not in url:
        host = url.split("/", 1)[0].rsplit("@", 1)[-1]
        host = host[1:].split("]", 1)[0] if host.startswith("[") else host.split(":", 1)[0]
        loopback = host.lower() in ("localhost", "::1") or host.startswith("127.")
        scheme = "http" if loopback else "https"  # a local service (a sandbox) serves plain http
        raise ConfigError(f"base URL {url!r} needs a scheme, e.g. {scheme}://{url}")
    scheme = url.split("://", 1)[0].lower()
    if scheme not in ("http", "https"):
        raise ConfigError(f"base URL {url!r} must start with https:// (or http:// for a local sandbox)")
    return url.rstrip("/")


def parse_value(key: str, text: str) -> Any:
    """A `config set` value, checked against the key's type; a file must be there and readable."""
    if key not in KEYS:
        raise ConfigError(f"unknown setting {key!r}; known: {', '.join(KEYS)}")
    value = _coerce(KEYS[key], text, f"setting {key}")
    if KEYS[key].kind == "path" and not os.access(value, os.R_OK):
        problem = "no such file" if not os.path.exists(value) else "not readable"
        raise ConfigError(f"setting {key}: {value}: {problem}")
    return value


def _coerce(key: Key, value: Any, where: str) -> Any:
    if key.kind == "bool":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"{where}: {key.name} must be true or false, not {value!r}")
    if key.kind == "float":
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: {key.name} must be a number, not {value!r}") from None
        if number <= 0:
            raise ConfigError(f"{where}: {key.name} must be above 0")
        return number
    if key.kind == "command":  # a TOML list of words, or (config set) a command line split as a shell does
        import shlex

        try:
            words = shlex.split(value) if isinstance(value, str) else value
        except ValueError as exc:
            raise ConfigError(f"{where}: {key.name}: {exc}") from None
        if not isinstance(words, list) or not words or not all(isinstance(w, str) and w for w in words):
            raise ConfigError(f'{where}: {key.name} must be a command: a list of words, e.g. ["vault", "read", '
                              '"secret/wams"]')
        return words
    if not isinstance(value, str):
        raise ConfigError(f"{where}: {key.name} must be a string")
    if key.kind == "path":
        if not value.strip():
            raise ConfigError(f"{where}: {key.name} must name a file")
        return os.path.abspath(os.path.expanduser(value.strip()))
    if key.choices and value not in key.choices:
        raise ConfigError(f"{where}: {key.name} must be one of {', '.join(key.choices)}, not {value!r}")
    if key.name == "base_url":
        return normalize_base_url(value)
    return value


# -- writing -------------------------------------------------------------------


def update_profile(profile: str, values: dict[str, Any], *, unset: tuple[str, ...] = (),
                   path: Path | None = None) -> Path:
    """Set `values` and remove `unset` keys in one profile, under a lock, atomically.

    Re-reads the file first: a broken file raises ConfigError and is left exactly as it is."""
    path = path or config_path()
    with _config_lock(path):
        doc = read_document(path)
        profiles = doc.setdefault("profiles", {})
        section = profiles.setdefault(profile, {})
        for key, value in values.items():
            if value is not None:
                section[key] = value
        for key in unset:
            section.pop(key, None)
        save_document(doc, path)
    return path


def save_document(doc: dict[str, Any], path: Path | None = None) -> None:
    """Write the config atomically with mode 0600."""
    import tomli_w

    from wfctl.fsutil import write_private_file

    path = path or config_path()
    write_private_file(path, tomli_w.dumps(doc).encode("utf-8"))


@contextlib.contextmanager
def _config_lock(path: Path) -> Iterator[None]:
    from filelock import Timeout

    from wfctl.fsutil import private_file_lock

    lock = private_file_lock(str(path) + ".lock", timeout=10)
    try:
        with lock:
            yield
    except Timeout:
        raise ConfigError(f"config file {path} is locked by another wfctl process") from None
