"""What a dispute's bundle holds (R17): its table's stream and the dispute's own events.

- the table's stream from its first event (every round re-derived from the table's opening)
  through the last disputed round, or, when the opening held decks (R20), through those
  ``deck_held`` events: they and ``dispute_opened`` were written in one transaction, so they sit
  just before it in the global log and its checkpoint's head commits to them;
- the dispute's ``dispute_opened`` and (once closed) ``dispute_closed`` of the ``system``
  stream, each with the checkpoint the service signed at it (every system event is sealed when
  written).

The record the manifest carries is folded from those events, in the export's one read snapshot
(``audit.disputes``), so it is exactly what the bundle's events give.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from audit.disputes import TYPES as DISPUTE_TYPES
from audit.disputes import DisputeRecords
from audit.sources import AuditUsageError, stream_rows
from eventlog.system_events import SYSTEM_STREAM


@dataclass
class DisputeRows:
    record: dict[str, Any]
    table: str
    from_round: int
    to_round: int
    rows: Iterator[tuple[Any, ...]]  # the table's and the dispute's, in global order


def dispute_rows(connection: Any, mark: str, shown: str, dispute_id: str) -> DisputeRows:
    own: list[tuple[Any, ...]] = []
    records = DisputeRecords()
    for row in stream_rows(connection, mark, SYSTEM_STREAM):
        if row[3] not in DISPUTE_TYPES:
            continue
        payload = json.loads(row[5])
        if payload.get("dispute_id") == dispute_id:
            records.add(row[0], row[3], payload)
            own.append(row)
    record = records.found.get(dispute_id)
    if record is None:
        raise AuditUsageError(f"no dispute {dispute_id} in {shown}")
    table, rounds = str(record["table_id"]), list(record["rounds"])
    opened_at = int(record["position"])
    held = any(d.get("hold") == "held" for d in record.get("decks") or [])
    last = max(rounds)

    def table_rows() -> Iterator[tuple[Any, ...]]:
        for row in stream_rows(connection, mark, table):
            if held:
                if row[0] >= opened_at:
                    return
            elif row[3] == "round_started" and json.loads(row[5]).get("round", 0) > last:
                return
            yield row

    merged = heapq.merge(table_rows(), iter(own), key=lambda row: row[0])
    return DisputeRows(record, table, min(rounds), last, merged)
