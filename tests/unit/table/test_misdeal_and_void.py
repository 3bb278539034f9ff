"""Misdeals void the round and return every wager (casino practice; R-DEAL-2, R-CARD-2).

The command does not raise: the deal is a fact the table saw, so the void is recorded with why,
what was reported (the deck or the hands, exactly) and the clause the deal breaks, so that an
auditor can tell a real misdeal from a good deck voided.
"""

from __future__ import annotations

import pytest

from eventlog.mapper import event_to_dict, parse_event
from table_core import commands as c
from table_core.cards import FULL_DECK, card_text
from table_core.errors import DomainError
from table_core.events import ReturnedWager, RoundVoided
from table_core.table import NotAllowed, WrongState

from .support import AT, CAGE, DEALER, FLOOR, TABLE, Script, player, rules

D = {"actor": DEALER, "at": AT}
R1 = {"table_id": TABLE, "at": AT, "round": 1}
RETURNED = (
    ReturnedWager(seat=2, player_id="bruno", amount=1_000),
    ReturnedWager(seat=5, player_id="elif", amount=2_500),
)

#: The new-deck order as card text, and its seven stacks of seven (R-DEAL-2).
TEXT = tuple(card_text(card) for card in FULL_DECK)
STACKS = [TEXT[i : i + 7] for i in range(0, 49, 7)]


def bets_closed() -> Script:
    table = Script()
    table(c.OpenTable(table_id=TABLE, rules=rules(), actor=FLOOR, at=AT))
    for seat, name in ((2, "bruno"), (5, "elif")):
        table(c.SeatPlayer(seat=seat, player_id=name, **D))
        table(c.BuyIn(player_id=name, amount=10_000, actor=CAGE, at=AT))
    table(c.StartRound(**D))
    table(c.PlaceBet(player_id="bruno", amount=1_000, **D))
    table(c.PlaceBet(player_id="elif", amount=2_500, **D))
    table(c.CloseBets(**D))
    return table


@pytest.mark.parametrize(
    ("deal", "why", "reported", "rule"),
    [
        (
            {"deck": FULL_DECK[:52]},
            "misdeal: a deck has 53 cards, got 52 (missing: JK)",
            {"reported_deck": TEXT[:52]},
            "R-CARD-1",
        ),
        (
            {"deck": (*FULL_DECK[1:], 1)},
            "misdeal: duplicate card: 2h",
            {"reported_deck": (*TEXT[1:], "2h")},
            "R-CARD-2",
        ),
        (  # short AND a duplicate: the clause follows the fault the reason names
            {"deck": (*FULL_DECK[:51], 0)},
            "misdeal: duplicate card: 2s",
            {"reported_deck": (*TEXT[:51], "2s")},
            "R-CARD-2",
        ),
        (
            {"deck": ["JOKER?", *FULL_DECK[1:]]},
            "misdeal: unknown card: JOKER?",
            {"reported_deck": ("JOKER?", *TEXT[1:])},
            "R-CARD-2",
        ),
        (
            {"hands": [FULL_DECK[i : i + 7] for i in range(0, 49, 7)][:6]},
            "misdeal: a deal has 7 hands, got 6",
            {"reported_hands": tuple(STACKS[:6])},
            "R-DEAL-2",
        ),
        (
            {"hands": [*[FULL_DECK[i : i + 7] for i in range(0, 42, 7)], FULL_DECK[42:50]]},
            "misdeal: hand 7 has 8 cards, not 7",
            {"reported_hands": (*STACKS[:6], TEXT[42:50])},
            "R-DEAL-2",
        ),
        (
            {"hands": [*[FULL_DECK[i : i + 7] for i in range(0, 42, 7)], FULL_DECK[0:7]]},
            "misdeal: duplicate card: 2s",
            {"reported_hands": (*STACKS[:6], TEXT[0:7])},
            "R-CARD-2",
        ),
    ],
)
def test_a_bad_deck_or_bad_hands_void_the_round_and_record_what_was_reported(
    deal: dict[str, object], why: str, reported: dict[str, object], rule: str
) -> None:
    table = bets_closed()
    events = table(c.DealCards(**deal, **D))  # type: ignore[arg-type]
    assert events == [
        RoundVoided(**R1, actor=DEALER, reason=why, returned=RETURNED, rule=rule, **reported)
    ]
    assert dict(table.state.balances) == {"bruno": 10_000, "elif": 10_000}
    assert table.state.phase == "voided"
    assert table.state.chips_in_play() == 0
    (started,) = table(c.StartRound(**D))
    assert started.round == 2


