"""The deck chain of custody at the table (R20): one test per decision of table/custody.py.

A deck is received (id, package, seal), inspected (53 cards to pass, R-CARD-1, and the inspector),
loaded into a shuffler (serial, receipt time), put in use, dealt from (each round names its deck)
and retired (with why, perhaps destroyed). A held deck (a dispute's hook) is not dealt from,
retired or destroyed. A table keeps custody from its first deck: before that, deals name none,
unless its profile requires custody (``deck_custody_required``, on for a new profile): then a
physical deal without a deck in use is refused; an electronic deal (the service's own draw) is not
a physical deck's.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from eventlog.mapper import event_to_dict, parse_event
from table_core import commands as c
from table_core.cards import FULL_DECK
from table_core.errors import DomainError
from table_core.events import (
    DeckDealt,
    DeckHeld,
    DeckInspected,
    DeckInUse,
    DeckLoaded,
    DeckReceived,
    DeckReleased,
    DeckRetired,
    StacksDealt,
)
from table_core.rules import TableRules
from table_core.seating_events import RulesChanged, TableOpened
from table_core.table import NotAllowed, WrongState, decide, fold
from table_core.table.state import Deck

from .support import AT, CAGE, DEALER, FLOOR, SYSTEM, TABLE, Script, rules

D = {"actor": DEALER, "at": AT}
F = {"actor": FLOOR, "at": AT}
T = {"table_id": TABLE, "actor": FLOOR, "at": AT}
LOADED_AT = datetime(2025, 3, 14, 20, 55, tzinfo=UTC)


def opened(required: bool = False) -> Script:
    table = Script()
    table(c.OpenTable(table_id=TABLE, rules=rules(deck_custody_required=required), **F))
    table(c.SeatPlayer(seat=2, player_id="bruno", **D))
    table(c.BuyIn(player_id="bruno", amount=10_000, actor=CAGE, at=AT))
    return table


def ready(table: Script, deck: str = "D-1", count: int = 53) -> None:
    """Receive, inspect, load and put ``deck`` in use."""
    table(c.ReceiveDeck(deck_id=deck, seal=f"SEAL-{deck}", package_id="PKG-7", **F))
    table(c.InspectDeck(deck_id=deck, card_count=count, inspector="insp-3", **F))
    table(c.LoadShuffler(deck_id=deck, shuffler_serial="SHF-0042", received_at=LOADED_AT, **F))
    table(c.PutDeckInUse(deck_id=deck, **F))


def to_deal(table: Script) -> None:
    table(c.StartRound(**D))
    table(c.PlaceBet(player_id="bruno", amount=1_000, **D))
    table(c.CloseBets(**D))


def refused(table: Script, command: c.Command, message: str) -> None:
    with pytest.raises(DomainError, match=message) as caught:
        decide(table.state, command)
    assert caught.value.rule == "R20" or isinstance(caught.value, NotAllowed | WrongState)


def test_a_deck_comes_into_use_with_its_whole_record() -> None:
    table = opened()
    ready(table)
    assert table.events[-4:] == [
        DeckReceived(**T, deck_id="D-1", seal="SEAL-D-1", package_id="PKG-7"),
        DeckInspected(**T, deck_id="D-1", card_count=53, inspector="insp-3", passed=True),
        DeckLoaded(**T, deck_id="D-1", shuffler_serial="SHF-0042", received_at=LOADED_AT),
        DeckInUse(**T, deck_id="D-1"),
    ]
    assert table.state.decks["D-1"] == Deck(
        deck_id="D-1",
        seal="SEAL-D-1",
        package_id="PKG-7",
        status="in_use",
        inspected=True,
        card_count=53,
        inspector="insp-3",
        shuffler_serial="SHF-0042",
        loaded_at=LOADED_AT,
    )


def test_each_round_names_the_deck_it_was_dealt_from() -> None:
    table = opened()
    ready(table)
    for number in (1, 2):
        to_deal(table)
        dealt = table(c.DealCards(deck=FULL_DECK, **D))
        assert [type(e) for e in dealt] == [StacksDealt, DeckDealt]
        assert dealt[1] == DeckDealt(
            table_id=TABLE, actor=DEALER, at=AT, round=number, deck_id="D-1"
        )
        table(c.VoidRound(reason="floor call", **F))
    assert table.state.decks["D-1"].rounds == (1, 2)


def test_a_table_whose_rules_do_not_require_custody_deals_as_before_and_names_no_deck() -> None:
    table = opened(required=False)
    to_deal(table)
    assert [e.type for e in table(c.DealCards(deck=FULL_DECK, **D))] == ["stacks_dealt"]
    assert not table.state.keeps_custody


def test_once_custody_is_kept_a_deal_needs_a_deck_in_use_and_inspected() -> None:
    table = opened()
    table(c.ReceiveDeck(deck_id="D-1", seal="S1", **F))
    to_deal(table)
    deal = c.DealCards(deck=FULL_DECK, **D)
    refused(table, deal, "no deck is in use at table PG-04: nothing to deal")
    refused(table, c.PutDeckInUse(deck_id="D-1", **F), r"not passed inspection \(no inspection")
    table(c.InspectDeck(deck_id="D-1", card_count=52, inspector="insp-3", **F))
    assert table.events[-1] == DeckInspected(
        **T, deck_id="D-1", card_count=52, inspector="insp-3", passed=False
    )  # R-CARD-1: 52 cards is a short deck, recorded as such
    refused(table, c.PutDeckInUse(deck_id="D-1", **F), r"not passed inspection \(52 cards; 53")
    table(c.InspectDeck(deck_id="D-1", card_count=53, inspector="insp-4", **F))
    table(c.PutDeckInUse(deck_id="D-1", **F))
    assert [e.type for e in table(deal)] == ["stacks_dealt", "deck_dealt"]


def test_with_two_decks_in_use_the_deal_names_one() -> None:
    table = opened()
    ready(table, "D-1")
    ready(table, "D-2")
    to_deal(table)
    refused(table, c.DealCards(deck=FULL_DECK, **D), "decks D-1, D-2 are in use: name the one")
    refused(table, c.DealCards(deck=FULL_DECK, deck_id="D-9", **D), "unknown deck 'D-9'")
    dealt = table(c.DealCards(deck=FULL_DECK, deck_id="D-2", **D))
    assert dealt[-1].deck_id == "D-2"  # type: ignore[union-attr]
    assert table.state.decks["D-2"].rounds == (1,)
    assert table.state.decks["D-1"].rounds == ()


def test_a_deal_naming_a_deck_at_a_table_without_custody_is_refused() -> None:
    table = opened()
    to_deal(table)
    refused(table, c.DealCards(deck=FULL_DECK, deck_id="D-1", **D), "unknown deck 'D-1' at")


def test_custody_facts_for_an_unknown_deck_are_refused() -> None:
    table = opened()
    for command in (
        c.InspectDeck(deck_id="D-9", card_count=53, inspector="i", **F),
        c.LoadShuffler(deck_id="D-9", shuffler_serial="S", received_at=LOADED_AT, **F),
        c.PutDeckInUse(deck_id="D-9", **F),
        c.RetireDeck(deck_id="D-9", reason="worn", **F),
        c.HoldDeck(deck_id="D-9", reason="dispute", **F),
        c.ReleaseDeck(deck_id="D-9", reason="closed", **F),
    ):
        refused(table, command, "unknown deck 'D-9' at table PG-04")


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (c.ReceiveDeck(deck_id=" ", seal="S", **F), "a deck id must not be empty"),
        (c.ReceiveDeck(deck_id="D-2", seal="", **F), "the seal number must not be empty"),
        (c.InspectDeck(deck_id="D-1", card_count=53, inspector=" ", **F), "the inspector must"),
        (c.InspectDeck(deck_id="D-1", card_count=-1, inspector="i", **F), "a card count is"),
        (c.RetireDeck(deck_id="D-1", reason="", **F), "the reason must not be empty"),
        (c.HoldDeck(deck_id="D-1", reason="  ", **F), "the reason must not be empty"),
        (c.ReceiveDeck(deck_id="D-1", seal="S", **F), "deck D-1 is already recorded"),
        (
            c.LoadShuffler(
                deck_id="D-1", shuffler_serial="S", received_at=datetime(2025, 3, 14), **F
            ),
            "the shuffler's receipt time needs its offset",
        ),
    ],
)
def test_empty_or_repeated_custody_facts_are_refused(command: c.Command, message: str) -> None:
    table = opened()
    table(c.ReceiveDeck(deck_id="D-1", seal="S", **F))
    refused(table, command, message)


def test_custody_is_the_floors_at_an_open_table() -> None:
    with pytest.raises(WrongState):
        decide(Script().state, c.ReceiveDeck(deck_id="D-1", seal="S", **F))
    table = opened()
    with pytest.raises(NotAllowed, match="a dealer may not receive a deck"):
        decide(table.state, c.ReceiveDeck(deck_id="D-1", seal="S", **D))


def test_retirement_records_why_and_a_retired_deck_leaves_play() -> None:
    table = opened()
    ready(table)
    table(c.RetireDeck(deck_id="D-1", reason="end of shift", **F))
    assert table.events[-1] == DeckRetired(**T, deck_id="D-1", reason="end of shift")
    refused(table, c.PutDeckInUse(deck_id="D-1", **F), "deck D-1 is retired")
    refused(table, c.RetireDeck(deck_id="D-1", reason="again", **F), "already retired")
    to_deal(table)
    refused(table, c.DealCards(deck=FULL_DECK, deck_id="D-1", **D), r"not in use \(retired\)")
    table(c.RetireDeck(deck_id="D-1", reason="shredded", destroyed=True, **F))
    assert table.state.decks["D-1"].destroyed
    refused(table, c.HoldDeck(deck_id="D-1", reason="dispute", **F), "was destroyed")


def test_a_held_deck_is_kept_intact_until_released() -> None:
    """R20: a deck tied to a dispute is not dealt from, retired or destroyed."""
    table = opened()
    ready(table)
    table(c.HoldDeck(deck_id="D-1", reason="seat 2 disputes round 1", dispute_id="DSP-1", **F))
    assert table.events[-1] == DeckHeld(
        **T, deck_id="D-1", reason="seat 2 disputes round 1", dispute_id="DSP-1"
    )
    held = "deck D-1 is held \\(seat 2 disputes round 1\\): it cannot be"
    refused(table, c.RetireDeck(deck_id="D-1", reason="worn", **F), held + " retired")
    refused(
        table, c.RetireDeck(deck_id="D-1", reason="x", destroyed=True, **F), held + " destroyed"
    )
    refused(table, c.HoldDeck(deck_id="D-1", reason="again", **F), "already held")
    to_deal(table)
    refused(table, c.DealCards(deck=FULL_DECK, **D), held + " dealt from")
    table(c.ReleaseDeck(deck_id="D-1", reason="dispute closed", **F))
    assert table.events[-1] == DeckReleased(**T, deck_id="D-1", reason="dispute closed")
    refused(table, c.ReleaseDeck(deck_id="D-1", reason="again", **F), "deck D-1 is not held")
    table(c.DealCards(deck=FULL_DECK, **D))
    table(c.VoidRound(reason="floor call", **F))
    table(c.RetireDeck(deck_id="D-1", reason="dispute closed, deck worn", **F))


def test_a_retired_deck_may_be_held_and_then_not_destroyed() -> None:
    table = opened()
    ready(table)
    table(c.RetireDeck(deck_id="D-1", reason="end of shift", **F))
    table(c.HoldDeck(deck_id="D-1", reason="investigation", **F))
    refused(table, c.RetireDeck(deck_id="D-1", reason="x", destroyed=True, **F), "is held")


def test_an_inspected_deck_in_use_is_not_inspected_again() -> None:
    table = opened()
    ready(table)
    refused(
        table,
        c.InspectDeck(deck_id="D-1", card_count=53, inspector="i", **F),
        "deck D-1 is in use: it was inspected before play",
    )


def test_custody_events_read_back_and_fold_to_the_same_decks() -> None:
    table = opened()
    ready(table)
    to_deal(table)
    table(c.DealCards(deck=FULL_DECK, **D))
    table(c.HoldDeck(deck_id="D-1", reason="dispute", dispute_id="DSP-1", **F))
    stored = [parse_event(event_to_dict(e)) for e in table.events]
    assert stored == table.events
    assert fold(stored).decks == table.state.decks


# --- custody required by the rules (R20) -----------------------------------------------------


def test_a_new_profile_requires_custody_and_one_recorded_before_the_setting_reads_without_it() -> (
    None
):
    assert TableRules().deck_custody_required is True
    assert TableRules.model_validate({}).deck_custody_required is True
    new = event_to_dict(TableOpened(**T, rules=TableRules()))
    assert new["schema_version"] == 2 and new["rules"]["deck_custody_required"] is True
    # a table_opened of schema 1, as stored before the setting existed: upcast on read
    stored = {**new, "schema_version": 1, "rules": dict(new["rules"])}
    del stored["rules"]["deck_custody_required"]
    read = parse_event(stored)
    assert isinstance(read, TableOpened)
    assert read.schema_version == 2 and read.rules.deck_custody_required is False
    assert read.rules == TableRules(deck_custody_required=False)
    changed = {**event_to_dict(RulesChanged(**T, rules=TableRules(version=2), reason="r",
                                            applies_from_round=1)),
               "schema_version": 1}  # fmt: skip
    del changed["rules"]["deck_custody_required"]
    assert parse_event(changed).rules.deck_custody_required is False  # type: ignore[union-attr]
    with pytest.raises(DomainError, match="a schema 1 profile has no deck_custody_required"):
        parse_event({**new, "schema_version": 1})


def test_a_table_that_requires_custody_refuses_a_physical_deal_until_a_deck_is_in_use() -> None:
    table = opened(required=True)
    to_deal(table)
    deal = c.DealCards(deck=FULL_DECK, **D)
    refused(table, deal, "table PG-04 requires deck custody for a physical deal: no deck was rec")
    refused(table, c.DealCards(hands=[FULL_DECK[i : i + 7] for i in range(0, 49, 7)], **D),
            "requires deck custody")  # fmt: skip
    table(c.ReceiveDeck(deck_id="D-1", seal="S1", **F))
    refused(table, deal, "no deck is in use at table PG-04: nothing to deal")
    table(c.InspectDeck(deck_id="D-1", card_count=53, inspector="insp-3", **F))
    refused(table, deal, "no deck is in use at table PG-04: nothing to deal")
    table(c.PutDeckInUse(deck_id="D-1", **F))
    table(c.HoldDeck(deck_id="D-1", reason="surveillance review", **F))
    refused(table, deal, r"deck D-1 is held \(surveillance review\): it cannot be dealt from")
    table(c.ReleaseDeck(deck_id="D-1", reason="review done", **F))
    dealt = table(deal)
    assert dealt == [
        dealt[0],
        DeckDealt(table_id=TABLE, actor=DEALER, at=AT, round=1, deck_id="D-1"),
    ]
    assert isinstance(dealt[0], StacksDealt) and dealt[0].source == "live"


def test_an_electronic_deal_is_the_services_own_draw_and_needs_no_physical_deck() -> None:
    table = opened(required=True)
    to_deal(table)
    dealt = table(c.DealCards(deck=FULL_DECK, source="electronic", actor=SYSTEM, at=AT))
    assert [e.type for e in dealt] == ["stacks_dealt"]
    table(c.VoidRound(reason="floor call", **F))
    ready(table)  # once the table keeps custody, every deal names its deck, electronic or not
    to_deal(table)
    assert [e.type for e in table(c.DealCards(deck=FULL_DECK, source="electronic", **D))] == [
        "stacks_dealt",
        "deck_dealt",
    ]


def test_a_misdeal_voids_the_round_whatever_the_custody() -> None:
    table = opened(required=True)
    to_deal(table)
    short = list(FULL_DECK[:52])
    (voided,) = [e for e in table(c.DealCards(deck=short, **D)) if e.type == "round_voided"]
    assert voided.reason.startswith("misdeal:")  # type: ignore[union-attr]


def test_turning_the_requirement_off_is_the_floors_rules_change_with_a_reason() -> None:
    table = opened(required=True)
    off = rules(deck_custody_required=False, version=2)
    refused(table, c.ChangeRules(rules=off, reason="electronic shoe", **D), "dealer")
    with pytest.raises(DomainError, match="a rules change states its reason"):
        decide(table.state, c.ChangeRules(rules=off, reason=" ", **F))
    to_deal(table)  # round 1 started under version 1: the change applies from round 2
    (changed,) = table(c.ChangeRules(rules=off, reason="dealt by the shuffler's reader", **F))
    assert isinstance(changed, RulesChanged) and changed.applies_from_round == 2
    refused(table, c.DealCards(deck=FULL_DECK, **D), "requires deck custody")
    table(c.VoidRound(reason="floor call", **F))
    to_deal(table)
    assert [e.type for e in table(c.DealCards(deck=FULL_DECK, **D))] == ["stacks_dealt"]
