"""Where `wfctl <group> edit` keeps what a person typed until the service has it: one file a buffer under
the state folder (`<state>/edits/<profile>/`, beside the runs' journals), readable by its owner only (0600),
with the records it started from beside it (the base of the three-way merge). A buffer is removed when its
write is confirmed, or the edit cancelled; `edit --recover` reopens the newest one of a record.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from wfctl.dirs import state_dir
from wfctl.fsutil import file_name_for, write_private_file


def edits_dir(profile: str) -> Path:
    return state_dir() / "edits" / file_name_for(profile or "default")


class Buffer:
    """The kept buffer of one edit of `kind` `key` (a record's id, `client-<id>` for a client's sites,
    `agency`): `path` is the file the editor opens."""

    def __init__(self, profile: str, kind: str, key: str, stamp: str | None = None) -> None:
        self.kind, self.key = kind, key
        stamp = stamp or time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}"
        self.path = edits_dir(profile) / f"{file_name_for(f'{kind}-{key}')}.{stamp}.yaml"
        self._meta = self.path.with_suffix(".json")

    def save(self, text: str, bases: list[dict[str, Any]]) -> None:
        """Keep `text` and the records it was written from (the editor then opens `path`)."""
        write_private_file(self._meta, json.dumps({"kind": self.kind, "key": self.key, "bases": bases}).encode())
        write_private_file(self.path, text.encode("utf-8"))

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")

    def bases(self) -> list[dict[str, Any]]:
        return list(json.loads(self._meta.read_text(encoding="utf-8"))["bases"])

    def remove(self) -> None:
        for path in (self.path, self._meta):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    @classmethod
    def newest(cls, profile: str, kind: str, key: str) -> Buffer | None:
        """The last unsent buffer of `kind` `key`, or None."""
        prefix = file_name_for(f"{kind}-{key}") + "."
        try:
            names = [n for n in os.listdir(edits_dir(profile)) if n.startswith(prefix) and n.endswith(".yaml")]
        except FileNotFoundError:
            return None
        found = [cls(profile, kind, key, name[len(prefix):-len(".yaml")]) for name in names]
        found = [buffer for buffer in found if buffer._meta.exists()]
        return max(found, key=lambda b: b.path.stat().st_mtime_ns) if found else None
