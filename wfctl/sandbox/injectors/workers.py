"""Worker kills: a `wfctl sandbox serve --workers N` (PostgreSQL) loses a worker process, as after an
out-of-memory kill or a crash; its supervisor (supervisor.py) starts another.

    killed = kill_worker(serve_pid)          # SIGKILL to the first worker; its pid
    worker_pids(serve_pid)                   # the workers alive now

Linux: the workers are found in /proc (the children of the serve process)."""

from __future__ import annotations

import os
import signal
from pathlib import Path


def worker_pids(serve_pid: int) -> list[int]:
    """The pids of the processes whose parent is `serve_pid` (its workers), lowest first; zombies left out."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]  # after "(comm)": state, ppid
        if int(ppid) == serve_pid and state != "Z":
            found.append(int(entry.name))
    return sorted(found)


def kill_worker(serve_pid: int, index: int = 0, sig: int = signal.SIGKILL) -> int:
    """Send `sig` (SIGKILL: no goodbye, its database session cut) to the `index`-th worker; its pid.
    LookupError when there is no such worker."""
    pids = worker_pids(serve_pid)
    if index >= len(pids):
        raise LookupError(f"process {serve_pid} has {len(pids)} workers, no worker {index}")
    os.kill(pids[index], sig)
    return pids[index]