def test_a_live_readers_tokens_are_recorded_as_cards_and_an_unknown_one_as_said() -> None:
    # The reader's "10d", "as", "jk" are cards (R-CARD-2: "10" and any case accepted on input)
    # and are recorded canonically; "Xx" is no card, so the record keeps the reader's own token.
    hands = [list(stack) for stack in STACKS]
    hands[0][0:3] = ["as", "10d", "jk"]  # in place of 2s 2h 2d
    hands[3][6] = "Xx"
    table = bets_closed()
    (voided,) = table(c.DealCards(hands=hands, **D))
    assert isinstance(voided, RoundVoided)
    assert voided.reason == "misdeal: unknown card: Xx"
    assert voided.rule == "R-CARD-2"
    assert voided.reported_deck is None
    assert voided.reported_hands == (
        ("As", "Td", "JK", *STACKS[0][3:]),
        *STACKS[1:3],
        (*STACKS[3][:6], "Xx"),
        *STACKS[4:],
    )


def test_a_deck_source_value_that_is_no_card_is_recorded_as_its_text() -> None:
    table = bets_closed()
    (voided,) = table(c.DealCards(deck=(*FULL_DECK[:52], 53), source="electronic", **D))
    assert isinstance(voided, RoundVoided)
    assert voided.reason == "misdeal: not a card: 53"
    assert voided.reported_deck == (*TEXT[:52], "53")
    assert voided.rule == "R-CARD-2"


def test_the_reported_deck_survives_the_store_and_an_older_void_still_loads() -> None:
    table = bets_closed()
    (voided,) = table(c.DealCards(deck=["JOKER?", *FULL_DECK[1:]], **D))
    stored = event_to_dict(voided)
    assert stored["reported_deck"][:2] == ["JOKER?", "2h"]
    assert stored["schema_version"] == 1
    assert parse_event(stored) == voided
    # A void stored before these fields existed has none of them: it reads as reported nothing.
    for field in ("reported_deck", "reported_hands", "rule"):
        del stored[field]
    older = parse_event(stored)
    assert isinstance(older, RoundVoided)
    assert (older.reported_deck, older.reported_hands, older.rule) == (None, None, None)
    assert older.reason == "misdeal: unknown card: JOKER?"


def test_the_floor_voids_a_round_after_the_dice_and_the_wagers_come_back() -> None:
    table = bets_closed()
    table.run([c.DealCards(deck=FULL_DECK, **D), c.RollDice(faces=(4, 4, 4), **D)])
    events = table(c.VoidRound(reason="card exposed at position 3", actor=FLOOR, at=AT))
    assert events == [
        RoundVoided(**R1, actor=FLOOR, reason="card exposed at position 3", returned=RETURNED)
    ]
    # A floor call reports no cards: nothing for the audit to deal again.
    (voided,) = events
    assert isinstance(voided, RoundVoided)
    assert (voided.reported_deck, voided.reported_hands, voided.rule) == (None, None, None)
    assert dict(table.state.balances) == {"bruno": 10_000, "elif": 10_000}


def test_a_player_may_not_void_and_a_settled_round_cannot_be_voided() -> None:
    table = bets_closed()
    with pytest.raises(NotAllowed):
        table(c.VoidRound(reason="I do not like my cards", actor=player("bruno"), at=AT))
    table.run([c.DealCards(deck=FULL_DECK, **D), c.RollDice(faces=(4, 4, 4), **D)])
    table.run([c.SetBankerHand(**D), c.Settle(**D)])
    with pytest.raises(WrongState) as refused:
        table(c.VoidRound(reason="too late", actor=FLOOR, at=AT))
    assert refused.value.state == "settled"
    assert str(refused.value) == "cannot void the round in state settled"


def test_both_a_deck_and_hands_or_neither_is_a_reporting_error_not_a_misdeal() -> None:
    table = bets_closed()
    with pytest.raises(DomainError) as refused:
        table(c.DealCards(**D))
    assert refused.value.rule == "R-DEAL-2"
    with pytest.raises(DomainError):
        table(c.DealCards(deck=FULL_DECK, hands=[FULL_DECK[:7]] * 7, **D))
    assert table.state.phase == "bets_closed"
