"""Findings in words: what was recorded, what the rules give, and the clause, for one event.

The audit compares each recorded event with the event ``table_core.table.decide`` gives for the
same command on the same state; a difference becomes sentences a floor supervisor can check by
hand (``round 1832, seat 4: commission recorded 105, rules give 100 (percent 500 bp, half_up to
1)``), each with the kind of check (procedure, rules, money) and the clause involved.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from audit.findings import Kind
from eventlog.mapper import event_to_dict
from table_core import commands as c
from table_core.errors import DomainError
from table_core.events import CUSTODY_TYPES, Event
from table_core.rules import CommissionRules, TableRules

Issue = tuple[Kind, str, str]  # (kind, clause, sentence)

#: The kind and clause of a difference in each event type, when no finer one applies.
_BY_TYPE: dict[str, tuple[Kind, str]] = {
    "table_opened": ("procedure", "R-HW-1"),
    "rules_changed": ("procedure", "rules_changed"),
    "house_way_installed": ("rules", "R-HW-1"),
    "player_seated": ("procedure", "R-DEAL-1"),
    "player_left": ("money", "chips"),
    "chips_bought_in": ("money", "chips"),
    "chips_cashed_out": ("money", "chips"),
    "round_started": ("procedure", "R-BANK-1"),
    "bank_offered": ("procedure", "R-BANK-1"),
    "bank_accepted": ("procedure", "R-BANK-1"),
    "bank_declined": ("procedure", "R-BANK-1"),
    "bet_placed": ("procedure", "limits"),
    "side_bet_placed": ("procedure", "R-VAR-2"),
    "wager_returned": ("procedure", "R-BANK-3"),
    "bets_closed": ("procedure", "R-BANK-3"),
    "stacks_dealt": ("procedure", "R-DEAL-2"),
    "dice_rolled": ("procedure", "R-DEAL-3"),
    "stacks_assigned": ("procedure", "R-DEAL-3"),
    "hand_set": ("rules", "R-HW-1"),
    "foul_reset": ("rules", "R-SET-2"),
    "hand_forfeited": ("rules", "R-SET-2"),
    "banker_hand_set": ("rules", "R-HW-1"),
    "round_settled": ("rules", "R-PAY-1"),
    "commission_taken": ("rules", "R-PAY-2"),
    "side_bet_settled": ("rules", "R-VAR-2"),
    "envy_paid": ("rules", "R-VAR-3"),
    "meter_changed": ("rules", "R-VAR-6"),
    "round_voided": ("money", "void"),
    "round_closed": ("procedure", "round"),
    **dict.fromkeys(CUSTODY_TYPES, ("procedure", "R20")),  # the deck chain of custody
}
_SIDE_BET_CLAUSE = {
    "fortune": "R-VAR-3",
    "emperors_treasure": "R-VAR-4",
    "insurance": "R-VAR-5",
    "progressive": "R-VAR-6",
}
#: What a refused command was, in words, with the kind and clause of the refusal.
_REFUSED: dict[type, tuple[str, Kind, str]] = {
    c.OpenTable: ("opening of the table", "procedure", "R-HW-1"),
    c.ChangeRules: ("change of rules", "procedure", "rules_changed"),
    c.InstallHouseWay: ("House Way install", "rules", "R-HW-1"),
    c.SeatPlayer: ("seating", "procedure", "R-DEAL-1"),
    c.LeaveSeat: ("leaving", "money", "chips"),
    c.BuyIn: ("buy-in", "money", "chips"),
    c.CashOut: ("cash-out", "money", "chips"),
    c.StartRound: ("start of a round", "procedure", "round"),
    c.AcceptBank: ("bank acceptance", "procedure", "R-BANK-1"),
    c.DeclineBank: ("bank refusal", "procedure", "R-BANK-1"),
    c.PlaceBet: ("bet", "procedure", "limits"),
    c.PlaceSideBet: ("side bet", "procedure", "R-VAR-2"),
    c.CloseBets: ("close of bets", "procedure", "R-BANK-3"),
    c.DealCards: ("deal", "procedure", "R-DEAL-2"),
    c.RollDice: ("roll of the dice", "procedure", "R-DEAL-3"),
    c.SetHand: ("hand", "rules", "R-SET-1"),
    c.SetBankerHand: ("banker's hand", "rules", "R-HW-1"),
    c.Settle: ("settlement", "rules", "R-PAY-1"),
    c.CloseRound: ("close of the round", "procedure", "round"),
    c.VoidRound: ("void", "procedure", "round"),
}


# --- words for values ------------------------------------------------------------------------


def context(event: Event) -> str:
    """``round 12`` for a round fact; a table fact (a buy-in, a seat) happens between rounds."""
    return f"round {event.round}" if event.round is not None else "between rounds"


def _seat_words(seat: Any) -> str:
    return "the house hand" if seat is None else f"seat {seat}"


def _value(value: Any) -> str:
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return " ".join(value)  # cards
    if value is None:
        return "none"
    if isinstance(value, list | dict):
        return _compact(value)
    return str(value)


def _compact(value: Any) -> str:
    import json

    return json.dumps(value, separators=(",", ":"))


def commission_words(rules: CommissionRules | None, variant: str = "commission") -> str:
    """The commission in force, as the felt shows it: ``percent 500 bp, half_up to 1``."""
    if variant != "commission":
        return f"no commission in the {variant} variant, R-VAR-1"
    if rules is None:
        return "no rules profile in force"
    if rules.mode == "percent":
        return f"percent {rules.rate_bp} bp, {rules.rounding} to {rules.rounding_unit}"
    if rules.mode == "flat":
        return f"flat {rules.fee} per winning hand"
    return f"flat_always {rules.fee} per hand"


def _split(back: Sequence[str], front: Sequence[str], rule: str | None = None) -> str:
    by = f" by {rule}" if rule else ""
    return f"back {' '.join(back)} / front {' '.join(front)}{by}"


def _diff(recorded: Any, expected: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """Where two JSON values differ: (dotted path, recorded, expected), lists index by index."""
    if isinstance(recorded, dict) and isinstance(expected, dict):
        out: list[tuple[str, Any, Any]] = []
        for key in sorted(recorded.keys() | expected.keys()):
            sub = f"{path}.{key}" if path else key
            out += _diff(recorded.get(key), expected.get(key), sub)
        return out
    if (
        isinstance(recorded, list)
        and isinstance(expected, list)
        and len(recorded) == len(expected)
        and any(isinstance(x, dict | list) for x in recorded)
    ):
        out = []
        for index, (a, b) in enumerate(zip(recorded, expected, strict=True)):
            out += _diff(a, b, f"{path}.{index}")
        return out
    return [] if recorded == expected else [(path, recorded, expected)]


# --- one event ----------------------------------------------------------------------------------


def describe(recorded: Event | None, expected: Event | None, rules: TableRules | None) -> Issue:
    """One difference between a recorded event and the one the rules give, in words."""
    if recorded is None:
        assert expected is not None
        kind, clause = _BY_TYPE.get(expected.type, ("procedure", "replay"))
        return kind, clause, f"{context(expected)}: {expected.type} is missing: {_brief(expected)}"
    if expected is None:
        kind, clause = _BY_TYPE.get(recorded.type, ("procedure", "replay"))
        return kind, clause, f"{context(recorded)}: the rules give no {recorded.type} here"
    if recorded.type != expected.type:
        return _other_type(recorded, expected, rules)
    diffs = _diff(event_to_dict(recorded), event_to_dict(expected))
    handler = _HANDLERS.get(recorded.type)
    if handler is not None:
        return handler(recorded, expected, diffs, rules)
    return _generic(recorded, diffs)


def difference(recorded: Event, expected: Event) -> tuple[Any, ...] | None:
    """What differs, without where: the event type, each field and by how much (a number) or
    from what to what. Two events with the same difference are one cause seen twice (a meter or
    a balance carried forward off by the same amount), which the audit reports once."""
    if recorded.type != expected.type:
        return None
    diffs = _diff(event_to_dict(recorded), event_to_dict(expected))
    shape = []
    for path, a, b in diffs:
        if type(a) is int and type(b) is int:
            shape.append((path, a - b))
        else:
            return None  # a card, a clause, a result: each is its own finding
    return (recorded.type, *shape)


def refused(command: c.Command, error: DomainError, event: Event) -> Issue:
    """A recorded command the table's rules refuse on the state the events before it give."""
    what, kind, clause = _REFUSED.get(type(command), ("command", "procedure", "replay"))
    if error.rule:
        clause = error.rule
    where = context(event)
    seat = getattr(event, "seat", None)
    if isinstance(command, c.PlaceBet | c.PlaceSideBet | c.SetHand) and seat is not None:
        where += f", seat {seat}"
    return kind, clause, f"{where}: the table's rules refuse this {what}: {error.message}"


