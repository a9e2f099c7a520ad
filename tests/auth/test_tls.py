"""https with a private CA (issue 16 §4), end to end over real sockets: a TLS sandbox whose certificate
comes from a CA made here (trustme), and wfctl trusting that CA through `--ca-bundle`, `WFCTL_CA_BUNDLE`
or the profile's `ca_bundle`; without it, a one-line certificate error that names the way out."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fixtures.cli import REPO_ROOT
from tests.fixtures.sandbox import ADMIN, SandboxServer

trustme = pytest.importorskip("trustme")


@pytest.fixture(autouse=True)
def default_trust(monkeypatch: pytest.MonkeyPatch) -> None:
    """No CA settings from the machine running the tests: SSL_CERT_FILE/SSL_CERT_DIR would replace the
    default trust (the OS store and certifi) that some tests name. Autouse, so `cli` (its subprocesses
    too) starts without them."""
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A private CA and a server certificate for 127.0.0.1, as PEM files."""
    directory = tmp_path_factory.mktemp("pki")
    ca = trustme.CA()
    server = ca.issue_cert("127.0.0.1")
    paths = {"ca": directory / "ca.pem", "cert": directory / "server-chain.pem", "key": directory / "server-key.pem"}
    ca.cert_pem.write_to_path(str(paths["ca"]))
    server.private_key_and_cert_chain_pem.write_to_path(str(paths["cert"]))
    server.private_key_pem.write_to_path(str(paths["key"]))
    return paths


@pytest.fixture
def tls_sandbox(sandbox_factory: Callable[..., SandboxServer], pki: dict[str, Path]) -> SandboxServer:
    return sandbox_factory(tls_cert=str(pki["cert"]), tls_key=str(pki["key"]))


def _login(cli, url: str, *before: str, env: dict[str, str] | None = None):
    return cli(*before, "login", "--base-url", url, "--username", ADMIN[0], "--password-stdin",
               "--credential-store", "file", input=ADMIN[1], env=env)


def _branch_names(result) -> list[str]:
    assert result.exit_code == 0, result
    return [branch["name"] for branch in json.loads(result.stdout)]


def test_login_and_read_with_the_ca_bundle_flag(cli, tls_sandbox, pki):
    assert tls_sandbox.url.startswith("https://127.0.0.1:")
    r = _login(cli, tls_sandbox.url, "--ca-bundle", str(pki["ca"]))
    assert r.exit_code == 0, r
    assert r.stderr == ""
    # the login keeps the bundle in the profile, so the next commands trust the same CA
    assert f'ca_bundle = "{pki["ca"]}"' in cli.config_path.read_text()
    assert _branch_names(cli("branches", "list", "-o", "json"))


def test_login_and_read_with_the_environment_variable(cli, tls_sandbox, pki):
    env = {"WFCTL_CA_BUNDLE": str(pki["ca"])}
    r = _login(cli, tls_sandbox.url, env=env)
    assert r.exit_code == 0, r
    assert "ca_bundle" not in cli.config_path.read_text()  # an environment setting stays in the environment
    assert _branch_names(cli("branches", "list", "-o", "json", env=env))
    r = cli("config", "get", "ca_bundle", env=env)
    assert r.exit_code == 0, r
    assert r.stdout.strip() == str(pki["ca"])


def test_login_and_read_with_the_profile_setting(cli, tls_sandbox, pki):
    r = cli("config", "set", "ca_bundle", str(pki["ca"]))
    assert r.exit_code == 0, r
    r = _login(cli, tls_sandbox.url)
    assert r.exit_code == 0, r
    assert _branch_names(cli("branches", "list", "-o", "json"))


def test_a_relative_ca_bundle_is_kept_as_an_absolute_path(cli, pki, monkeypatch):
    monkeypatch.chdir(pki["ca"].parent)
    r = cli("config", "set", "ca_bundle", "ca.pem")
    assert r.exit_code == 0, r
    assert f'ca_bundle = "{pki["ca"]}"' in cli.config_path.read_text()


def test_an_untrusted_certificate_is_one_line_naming_the_way_out(cli, tls_sandbox):
    r = _login(cli, tls_sandbox.url)
    assert r.exit_code == 7, r
    assert r.stderr.count("\n") == 1
    assert r.stderr.startswith(f"error: the TLS certificate of {tls_sandbox.url} is not trusted: ")
    assert "CERTIFICATE_VERIFY_FAILED" in r.stderr
    assert "--ca-bundle <file>" in r.stderr and "ca_bundle" in r.stderr
    assert not (cli.config_dir / "credentials" / "default.json").exists()


def test_an_untrusted_certificate_in_json_mode(cli, tls_sandbox):
    r = cli("--base-url", tls_sandbox.url, "branches", "list", "-o", "json",
            env={"WFCTL_ACCESS_TOKEN": "x"})
    assert r.exit_code == 7, r
    error = json.loads(r.stderr)["error"]
    assert error["code"] == "network"
    assert error["title"] == f"the TLS certificate of {tls_sandbox.url} is not trusted"
    assert "--ca-bundle <file>" in error["detail"]


