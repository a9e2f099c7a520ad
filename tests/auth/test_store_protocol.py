"""Issue 46: `TokenStore`, the protocol a login's store keeps, names every method its stores have (protection too)."""

from __future__ import annotations

import os

import pytest

from wfctl.api.session.keyringstore import KeyringStore
from wfctl.api.session.store import FileStore, TokenStore


def _members(cls: type) -> set[str]:
    return {name for name in vars(cls) if not name.startswith("_")} | set(cls.__annotations__)


def test_the_protocol_names_what_every_store_does() -> None:
    assert "protection" in _members(TokenStore)
    for store in (FileStore, KeyringStore):
        assert _members(TokenStore) <= set(dir(store)), store.__name__


@pytest.mark.skipif(os.name == "nt", reason="a POSIX file mode")
def test_each_store_says_how_it_protects_the_tokens(tmp_path, monkeypatch) -> None:
    from wfctl.api.session import keyringstore

    file = tmp_path / "credentials" / "default.json"
    file.parent.mkdir()
    file.write_text("{}")
    file.chmod(0o600)
    monkeypatch.setattr(keyringstore, "_backend_name_quick", lambda: "keyring.backends.macOS.Keyring")
    stores: list[TokenStore] = [FileStore(file, tmp_path / "lock"), KeyringStore("default@x", tmp_path / "lock")]
    assert [store.protection() for store in stores] == [
        "file mode 0600", "encrypted in your login Keychain, unlocked by your macOS login"]
