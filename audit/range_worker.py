"""A worker of ``audit.position_ranges``: reads its stretches of the log, checks each one's chain
and signatures, and re-derives each table's part of it (the fold and decide steps of
``audit.ranges``' worker, whose loop it keeps).

Its table ranges start from the main process's word: ``fresh`` (the table's first range) or the
state the table's previous range hands on; where a range's state goes is the main process's
``end`` (the worker of the next stretch that holds the table, or none: the table is closed).
A worker reads ahead of its folds by at most ``_AHEAD`` stretches (its memory), and reads before
it decides: the main process takes the stretches in order, and the states wait on that.
"""

from __future__ import annotations

import traceback
from collections import deque
from typing import Any

from audit.range_chain import check_range
from audit.ranges import _BATCH, RangeAudit, _Task, _Worker
from audit.sources import LogRanges
from audit.tables import InRange
from audit.worker_results import rare_for_good
from table_core.ports import Upcasters

#: Stretches a worker holds read and not yet folded.
_AHEAD = 2


class _NoCredits:
    """The rows are the worker's own: no batch is held back."""

    def release(self) -> None:
        return None


class RangeReader(_Worker):
    def __init__(self, index: int, inboxes: list[Any], results: Any, in_range: InRange,
                 upcasters: Upcasters | None, ranges: LogRanges,
                 table: str | None) -> None:  # fmt: skip
        super().__init__(index, inboxes, _NoCredits(), results, in_range, upcasters)
        self.ranges, self.table = ranges, table
        self.to_read: deque[tuple[Any, ...]] = deque()
        self.next_number: dict[tuple[str, int], int] = {}

    def _finished(self) -> bool:
        return super()._finished() and not self.to_read

    def _next_range(self, key: tuple[str, int]) -> int:
        return self.next_number.pop(key)

    def _take(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "read":
            self.to_read.append(message[1:])
        elif kind == "fresh":  # the table's first range
            self.tasks.setdefault((message[1], message[2]), _Task()).audit = RangeAudit(
                message[1], self.in_range
            )
        else:  # where this range's state goes: (worker, stretch), or None: the table closed
            if kind == "end" and message[3] is not None:
                self.next_number[(message[1], message[2])] = message[4]
            super()._take(message)

    def _ahead(self) -> bool:
        """A stretch read, while fewer than ``_AHEAD`` wait to be folded."""
        if self.to_read and len({k[1] for k, t in self.tasks.items() if t.ready}) < _AHEAD:
            self._read()
            return True
        return False

    def _read(self) -> None:
        number, first, last, key, witness = self.to_read.popleft()
        ranges = self.ranges
        checked, prepared = check_range(
            ranges.rows(first, last), ranges.checkpoints(first, last), witness, number, first,
            last, key, self.table, self.upcasters,
        )  # fmt: skip
        for table, rows in prepared.items():
            task = self.tasks.setdefault((table, number), _Task())
            task.ready.extend(rows[i : i + _BATCH] for i in range(0, len(rows), _BATCH))
        self.results.put(("chain", number, checked))


def run_worker(index: int, inboxes: list[Any], results: Any, in_range: InRange,
               upcasters: Upcasters | None, ranges: LogRanges,
               table: str | None) -> None:  # fmt: skip
    rare_for_good()  # as ``audit.ranges``' workers: many live states
    try:
        RangeReader(index, inboxes, results, in_range, upcasters, ranges, table).run()
    except Exception:  # reported to the main process, which raises it
        results.put(("error", traceback.format_exc()))
