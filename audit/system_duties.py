"""Duties the audit checks across the system stream and the tables' streams, in one pass in global
position order:

- R5/R19, software change control: every ``software_version_changed`` follows a waiting
  ``software_version_authorised`` of exactly its new version (the rule of
  ``adapters/software_versions.py``: each change consumes the authorisation it names) and names
  that authorisation's position. A change with none before it is a finding; so is one naming
  another position. A log that starts at a purge boundary may have lost the authorisation with its
  head: a change naming a position before the log's first is accepted.
- R1/R5, a failed verification the service recorded (``verification_failed``: an event no holder
  of the key appended, a log cut or rewritten under it, a forged snapshot) is a finding of its
  own, naming the position the service found: the log may verify since (a cut log holds as a
  chain), the service's own record of it still stands.
- R17 + R20, a disputed round's deck is held: when ``dispute_opened`` is recorded, every deck that
  dealt one of its rounds (``deck_dealt``) is held (by this dispute or an earlier hold) or was
  destroyed before; otherwise a finding names the dispute, the round and the deck. A deck released
  while a dispute that held it is open is a finding too.

A bundle of one table holds no system stream, so neither is checked there (the whole log's bundle
or the database is).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from audit.findings import Finding

#: The table rows this checker reads; every other row passes by at the cost of one set lookup.
TABLE_TYPES = frozenset({"deck_dealt", "deck_held", "deck_released", "deck_retired"})


class SystemDuties:
    """Watches rows, in global position order, for the duties above."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self._first: int | None = None
        self._waiting: dict[str, int] = {}  # version -> position of its waiting authorisation
        # table -> deck -> runs of consecutive rounds dealt ([first, last]): a deck deals a run
        # of rounds, so memory follows the decks, not the log's length (issue 22).
        self._dealt: dict[str, dict[str, list[list[int]]]] = {}
        self._held: dict[tuple[str, str], str | None] = {}  # (table, deck) -> hold's dispute
        self._destroyed: set[tuple[str, str]] = set()
        self._open: set[str] = set()  # disputes open

    def table_row(self, row: Sequence[Any], payload: Mapping[str, Any] | None) -> None:
        if self._first is None and type(row[0]) is int:
            self._first = row[0]
        if row[3] not in TABLE_TYPES or payload is None:
            return
        key = (str(row[1]), str(payload.get("deck_id")))
        kind = row[3]
        if kind == "deck_dealt":
            number = payload.get("round")
            if type(number) is int:  # else the table's re-derivation reports the payload
                self._deal(key[0], key[1], number)
        elif kind == "deck_held":
            self._held[key] = payload.get("dispute_id")
        elif kind == "deck_released":
            dispute = self._held.pop(key, None)
            if dispute is not None and dispute in self._open:
                self._note(row, "R20", f"deck {key[1]} released while dispute {dispute} is open")
        elif payload.get("destroyed"):
            self._destroyed.add(key)

    def system_row(self, row: Sequence[Any], payload: Mapping[str, Any]) -> None:
        if self._first is None and type(row[0]) is int:
            self._first = row[0]
        kind = row[3]
        if kind == "software_version_authorised":
            self._waiting[str(payload["version"])] = row[0]
        elif kind == "software_version_changed":
            self._version_changed(row, payload)
        elif kind == "dispute_opened":
            self._dispute_opened(row, payload)
        elif kind == "dispute_closed":
            self._open.discard(str(payload["dispute_id"]))
        elif kind == "verification_failed":
            self._recorded_failure(row, payload)

    def _recorded_failure(self, row: Sequence[Any], payload: Mapping[str, Any]) -> None:
        where = f"position {payload.get('position')}"
        if payload.get("stream_id") is not None:
            where += f" (stream {payload.get('stream_id')})"
        self.findings.append(
            Finding(
                kind="integrity",
                clause="service.verification_failed",
                message=f"the service recorded a failed verification at {where}: "
                f"{payload.get('problem')}: {payload.get('detail')}; it refused commands from "
                "then on",
                position=row[0] if type(row[0]) is int else None,
                stream_id=row[1] if type(row[1]) is str else None,
                version=row[2] if type(row[2]) is int else None,
                event_type=row[3] if type(row[3]) is str else None,
            )
        )

    def _version_changed(self, row: Sequence[Any], payload: Mapping[str, Any]) -> None:
        old, new = payload["old_version"], str(payload["new_version"])
        named = payload.get("authorisation")
        waiting = self._waiting.pop(new, None)
        if waiting is not None and named == waiting:
            return
        if waiting is None and isinstance(named, int) and named < (self._first or 1):
            return  # authorised before a purge boundary: the head that held it is archived
        if waiting is None:
            message = f"software version {old} -> {new} without a prior authorisation"
        else:
            message = (
                f"software version {old} -> {new} names authorisation {named}, "
                f"the waiting one is at position {waiting}"
            )
        self._note(row, "R19", message)

    def _deal(self, table: str, deck: str, number: int) -> None:
        runs = self._dealt.setdefault(table, {}).setdefault(deck, [])
        if runs and runs[-1][0] <= number <= runs[-1][1] + 1:
            runs[-1][1] = max(runs[-1][1], number)
        else:
            runs.append([number, number])

    def _decks_that_dealt(self, table: str, number: int) -> list[str]:
        decks = self._dealt.get(table, {})
        return sorted(d for d, runs in decks.items() if any(a <= number <= b for a, b in runs))

    def _dispute_opened(self, row: Sequence[Any], payload: Mapping[str, Any]) -> None:
        table, dispute = str(payload["table_id"]), str(payload["dispute_id"])
        self._open.add(dispute)
        for number in payload["rounds"]:
            for deck in self._decks_that_dealt(table, int(number)):
                if (table, deck) in self._held or (table, deck) in self._destroyed:
                    continue
                self._note(
                    row,
                    "R20",
                    f"dispute {dispute}: round {number} of table {table} was dealt from deck "
                    f"{deck}, which is not held from the dispute's opening",
                )

    def _note(self, row: Sequence[Any], clause: str, message: str) -> None:
        self.findings.append(
            Finding(
                kind="procedure",
                clause=clause,
                message=message,
                position=row[0] if type(row[0]) is int else None,
                stream_id=row[1] if type(row[1]) is str else None,
                version=row[2] if type(row[2]) is int else None,
                event_type=row[3] if type(row[3]) is str else None,
            )
        )
