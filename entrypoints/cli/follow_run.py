"""What both ways of running ``paigow audit follow`` share (one log: ``audit_follow.py``; an
archive of properties: ``audit_archive.py``): running until a signal stops it, a checkpoint's
lag and the line of a verified pass."""

from __future__ import annotations

import argparse
import signal
import time
from collections.abc import Callable
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


def until_stopped(
    follow: Callable[..., int],
    followed: Any,
    out: Any,
    save: Callable[[], None],
    args: argparse.Namespace,
) -> int:
    """``follow`` (``audit.follow.follow`` or ``follow_archive``) over ``followed``, saying what
    it finds with ``out`` (``outcome`` and ``verified``) as the options ask, until a signal
    stops it; its exit status. The signals' former handlers come back after."""
    stop = Stop()
    try:
        return follow(
            followed,
            out.outcome,
            save,
            stop,
            once=args.once,
            exit_on_finding=args.exit_on_finding,
            saved=out.verified,
        )
    finally:
        stop.restore()


def verified_line(outcome: Any) -> tuple[str, dict[str, Any]]:
    """The line of a pass that verified up to a checkpoint: its text and its JSON."""
    seconds = lag(outcome.signed_at)
    return (
        f"verified: up to checkpoint at position {outcome.checkpoint} ({outcome.events} "
        f"events, {outcome.checkpoints} checkpoint(s)) in {outcome.seconds:.3f} s",
        {
            "verified": outcome.checkpoint,
            "events": outcome.events,
            "checkpoints": outcome.checkpoints,
            "seconds": round(outcome.seconds, 4),
            "lag": None if seconds is None else round(seconds, 4),
        },
    )
