"""Procedure, rules and money of one table, re-derived from its events by the table's own code.

For every recorded command (the events of one command id, in stream order) the audit reads the
command back (``audit.command_rebuild``), asks ``table_core.table.decide`` what that command gives
on the state folded from every event before it (``table_core.table.fold``) and compares, field
by field, with what was recorded. ``decide`` is the code the table ran: the deck check and the cut
(R-DEAL-2), the dice (R-DEAL-3), limits and balances, the House Way and its clause id (R-HW-1),
fouls (R-SET-1/2), settlement, commission, variants and side bets (R-PAY, R-VAR), the bank
(R-BANK). No rule is written a second time here. The rules profile in force is the one the
round recorded (``round_started.rules_version``), as the fold keeps it.

The state follows the RECORDED events, so one wrong event is reported once and the rounds after
it are judged on what really happened at the table.

Money: a ledger per player (bought in, cashed out, results) and for the house (result,
commission) is kept from the events and reconciled with the fold whenever no round is live:
``bought − cashed + results = balance`` for each player, and the house's result plus the
commission equals what the players lost. A difference is reported once, when it appears.

Deck custody (R20): every dealt round of a table that keeps custody must name a deck that was in
use, had passed inspection and was not held (``_custody``); so must every physical deal under a
profile that requires custody (``deck_custody_required``), or it is a finding. A round dealt
before the table's first custody event, under a profile that does not require it, counts as "no
custody record (before custody was kept)" and fails nothing.

Events arrive in global order; a stream's events are taken in version order (a small reorder
window), so two swapped events are reported by the chain check alone. A round with an integrity
finding is not re-derived past it (its events are still folded): the report lists it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from audit.books import BooksAudit
from audit.command_rebuild import NotRederivable, command_of
from audit.describe import Issue, context, describe, difference, forged_misdeal, refused
from audit.findings import Finding, Kind, PlayerMoney, TableMoney
from audit.ledger import Ledger
from table_core import commands as c
from table_core.errors import DomainError
from table_core.events import (
    DeckDealt,
    Event,
    RoundVoided,
    StacksDealt,
)
from table_core.rules import TableRules
from table_core.table import TableState, decide, fold
from table_core.table.custody import custody_required

#: How many later events of a stream may wait for a missing one before it counts as removed.
REORDER_WINDOW = 64
_ROUND_ENDS = frozenset({"round_closed", "round_voided"})
#: An event wholly derived from an earlier one of the same command: when that one is already
#: reported, this one's difference is its consequence, not a second finding (the stacks follow
#: the dice total, R-DEAL-3).
_CONSEQUENCE_OF = {"stacks_assigned": "dice_rolled"}
_KIND_OF: dict[str, Kind] = {
    "meter_changed": "rules",
    "bank_offered": "procedure",
    "chips_cashed_out": "money",
}


@dataclass(frozen=True, slots=True)
class Meta:
    """Where an event sits in the log."""

    position: int
    version: int
    type: str
    command_id: str


Report = Callable[[Finding], None]


class TableAudit:
    """One table's stream, event by event; ``finish()`` at the end of the log."""

    def __init__(
        self,
        table_id: str,
        report: Report,
        in_range: Callable[[int | None, int], bool] = lambda round_, last: True,
    ) -> None:
        self.table_id = table_id
        self.report = report
        self.in_range = in_range
        self.state = TableState()
        self.next_version = 1
        self.buffer: dict[int, tuple[Meta, Event | None, bool]] = {}
        self.group: list[tuple[Meta, Event | None, bool]] = []
        self.group_command: str | None = None
        self.gap = False
        self.suspended_round: int | None = None
        self.rounds_checked = 0
        self.unchecked: list[int] = []
        self.ledger = Ledger()
        self._books_off: Any = None  # the unbalance last reported
        self._counted: int | None = None
        #: R20: dealt rounds that named a deck in good standing, and rounds dealt before the
        #: table kept custody (no custody record, not a failure).
        self.custody_ok = 0
        self.before_custody: list[int] = []
        self._repeats: dict[tuple[Any, ...], list[Any]] = {}  # difference -> first, count, last
        self.books = BooksAudit(table_id, report)  # the gaming day's books (audit/books.py)

    # --- arrival, in version order -------------------------------------------------------------

    def add(self, meta: Meta, event: Event | None, tainted: bool) -> None:
        """The next row of this stream in global order; ``event`` None when it did not parse."""
        if meta.version == self.next_version and not self.buffer:
            self._take(meta, event, tainted)
            self.next_version += 1
            return
        if meta.version < self.next_version:
            return  # a duplicate: the chain check reported it
        self.buffer[meta.version] = (meta, event, tainted)
        self._drain(force=len(self.buffer) > REORDER_WINDOW)

    def _drain(self, force: bool) -> None:
        while self.buffer:
            item = self.buffer.pop(self.next_version, None)
            if item is None:
                if not force:
                    return
                self.next_version = min(self.buffer)  # the versions between were removed
                self.gap = True
                continue
            self._take(*item)
            self.next_version += 1

    def _take(self, meta: Meta, event: Event | None, tainted: bool) -> None:
        if self.group and meta.command_id != self.group_command:
            self._flush()
        self.group_command = meta.command_id
        self.group.append((meta, event, tainted or self.gap))
        self.gap = False

    def finish(self) -> None:
        self._drain(force=True)
        if self.group:
            self._flush()
        self._reconcile(None, final=True)
        self._report_repeats()
        self.books.finish()

    def command_done(self) -> None:
        """The last command is whole (a checkpoint follows it, in its transaction): check it now,
        not when the table's next command comes (``audit follow``)."""
        if self.group and not self.buffer:
            self._flush()

    # --- one command -------------------------------------------------------------------------

    def _flush(self) -> None:
        group, self.group = self.group, []
        metas = [meta for meta, event, _ in group if event is not None]
        events = [event for _, event, _ in group if event is not None]
        tainted = any(t or event is None for _, event, t in group)
        state = self.state
        number = events[0].round if events else None
        if number is None and state.round is not None and state.round.live:
            number = state.round.number
        if not events:  # nothing readable: the round it broke is not re-derived further
            if number is not None:
                self._suspend(number)
            return
        self.books.apply(metas, events)
        if events[0].type == "round_started":
            self._round_started(number)
        if tainted and number is not None:
            self._suspend(number)
        checked = (
            not tainted
            and (number is None or number != self.suspended_round)
            and self.in_range(events[0].round, state.last_round)
        )
        if checked:
            self._check(state, metas, events)
            if isinstance(events[0], StacksDealt):
                self._custody(state, metas, events)
        self._apply(metas, events)
        if events[-1].type in _ROUND_ENDS:
            self._reconcile(metas[-1], final=False, number=number)

    def _round_started(self, number: int | None) -> None:
        self._counted = None
        if number is not None and self.in_range(number, number - 1):
            self.rounds_checked += 1
            self._counted = number

    def _suspend(self, number: int) -> None:
        """An integrity finding in round ``number``: its rules are not re-derived past it."""
        if self.suspended_round == number:
            return
        self.suspended_round = number
        self.unchecked.append(number)
        if self._counted == number:
            self.rounds_checked -= 1
            self._counted = None

    def _check(self, state: TableState, metas: list[Meta], events: list[Event]) -> None:
        try:
            command = _command_of(state, events)
        except NotRederivable as error:
            self._find(metas[0], events[0], "procedure", "replay", f"{context(events[0])}: {error}")
            return
        try:
            expected = decide(state, command)
        except DomainError as error:
            if error.rule == "R20" and isinstance(command, c.DealCards):
                if isinstance(events[0], RoundVoided):
                    # The deal checks the cards before the deck's custody: refused for custody,
                    # the reported cards were a good deal, so the void was no misdeal.
                    deck = command.deck is not None
                    self._issue(metas[0], events[0], forged_misdeal(events[0], deck))
                return  # the deck the deal names: _custody reports it, in custody's words
            self._issue(metas[0], events[0], refused(command, error, events[0]))
            return
        except Exception as error:  # a state the table never reaches, found
            # The events before brought the table somewhere its rules never lead (a negative
            # balance…): the table's own code cannot decide this command there.
            message = f"{type(error).__name__}: {_first_line(error)}"
            self._find(
                metas[0],
                events[0],
                "procedure",
                "replay",
                f"{context(events[0])}: the table cannot decide this {events[0].type} on the "
                f"state the events before it give ({message})",
            )
            return
        if expected == events:
            return
        self._compare(metas, events, expected, _rules_of(state))

    def _compare(
        self, metas: list[Meta], events: list[Event], expected: list[Event], rules: Any
    ) -> None:
        """The recorded events against the ones decided again, difference by difference (a
        separate step: ``audit.ranges`` runs it in the main process, in log order, since a
        repeated difference is one finding across the whole table)."""
        reported: set[str] = set()
        for index in range(max(len(events), len(expected))):
            recorded = events[index] if index < len(events) else None
            wanted = expected[index] if index < len(expected) else None
            if recorded == wanted:
                continue
            if recorded is None and isinstance(wanted, DeckDealt):
                continue  # a deal that names no deck: _custody reports it (R20)
            if recorded is not None and _CONSEQUENCE_OF.get(recorded.type) in reported:
                continue
            at = min(index, len(events) - 1)
            if (
                recorded is not None
                and wanted is not None
                and self._repeated(metas[at], difference(recorded, wanted))
            ):
                continue
            self._issue(metas[at], events[at], describe(recorded, wanted, rules))
            if recorded is None or wanted is None or recorded.type != wanted.type:
                break  # the rest is out of step: one finding says it
            reported.add(recorded.type)

    def _custody(self, state: TableState, metas: list[Meta], events: list[Event]) -> None:
        """R20: the deal names a deck in use, inspected and not held, once custody is kept."""
        number = events[0].round
        named = events[1] if len(events) > 1 and isinstance(events[1], DeckDealt) else None
        if named is None:
            rules = _rules_of(state)
            source = events[0].source if isinstance(events[0], StacksDealt) else "live"
            if custody_required(rules, source) and not state.keeps_custody:
                version = rules.version if rules is not None else None
                problem = (
                    f"names no deck, though the table's rules (version {version}) require deck "
                    "custody for a physical deal"
                )
            elif not state.keeps_custody:
                if number is not None:
                    self.before_custody.append(number)
                return
            else:
                problem = "names no deck, though this table keeps deck custody"
        else:
            deck = state.decks.get(named.deck_id)
            if deck is None:
                problem = f"names deck {named.deck_id}, which has no custody record"
            elif deck.status != "in_use":
                problem = f"names deck {deck.deck_id}, which was not in use ({deck.status})"
            elif not deck.inspected:
                problem = f"names deck {deck.deck_id}, which had not passed inspection"
            elif deck.held:
                problem = f"names deck {deck.deck_id}, which was held ({deck.hold_reason})"
            else:
                self.custody_ok += 1
                return
        at = 1 if named is not None else 0
        self._find(metas[at], events[at], "procedure", "R20", f"round {number}: the deal {problem}")

    def _apply(self, metas: list[Meta], events: list[Event]) -> None:
        try:
            self.state = fold(events, self.state)
        except Exception as error:  # a log the table could not have written: apply what applies
            for meta, event in zip(metas, events, strict=True):
                try:
                    self.state = fold((event,), self.state)
                except Exception as each:  # any failure is a finding, not a crash
                    self._find(
                        meta,
                        event,
                        "procedure",
                        "replay",
                        f"{context(event)}: the table cannot apply this event: {each or error}",
                    )
        for event in events:
            self.ledger.post(event)

    # --- money -------------------------------------------------------------------------------

    def _reconcile(self, meta: Meta | None, *, final: bool, number: int | None = None) -> None:
        """Players' books against the fold, and the house's against the players' (zero-sum)."""
        state = self.state
        if state.round is not None and state.round.live:
            return
        ledger = self.ledger
        problems = []
        off: list[tuple[str, int]] = []
        for player, balance in sorted(ledger.balances().items()):
            held = state.balances.get(player, 0)
            if held != balance:
                off.append((player, held - balance))
                problems.append(
                    f"{player}: bought in {ledger.bought.get(player, 0)} - cashed out "
                    f"{ledger.cashed.get(player, 0)} + results {ledger.results.get(player, 0)} "
                    f"= {balance}, but the table holds {held}"
                )
        negative = sorted(p for p, held in state.balances.items() if held < 0)
        problems += [f"{p}'s balance is negative: {state.balances[p]}" for p in negative]
        players = sum(ledger.results.values())
        house_off = ledger.house + ledger.commission + players
        if house_off:
            problems.append(
                f"the house's result {ledger.house} + commission {ledger.commission} + the "
                f"players' results {players} = {house_off}, not 0"
            )
        signature = (tuple(off), house_off, tuple(negative))
        if not problems:
            self._books_off = None
            return
        if signature == self._books_off:
            return  # reported when it appeared
        self._books_off = signature
        where = "at the end of the log" if final else f"after round {number}"
        self.report(
            Finding(
                kind="money",
                clause="books",
                message=f"{where}, the books do not balance: " + "; ".join(problems),
                position=meta.position if meta is not None else None,
                stream_id=self.table_id,
                version=meta.version if meta is not None else None,
                event_type=meta.type if meta is not None else None,
                round=number,
            )
        )

    def money(self) -> TableMoney:
        ledger = self.ledger
        players = sorted(ledger.bought.keys() | ledger.cashed.keys() | ledger.results.keys())
        balances = ledger.balances()
        return TableMoney(
            table_id=self.table_id,
            players=tuple(
                PlayerMoney(
                    p,
                    ledger.bought.get(p, 0),
                    ledger.cashed.get(p, 0),
                    ledger.results.get(p, 0),
                    balances.get(p, 0),
                )
                for p in players
            ),
            house_result=ledger.house,
            commission=ledger.commission,
            meter=self.state.meter,
        )

    # --- findings ----------------------------------------------------------------------------

    def _repeated(self, meta: Meta, shape: tuple[Any, ...] | None) -> bool:
        """The same numeric difference as one already reported (a meter or a balance carried
        forward off by the same amount): counted, and reported once at the end."""
        if shape is None:
            return False
        seen = self._repeats.get(shape)
        if seen is None:
            self._repeats[shape] = [meta, 0, meta]
            return False
        seen[1] += 1
        seen[2] = meta
        return True

    def _report_repeats(self) -> None:
        for shape, (first, count, last) in self._repeats.items():
            if not count:
                continue
            fields = ", ".join(f"{path} off by {delta:+d}" for path, delta in shape[1:])
            self.report(
                Finding(
                    kind=_KIND_OF.get(shape[0], "rules"),
                    clause="repeated",
                    message=(
                        f"{count} more {shape[0]} events, up to position {last.position}, "
                        f"differ from the rules exactly as the one at position "
                        f"{first.position} ({fields}): carried forward from it"
                    ),
                    position=first.position,
                    stream_id=self.table_id,
                    version=first.version,
                    event_type=shape[0],
                )
            )

    def _issue(self, meta: Meta, event: Event, issue: Issue) -> None:
        kind, clause, message = issue
        self._find(meta, event, kind, clause, message)

    def _find(self, meta: Meta, event: Event, kind: Kind, clause: str, message: str) -> None:
        self.report(
            Finding(
                kind=kind,
                clause=clause,
                message=message,
                position=meta.position,
                stream_id=self.table_id,
                version=meta.version,
                event_type=meta.type,
                round=event.round,
            )
        )


def _command_of(state: TableState, events: list[Event]) -> c.Command:
    """``audit.command_rebuild.command_of``, except for a misdeal void that records what was
    reported: that void is the deal command's answer, so the reported deck or hands are dealt again
    and the table's own check says whether the deal really was refused (R-DEAL-2, R-CARD-1/2). A
    void without them (a floor call, or a misdeal recorded before they existed) is the floor's."""
    first = events[0]
    if isinstance(first, RoundVoided) and (
        first.reported_deck is not None or first.reported_hands is not None
    ):
        return c.DealCards(
            deck=first.reported_deck, hands=first.reported_hands, actor=first.actor, at=first.at
        )
    return command_of(state, events)


def _first_line(error: Exception) -> str:
    return " ".join(line.strip() for line in str(error).splitlines()[:3])


def _rules_of(state: TableState) -> TableRules | None:
    """The profile in force: the live round's (recorded at its start), else the table's."""
    if state.round is not None and state.round.live:
        return state.round.rules
    return state.rules
