"""The journal's group write (wfctl/runs/groupwrite.py, issue 43): many threads' lines, each written
whole before its append returns, at the offset it was told, in one order; a failed write fails every
later append."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

import pytest

from wfctl.runs.groupwrite import GroupWrite


def test_lines_of_many_threads_are_each_written_where_they_were_told(tmp_path: Path) -> None:
    path = tmp_path / "log"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    os.write(fd, b"head\n")
    appender = GroupWrite(fd, 5)
    offsets: dict[bytes, int] = {}
    returned: list[bytes] = []

    def worker(n: int) -> None:
        for i in range(200):
            line = f"thread {n} line {i:03d}\n".encode()
            appender.append(line, lambda offset, line=line: offsets.__setitem__(line, offset))
            with open(path, "rb") as f:  # written when append returns
                f.seek(offsets[line])
                assert f.read(len(line)) == line
            returned.append(line)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    os.close(fd)
    data = path.read_bytes()
    assert len(returned) == 1600 and appender.size == len(data)
    assert sorted(data.splitlines(keepends=True)[1:]) == sorted(returned)
    assert sorted(offsets.values()) == [data.index(line) for line in sorted(offsets, key=offsets.get)]


def test_a_failed_write_fails_every_later_append(tmp_path: Path) -> None:
    fd = os.open(tmp_path / "log", os.O_RDONLY | os.O_CREAT)  # not writable: EBADF
    appender = GroupWrite(fd, 0)
    told: list[int] = []
    for _ in range(2):
        with pytest.raises(OSError) as caught:
            appender.append(b"x\n", told.append)
        assert caught.value.errno == errno.EBADF
    assert told == [] and appender.size == 0
    os.close(fd)
