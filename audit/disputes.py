"""R17: a dispute's record, folded from its own events of the ``system`` stream.

The service shows this record (``paigow dispute show``, ``GET /disputes/{id}``), and a dispute
bundle carries it in its manifest; ``paigow audit verify --bundle`` folds it again from the
bundle's sealed ``dispute_opened`` and ``dispute_closed`` events and compares, so the record a
regulator reads is the one the events give, field by field.
"""

from __future__ import annotations

from typing import Any

OPENED = "dispute_opened"
CLOSED = "dispute_closed"
TYPES = frozenset({OPENED, CLOSED})


class DisputeRecords:
    """Every dispute met, by id, in the order opened: the opening's fields, ``status`` (open or
    closed), ``opened_at``, ``position`` (the opening's global position), ``opened_by``, and once
    closed its ``outcome``, ``closed_at`` and ``closed_by``."""

    def __init__(self) -> None:
        self.found: dict[str, dict[str, Any]] = {}

    def add(self, position: int, kind: str, payload: dict[str, Any]) -> None:
        if kind == OPENED:
            record = dict(payload)
            record.pop("type", None)
            record.update(status="open", opened_at=record.pop("at"), position=position)
            record["opened_by"] = {"id": record.pop("actor_id"), "role": record.pop("actor_role")}
            self.found[str(record["dispute_id"])] = record
        elif kind == CLOSED and payload.get("dispute_id") in self.found:
            self.found[payload["dispute_id"]].update(
                status="closed",
                outcome=payload["outcome"],
                closed_at=payload["at"],
                closed_by={"id": payload["actor_id"], "role": payload["actor_role"]},
            )
