"""Main-wager variants (R-VAR-1): ez and commission_free, settled through settle_main_wager."""

from __future__ import annotations

import pytest

from table_core.cards import parse_cards
from table_core.errors import DomainError
from table_core.hands import five_card_strength, two_card_strength
from table_core.rules import CommissionRules, Variant
from table_core.variants import (
    Override,
    is_nine_high_front,
    is_queen_high_pai_gow,
    settle_main_wager_variant,
    variant_override,
)

WAGER = 100
PERCENT_5 = CommissionRules()  # the commission game's 5%


def _strengths(back: str, front: str) -> tuple[int, int]:
    return five_card_strength(parse_cards(back, 5)), two_card_strength(parse_cards(front, 2))


def _round(
    banker: tuple[str, str], players: list[tuple[str, str]], variant: Variant, setting: str = "push"
) -> list[tuple[str, int, int]]:
    """Settle every player's wager against the banker: (result, net, commission) each."""
    banker_back, banker_front = _strengths(*banker)
    override: Override | None = variant_override(
        variant,
        parse_cards(f"{banker[0]} {banker[1]}", 7),
        banker_front,
        queen_high_pai_gow=setting,  # type: ignore[arg-type]
    )
    out: list[tuple[str, int, int]] = []
    for back, front in players:
        player_back, player_front = _strengths(back, front)
        settled = settle_main_wager_variant(
            player_back,
            player_front,
            banker_back,
            banker_front,
            WAGER,
            PERCENT_5,
            variant=variant,
            override=override,
        )
        out.append((settled.result, settled.net, settled.commission))
    return out


# The banker's seven cards are a queen-high pai gow: Q-T-8-6-4-3-2, set Q-6-4-3-2 / T-8.
QUEEN_HIGH_BANKER = ("Qs 6c 4s 3h 2d", "Th 8d")
KING_HIGH_BANKER = ("Ks 6c 4s 3h 2d", "Th 8d")
PLAYERS = [
    ("As Ah Kd Kc 5h", "Ac 9c"),  # wins both hands
    ("Ks Qh Jc 9d 6h", "4d 2c"),  # wins the back, loses the front: a push
    ("Js 9h 7d 5c 3c", "7h 5d"),  # loses both
]


def test_commission_game_for_comparison() -> None:
    assert _round(QUEEN_HIGH_BANKER, PLAYERS, "commission") == [
        ("win", 95, 5),
        ("push", 0, 0),
        ("loss", -100, 0),
    ]


def test_ez_banker_queen_high_pai_gow_pushes_every_main_wager() -> None:
    assert _round(QUEEN_HIGH_BANKER, PLAYERS, "ez") == [("push", 0, 0)] * 3


def test_ez_banker_wins_setting_takes_every_main_wager() -> None:
    assert _round(QUEEN_HIGH_BANKER, PLAYERS, "ez", "banker_wins") == [("loss", -100, 0)] * 3


def test_ez_without_the_queen_high_pai_gow_plays_out_with_no_commission() -> None:
    banker = ("Ks 6c 4s 3h 2d", "Qh 8d")  # king-high: no override
    assert _round(banker, PLAYERS[:1] + PLAYERS[2:], "ez") == [("win", 100, 0), ("loss", -100, 0)]


def test_queen_high_pai_gow_reads_all_seven_cards() -> None:
    assert is_queen_high_pai_gow(parse_cards("Qs Th 8d 6c 4s 3h 2d"))
    assert not is_queen_high_pai_gow(parse_cards("Ks Th 8d 6c 4s 3h 2d"))  # king high
    assert not is_queen_high_pai_gow(parse_cards("Qs Ts 8s 6s 4s 3h 2d"))  # a flush
    assert not is_queen_high_pai_gow(parse_cards("Qs Qh 8d 6c 4s 3h 2d"))  # a pair
    assert not is_queen_high_pai_gow(parse_cards("Qs 9h 7d 6c 5s 4h 3d"))  # a straight
    # a joker that completes nothing is an ace (R-HI-3): ace-high, not queen-high
    assert not is_queen_high_pai_gow(parse_cards("JK Qs Th 8d 6c 3s 2h"))


def test_commission_free_banker_nine_high_front_pushes_every_main_wager() -> None:
    banker = ("Ks Qd 7c 5s 3d", "9s 4h")
    players = [
        ("Ah Ad 8s 8h 2c", "Kh Jc"),  # would win both
        ("Jh 9d 7s 6s 2d", "8d 3c"),  # would lose both
    ]
    assert _round(banker, players, "commission") == [("win", 95, 5), ("loss", -100, 0)]
    assert _round(banker, players, "commission_free") == [("push", 0, 0)] * 2
    ten_high = ("Ks Qd 7c 5s 3d", "Ts 4h")
    assert _round(ten_high, players, "commission_free") == [("win", 100, 0), ("loss", -100, 0)]


def test_nine_high_front() -> None:
    def front(text: str) -> int:
        return two_card_strength(parse_cards(text, 2))

    assert is_nine_high_front(front("9s 8h"))
    assert is_nine_high_front(front("2c 9d"))
    assert not is_nine_high_front(front("9s 9h"))  # a pair of nines is no 9-high
    assert not is_nine_high_front(front("Ts 2h"))
    assert not is_nine_high_front(front("8s 7h"))
    assert not is_nine_high_front(front("JK 9s"))  # the joker is an ace in front (R-LO-1)


def test_a_forfeited_hand_stays_lost_when_the_banker_pushes_everything() -> None:
    banker_back, banker_front = _strengths(*QUEEN_HIGH_BANKER)
    player_back, player_front = _strengths(*PLAYERS[0])
    settled = settle_main_wager_variant(
        player_back,
        player_front,
        banker_back,
        banker_front,
        WAGER,
        PERCENT_5,
        variant="ez",
        override="push",
        forfeited=True,
    )
    assert (settled.result, settled.net, settled.commission) == ("loss", -100, 0)


def test_variant_errors() -> None:
    seven = parse_cards("Qs Th 8d 6c 4s 3h 2d")
    assert variant_override("commission", seven, 0x98) is None
    with pytest.raises(DomainError, match="unknown variant"):
        variant_override("pai_gow_mania", seven, 0x98)  # type: ignore[arg-type]
    with pytest.raises(DomainError, match="no banker override"):
        settle_main_wager_variant(1, 1, 1, 1, WAGER, PERCENT_5, override="push")
