"""What an audit reports: findings a floor supervisor or a regulator can read, and the summary.

A finding says where (global position, stream, stream version, event type, round), which kind of
check failed and the clause or check involved, in one sentence a non-programmer can act on:

    position 1234, table PG-1 v56 round_settled: rules R-PAY-2: round 1832, seat 4: commission
    recorded 105, rules give 100 (percent 500 bp, half_up to 1)

Kinds, in the order of the issue: ``integrity`` (the hash chains, positions, versions, payloads
and signatures), ``procedure`` (deck, stacks, dice, bets within limits and balances), ``rules``
(House Way splits, fouls, settlement, commission, side bets) and ``money`` (the books balance).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

#: What the summary (and JSON ``key_note``) says when the key came from beside the database.
BESIDE = "key taken from beside the database: not an independent check"

Kind = Literal["integrity", "procedure", "rules", "money"]
KINDS: tuple[Kind, ...] = ("integrity", "procedure", "rules", "money")


@dataclass(frozen=True, slots=True)
class Finding:
    kind: Kind
    clause: str  # a rulebook clause (R-PAY-2), or the check (chain.hash, bundle.manifest)
    message: str
    position: int | None = None
    stream_id: str | None = None
    version: int | None = None
    event_type: str | None = None
    round: int | None = None
    last_position: int | None = None  # a range of positions: ``position``..``last_position``

    def where(self) -> str:
        parts = []
        if self.position is not None and self.last_position is not None:
            parts.append(f"positions {self.position}..{self.last_position}")
        elif self.position is not None:
            parts.append(f"position {self.position}")
        if self.stream_id is not None:
            place = "system stream" if self.stream_id == "system" else f"table {self.stream_id}"
            if self.version is not None:
                place += f" v{self.version}"
            if self.event_type is not None:
                place += f" {self.event_type}"
            parts.append(place)
        elif self.event_type is not None:
            parts.append(self.event_type)
        return ", ".join(parts) or "the log"

    def __str__(self) -> str:
        return f"{self.where()}: {self.kind} {self.clause}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def sort_key(self) -> tuple[int, int, int]:
        # Position order; findings about the whole log (no position) come last.
        position = self.position if self.position is not None else 2**62
        return (position, KINDS.index(self.kind), self.version or 0)


@dataclass(frozen=True, slots=True)
class PlayerMoney:
    """One player's chips at one table, from the events: ``bought − cashed + result = balance``."""

    player_id: str
    bought_in: int
    cashed_out: int
    result: int
    balance: int


@dataclass(frozen=True, slots=True)
class TableMoney:
    """A table's books: every player, and the house (its result and the commission it took)."""

    table_id: str
    players: tuple[PlayerMoney, ...]
    house_result: int
    commission: int
    meter: int

    @property
    def bought_in(self) -> int:
        return sum(p.bought_in for p in self.players)

    @property
    def cashed_out(self) -> int:
        return sum(p.cashed_out for p in self.players)

    @property
    def balances(self) -> int:
        return sum(p.balance for p in self.players)

    @property
    def game_win(self) -> int:
        """The house's whole result: ``house_result`` (before commission) + ``commission``."""
        return self.house_result + self.commission