def forged_misdeal(recorded: Event, reported_deck: bool) -> Issue:
    """A void that recorded a deck (or seven hands) the table's own deal accepts: a forged
    misdeal."""
    what = (
        "the reported deck is the 53 distinct cards"
        if reported_deck
        else "the reported hands are seven hands of seven distinct cards"
    )
    return (
        "procedure",
        "R-DEAL-2",
        f"{context(recorded)}: voided as a misdeal, but {what} (R-DEAL-2)",
    )


def _brief(event: Event) -> str:
    data = event_to_dict(event)
    for key in ("type", "schema_version", "table_id", "round", "actor", "at"):
        data.pop(key, None)
    return _compact(data)


def _generic(recorded: Event, diffs: list[tuple[str, Any, Any]]) -> Issue:
    kind, clause = _BY_TYPE.get(recorded.type, ("procedure", "replay"))
    seat = getattr(recorded, "seat", None)
    where = context(recorded)
    if hasattr(recorded, "seat") and (seat is not None or recorded.type == "bet_placed"):
        where += f", {_seat_words(seat)}"
    return kind, clause, f"{where}: " + _worded(diffs)


def _worded(
    diffs: list[tuple[str, Any, Any]],
    gives: str = "rules give",
    label: Callable[[list[str]], str | None] = lambda keys: None,
) -> str:
    """Each difference as ``{what} recorded {a}, {gives} {b}``, joined by ``; ``: ``what`` is
    ``label``'s name for the path's keys, else the path."""
    return "; ".join(
        f"{label(path.split('.')) or path} recorded {_value(a)}, {gives} {_value(b)}"
        for path, a, b in diffs
    )


