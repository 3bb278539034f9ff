"""Misdeals void the round and return every wager (casino practice; R-DEAL-2, R-CARD-2).

The command does not raise: the deal is a fact the table saw, so the void is recorded with why.
"""

from __future__ import annotations

import pytest

from table_core import commands as c
from table_core.cards import FULL_DECK
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
    ("deal", "why"),
    [
        ({"deck": FULL_DECK[:52]}, "misdeal: a deck has 53 cards, got 52 (missing: JK)"),
        ({"deck": (*FULL_DECK[1:], 1)}, "misdeal: duplicate card: 2h"),
        ({"deck": ["JOKER?", *FULL_DECK[1:]]}, "misdeal: unknown card: JOKER?"),
        (
            {"hands": [FULL_DECK[i : i + 7] for i in range(0, 49, 7)][:6]},
            "misdeal: a deal has 7 hands, got 6",
        ),
        (
            {"hands": [*[FULL_DECK[i : i + 7] for i in range(0, 42, 7)], FULL_DECK[42:50]]},
            "misdeal: hand 7 has 8 cards, not 7",
        ),
        (
            {"hands": [*[FULL_DECK[i : i + 7] for i in range(0, 42, 7)], FULL_DECK[0:7]]},
            "misdeal: duplicate card: 2s",
        ),
    ],
)
def test_a_bad_deck_or_bad_hands_void_the_round_and_return_every_wager(
    deal: dict[str, object], why: str
) -> None:
    table = bets_closed()
    events = table(c.DealCards(**deal, **D))  # type: ignore[arg-type]
    assert events == [RoundVoided(**R1, actor=DEALER, reason=why, returned=RETURNED)]
    assert dict(table.state.balances) == {"bruno": 10_000, "elif": 10_000}
    assert table.state.phase == "voided"
    assert table.state.chips_in_play() == 0
    (started,) = table(c.StartRound(**D))
    assert started.round == 2


def test_the_floor_voids_a_round_after_the_dice_and_the_wagers_come_back() -> None:
    table = bets_closed()
    table.run([c.DealCards(deck=FULL_DECK, **D), c.RollDice(faces=(4, 4, 4), **D)])
    events = table(c.VoidRound(reason="card exposed at position 3", actor=FLOOR, at=AT))
    assert events == [
        RoundVoided(**R1, actor=FLOOR, reason="card exposed at position 3", returned=RETURNED)
    ]
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