def test_the_ca_bundle_replaces_the_default_trust(cli, tls_sandbox, tmp_path):
    other = tmp_path / "other-ca.pem"
    trustme.CA().cert_pem.write_to_path(str(other))
    r = _login(cli, tls_sandbox.url, "--ca-bundle", str(other))
    assert r.exit_code == 7, r
    assert "is not trusted" in r.stderr


@pytest.mark.parametrize(("make", "problem"), [
    (lambda path: None, "no such file"),
    (lambda path: path.write_text("not a certificate\n"), "no PEM certificate in it"),
    (lambda path: path.mkdir(), "a directory, not a PEM file"),
])
def test_an_unusable_ca_bundle_is_a_one_line_usage_error(cli, tls_sandbox, tmp_path, make, problem):
    bundle = tmp_path / "corp-ca.pem"
    make(bundle)
    r = _login(cli, tls_sandbox.url, "--ca-bundle", str(bundle))
    assert r.exit_code == 2, r
    assert r.stderr == f"error: cannot use the CA bundle {bundle}: {problem}\n"


def test_config_set_refuses_a_missing_ca_bundle(cli, tmp_path):
    r = cli("config", "set", "ca_bundle", str(tmp_path / "nosuch.pem"))
    assert r.exit_code == 2, r
    assert r.stderr == f"error: setting ca_bundle: {tmp_path / 'nosuch.pem'}: no such file\n"
    assert not cli.config_path.exists()


def test_a_missing_profile_ca_bundle_does_not_stop_config_unset(cli, pki, tmp_path):
    gone = tmp_path / "gone.pem"
    gone.write_bytes(pki["ca"].read_bytes())
    assert cli("config", "set", "ca_bundle", str(gone)).exit_code == 0
    gone.unlink()
    r = cli("config", "unset", "ca_bundle")
    assert r.exit_code == 0, r
    assert "ca_bundle" not in cli.config_path.read_text()


def test_plain_http_needs_no_ca_bundle_but_a_missing_one_is_said(cli, sandbox, pki, tmp_path):
    """Issue 36: a --ca-bundle naming no file was accepted in silence for an http:// URL (`config set
    ca_bundle` refuses it): a typo is said when it is made, not on the day the URL becomes https."""
    r = _login(cli, sandbox.url, "--ca-bundle", str(tmp_path / "nosuch.pem"))
    assert (r.exit_code, r.stderr) == (2, f"error: cannot use the CA bundle {tmp_path / 'nosuch.pem'}: no such file\n")
    assert _login(cli, sandbox.url, "--ca-bundle", str(pki["ca"])).exit_code == 0  # a usable one: no TLS, no harm


def test_doctor_reports_the_ca_bundle_and_reaches_the_service(cli, tls_sandbox, pki):
    r = cli("--base-url", tls_sandbox.url, "--ca-bundle", str(pki["ca"]), "doctor", "-o", "json",
            env={"WFCTL_ACCESS_TOKEN": "x"})
    checks = {c["check"]: c for c in json.loads(r.stdout)}
    assert checks["TLS"] == {"check": "TLS", "status": "pass",
                             "detail": f"trusting only the CAs in ca_bundle {pki['ca']} (from flag): "
                                       "1 CA certificate"}
    assert checks["service"]["status"] == "pass", checks["service"]


def test_doctor_without_the_ca_bundle_says_what_to_do(cli, tls_sandbox):
    r = cli("--base-url", tls_sandbox.url, "doctor", "-o", "json", env={"WFCTL_ACCESS_TOKEN": "x"})
    assert r.exit_code == 1, r
    checks = {c["check"]: c for c in json.loads(r.stdout)}
    assert checks["TLS"]["detail"] == ("trusting the operating system's certificate store and the certifi "
                                       "bundle (set ca_bundle for a private CA)")
    assert checks["service"]["status"] == "fail"
    assert "--ca-bundle <file>" in checks["service"]["fix"]


def test_doctor_fails_a_missing_ca_bundle(cli, tls_sandbox, tmp_path):
    bundle = tmp_path / "nosuch.pem"
    r = cli("--base-url", tls_sandbox.url, "doctor", "-o", "json",
            env={"WFCTL_ACCESS_TOKEN": "x", "WFCTL_CA_BUNDLE": str(bundle)})
    assert r.exit_code == 1, r
    checks = {c["check"]: c for c in json.loads(r.stdout)}
    assert checks["TLS"]["status"] == "fail"
    assert checks["TLS"]["detail"] == f"cannot use the CA bundle {bundle}: no such file (ca_bundle from env)"
    assert checks["service"]["detail"].startswith("not checked: the CA bundle cannot be used")


