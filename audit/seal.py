"""Every round sealed (issue 17): what an audit says about the events after the last checkpoint
that held.

The service signs a checkpoint at each round's end (``round_closed``, ``round_voided``), after
each note it adds to the system stream, and when it stops. So in a finished log every event is
covered by a signed head at or after it: events after the last one were added (or their
checkpoints removed) by someone without the key. ``paigow audit verify`` fails them
("unsealed: N events from position P"); with ``--allow-unsealed-tail`` (a live table audited
while it plays) it accepts only what a running service has not sealed yet:

- the events of rounds still in progress at the log's end (a table's events from its last
  ``round_started`` on, when no round end follows); a table fact between rounds (a buy-in, a
  cash-out, a seat, a rules change) is not part of a round: it is sealed by the next round's end
  or the service's stop, and until then the audit fails it even with the flag; and
- a trailing run of the system stream's service lifecycle events (``service_started``,
  ``store_opened``, ``service_stopped``): logs written before the service sealed its stop end
  with an unsealed ``service_stopped``.

A round end, any other system event, or a log with no checkpoint at all is never accepted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from audit.findings import Finding
from eventlog.system_events import LIFECYCLE_TYPES

ROUND_ENDS = frozenset({"round_closed", "round_voided"})
#: A table's events that only ever come inside a round, between its start and its end. Every
#: other table event (a seat, a buy-in, a rules change, the books of issue 18, any new kind) is
#: looked at: recorded while its table has no round open, it belongs to no round in progress.
IN_ROUND = frozenset(
    {
        "bank_offered",
        "bank_accepted",
        "bank_declined",
        "bet_placed",
        "side_bet_placed",
        "wager_returned",
        "bets_closed",
        "stacks_dealt",
        "dice_rolled",
        "stacks_assigned",
        "hand_set",
        "foul_reset",
        "hand_forfeited",
        "banker_hand_set",
        "round_settled",
        "commission_taken",
        "side_bet_settled",
        "envy_paid",
        "meter_changed",
    }
)


@dataclass
class Seal:
    """Where rounds started and ended, and the system events, as the pass meets them."""

    last_end: int = 0  # the last round end of any table
    last_outside: int = 0  # the last table fact recorded while its table had no round open
    last_table: int = 0  # the last table event
    last_system: int = 0  # the last system event that is not a lifecycle event
    lifecycle: list[int] = field(default_factory=list)  # positions of lifecycle events
    started: dict[str, tuple[int, Any]] = field(default_factory=dict)  # stream: (pos, round)
    ended: dict[str, int] = field(default_factory=dict)

    def table_mark(self, row: Sequence[Any], payload: dict[str, Any] | None) -> None:
        position = row[0] if type(row[0]) is int else 0
        kind = row[3]
        if kind == "round_started":
            number = payload.get("round") if payload is not None else None
            self.started[row[1]] = (position, number)
        elif kind in ROUND_ENDS:
            self.last_end = max(self.last_end, position)
            self.ended[row[1]] = position
        elif self.started.get(row[1], (0, None))[0] <= self.ended.get(row[1], 0):
            self.last_outside = max(self.last_outside, position)

    def system(self, row: Sequence[Any]) -> None:
        position = row[0] if type(row[0]) is int else 0
        if row[3] in LIFECYCLE_TYPES:
            self.lifecycle.append(position)
        else:
            self.last_system = max(self.last_system, position)

    def in_progress(self) -> list[str]:
        return [
            f"{stream} round {number}"
            for stream, (position, number) in sorted(self.started.items())
            if position > self.ended.get(stream, 0)
        ]

    def judge(
        self, sealed: int, unsealed: int, first: int | None, checkpoints: int, allow_tail: bool
    ) -> tuple[list[Finding], dict[str, Any] | None]:
        """The findings about the unsealed tail, and (when it is accepted) what was accepted."""
        if unsealed == 0 and checkpoints:
            return [], None
        if not checkpoints or sealed == 0:
            what = f"{unsealed} events from position {first}" if unsealed else "an empty log"
            return [
                _unsealed(
                    unsealed,
                    first,
                    f"unsealed: {what}: the log holds no checkpoint that holds, so nothing in it "
                    "is vouched for by the casino's key (a log with no checkpoint is never OK)",
                )
            ], None
        message = f"unsealed: {unsealed} events from position {first}"
        if not allow_tail:
            return [
                _unsealed(
                    unsealed,
                    first,
                    f"{message}: no signed checkpoint covers them (added after the last "
                    f"checkpoint at position {sealed}, or their checkpoints were removed)",
                )
            ], None
        refused = []
        if self.last_end > sealed:
            refused.append(f"a round ends unsealed at position {self.last_end}")
        if self.last_outside > sealed:
            refused.append(
                f"a table event outside any round in progress at position {self.last_outside}"
            )
        if self.last_system > sealed:
            refused.append(
                f"a system event other than the service's lifecycle at position {self.last_system}"
            )
        trailing = [p for p in self.lifecycle if p > sealed]
        if trailing and trailing[0] < self.last_table:
            refused.append(
                f"a lifecycle event at position {trailing[0]} is followed by table events"
            )
        if refused:
            return [
                _unsealed(
                    unsealed,
                    first,
                    f"{message}: not only rounds in progress ({'; '.join(refused)})",
                )
            ], None
        rounds = self.in_progress()
        return [], {
            "events": unsealed,
            "from": first,
            "rounds_in_progress": rounds,
            "lifecycle_events": len(trailing),
        }


def _unsealed(count: int, first: int | None, message: str) -> Finding:
    return Finding(
        kind="integrity",
        clause="chain.unsealed",
        message=message,
        position=first,
        last_position=None if first is None or count == 0 else first + count - 1,
    )


def describe(tail: dict[str, Any]) -> str:
    """The words for an accepted unsealed tail (the summary says so)."""
    parts = []
    if tail["rounds_in_progress"]:
        parts.append("rounds in progress: " + ", ".join(tail["rounds_in_progress"]))
    if tail["lifecycle_events"]:
        parts.append(
            f"{tail['lifecycle_events']} service lifecycle event(s) of the system stream after "
            "the last checkpoint (a log written before every stop was sealed)"
        )
    return f"unsealed tail allowed: {tail['events']} events from position {tail['from']}" + (
        f" ({'; '.join(parts)})" if parts else ""
    )
