"""Playing the scenarios: each a fresh tenant of one sandbox (target.py: this run's own, in memory, or a running
one named by --url), the program run once against the scenario's stage with the task in its environment,
then the checks.

    report = certify(["python3", "client.py"], load_scenarios("standard"), seed=7)
    report = certify(command, scenarios, seed=7, sandbox=Sandbox(url, control_token))   # a shared sandbox

The program gets (docs/sandbox.md, "Certifying a client"):

    CERTIFY_BASE_URL     the service, http://127.0.0.1:<port>
    CERTIFY_USERNAME     an admin login of the tenant
    CERTIFY_PASSWORD     its password
    CERTIFY_CLIENT_ID    read every site of this client (every page of /api/clients/<id>/sites)
    CERTIFY_NEW_SITE     create one site of this name under that client
    CERTIFY_SITE_ID      set this site's phone to CERTIFY_SITE_PHONE, leaving its other fields
    CERTIFY_SITE_PHONE
    CERTIFY_READ_FILE    write the id of every site read to this file, one a line (the records check)

What is random (which site, the new name, the phone) comes from `seed`, so the same seed asks the same.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Sequence

from wfctl.sandbox.certify.checks import Played, Task, judge
from wfctl.sandbox.certify.report import Report, ScenarioResult
from wfctl.sandbox.certify.scenarios import Scenario
from wfctl.sandbox.certify.stage import Stage
from wfctl.sandbox.certify.target import Forward, Sandbox, Tenant, own_sandbox, wait_started

#: Seconds one scenario's program may run.
PROGRAM_TIMEOUT = 60.0


def certify(command: Sequence[str], scenarios: Sequence[Scenario], *, seed: int = 0,
            progress: Callable[[str], None] | None = None, timeout: float = PROGRAM_TIMEOUT,
            sandbox: Sandbox | None = None) -> Report:
    """Run `command` once per scenario, each a tenant of `sandbox` (default: one of this run's own), and judge
    each run."""
    with contextlib.ExitStack() as stack:
        if sandbox is None:
            sandbox = stack.enter_context(own_sandbox())
        results = []
        for scenario in scenarios:
            if progress is not None:
                progress(scenario.name)
            played = play(command, scenario, sandbox, seed=seed, timeout=timeout)
            results.append(ScenarioResult(scenario=scenario, exit_status=played.exit_status, stderr=played.stderr,
                                          outcomes=judge(played)))
    return Report(seed=seed, results=results)


def play(command: Sequence[str], scenario: Scenario, sandbox: Sandbox, *, seed: int,
         timeout: float = PROGRAM_TIMEOUT) -> Played:
    """One scenario: a fresh tenant of `sandbox`, its stage, the program run once, the trace and the states kept;
    then the tenant removed, so a long-lived sandbox (--url) does not grow with each certification."""
    tenant = sandbox.tenant(scenario)
    try:
        played = _played(command, scenario, sandbox, tenant, seed=seed, timeout=timeout)
    except BaseException:
        with contextlib.suppress(Exception):  # what went wrong is the first failure, not the clean-up's
            sandbox.remove(tenant)
        raise
    sandbox.remove(tenant)
    return played


def _played(command: Sequence[str], scenario: Scenario, sandbox: Sandbox, tenant: Tenant, *, seed: int,
            timeout: float) -> Played:
    import uvicorn

    from wfctl.sandbox.quirks import parse_quirks
    from wfctl.sandbox.server import bind, uvicorn_config

    chosen = random.Random(f"{seed}:{scenario.name}")
    site = f"s{chosen.randrange(1, 28)}"
    task = Task(client_id=tenant.records["c1"], site_id=tenant.records[site],
                new_site=f"Certified Site {chosen.randrange(1000, 10000)}",
                phone=f"+44 20 7946 {chosen.randrange(1000, 10000)}")
    before = sandbox.site(tenant, task.site_id)
    listed = {site["id"] for site in sandbox.listing(tenant, task.client_id)}
    stack_dir = tempfile.mkdtemp(prefix="wfctl-certify-")
    told = os.path.join(stack_dir, "read-ids")
    main, trap = bind("127.0.0.1", 0), bind("127.0.0.1", 0)
    stage = Stage(Forward(sandbox.url), scenario.faults, expire=lambda: sandbox.expire_access(tenant),
                  trap_port=trap.getsockname()[1], error_form=parse_quirks(list(scenario.quirks)).errors)
    config = uvicorn_config(stage, port=main.getsockname()[1], log_level="critical")
    config.timeout_graceful_shutdown = 1
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [main, trap]}, daemon=True,
                              name=f"certify-{scenario.name}")
    thread.start()
    try:
        wait_started(server, thread)
        env = {**os.environ, "CERTIFY_BASE_URL": f"http://127.0.0.1:{main.getsockname()[1]}",
               "CERTIFY_USERNAME": tenant.username, "CERTIFY_PASSWORD": tenant.password,
               "CERTIFY_CLIENT_ID": task.client_id, "CERTIFY_NEW_SITE": task.new_site,
               "CERTIFY_SITE_ID": task.site_id, "CERTIFY_SITE_PHONE": task.phone, "CERTIFY_READ_FILE": told}
        exit_status, stderr = _run(command, env, timeout)
        read = _ids(told)
    finally:
        shutil.rmtree(stack_dir, ignore_errors=True)
        server.should_exit = True
        thread.join(timeout=10)
        main.close()
        trap.close()
    sandbox.settle(tenant)
    after = sandbox.listing(tenant, task.client_id)
    return Played(scenario=scenario, task=task, exchanges=list(stage.exchanges), exit_status=exit_status,
                  stderr=stderr, site_before=before, site_after=sandbox.site(tenant, task.site_id),
                  new_sites=sum(1 for site in after if site.get("name") == task.new_site),
                  listed_before=listed, listed_after={site["id"] for site in after}, read=read,
                  reuse_detections=sandbox.reuse_detections(tenant), trap_port=stage.trap_port)


def _ids(path: str) -> set[str] | None:
    """The ids the program says it read (None: it wrote no file)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as told:
            return {line.strip() for line in told if line.strip()}
    except OSError:
        return None


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
