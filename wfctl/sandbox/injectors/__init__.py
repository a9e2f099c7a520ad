"""The faults wfctl's tests trust, made on demand against a real sandbox (and usable by anyone's tests):

    from wfctl.sandbox.injectors import CommitCutProxy, DatabaseFault, FaultProxy, kill_worker

- `FaultProxy` (answers.py): an HTTP proxy that drops a share of the answers (the service applied the
  request, the client never hears so), or the requests themselves, or answers some itself.
- `DatabaseFault` (database.py): the database itself full or read-only (SQLite and PostgreSQL), or any
  SQLSTATE raised by some or every write (PostgreSQL).
- `CommitCutProxy` (commits.py): a TCP proxy between the sandbox and PostgreSQL that cuts the connection
  right after a COMMIT went through, and refuses connections for a while (a failover).
- `kill_worker` (workers.py): SIGKILL to one worker of `serve --workers N`.

These stand outside the service (a proxy, the database, a signal); what the service itself plays, a quirk
or an outage, is its behaviour (behaviour.py). Nothing here is imported by the sandbox's app.
"""

from wfctl.sandbox.injectors.answers import FaultProxy
from wfctl.sandbox.injectors.commits import CommitCutProxy
from wfctl.sandbox.injectors.database import DISK_FULL, READ_ONLY, DatabaseFault
from wfctl.sandbox.injectors.workers import kill_worker, worker_pids

__all__ = ["DISK_FULL", "READ_ONLY", "CommitCutProxy", "DatabaseFault", "FaultProxy", "kill_worker", "worker_pids"]
