"""The one retry policy of the SDK: what is sent again, how often, and after how long a wait. The httpx
transport (transport.py) and the bulk runs' lean writer (lean.py) both ask it, so a request gets the
same attempts and waits whichever of them sends it.

What is sent again (bounded in attempts and in total time):
- GET, HEAD, OPTIONS, PUT and DELETE on a failure to answer, or 408/425/429/500/502/503/504;
- POST only when the request provably never left (the connection could not be made), or when the
  service refused it without acting (429; 503 for a POST that carries an `Idempotency-Key`). A POST
  whose answer was lost, or answered 408/425/500/502/504, is not resent here: the Client's create
  protocol (writes.py) looks the record up by its natural key first, since a deployment may ignore
  `Idempotency-Key` (G20);
- a request that may be resent until a moment of its own (a token refresh, which G3 makes safe to send
  again within its grace window): on any failure to answer but an oversized answer, and those statuses;
- never an attempt that ran out of its deadline or whose answer was too large.
An outage (no answer at all, or 502/503/504: a service or its database restarting) is ridden out: while it
lasts, a request's attempts are not counted, it is sent again every second or two (or after the answer's
`Retry-After`), until the pool's outage has lasted `outage_time` (60 s, `WFCTL_OUTAGE_SECONDS`), counted from
the first failure of any request of the pool since the last answer; then every request of the pool gives up.
Delays are capped exponential backoff with full jitter; a `Retry-After` (seconds or an HTTP date) is
honoured up to a cap (G18): one longer than the cap (the sandbox's login lock says 15 minutes) ends the
retries at once, and the answer is reported. An HTTP date is judged against the answer's own `Date`
header (the server's clock), so a server whose clock is off by hours neither stops nor hurries the retry.

A 429 is the service pacing us (G18): it is never counted toward a request's tries; the request is
sent again after the answer's Retry-After (a short backoff without one) for up to the outage's budget of
its own, unless the Retry-After is longer than the cap (then the answer is reported at once).

A wait holds every request of the same pool (`Pause`): one 429's Retry-After slows the workers down as one,
and while the service keeps answering 429 fewer requests are let through at once (`Pause.throttle`,
`Pause.admitted`); an outage is one wait of every worker, which the CLI shows (`Pause.outage`).

A connection refused before the service has answered any request of the pool is not an outage but nothing
listening there (a service not started, a wrong port or URL): it is said at once (`refused_at_first`), as
gh, curl and kubectl do; once the pool has been answered, a refusal is a restart and is ridden out.
"""

from __future__ import annotations

import email.utils
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
#: Answers that say the service (or what is behind it) is down for now: an outage, ridden out.
OUTAGE_STATUSES = frozenset({502, 503, 504})
#: How long a pool rides out an outage (seconds), unless WFCTL_OUTAGE_SECONDS says otherwise.
OUTAGE_SECONDS = 60.0
#: The longest wait between two tries during an outage (a restart of a few seconds is noticed at once).
OUTAGE_PROBE = 2.0
#: Seconds after the last 429 at which a pool lets any number of requests through at once again.
THROTTLE_EASE = 2.0


def outage_seconds() -> float:
    """How long an outage is ridden out: WFCTL_OUTAGE_SECONDS (or its older name for bulk runs,
    WFCTL_UNREACHABLE_SECONDS), else OUTAGE_SECONDS."""
    text = os.environ.get("WFCTL_OUTAGE_SECONDS") or os.environ.get("WFCTL_UNREACHABLE_SECONDS")
    try:
        value = float(text or OUTAGE_SECONDS)
    except ValueError:
        return OUTAGE_SECONDS
    return value if value >= 0 else OUTAGE_SECONDS


