"""`ordered_map`: a function over many items, several calls at once, results in the items' order.

What export and `rates` read full records with (list items carry no rates): bounded in flight and in
memory (a window of twice `concurrency` results), so a listing of any size streams.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any


def ordered_map(fn: Callable[[Any], Any], items: Iterable[Any], concurrency: int, *,
                name: str = "wfctl-read", ramp: bool = False) -> Iterator[Any]:
    """fn over items with at most `concurrency` calls in flight, results in input order, bounded memory.
    Closing the iterator early cancels what has not started. `ramp`: the window opens as results are
    taken (one call, then two, four, ...), so a reader that stops after the first result (`| head -1`)
    made a few calls, not a window's worth."""
    window: deque[Future[Any]] = deque()
    full = concurrency * 2
    size = 1 if ramp else full
    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix=name) as pool:
        try:
            for item in items:
                window.append(pool.submit(fn, item))
                if len(window) >= size:
                    yield window.popleft().result()
                    size = min(size * 2, full)
            while window:
                yield window.popleft().result()
        finally:
            for future in window:
                future.cancel()
