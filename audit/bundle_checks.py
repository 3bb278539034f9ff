"""A bundle's own parts checked, beyond its events and checkpoints (R17): the body's digest, the
manifest's seal, a dispute's record and the recall of its rounds.

- ``body_sha256``: the SHA-256 of every line after the manifest, as the file holds them; the
  manifest states it, the reader computes it again (``bundle.body``).
- ``seal``: the casino's signing key over the SHA-256 of the manifest's canonical JSON (the
  ``seal`` itself left out; ``eventlog.canonical.bundle_manifest_message``). Since the manifest
  holds the body's digest, one signature covers every byte of the file. Checked with the key the
  audit's checkpoints end with (a rotation followed included) (``bundle.seal``).
- ``dispute``: folded again from the dispute's own ``dispute_opened`` / ``dispute_closed`` events
  in the bundle (hashed, chained and sealed like every event) and compared field by field; each
  deck the opening held must have its ``deck_held`` event, naming the dispute, in the bundle
  (``bundle.dispute``). A dispute bundle's scope is the dispute's table and rounds
  (``bundle.scope``).
- ``recall``: each disputed round laid out again from the bundle's events
  (``audit.round_records``) and compared (``bundle.recall``): the recall is derived, never trusted.

Bundles of format 1 (before sealing) carry no digest, no seal and no dispute events: their events,
checkpoints, figures and recall are checked as above, and the report names what is not covered.
"""

from __future__ import annotations

import contextlib
import json
from hashlib import sha256
from typing import Any

from audit.disputes import TYPES as DISPUTE_TYPES
from audit.disputes import DisputeRecords
from audit.findings import Finding
from audit.round_records import RoundRecords
from eventlog.keys import bundle_seal_holds, key_id
from eventlog.system_events import SYSTEM_STREAM

_DISPUTE_ROWS = DISPUTE_TYPES | {"deck_held"}
_UNREADABLE = (ValueError, TypeError, KeyError, AttributeError, IndexError)
#: What a manifest without a seal carries as written.
UNSEALED_PARTS = "its export time, source, software version and scope"


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def manifest_digest(manifest: dict[str, Any]) -> str:
    """The SHA-256 the seal signs: the manifest's canonical JSON without its ``seal``."""
    unsealed = {k: v for k, v in manifest.items() if k != "seal"}
    return sha256(canonical(unsealed).encode("ascii")).hexdigest()


