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
Delays are capped exponential backoff with full jitter; a `Retry-After` (seconds or an HTTP date) is
honoured up to a cap (G18): one longer than the cap (the sandbox's login lock says 15 minutes) ends the
retries at once, and the answer is reported. An HTTP date is judged against the answer's own `Date`
header (the server's clock), so a server whose clock is off by hours neither stops nor hurries the retry.

A wait holds every request of the same pool (`Pause`): one 429's Retry-After slows the workers down as one.
"""

from __future__ import annotations

import email.utils
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


@dataclass
class RetryPolicy:
    max_attempts: int = 4
    backoff_base: float = 0.5
    backoff_cap: float = 8.0
    retry_after_cap: float = 30.0
    total_time: float = 60.0
    #: Attempts of a request that may be resent until a moment of its own (a refresh).
    resend_attempts: int = 8

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
              until: float | None = None) -> float | None:
        """Seconds to wait before attempt `attempt + 1`, or None when attempts or time are used up.
        `spent`: the seconds this request has taken so far; `retry_after`, `date`: the answer's headers;
        `until`: the monotonic moment this request may be resent until, instead of the total time."""
        if attempt >= (self.max_attempts if until is None else self.resend_attempts):
            return None
        delay = self.backoff(attempt)
        wanted = parse_retry_after(retry_after, date=date) if retry_after else None
        if wanted is not None:
            if wanted > self.retry_after_cap:
                return None  # asked to come back later than we would ever wait (a login lock): say so now
            delay = wanted
        if until is not None:
            return delay if time.monotonic() + delay < until else None
        if spent + delay > self.total_time:
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
        self._lock = threading.Lock()
        self._interrupted = threading.Event()

    def hold(self, delay: float) -> None:
        """Wait `delay` seconds, and hold the pool's other requests until then. Interrupted when
        `interrupt` is called before or during the wait."""
        with self._lock:
            self._until = max(self._until, self.clock() + delay)
        self._sleep(delay)

    def wait(self) -> None:
        """Wait until the pool's pause, if any, has passed (Interrupted as `hold`)."""
        delay = self._until - self.clock()
        if delay > 0:
            self._sleep(delay)

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
