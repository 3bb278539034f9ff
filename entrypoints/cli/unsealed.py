"""``paigow db verify``'s unsealed tail: the events after the last checkpoint, judged by the
audit's own rule (``audit.seal``), stricter on one point.

A running service seals every event but those of rounds still in progress (a round's end, a table
fact between rounds, every system event: docs/store.md), so only those may be unsealed. The
audit's ``--allow-unsealed-tail`` also lets a trailing run of service lifecycle events pass (logs
written before every stop was sealed); ``db verify`` does not: such a log cannot be written on
until its tail is adopted (``paigow db adopt``), and the operator's check says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from audit.seal import IN_ROUND, Seal
from eventlog.canonical import loads_json
from eventlog.system_events import SYSTEM_STREAM


class UnsealedTail:
    """Watches the log's rows in position order (``store.verify(observe=...)``)."""

    def __init__(self, shown_url: str | None = None) -> None:
        #: The store's URL (password masked), for the command the refusal names.
        self.adopt = (
            "`paigow db adopt`" if shown_url is None else f"`paigow db adopt --db {shown_url}`"
        )
        self.seal = Seal()
        self.first: int | None = None
        self.last = 0

    def row(self, row: Sequence[Any]) -> None:
        position = int(row[0])
        if self.first is None:
            self.first = position
        self.last = position
        if row[1] == SYSTEM_STREAM:
            self.seal.system(row)
            return
        self.seal.last_table = position
        if row[3] not in IN_ROUND:
            payload = loads_json(row[5]) if row[3] == "round_started" else None
            self.seal.table_mark(row, payload)

    def judge(self, sealed: int, checkpoints: int) -> tuple[str | None, str]:
        """(why the tail is refused, or ``None``; what to add to the ``ok`` line)."""
        if self.first is None:
            return None, ""  # an empty log
        first = max(sealed + 1, self.first)
        unsealed = self.last - first + 1
        if unsealed <= 0:
            return None, ""
        findings, accepted = self.seal.judge(sealed, unsealed, first, checkpoints, True)
        if findings:
            return findings[0].message, ""
        assert accepted is not None
        if accepted["lifecycle_events"]:
            return (
                f"unsealed: {unsealed} events from position {first}: service lifecycle events "
                "after the last checkpoint (a log written before every stop was sealed: check "
                f"it, then {self.adopt})"
            ), ""
        rounds = ", ".join(accepted["rounds_in_progress"])
        return (
            None,
            f"; unsealed: {unsealed} events from position {first} (rounds in progress: {rounds})",
        )
