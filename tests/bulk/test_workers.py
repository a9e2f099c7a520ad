"""A run's wait for its workers through Ctrl-C (the executor's, wfctl.runs.engine): a Ctrl-C that lands in the wait does
not end it before the row in flight has ended. On CPython before 3.13 a Ctrl-C in `Thread.join()` marks
the thread as ended while it still runs, and an import then closed its journal under a row in flight (the
row stayed `sending`: a rare failure of test_ctrl_c_while_the_last_rows_are_in_flight). Each case runs in a
child process whose main thread gets a real SIGINT while it waits."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.fixtures.cli import REPO_ROOT

SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading, time
    from wfctl.runs.engine import Workers

    release, ended, calls = threading.Event(), [], []

    def row():  # a row in flight: it ends 0.2 or 0.5 s after the Ctrl-C (the first thread's last), says so
        release.wait()
        time.sleep(0.5 if threading.current_thread().name.endswith(("-0", "_0")) else 0.2)  # joined first
        ended.append(time.monotonic())

    def ctrl_c():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        release.set()

    threading.Timer(0.2, ctrl_c).start()
    workers = Workers(row, 2, "test")
    workers.start()
    interrupted = workers.wait(lambda: calls.append(1))
    returned = time.monotonic()
    print(type(interrupted).__name__, len(calls), len(ended), all(at <= returned for at in ended))
""")


def test_a_ctrl_c_in_the_wait_does_not_end_it_before_the_rows_in_flight() -> None:
    rows = 2
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=30,
                       cwd=REPO_ROOT)
    assert r.returncode == 0, r.stderr
    # the Ctrl-C is returned to be raised, the stop hook ran once, and every row had ended by the return
    # (a join retried after the Ctrl-C returns at once for the thread it was in: the row ends after it)
    assert r.stdout == f"KeyboardInterrupt 1 {rows} True\n", r.stdout + r.stderr
