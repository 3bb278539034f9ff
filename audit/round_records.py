"""Rounds laid out from a table's rows alone, in one pass in version order: the state folded up
to each round's first event, then that round's events (``paigow audit recall``, and the recall a
dispute bundle carries, ``audit/bundle.py`` and ``audit/bundle_checks.py``)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from audit.describe import commission_words
from eventlog.mapper import event_to_dict, parse_event
from table_core.errors import DomainError
from table_core.events import Event
from table_core.house_ways import get_house_way
from table_core.table import TableState, fold
from table_core.table.house_way_install import house_way_of

_SKIP = ("type", "schema_version", "table_id", "round", "actor", "at")


def round_record(
    table_id: str, round_number: int, rows: Iterator[Sequence[Any]] | Sequence[Sequence[Any]]
) -> dict[str, Any] | None:
    records = RoundRecords(table_id, [round_number])
    for row in rows:
        if not records.add(row):
            break  # the next round: this one is over
    return records.records().get(round_number)


class RoundRecords:
    """Several rounds' records in one pass over a table's rows in version order (a dispute's
    rounds, from the rows written to its bundle or read back from it): the state folded up to
    each round's first event, then that round's events."""

    def __init__(self, table_id: str, numbers: Sequence[int]) -> None:
        self.table_id = table_id
        self._wanted = set(numbers)
        self._state = TableState()
        self._found: dict[int, tuple[TableState, list[tuple[Sequence[Any], Event]]]] = {}
        self._last = max(numbers, default=0)
        self._done = False

    def add(self, row: Sequence[Any]) -> bool:
        """Take the table's next row; False once every wanted round is over (the rest of the
        rows change none of them)."""
        if self._done:
            return False
        event = parse_event(json.loads(row[5]))
        number = event.round
        if number is not None and number > self._last:
            self._done = True
            return False
        if number in self._wanted:
            if number not in self._found:
                self._found[number] = (self._state, [])
            self._found[number][1].append((row, event))
        self._state = fold([event], self._state)
        return True

    def records(self) -> dict[int, dict[str, Any]]:
        return {
            number: _record(self.table_id, number, state, found)
            for number, (state, found) in sorted(self._found.items())
        }


def _clause_texts(state: TableState) -> Mapping[str, str]:
    """The clauses of the House Way the table plays, by id, as written (an installed file's own
    words); none when the way cannot be read (the audit's verification says why)."""
    if state.rules is None:
        return {}
    try:
        way = house_way_of(state, state.rules.hand)
        return (get_house_way(way) if isinstance(way, str) else way).clauses
    except DomainError:
        return {}


def _record(
    table_id: str, number: int, state: TableState, found: list[tuple[Sequence[Any], Event]]
) -> dict[str, Any]:
    rules = state.rules
    record: dict[str, Any] = {
        "table_id": table_id,
        "round": number,
        "status": "live",
        "started_at": found[0][1].at.isoformat(),
        "seats": {str(seat): player for seat, player in sorted(state.seats.items())},
        "events": [],
    }
    if rules is not None:
        record["rules"] = {
            "version": rules.version,
            "house_way": rules.hand.house_way,
            "variant": rules.variant,
            "commission": commission_words(rules.hand.commission, rules.variant),
            "foul_policy": rules.hand.foul_policy,
            "banking": rules.banking,
            "limits": [rules.limits.min_bet, rules.limits.max_bet],
            "side_bets": sorted(rules.side_bets.offered),
        }
        if rules.hand.house_way_digest is not None:  # a casino's file installed (issue 32)
            record["rules"]["house_way_digest"] = rules.hand.house_way_digest
    clauses = _clause_texts(state)
    for row, event in found:
        data = event_to_dict(event)
        for key in _SKIP:
            data.pop(key, None)
        entry = {
            "global_position": row[0],
            "stream_version": row[2],
            "type": event.type,
            "actor": f"{event.actor.id} ({event.actor.role})",
            **data,
        }
        if data.get("rule") in clauses:  # the clause as the casino printed it (R-HW-1)
            entry["clause_text"] = clauses[data["rule"]]
        record["events"].append(entry)
        if event.type in ("round_closed", "round_voided"):
            record["status"] = "closed" if event.type == "round_closed" else "voided"
            record["ended_at"] = event.at.isoformat()
    return record
