"""What both ways of running ``paigow audit follow`` share (one log: ``audit_follow.py``; an
archive of properties: ``audit_archive.py``): stopping on a signal, and a checkpoint's lag."""

from __future__ import annotations

import signal
import time
from datetime import datetime
from typing import Any


class Stop:
    """SIGTERM and SIGINT ask the follower to stop after its current pass (state saved)."""

    def __init__(self) -> None:
        self.asked = False
        self._before = {s: signal.signal(s, self._ask) for s in (signal.SIGTERM, signal.SIGINT)}

    def _ask(self, _number: int, _frame: Any) -> None:
        self.asked = True

    def __call__(self) -> bool:
        return self.asked

    def restore(self) -> None:
        for number, handler in self._before.items():
            signal.signal(number, handler)


def lag(signed_at: str | None) -> float | None:
    """Seconds from the checkpoint's signing (the casino's clock) to now: the latency when the
    two clocks agree (JSON only: a simulated casino's clock says nothing of it)."""
    if not signed_at:
        return None
    try:
        at = datetime.fromisoformat(signed_at)
    except ValueError:
        return None
    return time.time() - at.timestamp() if at.tzinfo is not None else None
