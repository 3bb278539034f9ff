"""``--unsealed-after SECONDS``: the follower's look at the rows no checkpoint covers yet.

The follower judges sealed rows only (``audit.follow``), so an event an insider appends at the
tail of the log, with the published hash recipe but without the key, is never judged while no
checkpoint covers it. ``audit.seal`` says what a running service may leave unsealed: the events
of rounds still in progress and the service's lifecycle events. A tail that holds anything else
(a round end, a system note, a table fact outside any round) and stays so for SECONDS is the
finding ``verify --allow-unsealed-tail`` would make (``chain.unsealed``), once per tail.

Why a delay, and why opt-in: a table fact between rounds (a buy-in, a cash-out) is sealed only
by the next round's end anywhere in the casino or by the service's stop (docs/audit.md, "Every
round sealed"), so a casino gone quiet right after one holds an unsealed tail for as long as it
stays quiet. SECONDS is how long the regulator lets that last before calling it a finding.
"""

from __future__ import annotations

import copy
import time
from typing import Any

from audit.findings import Finding
from audit.follow_journal import FollowState
from audit.follow_log import LiveLog
from audit.row_reading import payload_of
from audit.seal import IN_ROUND, Seal
from eventlog.system_events import SYSTEM_STREAM


class TailWatch:
    """How long the tail after the last verified checkpoint has stood, and its verdict."""

    def __init__(self, after: float) -> None:
        self.after = after
        self._since: tuple[int, float] | None = None  # (position reached, first seen)
        self._reported: int | None = None

    def judge(self, log: LiveLog, seal: Seal, state: FollowState) -> list[Finding]:
        """The tail's finding, once it has stood ``after`` seconds and holds more than rounds
        in progress; nothing otherwise."""
        end = log.head_position()
        if end <= state.position:
            self._since = None
            return []
        if self._since is None or self._since[0] != state.position:
            self._since = (state.position, time.monotonic())
            return []
        if time.monotonic() - self._since[1] < self.after or self._reported == state.position:
            return []
        findings = _judge(log.rows(state.position, end), seal, state)
        if findings:
            self._reported = state.position
        return findings


def _judge(rows: Any, seal: Seal, state: FollowState) -> list[Finding]:
    marks = copy.deepcopy(seal)  # the verified rows' marks stay as they are
    count, first = 0, None
    for row in rows:
        row = tuple(row)
        count += 1
        first = row[0] if first is None else first
        if row[1] == SYSTEM_STREAM:
            marks.system(row)
            continue
        marks.last_table = row[0]
        if row[3] not in IN_ROUND:
            marks.table_mark(row, payload_of(row))
    found, _accepted = marks.judge(state.position, count, first, max(state.checkpoints, 1), True)
    return list(found)
