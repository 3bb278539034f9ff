"""Duties the audit checks across the system stream and the tables' streams, in one pass in global
position order:

- R5/R19, software change control over the code's digest: every ``software_version_changed``
  follows a waiting ``software_version_authorised`` of exactly its new digest (the rule of
  ``service_layer/software_versions.py``: each change consumes the authorisation it names) and names
  that authorisation's position. A change with none before it is a finding; so is one naming
  another position. A log that starts at a purge boundary may have lost the authorisation with its
  head: a change naming a position before the log's first is accepted. Changes recorded before
  digests (no ``new_digest``) are matched by their version labels, as they were authorised.
  Every ``service_started`` whose digest is not the one the log runs (the first start's, then
  each change's new digest) is a finding too: a start written behind the service's back, or by
  code that skipped the check. The first start the log holds sets the digest (a log that starts
  at a purge boundary: its first start after it).
- R-DEAL-4, an electronic deal's deck order never repeats (``audit/deck_repeats.py``): judged for
  the deals recorded while the last ``service_started`` named a cryptographic source
  (``rng.draws_from``: ``os.urandom``). After a start naming another source (a seeded simulation,
  a test's fixed decks) or none (a start recorded before sources were named), deals are neither
  judged nor remembered until a start names a cryptographic source again.
- R19, who signed: once the log binds API keys to their tokens (the first ``api_key_created``
  with a ``key_hash``), every event a person caused, on a table or the system stream, names as its
  actor an active key's actor in that key's role at that point of the log, as the
  ``api_key_created``, ``api_key_role_changed`` and ``api_key_revoked`` events before it say; so
  does every signer a slip names (a gaming day's dealer; a fill's or credit's requester, issuer
  and receiver). A key created with no key (``bootstrap``) while another was active is a finding
  too. A log whose head was purged is not checked (its keys' creations are in the archive, which
  is).
- R1/R5, a failed verification the service recorded (``verification_failed``: an event no holder
  of the key appended, a log cut or rewritten under it, a forged snapshot) is a finding of its
  own, naming the position the service found: the log may verify since (a cut log holds as a
  chain), the service's own record of it still stands.
- R17 + R20, a disputed round's deck is held: when ``dispute_opened`` is recorded, every deck that
  dealt one of its rounds (``deck_dealt``) is held (by this dispute or an earlier hold) or was
  destroyed before; otherwise a finding names the dispute, the round and the deck. A deck released
  while a dispute that held it is open is a finding too.

- R18, retention: every ``range_purged`` respected the retention in force at the log's time
  (``audit/retention.py``).

A bundle of one table holds no system stream, so none is checked there (the whole log's bundle
or the database is).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from audit.clock import ClockRule
from audit.deck_repeats import DeckRepeats
from audit.findings import Finding
from audit.retention import RetentionDuty
from audit.row_reading import payload_of
from eventlog.code_identity import is_digest
from eventlog.system_events import upcast_system

#: What a deck-and-dice source draws from when it is a cryptographic generator (adapters/rng.py).
CRYPTOGRAPHIC_SOURCES = frozenset({"os.urandom"})
#: The table rows this checker reads; every other row passes by at the cost of one set lookup.
TABLE_TYPES = frozenset(
    {"deck_dealt", "deck_held", "deck_released", "deck_retired", "stacks_dealt"}
)
#: The roles of API keys (service_layer/operators/rights.py): an actor in one of them is a person.
KEY_ROLES = frozenset({"dealer", "floor", "cage", "auditor", "count", "security"})
#: Table events that name signers besides their actor, and the payload fields naming them.
SIGNER_FIELDS: dict[str, tuple[str, ...]] = {
    "gaming_day_opened": ("dealer",),
    "gaming_day_closed": ("dealer",),
    "tray_filled": ("requested_by", "issued_by", "received_by"),
    "tray_credited": ("requested_by", "issued_by", "received_by"),
}


class SystemDuties:
    """Watches rows, in global position order, for the duties above."""

    def __init__(self, clock: ClockRule | None = None) -> None:
        self.findings: list[Finding] = []
        #: R18; ``clock``: the tables' times read (the log's time a purge is judged by).
        self.retention = RetentionDuty(self.findings, clock)
        self._first: int | None = None
        # ("digest", d) or ("version", v) -> position of its waiting authorisation
        self._waiting: dict[tuple[str, str], int] = {}
        self._started = False  # a service_started seen
        self._running: str | None = None  # the digest the log runs (None: not known)
        self._decks = DeckRepeats()
        self._cryptographic = False  # the last start named a cryptographic source
        # table -> deck -> runs of consecutive rounds dealt ([first, last]): a deck deals a run
        # of rounds, so memory follows the decks, not the log's length (issue 22).
        self._dealt: dict[str, dict[str, list[list[int]]]] = {}
        self._held: dict[tuple[str, str], str | None] = {}  # (table, deck) -> hold's dispute
        self._destroyed: set[tuple[str, str]] = set()
        self._open: set[str] = set()  # disputes open
        # R19: the active keys the log records so far: key id -> (actor, role), and how many
        # active keys each (actor, role) has. ``_keyed``: from the first key bound to a token.
        self._keys: dict[str, tuple[str, str]] = {}
        self._people: dict[tuple[str, str], int] = {}
        self._keyed = False

    def table_row(self, row: Sequence[Any], payload: Mapping[str, Any] | None) -> None:
        if self._first is None and type(row[0]) is int:
            self._first = row[0]
        if self._keyed:
            if payload is None and row[3] in SIGNER_FIELDS:
                payload = payload_of(row)
            self._signed(row, payload)
        if row[3] not in TABLE_TYPES:
            return
        if payload is None:
            payload = payload_of(row)
            if payload is None:
                return
        key = (str(row[1]), str(payload.get("deck_id")))
        kind = row[3]
        if kind == "stacks_dealt":
            self._stacks_dealt(row, payload)
        elif kind == "deck_dealt":
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
        self.retention.system_row(row, payload)
        if self._keyed:
            self._signed(row, None)
        if kind in ("api_key_created", "api_key_revoked", "api_key_role_changed"):
            self._key_event(row, kind, payload)
        elif kind == "software_version_authorised":
            digest = payload.get("digest") or str(payload["version"]).lower()
            if is_digest(str(digest)):  # as service_layer/software_versions.authorised_digest
                self._waiting[("digest", str(digest))] = row[0]
            else:  # a version label, authorised before change control compared digests
                self._waiting[("version", str(payload["version"]))] = row[0]
        elif kind == "software_version_changed":
            self._version_changed(row, payload)
        elif kind == "service_started" and type(row[4]) is int:
            self._service_started(row, upcast_system(kind, row[4], dict(payload)))
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

    # --- R19: who signed ------------------------------------------------------------------------

    def _key_event(self, row: Sequence[Any], kind: str, payload: Mapping[str, Any]) -> None:
        key_id = str(payload.get("key_id"))
        if kind == "api_key_created":
            if not payload.get("key_hash"):
                return  # a key the log did not bind to its token: it authenticates nothing
            if self._first != 1:
                return  # the head was purged: the keys before it are the archive's to check
            if row[8] == "bootstrap" and self._people:
                self._note(row, "R19", f"key {key_id} was created without a key, keys being active")
            self._keyed = True
            self._add(key_id, (str(payload.get("key_actor")), str(payload.get("role"))))
            return
        held = self._keys.pop(key_id, None)
        if held is None:
            return
        self._drop(held)
        if kind == "api_key_role_changed":
            self._add(key_id, (held[0], str(payload.get("new_role"))))

    def _add(self, key_id: str, person: tuple[str, str]) -> None:
        self._keys[key_id] = person
        self._people[person] = self._people.get(person, 0) + 1

    def _drop(self, person: tuple[str, str]) -> None:
        left = self._people.get(person, 0) - 1
        if left > 0:
            self._people[person] = left
        else:
            self._people.pop(person, None)

    def _signed(self, row: Sequence[Any], payload: Mapping[str, Any] | None) -> None:
        """Each person the row names as its actor or a signer holds an active key of that role
        (the actor of a row whose payload does not read is the chain's and envelope's matter)."""
        if row[8] in KEY_ROLES and (row[7], row[8]) not in self._people:
            self._note(row, "R19", f"{row[7]} ({row[8]}) held no active {row[8]} key then")
        fields = SIGNER_FIELDS.get(row[3])
        if fields is None or payload is None:
            return
        for field in fields:
            signer = payload.get(field)
            if not isinstance(signer, Mapping):
                continue
            person = (str(signer.get("id")), str(signer.get("role")))
            if person not in self._people:
                self._note(
                    row,
                    "R19",
                    f"{row[3]}: its {field}, {person[0]} ({person[1]}), held no active "
                    f"{person[1]} key then",
                )

    def _version_changed(self, row: Sequence[Any], payload: Mapping[str, Any]) -> None:
        digest = payload.get("new_digest")
        if digest:
            self._running = str(digest)
            old, new = str(payload.get("old_digest") or payload["old_version"]), str(digest)
            what = ("digest", new)
        else:  # recorded before change control compared digests: by its version labels
            old, new = str(payload["old_version"]), str(payload["new_version"])
            what = ("version", new)
        named = payload.get("authorisation")
        waiting = self._waiting.pop(what, None)
        if waiting is not None and named == waiting:
            return
        if waiting is None and isinstance(named, int) and named < (self._first or 1):
            return  # authorised before a purge boundary: the head that held it is archived
        if waiting is None:
            message = f"software {what[0]} {old} -> {new} without a prior authorisation"
        else:
            message = (
                f"software {what[0]} {old} -> {new} names authorisation {named}, "
                f"the waiting one is at position {waiting}"
            )
        self._note(row, "R19", message)

    def _service_started(self, row: Sequence[Any], payload: Mapping[str, Any]) -> None:
        source = payload.get("rng")
        drawn = source.get("draws_from") if isinstance(source, Mapping) else None
        self._cryptographic = drawn in CRYPTOGRAPHIC_SOURCES
        digest = payload.get("digest")
        if not self._started:
            self._started, self._running = True, digest
            return
        if digest == self._running:
            return
        ran = self._running or "code of no recorded digest"
        if digest is None:
            message = f"the service started recording no code digest while the log runs {ran}"
        else:
            message = (
                f"the service started under code digest {digest}, which no authorised change "
                f"made the log's (it runs {ran})"
            )
        self._note(row, "R19", message)

    def _stacks_dealt(self, row: Sequence[Any], payload: Mapping[str, Any]) -> None:
        if not self._cryptographic or type(row[0]) is not int:
            return
        earlier = self._decks.seen(payload, row[0])
        if earlier is not None:
            self._note(
                row,
                "R-DEAL-4",
                f"round {payload.get('round')} was dealt the same deck order as the electronic "
                f"deal at position {earlier}: a shuffle from a cryptographic generator does not "
                "repeat an order (odds about 1 in 53!)",
            )

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
