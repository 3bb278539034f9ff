"""What a command did: shared by the single command path (``service_layer/service.py``) and
batches (``service_layer/batch_execution.py``). How its events reach the store is the log
format's: ``eventlog.mapper.to_new_event`` and ``eventlog.envelope.wrote``."""

from __future__ import annotations

from dataclasses import dataclass

from table_core.ports import RecordedEvent
from table_core.table import TableState

#: Events after which the store signs a checkpoint over the chain head (the end of a round).
ROUND_ENDS = frozenset({"round_closed", "round_voided"})


@dataclass(frozen=True)
class CommandResult:
    """What a command did: its recorded events (the first ones, on a retry) and the new state."""

    events: list[RecordedEvent]
    state: TableState
    replayed: bool = False


def with_skipped(
    count: int, skipped: set[int], done: list[CommandResult], before: TableState
) -> list[CommandResult]:
    """One result per batch item: a skipped deferred item wrote nothing and left the state as
    the item before it did."""
    if not skipped:
        return done
    results: list[CommandResult] = []
    answers = iter(done)
    for index in range(count):
        if index in skipped:
            results.append(CommandResult([], results[-1].state if results else before))
        else:
            results.append(next(answers))
    return results
