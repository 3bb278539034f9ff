"""``--jobs N`` on a database: the chain and the signatures checked by stretches of global
positions, each stretch by the worker that reads it (``audit.position_ranges``).

A stretch is checked by the same code as the whole log (``audit.chain.Integrity``: links,
canonical payloads, both hashes, each checkpoint's signed head and signature, the witness, and
the system events that hand the key on), with one difference: what lies before the stretch is
taken as given where the stretch first meets it (``RangeChain``): the global link of its first row
and, for each stream, the link and version of its first event in the stretch. The main process
then checks those against what the stretches before it ended with (``join``): the last global
hash of stretch k must be the previous global hash of stretch k+1, and each stream's head where
it was left the link of its next event; and the key each stretch was checked with must be the key
in force where it starts. Sealing is counted across stretches: a checkpoint seals every event
before it, whichever stretch holds them.

A stretch either holds entirely (no finding) or not: the exact words of a finding depend on
everything before it in the log (``Integrity`` carries on from the furthest point reached, numbers
the checkpoints, follows re-hashed stretches), so a log with any integrity finding is checked
again the one-process way, which is the definition (``audit.verify``). A log that holds, the
case whose speed matters, is read once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from audit.chain import Integrity
from audit.system_duties import SIGNER_FIELDS, TABLE_TYPES
from audit.tables import Envelope, Prepared, first_line, prepare
from eventlog.canonical import GENESIS_HASH
from eventlog.system_events import SYSTEM_STREAM, parse_system_event
from eventlog.verifier import ChainVerifier
from table_core.ports import Upcasters

#: Table events whose payload the main process reads (``audit.seal``'s round numbers,
#: ``audit.system_duties``' decks and signers); every other table row goes to it without one.
PAYLOAD_KINDS = frozenset({"round_started", *TABLE_TYPES, *SIGNER_FIELDS})

#: A row as the main process's checks read it: the first nine columns (the payload text left out)
#: and the payload object when it reads one (``PAYLOAD_KINDS``, and every system event).
Thin = tuple[tuple[Any, ...], dict[str, Any] | None]


def system_event(
    row: Sequence[Any], payload: dict[str, Any], integrity: Integrity, envelope: Envelope
) -> bool:
    """Check a system event; whether it read as one (the duties then check what it says)."""
    try:
        event = parse_system_event(payload)
    except ValidationError as error:
        integrity.note(
            row, "schema", f"the payload does not read as a system event: {first_line(error)}"
        )
        return False
    problems = envelope.problems(row, event, payload.get("schema_version"), system=True)
    if problems:
        integrity.note(row, "envelope", "; ".join(problems))
        return False
    if event.type == "signing_key_rotated":
        integrity.rotate(row, event)
    return True


class RangeChain(ChainVerifier):
    """The store's verifier on a stretch that starts at ``first``: the links into the stretch
    (``entry_global``, ``entries``) are taken as given, for the main process to check."""

    def __init__(self, first: int) -> None:
        super().__init__()
        self.position = first - 1
        self.entry_global: str | None = None
        self.entries: dict[Any, tuple[int, Any]] = {}

    def check(self, row: Sequence[Any]) -> dict[str, Any]:
        if len(row) == 14:
            if self.entry_global is None:
                self.entry_global = self.global_head = row[12]
            stream = row[1]
            if stream not in self.heads and type(row[2]) is int:
                self.entries[stream] = self.heads[stream] = (row[2] - 1, row[10])
        return super().check(row)


@dataclass
class RangeChecked:
    """What a stretch's check tells the main process (nothing of it when it does not hold)."""

    number: int
    first: int
    last: int
    holds: bool
    key_assumed: str | None = None  # the key id in force the stretch was checked from
    entry_global: str | None = None
    entries: dict[Any, tuple[int, Any]] = field(default_factory=dict)
    heads: dict[Any, tuple[int, Any]] = field(default_factory=dict)
    exit_global: str = ""
    checkpoints: int = 0  # checkpoints met (all of them hold)
    sealed: int = 0  # the last checkpoint's position (0: none in the stretch)
    unsealed: int = 0  # rows after it (or, without one, every row of the stretch)
    unsealed_from: int | None = None
    key: bytes | None = None  # the key in force at its end, and its id
    key_in_force: str | None = None
    keys_followed: list[str] = field(default_factory=list)
    witnessed: int = 0
    thin: list[Thin] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)  # in the order they first appear