def _other_type(recorded: Event, expected: Event, rules: TableRules | None) -> Issue:
    where = context(recorded)
    fouls = ("foul_reset", "hand_forfeited")
    if recorded.type == "hand_set" and expected.type in fouls:
        return (
            "rules",
            "R-SET-1",
            f"{where}, {_seat_words(getattr(recorded, 'seat', None))}: the player's split "
            f"{_split(recorded.back, recorded.front)} was accepted, but it is fouled: the front "
            "outranks the back",
        )
    if recorded.type in fouls and expected.type == "hand_set":
        back, front = _fouled_split(recorded)
        return (
            "rules",
            "R-SET-1",
            f"{where}, {_seat_words(getattr(recorded, 'seat', None))}: the split "
            f"{_split(back, front)} was treated as a foul, but it is legal: the back outranks "
            "the front",
        )
    if recorded.type in fouls and expected.type in fouls:
        policy = rules.hand.foul_policy if rules is not None else "?"
        return (
            "rules",
            "R-SET-2",
            f"{where}, {_seat_words(getattr(recorded, 'seat', None))}: the foul policy in force "
            f"is {policy}, so a foul gives {expected.type}, not {recorded.type}",
        )
    if recorded.type == "round_voided" and expected.type == "stacks_dealt":
        return forged_misdeal(recorded, getattr(expected, "deck", None) is not None)
    if recorded.type == "stacks_dealt" and expected.type == "round_voided":
        return (
            "procedure",
            "R-DEAL-2",
            f"{where}: the deal is not the 53 distinct cards "
            f"({expected.reason}): the round should have been voided",
        )
    kind, clause = _BY_TYPE.get(recorded.type, ("procedure", "replay"))
    return (
        kind,
        clause,
        f"{where}: recorded {recorded.type}, the rules give {expected.type} ({_brief(expected)})",
    )


def _fouled_split(event: Event) -> tuple[Sequence[str], Sequence[str]]:
    if event.type == "foul_reset":
        return event.player_back, event.player_front
    return event.back, event.front  # type: ignore[union-attr]


# --- per event type ---------------------------------------------------------------------------

Handler = Callable[[Event, Event, list[tuple[str, Any, Any]], TableRules | None], Issue]

