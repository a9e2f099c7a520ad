"""Playing the scenarios: a sandbox of each scenario's own (in memory, on loopback, a free port), a fresh
tenant with sample records, the program run once with the task in its environment, then the checks.

    report = certify(["python3", "client.py"], load_scenarios("standard"), seed=7)

The program gets (docs/sandbox.md, "Certifying a client"):

    CERTIFY_BASE_URL     the service, http://127.0.0.1:<port>
    CERTIFY_USERNAME     an admin login of the tenant
    CERTIFY_PASSWORD     its password
    CERTIFY_CLIENT_ID    read every site of this client (every page of /api/clients/<id>/sites)
    CERTIFY_NEW_SITE     create one site of this name under that client
    CERTIFY_SITE_ID      set this site's phone to CERTIFY_SITE_PHONE, leaving its other fields
    CERTIFY_SITE_PHONE

What is random (which site, the new name, the phone) comes from `seed`, so the same seed asks the same.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from wfctl.sandbox.certify.checks import Played, Task, judge
from wfctl.sandbox.certify.report import Report, ScenarioResult
from wfctl.sandbox.certify.scenarios import Scenario
from wfctl.sandbox.certify.stage import Stage

#: Seconds one scenario's program may run.
PROGRAM_TIMEOUT = 60.0
#: A site's writable fields: the service's name -> the column.
SITE_FIELDS = {"name": "name", "address": "address", "phone": "phone", "email": "email",
               "assessmentRequired": "assessment_required", "departments": "departments", "rates": "rates",
               "bannedWorkers": "banned_workers"}


def certify(command: Sequence[str], scenarios: Sequence[Scenario], *, seed: int = 0,
            progress: Callable[[str], None] | None = None, timeout: float = PROGRAM_TIMEOUT) -> Report:
    """Run `command` once per scenario and judge each run."""
    results = []
    for scenario in scenarios:
        if progress is not None:
            progress(scenario.name)
        played = play(command, scenario, seed=seed, timeout=timeout)
        results.append(ScenarioResult(scenario=scenario, exit_status=played.exit_status, stderr=played.stderr,
                                      outcomes=judge(played)))
    return Report(seed=seed, results=results)


def play(command: Sequence[str], scenario: Scenario, *, seed: int, timeout: float = PROGRAM_TIMEOUT) -> Played:
    """One scenario: its own sandbox and tenant, the program run once, the trace and the states kept."""
    import uvicorn

    from wfctl.sandbox.app import create_app
    from wfctl.sandbox.server import bind, uvicorn_config
    from wfctl.sandbox.tenants import add_tenant

    chosen = random.Random(f"{seed}:{scenario.name}")
    app = create_app(None, seed=False, quirks=list(scenario.quirks))
    store, clock = app.state.store, app.state.clock
    try:
        tenant = add_tenant(store, f"Certification {scenario.name}", clock=clock)
        site = f"s{chosen.randrange(1, 28)}"
        task = Task(client_id=tenant["records"]["c1"], site_id=tenant["records"][site],
                    new_site=f"Certified Site {chosen.randrange(1000, 10000)}",
                    phone=f"+44 20 7946 {chosen.randrange(1000, 10000)}")
        before = site_state(store, task.site_id)
        main, trap = bind("127.0.0.1", 0), bind("127.0.0.1", 0)
        stage = Stage(app, scenario.faults, clock=clock, trap_port=trap.getsockname()[1],
                      error_form=app.state.behaviour.quirks.errors)
        config = uvicorn_config(stage, port=main.getsockname()[1], log_level="critical")
        config.timeout_graceful_shutdown = 1
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [main, trap]}, daemon=True,
                                  name=f"certify-{scenario.name}")
        thread.start()
        try:
            _wait_started(server, thread)
            login = tenant["logins"][0]
            env = {**os.environ, "CERTIFY_BASE_URL": f"http://127.0.0.1:{main.getsockname()[1]}",
                   "CERTIFY_USERNAME": login["username"], "CERTIFY_PASSWORD": login["password"],
                   "CERTIFY_CLIENT_ID": task.client_id, "CERTIFY_NEW_SITE": task.new_site,
                   "CERTIFY_SITE_ID": task.site_id, "CERTIFY_SITE_PHONE": task.phone}
            exit_status, stderr = _run(command, env, timeout)
        finally:
            server.should_exit = True
            thread.join(timeout=10)
            main.close()
            trap.close()
        return Played(scenario=scenario, task=task, exchanges=list(stage.exchanges), exit_status=exit_status,
                      stderr=stderr, site_before=before, site_after=site_state(store, task.site_id),
                      new_sites=_named(store, task.client_id, task.new_site),
                      reuse_detections=store.reuse_detections(), trap_port=stage.trap_port)
    finally:
        store.close()


def site_state(store: Any, site_id: str) -> dict[str, Any]:
    """A site's writable fields as the database holds them, by the service's names (empty: no such site)."""
    row = store.db.execute(f"SELECT {', '.join(SITE_FIELDS.values())} FROM sites WHERE id = ?",
                           (site_id,)).fetchone()
    if row is None:
        return {}
    state = dict(zip(SITE_FIELDS, row, strict=True))
    for name in ("departments", "rates", "bannedWorkers"):
        state[name] = json.loads(state[name])
    state["assessmentRequired"] = bool(state["assessmentRequired"])
    return state


def _named(store: Any, client_id: str, name: str) -> int:
    row = store.db.execute("SELECT count(*) FROM sites WHERE client_id = ? AND name = ?", (client_id, name)).fetchone()
    return int(row[0])


def _wait_started(server: Any, thread: threading.Thread) -> None:
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the certification's sandbox did not start")
        time.sleep(0.01)


def _run(command: Sequence[str], env: dict[str, str], timeout: float) -> tuple[int, str]:
    """The program's exit status (-9 when it ran out of time) and the end of its stderr."""
    try:
        proc = subprocess.run(list(command), env=env, capture_output=True, text=True, timeout=timeout,
                              errors="replace")
    except subprocess.TimeoutExpired as exc:
        tail = exc.stderr.decode("utf-8", "replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        return -9, tail[-2000:] + f"\n(stopped after {timeout:g} s)"
    except OSError as exc:
        return 127, f"cannot run {command[0]}: {exc.strerror or exc}"
    return proc.returncode, proc.stderr[-2000:]
