"""Which certificates an https connection trusts: the one SSL context of the httpx session and of the
bulk writer's `http.client` connections (see wfctl.api.net.lean).

- `ca_bundle` set (profile key, `--ca-bundle`, `WFCTL_CA_BUNDLE`): only the CAs in that PEM file, as
  the aws CLI's `ca_bundle` does (a private CA; nothing else is trusted then);
- else `SSL_CERT_FILE` or `SSL_CERT_DIR` set: only those, as httpx has always done here;
- else the operating system's store and certifi's bundle, so a company CA installed on the machine works
  with no setting, and so does a host whose store is empty.

The OS store: on macOS and Windows through the `truststore` package (as pip does: the platform verifies
the chain). On Linux and the BSDs the OS store is OpenSSL's default locations, which is all truststore
reads there too; they are loaded once, into a plain context, because truststore loads them again for
every connection (a cost on each new connection, growing with each on OpenSSL 3.0-3.3, truststore
issue #212), which the bulk writer's threads would pay one after another under truststore's lock.

Imported only when a Client talks to an https origin: ssl contexts, truststore and certifi cost
start-up time that plain http to the sandbox, `--help` and completion never pay.
"""

from __future__ import annotations

import os
import ssl
import sys

from wfctl.api.errors import CaBundleError

#: Where Linux distributions keep the system bundle, for a Python whose OpenSSL was built to look
#: elsewhere (the same list as truststore's, from certifi-system-store).
SYSTEM_CA_FILES = (
    "/etc/ssl/cert.pem",  # Alpine, Arch, Fedora 34+, RHEL 9+, BSD
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",  # Fedora 44+, RHEL 11+
    "/etc/pki/tls/cert.pem",  # older Fedora, RHEL, CentOS
    "/etc/ssl/certs/ca-certificates.crt",  # Debian, Ubuntu
    "/etc/ssl/ca-bundle.pem",  # SUSE
)


def ssl_context(ca_bundle: str | None = None) -> ssl.SSLContext:
    """A client SSL context (hostname checked, certificate required) trusting what the module says.

    An unusable `ca_bundle` (missing, unreadable, no PEM certificate in it) raises CaBundleError."""
    if ca_bundle:
        return _bundle_context(ca_bundle)
    cafile, capath = os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")
    if cafile:
        return ssl.create_default_context(cafile=cafile)
    if capath:
        return ssl.create_default_context(capath=capath)
    import certifi

    if sys.platform in ("darwin", "win32") and os_store_available():
        import truststore

        context: ssl.SSLContext = truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.load_verify_locations(cafile=certifi.where())
        return context
    context = ssl.create_default_context(cafile=certifi.where())
    if sys.platform not in ("darwin", "win32"):
        _load_openssl_store(context)
    return context


def os_store_available() -> bool:
    """Whether the default trust includes the operating system's store (on macOS and Windows it takes the
    truststore package; elsewhere OpenSSL reads the store itself)."""
    if sys.platform not in ("darwin", "win32"):
        return True
    import importlib.util

    return importlib.util.find_spec("truststore") is not None


def _load_openssl_store(context: ssl.SSLContext) -> None:
    """The system store as OpenSSL finds it (SSL_CERT_FILE/SSL_CERT_DIR are handled before this), else
    the first bundle of SYSTEM_CA_FILES that exists."""
    defaults = ssl.get_default_verify_paths()
    if defaults.cafile or (defaults.capath and _holds_hashed_certs(defaults.capath)):
        context.set_default_verify_paths()
        return
    for candidate in SYSTEM_CA_FILES:
        if os.path.isfile(candidate):
            context.load_verify_locations(cafile=candidate)
            return


def _holds_hashed_certs(capath: str) -> bool:
    import re

    try:
        names = os.listdir(capath)
    except OSError:
        return False
    return any(re.fullmatch(r"[0-9a-fA-F]{8}\.[0-9]", name) for name in names)


def _bundle_context(path: str) -> ssl.SSLContext:
    try:
        return ssl.create_default_context(cafile=path)
    except FileNotFoundError:
        problem = "no such file"
    except IsADirectoryError:
        problem = "a directory, not a PEM file"
    except PermissionError:
        problem = "permission denied"
    except ssl.SSLError:
        problem = "no PEM certificate in it"
    except OSError as exc:
        problem = exc.strerror or type(exc).__name__
    raise CaBundleError(f"cannot use the CA bundle {path}: {problem}")