_RESULT_WORDS = {
    "back": ("back hand", "R-SET-3"),
    "front": ("front hand", "R-SET-3"),
    "result": ("result", "R-PAY-1"),
    "payout": ("payout", "R-PAY-1"),
    "net": ("net", "R-PAY-1"),
    "forfeited": ("forfeit", "R-SET-2"),
    "wager": ("wager", "R-PAY-1"),
}
_BANKER_WORDS = {
    "commission": ("commission", "R-BANK-4"),
    "house_share": ("house share", "R-BANK-2"),
    "player_share": ("player-banker's share", "R-BANK-2"),
    "co_bank": ("co-banking", "R-BANK-2"),
    "result": ("result", "R-PAY-1"),
    "net": ("net", "R-BANK-4"),
}


def _round_settled(
    recorded: Event, expected: Event, diffs: list[tuple[str, Any, Any]], rules: TableRules | None
) -> Issue:
    variant = getattr(recorded, "variant", "commission")
    commission = rules.hand.commission if rules is not None else None
    parts: list[str] = []
    clauses: list[str] = []
    kinds: list[Kind] = []
    results = getattr(recorded, "results", ())
    for path, a, b in diffs:
        keys = path.split(".")
        if keys[0] == "results" and len(keys) == 3:
            seat = results[int(keys[1])].seat
            field = keys[2]
            if field == "commission":
                words = commission_words(commission, variant)
                parts.append(
                    f"{_seat_words(seat)}: commission recorded {a}, rules give {b} ({words})"
                )
                clauses.append("R-PAY-2")
            else:
                label, clause = _RESULT_WORDS.get(field, (field, "R-PAY-1"))
                parts.append(
                    f"{_seat_words(seat)}: {label} recorded {_value(a)}, rules give {_value(b)}"
                )
                clauses.append(clause)
                if field == "wager":
                    kinds.append("money")
        elif keys[0] == "banker" and len(keys) == 2:
            label, clause = _BANKER_WORDS.get(keys[1], (keys[1], "R-BANK-2"))
            parts.append(f"the banker: {label} recorded {_value(a)}, rules give {_value(b)}")
            clauses.append(clause)
        elif keys[0] in ("variant", "override"):
            parts.append(f"{keys[0]} recorded {_value(a)}, rules give {_value(b)}")
            clauses.append("R-VAR-1")
        else:
            parts.append(f"{path} recorded {_value(a)}, rules give {_value(b)}")
            clauses.append("R-PAY-1")
    kind: Kind = kinds[0] if kinds and len(set(clauses)) == 1 else "rules"
    return kind, _root_clause(clauses), f"{context(recorded)}, " + "; ".join(parts)


#: When one settlement differs in several fields, the clause named is the cause's: a wrong
#: commission also makes the net wrong, a wrong hand result also makes the payout wrong.
_CAUSES = ("R-VAR-1", "R-PAY-2", "R-BANK-4", "R-SET-2", "R-SET-3", "R-BANK-2", "R-PAY-1")


def _root_clause(clauses: list[str]) -> str:
    return next((c for c in _CAUSES if c in clauses), clauses[0] if clauses else "R-PAY-1")


def _commission_taken(
    recorded: Event, expected: Event, diffs: list[tuple[str, Any, Any]], rules: TableRules | None
) -> Issue:
    payer = getattr(recorded, "payer", "player")
    clause = "R-BANK-4" if payer == "banker" else "R-PAY-2"
    commission = rules.hand.commission if rules is not None else None
    variant = rules.variant if rules is not None else "commission"
    said = _worded(diffs, label=lambda keys: "commission" if keys == ["amount"] else None)
    who = _seat_words(getattr(recorded, "seat", None))
    if payer == "banker":
        who += " (the player-banker)"
    words = commission_words(commission, variant)
    return "rules", clause, f"{context(recorded)}, {who}: {said} ({words})"


def _house_way_hand(
    recorded: Event, expected: Event, diffs: list[tuple[str, Any, Any]], rules: TableRules | None
) -> Issue:
    house_way = rules.hand.house_way if rules is not None else "?"
    if recorded.type == "banker_hand_set":
        who = "the banker's hand"
    else:
        who = f"{_seat_words(getattr(recorded, 'seat', None))}'s hand"
    fields = {path for path, _, _ in diffs}
    if not fields & {"back", "front", "rule"}:
        return _generic(recorded, diffs)
    rec = _split(recorded.back, recorded.front, recorded.rule)  # type: ignore[union-attr]
    exp = _split(expected.back, expected.front, expected.rule)  # type: ignore[union-attr]
    return (
        "rules",
        "R-HW-1",
        f"{context(recorded)}, {who}: recorded {rec}; the House Way {house_way} gives {exp}",
    )


