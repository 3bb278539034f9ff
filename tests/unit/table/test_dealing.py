"""Dealing with dice (R-DEAL-1..4): positions, the dice total, stacks, dead stacks."""

from __future__ import annotations

import pytest

from table_core import commands as c
from table_core.cards import FULL_DECK, JOKER, cards_text, parse_cards
from table_core.dealing import (
    DeckAndDiceSource,
    check_dice,
    deal_deck,
    deal_hands,
    first_position,
    place_at,
    position_of,
    stack_for,
)
from table_core.errors import CardError, DomainError
from table_core.events import Event, StackAssignment, StacksAssigned

from .support import AT, CAGE, DEALER, FLOOR, TABLE, Script, rules

# R-DEAL-3 worked out by hand: the total t gives stack 1 to position ((t - 1) mod 7) + 1.
POSITION_OF_TOTAL = {
    3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 1, 9: 2, 10: 3,
    11: 4, 12: 5, 13: 6, 14: 7, 15: 1, 16: 2, 17: 3, 18: 4,
}  # fmt: skip
FACES_OF_TOTAL = {
    3: (1, 1, 1), 4: (1, 1, 2), 5: (1, 2, 2), 6: (2, 2, 2), 7: (1, 3, 3), 8: (2, 3, 3),
    9: (3, 3, 3), 10: (2, 3, 5), 11: (1, 4, 6), 12: (3, 4, 5), 13: (6, 6, 1), 14: (4, 4, 6),
    15: (5, 5, 5), 16: (4, 6, 6), 17: (5, 6, 6), 18: (6, 6, 6),
}  # fmt: skip


@pytest.mark.parametrize("total", range(3, 19))
def test_dice_total_gives_stack_one_to_its_position(total: int) -> None:
    assert first_position(total) == POSITION_OF_TOTAL[total]


@pytest.mark.parametrize("total", [2, 19, 0])
def test_a_total_three_dice_cannot_make_is_refused(total: int) -> None:
    with pytest.raises(DomainError) as refused:
        first_position(total)
    assert str(refused.value) == f"three dice total 3..18, got {total}"


@pytest.mark.parametrize("faces", [(0, 3, 4), (1, 2), (1, 2, 7), (1, 2, 3, 4)])
def test_dice_faces_must_be_three_of_one_to_six(faces: tuple[int, ...]) -> None:
    with pytest.raises(DomainError) as refused:
        check_dice(faces)
    assert refused.value.rule == "R-DEAL-3"


def test_stacks_follow_counterclockwise_from_the_first_position() -> None:
    # total 12: position 5 gets stack 1, then 6, 7, 1, 2, 3, 4 get stacks 2..7
    assert [stack_for(p, 5) for p in range(1, 8)] == [4, 5, 6, 7, 1, 2, 3]


def test_positions_are_counted_from_the_banker_as_one() -> None:
    # dealer banking (place 0): seat s is position s + 1 (R-DEAL-1)
    assert [position_of(place, 0) for place in range(7)] == [1, 2, 3, 4, 5, 6, 7]
    # the player at seat 3 banks: seat 3 is 1, seats 4..6 are 2..4, the dealer 5, seats 1-2 6-7
    assert [position_of(place, 3) for place in range(7)] == [5, 6, 7, 1, 2, 3, 4]
    assert [place_at(position, 3) for position in range(1, 8)] == [3, 4, 5, 6, 0, 1, 2]


def test_a_deck_is_cut_into_seven_stacks_of_seven_and_four_unused() -> None:
    deal = deal_deck(FULL_DECK)
    assert deal.deck == FULL_DECK
    assert deal.stacks[0] == FULL_DECK[:7]
    assert deal.stacks[6] == FULL_DECK[42:49]
    assert deal.unused == (49, 50, 51, JOKER)


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        (FULL_DECK[:52], "a deck has 53 cards, got 52 (missing: JK)"),
        ((*FULL_DECK[:52], 0), "duplicate card: 2s"),
        ((*FULL_DECK, 0), "duplicate card: 2s"),
        ((*FULL_DECK[:52], "Zz"), "unknown card: Zz"),
        ((*FULL_DECK[:52], 53), "not a card: 53"),
    ],
)
def test_a_deck_that_is_not_the_53_cards_is_a_card_error(
    deck: tuple[int | str, ...], message: str
) -> None:
    with pytest.raises(CardError) as misdeal:
        deal_deck(deck)
    assert str(misdeal.value) == message


def test_seven_reported_hands_leave_the_four_other_cards_unused() -> None:
    hands = [FULL_DECK[i : i + 7] for i in range(4, 53, 7)]
    deal = deal_hands(hands)
    assert deal.deck is None
    assert deal.unused == tuple(parse_cards("2s 2h 2d 2c"))


