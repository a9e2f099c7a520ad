"""Id completion (`wfctl sites get <TAB>`): served from a short-lived cache, fetched time-boxed when stale."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from wfctl.cmdline import completion_cache
from wfctl.cmdline.completion_cache import (
    cache_file,
    cached,
    complete_branch_ids,
    complete_site_ids,
    remember,
)


class _Root:
    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params

    def find_root(self) -> _Root:
        return self


def test_fresh_cache_is_used_without_asking_the_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = cache_file(None, "http://svc")
    remember(path, "site", [("s-1", "Hull depot"), ("s-2", "Dock"), ("x-3", "Other")])
    assert path.stat().st_mode & 0o777 == 0o600
    monkeypatch.setattr(completion_cache, "_fetch", lambda *a: pytest.fail("fetched despite a fresh cache"))
    assert complete_site_ids(_Root({"base_url": "http://svc"}), "s-") == [("s-1", "Hull depot"), ("s-2", "Dock")]


def test_stale_cache_is_refetched_and_an_unreachable_service_falls_back(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = cache_file(None, "http://svc")
    remember(path, "branch", [("b-old", "Old")])
    monkeypatch.setattr(completion_cache, "TTL", 0.0)
    time.sleep(0.01)
    monkeypatch.setattr(completion_cache, "_fetch", lambda *a: [("b-new", "New")])
    assert complete_branch_ids(_Root({"base_url": "http://svc"}), "") == [("b-new", "New")]
    assert cached(path, "branch", max_age=None) == [("b-new", "New")]
    monkeypatch.setattr(completion_cache, "_fetch", lambda *a: None)  # timed out
    assert complete_branch_ids(_Root({"base_url": "http://svc"}), "b") == [("b-new", "New")]


def test_fetch_is_time_boxed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(completion_cache, "FETCH_SECONDS", 0.2)

    def slow(*args: Any) -> Any:
        time.sleep(5)
        yield {"id": "late"}

    monkeypatch.setattr(completion_cache, "_records", slow)
    monkeypatch.setenv("WFCTL_ACCESS_TOKEN", "t")
    monkeypatch.setenv("WFCTL_BASE_URL", "http://127.0.0.1:9")
    start = time.monotonic()
    assert completion_cache._fetch({}, "site", None) is None
    assert time.monotonic() - start < 1


def test_completion_against_the_sandbox(wf: Any, service: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = {b["id"] for b in __import__("json").loads(wf("branches", "list", "--all", "-o", "json").stdout)}
    root = _Root({"profile": None, "base_url": None})
    got = complete_branch_ids(root, "")
    assert {ident for ident, _ in got} == ids
    assert cached(cache_file(None, None), "branch") == got
