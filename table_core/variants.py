"""Main-wager variants (R-VAR-1): the commission game, EZ and commission-free.

``ez`` and ``commission_free`` charge no commission; each has one banker hand that overrides every
main wager of the round:

- ``ez``: the banker's seven cards are a queen-high pai gow (no pair, straight or flush, a queen
  highest; a joker there would be an ace). Every main wager pushes, or — setting
  ``queen_high_pai_gow = banker_wins``, seed 001's reading — the banker takes them all.
- ``commission_free``: the banker's front hand is 9-high (two unpaired cards, a nine highest).
  Every main wager pushes.

The override depends on the banker's hand only, so the table computes it once per round with
:func:`variant_override` and passes it to :func:`settle_main_wager_variant` for every wager.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Literal

from table_core.cards import Card
from table_core.errors import DomainError
from table_core.rules import VARIANTS, CommissionRules, QueenHighPaiGow, Variant
from table_core.settlement import MainWagerSettlement, settle_main_wager
from table_core.side_bets.classifier import classify_hand
from table_core.side_bets.lines import pai_gow_kind

Override = Literal["push", "banker_wins"]

QUEEN, NINE = 12, 9

_QUEEN_HIGH_PAI_GOW = pai_gow_kind(QUEEN)


def is_queen_high_pai_gow(seven: Sequence[Card]) -> bool:
    """R-VAR-1 (ez): no pair, straight or flush among the seven, and a queen the highest card."""
    return classify_hand(seven) == _QUEEN_HIGH_PAI_GOW


def is_nine_high_front(front_strength: int) -> bool:
    """R-VAR-1 (commission_free): a two-card front of two unpaired cards, a nine highest (R-LO-1).

    ``front_strength`` is ``table_core.hands.two_card_strength``'s: 16 x high + low, unpaired.
    """
    return front_strength < 256 and front_strength >> 4 == NINE


def variant_override(
    variant: Variant,
    banker_seven: Sequence[Card],
    banker_front_strength: int,
    queen_high_pai_gow: QueenHighPaiGow = "push",
) -> Override | None:
    """What the banker's hand does to every main wager of the round under ``variant``, if anything.

    ``None``: wagers settle by R-PAY-1. ``"push"``: every main wager pushes. ``"banker_wins"``:
    the banker takes every main wager (ez with ``queen_high_pai_gow = banker_wins``).
    """
    if variant == "commission":
        return None
    if variant == "ez":
        if queen_high_pai_gow not in ("push", "banker_wins"):
            raise DomainError(f"unknown queen_high_pai_gow: {queen_high_pai_gow}", rule="R-VAR-1")
        return queen_high_pai_gow if is_queen_high_pai_gow(banker_seven) else None
    if variant == "commission_free":
        return "push" if is_nine_high_front(banker_front_strength) else None
    raise DomainError(f"unknown variant: {variant} (known: {', '.join(VARIANTS)})", rule="R-VAR-1")


@cache
def no_commission() -> CommissionRules:
    """A commission that is never charged: the variants without commission settle through it."""
    return CommissionRules(mode="percent", rate_bp=0)


def variant_commission(variant: Variant, commission: CommissionRules) -> CommissionRules:
    """The commission rules in force: the table's for ``commission``, none for the other two."""
    return commission if variant == "commission" else no_commission()


def settle_main_wager_variant(
    player_back: int,
    player_front: int,
    banker_back: int,
    banker_front: int,
    wager: int,
    commission: CommissionRules,
    *,
    variant: Variant = "commission",
    override: Override | None = None,
    forfeited: bool = False,
) -> MainWagerSettlement:
    """Settle one main wager under ``variant`` (R-VAR-1), wrapping ``settle_main_wager``.

    ``override`` is :func:`variant_override`'s answer for the round. The two hand results are
    still those of R-SET-3 (for the record); only the wager's result and money change. A hand
    forfeited by a foul (R-SET-2) stays lost whatever the banker holds: it left play when it
    fouled, before the banker's hand could push it.
    """
    if variant not in VARIANTS:
        raise DomainError(f"unknown variant: {variant}", rule="R-VAR-1")
    if override is not None and variant == "commission":
        raise DomainError("the commission game has no banker override", rule="R-VAR-1")
    settled = settle_main_wager(
        player_back,
        player_front,
        banker_back,
        banker_front,
        wager,
        variant_commission(variant, commission),
        forfeited=forfeited,
    )
    if override is None or forfeited:
        return settled
    if override == "push":
        return MainWagerSettlement("push", settled.back, settled.front, wager, 0, 0)
    return MainWagerSettlement("loss", settled.back, settled.front, wager, -wager, 0)