@pytest.mark.parametrize(
    ("hands", "message"),
    [
        ([FULL_DECK[i : i + 7] for i in range(0, 42, 7)], "a deal has 7 hands, got 6"),
        (
            [FULL_DECK[0:6], *[FULL_DECK[i : i + 7] for i in range(7, 49, 7)]],
            "hand 1 has 6 cards, not 7",
        ),
        ([FULL_DECK[0:7]] * 7, "duplicate card: 2s"),
    ],
)
def test_reported_hands_of_the_wrong_size_or_with_duplicates_are_a_card_error(
    hands: list[tuple[int, ...]], message: str
) -> None:
    with pytest.raises(CardError) as misdeal:
        deal_hands(hands)
    assert str(misdeal.value) == message


def _two_player_round(faces: tuple[int, int, int]) -> StacksAssigned:
    """Bruno (seat 2) and elif (seat 5) bet; chloe sits at seat 3 without a bet."""
    table = Script()
    d = {"actor": DEALER, "at": AT}
    table(c.OpenTable(table_id=TABLE, rules=rules(), actor=FLOOR, at=AT))
    for seat, name in ((2, "bruno"), (3, "chloe"), (5, "elif")):
        table(c.SeatPlayer(seat=seat, player_id=name, **d))
        table(c.BuyIn(player_id=name, amount=5_000, actor=CAGE, at=AT))
    table(c.StartRound(**d))
    table(c.PlaceBet(player_id="bruno", amount=1_000, **d))
    table(c.PlaceBet(player_id="elif", amount=2_000, **d))
    table(c.CloseBets(**d))
    table(c.DealCards(deck=FULL_DECK, **d))
    _, assigned = table(c.RollDice(faces=faces, **d))
    assert isinstance(assigned, StacksAssigned)
    return assigned


def _stack(n: int) -> tuple[str, ...]:
    return tuple(cards_text(FULL_DECK[7 * (n - 1) : 7 * n]))


def test_every_position_gets_a_stack_and_those_without_a_hand_in_action_are_dead() -> None:
    assigned = _two_player_round((2, 3, 3))  # total 8: the banker (position 1) gets stack 1
    assert assigned.assignments == (
        StackAssignment(position=1, stack=1, seat=None, player_id=None, holder="banker",
                        cards=_stack(1)),
        StackAssignment(position=2, stack=2, seat=1, player_id=None, holder="dead",
                        cards=_stack(2)),  # an empty seat
        StackAssignment(position=3, stack=3, seat=2, player_id="bruno", holder="player",
                        cards=_stack(3)),
        StackAssignment(position=4, stack=4, seat=3, player_id=None, holder="dead",
                        cards=_stack(4)),  # chloe sits out this round
        StackAssignment(position=5, stack=5, seat=4, player_id=None, holder="dead",
                        cards=_stack(5)),
        StackAssignment(position=6, stack=6, seat=5, player_id="elif", holder="player",
                        cards=_stack(6)),
        StackAssignment(position=7, stack=7, seat=6, player_id=None, holder="dead",
                        cards=_stack(7)),
    )  # fmt: skip


@pytest.mark.parametrize("total", range(3, 19))
def test_the_table_gives_stack_one_to_the_dice_position(total: int) -> None:
    assigned = _two_player_round(FACES_OF_TOTAL[total])
    first = next(a for a in assigned.assignments if a.stack == 1)
    assert first.position == POSITION_OF_TOTAL[total]
    banker = assigned.assignments[0]
    assert (banker.holder, banker.stack) == ("banker", (1 - POSITION_OF_TOTAL[total]) % 7 + 1)


class ReplaySource:
    """A deck-and-dice source that replays fixed values (the secure one draws them, R-DEAL-4)."""

    def __init__(self, deck: tuple[int, ...], dice: tuple[int, int, int]) -> None:
        self.deck, self.dice = deck, dice

    def shuffled_deck(self) -> tuple[int, ...]:
        return self.deck

    def roll_dice(self) -> tuple[int, int, int]:
        return self.dice


def test_an_electronic_deal_is_recorded_like_a_live_one() -> None:
    source: DeckAndDiceSource = ReplaySource(tuple(reversed(FULL_DECK)), (6, 1, 2))
    d = {"actor": DEALER, "at": AT}

    def deal(command: c.DealCards, faces: tuple[int, int, int]) -> list[Event]:
        table = Script()
        table(c.OpenTable(table_id=TABLE, rules=rules(), actor=FLOOR, at=AT))
        table(c.SeatPlayer(seat=4, player_id="dmitri", **d))
        table(c.BuyIn(player_id="dmitri", amount=5_000, actor=CAGE, at=AT))
        table.run([c.StartRound(**d), c.PlaceBet(player_id="dmitri", amount=1_000, **d)])
        table(c.CloseBets(**d))
        return [*table(command), *table(c.RollDice(faces=faces, **d))]

    electronic = deal(
        c.DealCards(deck=source.shuffled_deck(), source="electronic", **d), source.roll_dice()
    )
    live = deal(c.DealCards(deck=cards_text(reversed(FULL_DECK)), **d), (6, 1, 2))
    assert [e.model_copy(update={"source": "live"}) for e in electronic[:1]] == live[:1]
    assert electronic[1:] == live[1:]