def _side_bet_settled(
    recorded: Event, expected: Event, diffs: list[tuple[str, Any, Any]], rules: TableRules | None
) -> Issue:
    bet = getattr(recorded, "bet", "?")
    table = getattr(expected, "pay_table", None) or bet
    cap = getattr(expected, "aggregate_cap", None)
    capped = f", aggregate cap {cap}, R15" if cap is not None else ""
    return (
        "rules",
        _SIDE_BET_CLAUSE.get(bet, "R-VAR-2"),
        f"{context(recorded)}, {_seat_words(getattr(recorded, 'seat', None))}: {bet} bet: "
        + _worded(diffs)
        + f" (pay table {table}{capped})",
    )


def _dice_rolled(
    recorded: Event, expected: Event, diffs: list[tuple[str, Any, Any]], rules: TableRules | None
) -> Issue:
    faces = " ".join(str(f) for f in getattr(recorded, "faces", ()))
    return (
        "procedure",
        "R-DEAL-3",
        f"{context(recorded)}: dice {faces} total {expected.total} and give stack 1 to position "  # type: ignore[union-attr]
        f"{expected.first_position}; recorded total {recorded.total}, position "  # type: ignore[union-attr]
        f"{recorded.first_position}",  # type: ignore[union-attr]
    )


def _stacks_dealt(
    recorded: Event, expected: Event, diffs: list[tuple[str, Any, Any]], rules: TableRules | None
) -> Issue:
    each: list[tuple[str, Any, Any]] = []
    for path, a, b in diffs:
        keys = path.split(".")
        if keys[0] == "stacks" and len(keys) != 2 and isinstance(a, list) and isinstance(b, list):
            # stacks of other lengths than the deck's (``_diff`` compares them whole): one by one
            pairs = enumerate(zip(a, b, strict=False))
            each += [(f"stacks.{index}", x, y) for index, (x, y) in pairs if x != y]
        else:
            each.append((path, a, b))
    said = _worded(each, "the deck gives", _stack_label)
    text = f"{context(recorded)}: the stacks are not the deck cut in order: {said}"
    return "procedure", "R-DEAL-2", text


def _stack_label(keys: list[str]) -> str | None:
    return f"stack {int(keys[1]) + 1}" if keys[0] == "stacks" and len(keys) == 2 else None


def _stacks_assigned(
    recorded: Event, expected: Event, diffs: list[tuple[str, Any, Any]], rules: TableRules | None
) -> Issue:
    said = _worded(diffs, "the dice give", _assignment_label)
    return "procedure", "R-DEAL-3", f"{context(recorded)}: {said}"


def _assignment_label(keys: list[str]) -> str | None:
    one_position = keys[0] == "assignments" and len(keys) == 3
    return f"position {int(keys[1]) + 1}: {keys[2]}" if one_position else None


def _meter_changed(
    recorded: Event, expected: Event, diffs: list[tuple[str, Any, Any]], rules: TableRules | None
) -> Issue:
    reason = getattr(recorded, "reason", "?")
    return "rules", "R-VAR-6", f"{context(recorded)}: meter {reason}: " + _worded(diffs)


def _bet_placed(
    recorded: Event, expected: Event, diffs: list[tuple[str, Any, Any]], rules: TableRules | None
) -> Issue:
    kind, clause, text = _generic(recorded, diffs)
    if getattr(recorded, "seat", 0) is None:  # the house hand's wager (R-BANK-2)
        return kind, "R-BANK-2", text
    if any(path == "position" for path, _, _ in diffs):
        clause = "R-DEAL-1"
    return kind, clause, text


_HANDLERS: dict[str, Handler] = {
    "round_settled": _round_settled,
    "commission_taken": _commission_taken,
    "hand_set": _house_way_hand,
    "foul_reset": _house_way_hand,
    "banker_hand_set": _house_way_hand,
    "side_bet_settled": _side_bet_settled,
    "dice_rolled": _dice_rolled,
    "stacks_dealt": _stacks_dealt,
    "stacks_assigned": _stacks_assigned,
    "meter_changed": _meter_changed,
    "bet_placed": _bet_placed,
}