def check_range(
    rows: Iterable[Sequence[Any]],
    checkpoints: list[Sequence[Any]],
    witness: list[Sequence[Any]],
    number: int,
    first: int,
    last: int,
    public_key: bytes | None,
    table: str | None,
    upcasters: Upcasters | None,
) -> tuple[RangeChecked, dict[str, list[Prepared]]]:
    """Check the stretch of positions ``first``..``last`` and prepare its table rows (each
    payload decoded once, by the chain's check): the summary, and each table's rows."""
    integrity = Integrity(checkpoints, public_key, witness=witness)
    chain = integrity.chain = RangeChain(first)
    assumed = integrity.key_in_force[1]
    findings = integrity.findings
    envelope, rows_envelope = Envelope(), Envelope()
    thin: list[Thin] = []
    # One object for each repeated text (table, type, actor, role): pickled once a stretch, the
    # rest as references, so the main process reads and unpickles a quarter less.
    once: Any = {}.setdefault
    prepared: dict[str, list[Prepared]] = {}
    payload_kinds = PAYLOAD_KINDS
    refused = RangeChecked(number, first, last, holds=False)
    for row in rows:
        payload = integrity.check(row)
        if findings or payload is None:
            return refused, {}
        stream = row[1]
        if stream == SYSTEM_STREAM:
            if not system_event(row, payload, integrity, envelope):
                return refused, {}
            thin.append((tuple(row[:9]), payload))
            continue
        kind = row[3]
        thin.append(
            (
                (row[0], once(stream, stream), row[2], once(kind, kind), None, None, row[6],
                 once(row[7], row[7]), once(row[8], row[8])),
                payload if kind in payload_kinds else None,
            )
        )  # fmt: skip
        if type(stream) is str and (table is None or stream == table):
            batch = prepared.get(stream)
            if batch is None:
                batch = prepared[stream] = []
            batch.append(prepare(row, payload, True, rows_envelope, upcasters))
    if findings or chain.position != last or integrity.pending_checkpoint:
        return refused, {}
    key, key_in_force = integrity.key_in_force
    return RangeChecked(
        number,
        first,
        last,
        holds=True,
        key_assumed=assumed,
        entry_global=chain.entry_global,
        entries=chain.entries,
        heads=chain.heads,
        exit_global=chain.global_head,
        checkpoints=integrity.checkpoints_total,
        sealed=integrity.sealed,
        unsealed=integrity.unsealed,
        unsealed_from=integrity.unsealed_from,
        key=key,
        key_in_force=key_in_force,
        keys_followed=integrity.keys_followed,
        witnessed=len(witness),
        thin=thin,
        tables=list(prepared),
    ), prepared


def join(integrity: Integrity, checked: RangeChecked) -> bool:
    """The stretch's links into it against where the stretches before it left the chain (the
    main process's ``integrity``, moved on to the stretch's end when they agree); False when
    they do not, or when the stretch was checked from another key than the one in force."""
    chain = integrity.chain
    if not checked.holds or checked.first != chain.position + 1:
        return False
    if checked.entry_global != chain.global_head:
        return False
    if checked.key_assumed != integrity.key_in_force[1]:
        return False
    heads = chain.heads
    for stream, entry in checked.entries.items():
        if heads.get(stream, (0, GENESIS_HASH)) != entry:
            return False
    heads.update(checked.heads)
    chain.position, chain.global_head = checked.last, checked.exit_global
    integrity.rows += checked.last - checked.first + 1
    integrity.joined(checked)
    return True