class BundleChecks:
    """Fed every body line and every event row of a bundle as the audit reads them; then the
    findings about its manifest's parts."""

    def __init__(self, manifest: dict[str, Any], format_version: int) -> None:
        self.manifest = manifest
        self.sealed_format = format_version >= 2
        self._body = sha256()
        dispute = manifest.get("dispute")
        self.dispute = dispute if isinstance(dispute, dict) else None
        self.dispute_id = None if self.dispute is None else self.dispute.get("dispute_id")
        self._records = DisputeRecords()
        self._dispute_rows: list[int] = []
        self._holds: dict[str, int] = {}  # deck id: position of its deck_held naming the dispute
        self._recall = self._recall_collector()
        self._unreadable: str | None = None
        #: What is not covered, completed by ``findings`` after the pass.
        self.notes: list[str] = []

    def _recall_collector(self) -> RoundRecords | None:
        recall = self.manifest.get("recall")
        scope = self.manifest.get("scope") or {}
        table = scope.get("table")
        if not isinstance(recall, list) or not isinstance(table, str):
            return None
        numbers = [r.get("round") for r in recall if isinstance(r, dict)]
        wanted = [n for n in numbers if type(n) is int]
        if self.dispute is not None and isinstance(self.dispute.get("rounds"), list):
            wanted += [n for n in self.dispute["rounds"] if type(n) is int]
        return RoundRecords(table, sorted(set(wanted)))

    def line(self, text: str) -> None:
        self._body.update(text.encode("utf-8"))

    def row(self, row: Any) -> None:
        """An event row of the bundle (already in the audit's hands: this only reads it)."""
        # A row that does not read is the chain's finding; what depends on it is not derived.
        if self.dispute_id is not None and row[3] in _DISPUTE_ROWS:
            with contextlib.suppress(*_UNREADABLE):
                self._dispute_row(row)
        if self._recall is not None and row[1] == self._recall.table_id:
            try:
                self._recall.add(row)
            except _UNREADABLE as error:
                self._unreadable = f"the event at position {row[0]} does not read ({error})"
                self._recall = None

    def _dispute_row(self, row: Any) -> None:
        payload = json.loads(row[5])
        if payload.get("dispute_id") != self.dispute_id:
            return
        if row[1] == SYSTEM_STREAM and row[3] in DISPUTE_TYPES:
            self._records.add(row[0], row[3], payload)
            self._dispute_rows.append(row[0])
        elif row[1] != SYSTEM_STREAM and row[3] == "deck_held":
            self._holds[str(payload.get("deck_id"))] = row[0]

    # --- after the pass ------------------------------------------------------------------------

    def findings(self, key: bytes | None) -> list[Finding]:
        """After the pass: the findings, and what is not covered added to :attr:`notes`."""
        out = self._body_and_seal(key) if self.sealed_format else []
        out += self._dispute()
        out += self._recalled()
        self.notes.extend(self._not_covered())
        return out

    def _not_covered(self) -> list[str]:
        """What this bundle carries that no signature or derivation covers (said in the report)."""
        notes = []
        if not self.sealed_format:
            notes.append(
                "the manifest is not sealed (bundle format 1): "
                f"{UNSEALED_PARTS} are carried as written"
            )
            if self.dispute is not None and not self._dispute_rows:
                notes.append(
                    "the dispute record (reason, player, outcome, who) is carried as written: "
                    "this format 1 bundle holds no dispute events"
                )
        elif "seal" not in self.manifest and self.dispute is None:
            notes.append(
                "the manifest is not sealed (exported without the signing key): "
                f"{UNSEALED_PARTS} are carried as written"
            )
        return notes

    def _body_and_seal(self, key: bytes | None) -> list[Finding]:
        out = []
        stated = self.manifest.get("body_sha256")
        found = self._body.hexdigest()
        if stated != found:
            out.append(
                _finding(
                    "bundle.body",
                    f"the lines after the manifest do not have the digest the manifest states "
                    f"({str(stated)[:16]}…, they give {found[:16]}…): a line was changed, "
                    "added or removed",
                )
            )
        seal = self.manifest.get("seal")
        if seal is None:
            if self.dispute is not None:
                out.append(_finding("bundle.seal", "a dispute bundle must be sealed: no seal"))
            return out
        if not isinstance(seal, dict) or not all(
            isinstance(seal.get(k), str) for k in ("key_id", "signature")
        ):
            return [*out, _finding("bundle.seal", "the seal is unreadable")]
        if key is None:
            return out  # no key: the summary says signatures were not checked
        if seal["key_id"] != key_id(key):
            out.append(
                _finding(
                    "bundle.seal",
                    f"the manifest is sealed by key {seal['key_id']}, not by {key_id(key)}, "
                    "the key the checkpoints were checked with",
                )
            )
        elif not bundle_seal_holds(key, seal["signature"], manifest_digest(self.manifest)):
            out.append(
                _finding(
                    "bundle.seal",
                    "the manifest's seal does not hold: the manifest was changed after it was "
                    "signed",
                )
            )
        return out

    def _dispute(self) -> list[Finding]:
        """The record against the dispute's events: always in format 2; in format 1 when the
        bundle holds them (else the report says the record is not covered)."""
        if self.dispute is None or not (self.sealed_format or self._dispute_rows):
            return []
        derived = self._records.found.get(str(self.dispute_id))
        if derived is None:
            return [
                _finding(
                    "bundle.dispute",
                    f"the manifest names dispute {self.dispute_id}, but its dispute_opened event "
                    "is not in the bundle: the record is not backed by the log",
                )
            ]
        out = []
        stated = json.loads(canonical(self.dispute))
        derived = json.loads(canonical(derived))
        for name in sorted(set(stated) | set(derived)):
            if stated.get(name) != derived.get(name):
                out.append(
                    _finding(
                        "bundle.dispute",
                        f"the manifest's dispute {name} says {_short(stated.get(name))}, the "
                        f"dispute's events give {_short(derived.get(name))}",
                        position=self._dispute_rows[0],
                    )
                )
        for deck in derived.get("decks") or []:
            held = isinstance(deck, dict) and deck.get("hold") == "held"
            if held and str(deck.get("deck_id")) not in self._holds:
                out.append(
                    _finding(
                        "bundle.dispute",
                        f"deck {deck.get('deck_id')} was held by the dispute's opening, but its "
                        "deck_held event is not in the bundle",
                        position=self._dispute_rows[0],
                    )
                )
        out += self._scope(derived)
        return out

    def _scope(self, record: dict[str, Any]) -> list[Finding]:
        scope = self.manifest.get("scope") or {}
        rounds = record.get("rounds") or [None]
        wanted = {"table": record.get("table_id"), "from_round": min(rounds, key=_order)}
        wanted["to_round"] = max(rounds, key=_order)
        return [
            _finding(
                "bundle.scope",
                f"the manifest's scope {name} is {_short(scope.get(name))}, the dispute's is "
                f"{_short(value)}: the audit would not re-derive the disputed rounds",
            )
            for name, value in wanted.items()
            if scope.get(name) != value
        ]

    def _recalled(self) -> list[Finding]:
        recall = self.manifest.get("recall")
        if not isinstance(recall, list):
            return []
        if self._recall is None:
            why = self._unreadable or "the manifest names no table"
            return [_finding("bundle.recall", f"the recall cannot be derived again: {why}")]
        derived = json.loads(canonical(self._recall.records()))
        out = []
        stated_rounds = []
        for entry in recall:
            number = entry.get("round") if isinstance(entry, dict) else None
            stated_rounds.append(number)
            again = derived.get(str(number))
            if again is None:
                out.append(
                    _finding(
                        "bundle.recall",
                        f"the recall of round {_short(number)} is not a round the bundle's "
                        "events hold",
                    )
                )
                continue
            where = _first_difference(json.loads(canonical(entry)), again)
            if where is not None:
                out.append(
                    _finding(
                        "bundle.recall",
                        f"the recall of round {number} differs from the bundle's events at {where}",
                        round=number,
                    )
                )
        if self.dispute is not None:
            disputed = self.dispute.get("rounds")
            if isinstance(disputed, list) and stated_rounds != disputed:
                out.append(
                    _finding(
                        "bundle.recall",
                        f"the recall lays out rounds {_short(stated_rounds)}, the dispute holds "
                        f"rounds {_short(disputed)}",
                    )
                )
        return out


