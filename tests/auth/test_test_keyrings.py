"""The test keyrings (tests/auth/keyrings.py) are offered only to a run that names them: keyring's
auto-detection, cached once per process, must never chain through HangingKeyring (every later `doctor`
in the test process would wait out the keyring timeout)."""

from __future__ import annotations

import pytest

from tests.auth.keyrings import FileKeyring, HangingKeyring


@pytest.mark.parametrize("backend", [FileKeyring, HangingKeyring], ids=lambda b: b.__name__)
def test_a_test_keyring_is_viable_only_when_named(backend, monkeypatch) -> None:
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    assert not backend.viable
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "tests.auth.keyrings.FileKeyring")
    assert backend.viable is (backend is FileKeyring)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", f"tests.auth.keyrings.{backend.__name__}")
    assert backend.viable


def test_auto_detection_never_offers_a_test_keyring(monkeypatch) -> None:
    import keyring.backend

    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    viable = keyring.backend.KeyringBackend.get_viable_backends()
    assert not {FileKeyring, HangingKeyring} & set(viable)