@dataclass
class RetryPolicy:
    max_attempts: int = 4
    backoff_base: float = 0.5
    backoff_cap: float = 8.0
    retry_after_cap: float = 30.0
    total_time: float = 60.0
    #: Attempts of a request that may be resent until a moment of its own (a refresh).
    resend_attempts: int = 8
    #: Seconds of a pool's outage that its requests ride out, their attempts not counted meanwhile.
    outage_time: float = field(default_factory=lambda: outage_seconds())

    def backoff(self, attempt: int) -> float:
        """Full jitter: uniform in [0, min(cap, base * 2**(attempt-1))]."""
        return random.uniform(0.0, min(self.backoff_cap, self.backoff_base * 2 ** (attempt - 1)))

    def retries_answer(self, method: str, status: int, *, keyed: bool = False, resendable: bool = False) -> bool:
        """Whether an answer of `status` to this request may be followed by the same request again
        (`keyed`: it carries an Idempotency-Key; `resendable`: it may be resent until a moment of its own).
        A POST only after a refusal: any other answer may follow a create the service applied."""
        if status not in RETRY_STATUSES:
            return False
        return (method.upper() in IDEMPOTENT_METHODS or resendable or status == 429
                or (status == 503 and keyed))

    def retries_failure(self, method: str, *, never_sent: bool, bounded: bool = False,
                        too_large: bool = False, resendable: bool = False) -> bool:
        """Whether an attempt that got no answer may be followed by another: `never_sent` (the connection
        could not be made), `bounded` (it ran out of its deadline, or its answer was too large: sending
        it again would end the same way), `too_large` (its answer was too large)."""
        if resendable:
            return not too_large
        return not (bounded or too_large) and (never_sent or method.upper() in IDEMPOTENT_METHODS)

    def delay(self, attempt: int, spent: float, retry_after: str | None = None, *, date: str | None = None,
              until: float | None = None, outage: float | None = None, refused: bool = False) -> float | None:
        """Seconds to wait before attempt `attempt + 1`, or None when attempts or time are used up.
        `spent`: the seconds this request has taken so far; `retry_after`, `date`: the answer's headers;
        `until`: the monotonic moment this request may be resent until, instead of the total time;
        `outage`: how long the pool's outage has lasted, when this attempt failed as one (no answer, or
        502/503/504): then attempts and the total time do not count, the outage's budget does;
        `refused`: the attempt was answered 429 (G18): the service paces us, so attempts do not count
        either; the request is paced (its Retry-After honoured) for up to the outage's budget of its own."""
        if refused and until is None:
            return self._paced(attempt, spent, retry_after, date)
        riding = outage is not None and outage < self.outage_time
        if outage is not None and not riding:
            return None  # the outage outlasted its budget: every request of the pool stops now
        if not riding and attempt >= (self.max_attempts if until is None else self.resend_attempts):
            return None
        delay = self.backoff(min(attempt, 3) if riding else attempt)
        wanted = parse_retry_after(retry_after, date=date) if retry_after else None
        if wanted is not None:
            if wanted > self.retry_after_cap:
                return None  # asked to come back later than we would ever wait (a login lock): say so now
            delay = wanted
        if riding:
            assert outage is not None
            delay = min(delay if wanted is not None else min(delay, OUTAGE_PROBE),
                        max(0.05, self.outage_time - outage))
        if until is not None:
            return delay if time.monotonic() + delay < until else None
        if not riding and spent + delay > self.total_time:
            return None
        return delay

    def _paced(self, attempt: int, spent: float, retry_after: str | None, date: str | None) -> float | None:
        """The wait after a 429: its Retry-After (a short backoff without one); None when it asks for more
        than `retry_after_cap` (a login lock: said at once) or this request has been paced for longer than
        the outage's budget (a service that refuses it for good)."""
        wanted = parse_retry_after(retry_after, date=date) if retry_after else None
        if wanted is not None and wanted > self.retry_after_cap:
            return None
        delay = self.backoff(min(attempt, 3)) if wanted is None else wanted
        if spent + delay > max(self.outage_time, self.total_time):
            return None
        return delay