def _first_difference(stated: Any, derived: Any, where: str = "") -> str | None:
    """The path of the first value that differs (``events[3].seat``), or ``None``."""
    if isinstance(stated, dict) and isinstance(derived, dict):
        for name in sorted(set(stated) | set(derived), key=str):
            found = _first_difference(stated.get(name), derived.get(name), f"{where}.{name}")
            if found is not None:
                return found
        return None
    if isinstance(stated, list) and isinstance(derived, list):
        for index in range(max(len(stated), len(derived))):
            a = stated[index] if index < len(stated) else None
            b = derived[index] if index < len(derived) else None
            found = _first_difference(a, b, f"{where}[{index}]")
            if found is not None:
                return found
        return None
    if stated == derived and type(stated) is type(derived):
        return None
    return f"{where.lstrip('.') or 'the record'} (it says {_short(stated)}, the events give " + (
        f"{_short(derived)})"
    )


def _order(value: Any) -> tuple[int, Any]:
    return (0, value) if type(value) is int else (1, 0)


def _finding(
    clause: str, message: str, position: int | None = None, round: int | None = None
) -> Finding:
    return Finding(kind="integrity", clause=clause, message=message, position=position, round=round)


def _short(value: Any) -> str:
    text = json.dumps(value, separators=(",", ":"))
    return text if len(text) <= 120 else text[:117] + "..."