def test_bulk_import_writes_over_tls_through_the_lean_path(cli, tls_sandbox, pki, tmp_path, monkeypatch):
    from wfctl.api.net.lean import LeanSender

    sent: list[str] = []
    send = LeanSender.request

    def counting(self: LeanSender, method: str, path: str, *args: object, **kwargs: object) -> object:
        sent.append(method)
        return send(self, method, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(LeanSender, "request", counting)
    assert _login(cli, tls_sandbox.url, "--ca-bundle", str(pki["ca"])).exit_code == 0
    names = [f"tls-branch-{i}" for i in range(5)]
    data = tmp_path / "branches.csv"
    data.write_text("name,address\n" + "".join(f"{name},{i} Cert Street\n" for i, name in enumerate(names)))
    r = cli("branches", "import", str(data))
    assert r.exit_code == 0, r
    assert sent == ["POST"] * len(names)
    assert set(names) <= set(_branch_names(cli("branches", "list", "--all", "-o", "json")))


def test_the_lean_writer_uses_the_clients_ssl_context(tls_sandbox, pki):
    from wfctl.api import Client

    client = Client(tls_sandbox.url, ca_bundle=str(pki["ca"]))
    sender = client._runs.lean_writer()
    assert sender is not None
    assert sender._connection()._context is client._ssl_context()  # type: ignore[attr-defined]
    client.close()


# Counts what loads CA certificates (the slow part: 15-40 ms) and whether truststore was imported.
PROBE = """
import ssl, sys
loads = []
for name in ("load_verify_locations", "load_default_certs", "set_default_verify_paths"):
    def wrapped(self, *args, _name=name, _original=getattr(ssl.SSLContext, name), **kwargs):
        loads.append(_name)
        return _original(self, *args, **kwargs)
    setattr(ssl.SSLContext, name, wrapped)
{run}
print(len(loads), "truststore" in sys.modules)
"""


def _ca_loads_after(cli, code: str) -> tuple[int, bool]:
    """(CA loads, truststore imported) in a fresh interpreter after running `code`."""
    proc = subprocess.run([sys.executable, "-c", PROBE.format(run=code)], capture_output=True, text=True,
                          cwd=str(REPO_ROOT), env=cli.env, timeout=60, check=True)
    count, imported = proc.stdout.splitlines()[-1].split()
    return int(count), imported == "True"


def test_help_and_plain_http_load_no_ca_store(cli, sandbox):
    """A CA store is read (and truststore imported) only where an https origin is used."""
    assert _ca_loads_after(cli, "from wfctl.cmdline.main import main; main(['--help'])") == (0, False)
    login = (f"from wfctl.api import Client; Client({sandbox.url!r}).send('POST', "
             f"'/identity/login', json={{'username': {ADMIN[0]!r}, 'password': {ADMIN[1]!r}}})")
    assert _ca_loads_after(cli, login) == (0, False)
    loads, _ = _ca_loads_after(cli, "from wfctl.api.net.tls import ssl_context; ssl_context()")
    assert loads >= 2  # certifi and the OS store


def test_the_default_trust_loads_the_os_store_once(tls_sandbox, pki, monkeypatch):
    """Not once a connection (truststore does that on Linux: 50 ms and more for each new one)."""
    import ssl

    from wfctl.api import Client

    loads: list[str] = []
    original = ssl.SSLContext.set_default_verify_paths

    def counting(self: ssl.SSLContext) -> None:
        loads.append("os")
        original(self)

    monkeypatch.setattr(ssl.SSLContext, "set_default_verify_paths", counting)
    client = Client(tls_sandbox.url)
    context = client._ssl_context()
    context.load_verify_locations(cafile=str(pki["ca"]))  # the test CA besides the OS store and certifi
    for _ in range(3):
        client.send("POST", "/identity/login", authenticated=False,
                    json={"username": ADMIN[0], "password": ADMIN[1]})
        client.close()  # the next request opens a new connection
    assert len(loads) <= 1


def test_the_sandbox_offers_only_aead_suites_over_tls_1_2(tls_sandbox, pki):
    """Every TLS 1.2 suite this OpenSSL knows, offered one at a time: the sandbox agrees only to AEAD
    ones (GCM, ChaCha20-Poly1305), never a CBC suite (TLS 1.3 has only AEAD suites)."""
    import socket
    import ssl

    host, port = tls_sandbox.url.removeprefix("https://").split(":")
    every = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    every.set_ciphers("ALL:@SECLEVEL=0")
    accepted = []
    for suite in {c["name"] for c in every.get_ciphers() if c["protocol"] != "TLSv1.3"}:
        context = ssl.create_default_context(cafile=str(pki["ca"]))
        context.maximum_version = ssl.TLSVersion.TLSv1_2
        try:
            context.set_ciphers(suite)
        except ssl.SSLError:
            continue
        try:
            with socket.create_connection((host, int(port)), timeout=5) as raw, \
                    context.wrap_socket(raw, server_hostname=host) as tls:
                accepted.append(tls.cipher()[0])
        except (ssl.SSLError, OSError):
            pass
    assert accepted, "no TLS 1.2 suite at all"
    assert all("GCM" in name or "CHACHA20" in name for name in accepted), sorted(accepted)
