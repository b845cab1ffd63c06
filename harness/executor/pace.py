"""Provider rate limits: requests spaced evenly at `per_minute`, by one keeper of the pace
for every process that sends them (the local executor's threads share a `Limiter`; on Ray
every node asks one named actor that holds the `Pace`). A limit kept per node would let N
nodes send N times the provider's limit."""

from __future__ import annotations

import threading
import time


class Pace:
    """The time of the next free request; each one reserved moves it on by the interval."""

    def __init__(self, per_minute: float):
        if per_minute <= 0:
            raise ValueError("a rate limit must be positive")
        self.interval = 60.0 / per_minute
        self._next = float("-inf")

    def reserve(self, now: float) -> float:
        """Reserve the next request: how long to wait from `now` before sending it."""
        start = max(now, self._next)
        self._next = start + self.interval
        return start - now


class Limiter:
    """A pace kept in this process, for its threads."""

    def __init__(self, per_minute: float):
        self._pace = Pace(per_minute)
        self._lock = threading.Lock()

    def wait(self) -> None:
        with self._lock:
            delay = self._pace.reserve(time.monotonic())
        time.sleep(delay)