class Pause:
    """A wait that holds every request of one pool: `hold` waits and makes every later `wait` (any
    thread's) last until the same moment. `interrupt` ends every wait at once, now and later: the
    caller is stopping (Ctrl-C in a bulk run), and a wait of up to a Retry-After's 30 s would hold it."""

    def __init__(self, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.sleep = sleep
        self.clock = clock
        self._until = 0.0
        self._outage_since: float | None = None
        self._outage_slept = 0.0  # what a test's sleep waited during the outage (its clock does not move)
        self._riders: set[int] = set()  # threads whose request is riding out an outage
        #: Whether the service has answered a request of this pool (any status): from then on a refused
        #: connection is an outage (a restart), ridden out; before, it is said at once (`refused_at_first`).
        self.reached = False
        #: Told when the pool starts riding out an outage (`begin(pause)`) and when no request does any more
        #: (`end(pause)`): the CLI says so on a terminal (wfctl.render.progress.OutageNote).
        self.observer: Any = None
        self._lock = threading.Lock()
        self._gate = threading.Condition(self._lock)
        self._interrupted = threading.Event()
        # While the service answers 429: how many requests may be under way at once (None: any number),
        # until when, and when it was last halved; how many are under way, and the most ever.
        self._limit: int | None = None
        self._limit_until = 0.0
        self._halved_at = -1e9
        self._active = 0
        self._peak = 0

    def hold(self, delay: float, *, outage: bool = False) -> None:
        """Wait `delay` seconds, and hold the pool's other requests until then. Interrupted when
        `interrupt` is called before or during the wait. `outage`: the wait rides out an outage; the
        pool's `observer` (the CLI's note on a terminal) hears of it until the request is `done`."""
        if outage:
            self._riding(True)
        with self._lock:
            self._until = max(self._until, self.clock() + delay)
            if self._outage_since is not None and self.sleep is not time.sleep:
                self._outage_slept += delay  # a test's clock, which does not move while it "sleeps"
        self._sleep(delay)

    def throttle(self, delay: float) -> None:
        """A 429 (G18): every request of the pool waits `delay` (`hold`), and while the service keeps
        refusing, fewer are let through at once (`admitted`): half as many as were under way (at least
        one) once per Retry-After, one more for each answer that is not a 429, and any number again once
        as many as ever were, or THROTTLE_EASE seconds after the last 429."""
        with self._lock:
            now = self.clock()
            if self._limit is None or now >= self._halved_at + delay:
                self._limit = max(1, (self._limit if self._limit is not None else max(self._active, 1)) // 2)
                self._halved_at = now
            self._limit_until = now + delay + THROTTLE_EASE
        self.hold(delay)

    @contextmanager
    def admitted(self) -> Iterator[None]:
        """Around one attempt of a request: wait while the pool has as many under way as a 429 allows."""
        with self._gate:
            while self._limit is not None and self._active >= self._limit:
                if self.clock() >= self._limit_until:
                    self._limit = None
                    break
                if self._interrupted.is_set():
                    from wfctl.api.errors import Interrupted

                    raise Interrupted("stopped while waiting for the service")
                self._gate.wait(0.05)
            self._active += 1
            self._peak = max(self._peak, self._active)
        try:
            yield
        finally:
            with self._gate:
                self._active -= 1
                self._gate.notify()

    def wait(self) -> None:
        """Wait until the pool's pause, if any, has passed (Interrupted as `hold`)."""
        delay = self._until - self.clock()
        if delay > 0:
            self._sleep(delay)

    def outage(self) -> float | None:
        """Seconds since the pool's outage began (the first failure since the last answer), or None."""
        since = self._outage_since
        return None if since is None else max(0.0, self.clock() - since, self._outage_slept)

    def note_outage(self) -> float:
        """A request of the pool failed as in an outage: the seconds the outage has lasted."""
        with self._lock:
            if self._outage_since is None:
                self._outage_since, self._outage_slept = self.clock(), 0.0
            return max(0.0, self.clock() - self._outage_since, self._outage_slept)

    def note_answer(self, *, refused: bool = False) -> None:
        """A request of the pool was answered (not 502/503/504): no outage. An answer that is not a 429
        (`refused`) lets one more request through at once while the pool is throttled."""
        if self._outage_since is not None:
            with self._lock:
                self._outage_since = None
        if self._limit is not None and not refused:
            with self._gate:
                if self._limit is not None:
                    self._limit += 1
                    if self._limit >= self._peak:
                        self._limit = None
                    self._gate.notify()

    def done(self) -> None:
        """The calling thread's request has ended (answered, or given up): it no longer rides out an outage."""
        if threading.get_ident() in self._riders:
            self._riding(False)

    def _riding(self, riding: bool) -> None:
        me = threading.get_ident()
        with self._lock:
            before = bool(self._riders)
            if riding:
                self._riders.add(me)
            else:
                self._riders.discard(me)
            after = bool(self._riders)
        observer = self.observer
        if observer is not None and before != after:
            (observer.begin if after else observer.end)(self)

    def interrupt(self) -> None:
        """End every wait of this pool, those under way and those to come, with Interrupted."""
        self._interrupted.set()

    def _sleep(self, delay: float) -> None:
        from wfctl.api.errors import Interrupted

        if self.sleep is time.sleep:  # the real clock: a wait that `interrupt` ends at once
            self._interrupted.wait(delay)
        elif not self._interrupted.is_set():
            self.sleep(delay)  # a test's clock
        if self._interrupted.is_set():
            raise Interrupted("stopped while waiting for the service")


def refused_at_first(exc: BaseException, pause: Pause) -> bool:
    """Whether `exc` is a refused connection (nothing listens at the address) before the service answered
    any request of `pause`'s pool: said at once, not ridden out as an outage."""
    return not pause.reached and connection_refused(exc)


def connection_refused(exc: BaseException) -> bool:
    """Whether the connection was refused (ECONNREFUSED), anywhere in the chain of causes."""
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError) or "connection refused" in str(seen).lower() \
                or "[winerror 10061]" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def transient(exc: BaseException) -> bool:
    """Whether a failure to connect or to be answered may end otherwise next time (and so an outage is worth
    riding out): not a TLS failure other than a connection cut in the middle (a certificate that fails
    verification, https spoken to a plain-http server), nor an answer that is malformed rather than cut
    short (a `Content-Length: ²`): those answer the same in 60 s. Looked for anywhere in the chain of causes."""
    import ssl

    cut = (ssl.SSLEOFError, ssl.SSLZeroReturnError, ssl.SSLSyscallError)  # a connection cut mid-handshake
    seen: BaseException | None = exc
    for _ in range(10):  # the ssl error sits a few causes down (httpx <- httpcore <- ssl)
        if seen is None:
            break
        if isinstance(seen, ssl.SSLError) and not isinstance(seen, cut):
            return False
        seen = seen.__cause__ or seen.__context__
    text = str(exc)
    if type(exc).__name__ == "RemoteProtocolError" and not any(word in text.lower() for word in _CUT_SHORT):
        return False  # the server answered, wrongly (h11: a malformed head): the same next time
    return "CERTIFICATE_VERIFY_FAILED" not in text and "WRONG_VERSION_NUMBER" not in text


#: Words of a protocol error that is an answer cut short (a server restarting), not a malformed one.
_CUT_SHORT = ("disconnect", "closed", "dropped", "reset", "incomplete", "eof", "without sending")


def parse_retry_after(value: str, now: float | None = None, *, date: str | None = None) -> float | None:
    """`Retry-After` as seconds to wait: delta-seconds or an HTTP date; None when unreadable.

    An HTTP date is the server's clock: it is judged against the answer's `Date` header (`date`), the
    server's "now", so a server whose clock is hours off asks for the wait it means. Only without a
    readable `Date` is it judged against the local clock (`now`, default the time now)."""
    value = value.strip()
    if value.isascii() and value.isdigit():  # `²` is a digit to str.isdigit, not to float
        return float(value)
    when = _http_date(value)
    if when is None:
        return None
    sent = _http_date(date) if date else None
    if sent is not None:
        return max(0.0, when - sent)
    return max(0.0, when - (time.time() if now is None else now))


def _http_date(value: str) -> float | None:
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    try:
        return when.timestamp()
    except (OverflowError, ValueError, OSError):
        return None