@dataclass
class AuditReport:
    """Everything one pass found, and what it covered."""

    source: str
    findings: list[Finding] = field(default_factory=list)
    events: int = 0
    tables: int = 0
    rounds: int = 0  # rounds whose rules were re-derived
    rounds_unchecked: list[str] = field(default_factory=list)  # "PG-1 round 12": log broken there
    checkpoints: int = 0
    signatures_checked: bool = False
    key_id: str | None = None
    keys_followed: list[str] = field(default_factory=list)  # rotations followed, in order
    #: Where the key came from: "given" (--public-key), "setting", "bundle", "beside_database".
    key_source: str | None = None
    unsealed_tail: dict[str, Any] | None = None  # what --allow-unsealed-tail accepted
    unsealed_tail_note: str | None = None
    witnessed: int | None = None  # checkpoints in the witness file checked against the log
    money: list[TableMoney] = field(default_factory=list)
    #: R20: dealt rounds that named a deck in use and inspected, and those dealt before their
    #: table kept custody ("PG-1 rounds 1-200": no custody record, not a finding).
    rounds_with_deck: int = 0
    rounds_before_custody: list[str] = field(default_factory=list)
    #: What the source carries that no signature or derivation covers (an old bundle's parts).
    not_covered: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def key_beside_database(self) -> bool:
        return self.key_source == "beside_database"

    @property
    def ok(self) -> bool:
        return not self.findings

    def counts(self) -> dict[str, int]:
        by_kind = Counter(f.kind for f in self.findings)
        return {kind: by_kind.get(kind, 0) for kind in KINDS}

    def summary(self) -> str:
        """The last line of a verification: the verdict and what it covered."""
        count = len(self.findings)
        verdict = "OK" if self.ok else f"FAILED: {count} finding{'' if count == 1 else 's'}"
        if not self.ok:
            verdict += " (" + ", ".join(f"{k} {n}" for k, n in self.counts().items()) + ")"
        signed = (
            f"signatures checked with key {self.key_id}"
            if self.signatures_checked
            else "signatures NOT checked (no public key)"
        )
        if self.keys_followed:
            signed += f" (rotated to {', '.join(self.keys_followed)})"
        if self.key_beside_database:
            signed += f" ({BESIDE})"
        if self.witnessed:
            signed += f", {self.witnessed} witnessed checkpoints"
        if self.unsealed_tail_note:
            signed += f", {self.unsealed_tail_note}"
        unchecked = (
            f", {len(self.rounds_unchecked)} round(s) not re-derived (the log is broken there)"
            if self.rounds_unchecked
            else ""
        )
        if self.rounds_with_deck:
            unchecked += f", {self.rounds_with_deck} round(s) dealt from a recorded deck (R20)"
        if self.rounds_before_custody:
            unchecked += (
                f", no custody record (before custody was kept): "
                f"{'; '.join(self.rounds_before_custody)}"
            )
        if self.not_covered:
            signed += f"; NOT covered: {'; '.join(self.not_covered)}"
        return (
            f"audit {verdict}: {self.source}: {self.events} events, {self.tables} tables, "
            f"{self.rounds} rounds re-derived{unchecked}, {self.checkpoints} checkpoints, "
            f"{signed}, {self.seconds:.1f} s"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "source": self.source,
            "findings": len(self.findings),
            "by_kind": self.counts(),
            "events": self.events,
            "tables": self.tables,
            "rounds": self.rounds,
            "rounds_unchecked": self.rounds_unchecked,
            "checkpoints": self.checkpoints,
            "signatures_checked": self.signatures_checked,
            "key_id": self.key_id,
            "keys_followed": self.keys_followed,
            "key_source": self.key_source,
            "key_beside_database": self.key_beside_database,
            "key_note": BESIDE if self.key_beside_database else None,
            "unsealed_tail": self.unsealed_tail,
            "unsealed_tail_note": self.unsealed_tail_note,
            "witnessed": self.witnessed,
            "money": [
                {
                    "table_id": m.table_id,
                    "bought_in": m.bought_in,
                    "cashed_out": m.cashed_out,
                    "balances": m.balances,
                    "house_result": m.house_result,
                    "commission": m.commission,
                    "meter": m.meter,
                    "players": [asdict(p) for p in m.players],
                    "game_win": m.game_win,
                }
                for m in self.money
            ],
            "custody": {
                "rounds_with_deck": self.rounds_with_deck,
                "no_custody_record": self.rounds_before_custody,
            },
            "not_covered": self.not_covered,
            "seconds": round(self.seconds, 3),
        }
