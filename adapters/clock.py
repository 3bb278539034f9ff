"""The time the application service stamps on commands (the core never reads a clock), and the
watch that notices when that clock steps (R4).

A step is noticed between two readings of the service's clock: the time read is earlier than the
one before (any amount), or, when a monotonic clock is given (the system clock's), the wall clock
moved more than ``tolerance`` away from the monotonic one (a step forwards, or backwards by less
than the time elapsed). Without a monotonic clock a jump forwards cannot be told from time passing,
so deterministic clocks (simulations, tests) are only checked for going back.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

Clock = Callable[[], datetime]
Monotonic = Callable[[], float]

#: How a step was noticed (``clock_adjusted.detected``).
Detected = Literal[
    "earlier_than_last_reading",
    "wall_clock_left_monotonic_clock",
    "earlier_than_table_event",
]


def system_clock() -> datetime:
    return datetime.now(UTC)


def monotonic_seconds() -> float:
    """``time.monotonic()``, looked up at each call (so a test's frozen clock applies to it)."""
    return time.monotonic()


class SteppingClock:
    """A deterministic clock for simulations and tests: each call advances by ``step``."""

    def __init__(self, start: datetime, step: timedelta = timedelta(milliseconds=1)) -> None:
        self._now = start
        self._step = step

    def __call__(self) -> datetime:
        now = self._now
        self._now = now + self._step
        return now


@dataclass(frozen=True)
class ClockStep:
    """A step of the clock: ``old`` is the time the clock would show without it (the last reading,
    plus the time elapsed when a monotonic clock tells it), ``new`` the time it shows."""

    old: datetime
    new: datetime
    detected: Detected


class ClockWatch:
    """Reads ``clock`` and reports each step since the reading before (:class:`ClockStep`).

    Readings are taken under a lock and ``on_step`` is called under it, before the reading is
    handed out: no thread gets a time after a step before the step is recorded, and two threads
    reading at once never look like a step back."""

    def __init__(
        self,
        clock: Clock,
        tolerance: timedelta = timedelta(seconds=2),
        monotonic: Monotonic | None = None,
    ) -> None:
        if tolerance < timedelta(0):
            raise ValueError(f"a clock step tolerance cannot be negative, got {tolerance}")
        self.clock = clock
        self.tolerance = tolerance
        self.monotonic = monotonic
        self._last: tuple[datetime, float | None] | None = None
        self._lock = threading.RLock()

    def read(self, on_step: Callable[[ClockStep], None]) -> datetime:
        with self._lock:
            now = self.clock()
            ticks = self.monotonic() if self.monotonic is not None else None
            last, self._last = self._last, (now, ticks)
            if last is not None:
                step = self._step(last, now, ticks)
                if step is not None:
                    on_step(step)
            return now

    def _step(
        self, last: tuple[datetime, float | None], now: datetime, ticks: float | None
    ) -> ClockStep | None:
        before, before_ticks = last
        expected = before
        if ticks is not None and before_ticks is not None:
            expected = before + timedelta(seconds=ticks - before_ticks)
            if abs(now - expected) > self.tolerance and now >= before:
                return ClockStep(expected, now, "wall_clock_left_monotonic_clock")
        if now < before:
            return ClockStep(max(expected, before), now, "earlier_than_last_reading")
        return None
