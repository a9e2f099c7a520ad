"""The sandbox's password hashes: scrypt n=2^14, r=8, p=1, recorded in each hash. The test suite lowers n
for speed (WFCTL_SANDBOX_TEST_SCRYPT_N, set by tests/conftest.py); a hash made at either cost verifies
under the other, since verification reads the parameters from the hash."""

from __future__ import annotations

import pytest

from wfctl.sandbox.auth import TEST_COST_VARIABLE, hash_password, verify_password


def _cost(stored: str) -> list[str]:
    return stored.split("$")[:4]


def test_a_hash_records_its_own_cost_and_verifies_at_any_other(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TEST_COST_VARIABLE, raising=False)
    full = hash_password("correct horse")
    assert _cost(full) == ["scrypt", "16384", "8", "1"]
    monkeypatch.setenv(TEST_COST_VARIABLE, "1024")
    low = hash_password("correct horse")
    assert _cost(low) == ["scrypt", "1024", "8", "1"]
    assert verify_password("correct horse", full) and not verify_password("correct horsf", full)
    monkeypatch.delenv(TEST_COST_VARIABLE)
    assert verify_password("correct horse", low) and not verify_password("correct horsf", low)


@pytest.mark.parametrize("value", ["", "1000", "16384", "65536", "1", "0", "-2", "x"])
def test_the_test_knob_only_ever_lowers_the_cost_to_a_power_of_two(value: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_COST_VARIABLE, value)
    assert _cost(hash_password("pw")) == ["scrypt", "16384", "8", "1"]
