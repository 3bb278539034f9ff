"""The table's books (issue 18, duty R16): every decision and refusal of table/inventory.py, with
exact figures. Amounts are minor units (cents): the opener is 8,100.00."""

from __future__ import annotations

import dataclasses
import random
from datetime import date

import pytest

from eventlog.mapper import event_to_dict, parse_event
from table_core import commands as c
from table_core.errors import DomainError
from table_core.events import (
    ChipAmount,
    ChipsBoughtIn,
    GamingDayClosed,
    GamingDayOpened,
    RoundSettled,
    TrayCredited,
    TrayFilled,
)
from table_core.table import NotAllowed, TableState, WrongState, decide

from .books_support import (
    COUNT,
    DAY,
    OPENER,
    OPENER_TOTAL,
    D,
    F,
    credit,
    fill,
    finish_round,
    open_day,
    play_round,
)
from .support import AT, CAGE, DEALER, FLOOR, TABLE, Script, player, rules

NEXT = date(2025, 3, 15)


def _open(opener: dict[int, int] | None = None) -> Script:
    script = Script()
    open_day(script, opener)
    return script


def _seat(script: Script, name: str = "ana", seat: int = 1, card: str | None = None) -> None:
    script(c.SeatPlayer(seat=seat, player_id=name, card=card, actor=player(name), at=AT))


def _refused(script: Script, command: c.Command, kind: type[Exception], match: str) -> None:
    before = script.state
    with pytest.raises(kind, match=match):
        decide(script.state, command)
    assert script.state is before


def test_an_opener_opens_a_new_table_and_fills_its_tray() -> None:
    script = Script()
    open_day(script)
    opened = script.events[-1]
    assert [e.type for e in script.events] == ["table_opened", "gaming_day_opened"]
    assert isinstance(opened, GamingDayOpened)
    assert opened.opener == (
        ChipAmount(denomination=100, amount=10_000),
        ChipAmount(denomination=500, amount=50_000),
        ChipAmount(denomination=2_500, amount=250_000),
        ChipAmount(denomination=10_000, amount=500_000),
    )
    assert (opened.total, opened.last_closer, opened.variance) == (810_000, None, 0)
    assert (opened.actor, opened.dealer, opened.gaming_day) == (FLOOR, DEALER, DAY)
    assert script.state.books == "open" and script.state.tray == OPENER_TOTAL


def test_a_table_opened_the_old_way_has_no_books_until_an_opener() -> None:
    script = Script()
    script(c.OpenTable(table_id=TABLE, rules=rules(), **F))
    assert script.state.books == "untracked" and script.state.tray is None
    _seat(script)
    script(c.BuyIn(player_id="ana", amount=50_000, actor=CAGE, at=AT))  # no tray to cover it
    open_day(script, {10_000: 100_000})
    assert [e.type for e in script.events[-1:]] == ["gaming_day_opened"]
    assert script.state.tray == 100_000


@pytest.mark.parametrize(
    ("opener", "match"),
    [
        ({200: 2_000}, r"denomination 200 is not in the profile \(100, 500, 2500, 10000\)"),
        ({100: 250.5}, r"chips of 100: 250.5 is not a whole minor unit"),
        ({500: -500}, r"chips of 500: -500 is not a non-negative multiple"),
        ({500: 750}, r"chips of 500: 750 is not a non-negative multiple"),
    ],
)
def test_an_opener_in_chips_the_profile_does_not_know_is_refused(
    opener: dict[int, int], match: str
) -> None:
    script = Script()
    command = c.OpenGamingDay(
        gaming_day=DAY, opener=opener, dealer=DEALER, table_id=TABLE, rules=rules(), **F
    )
    _refused(script, command, DomainError, match)


def test_an_opener_is_signed_by_a_floor_supervisor_and_a_dealer() -> None:
    script = Script()
    by_dealer = c.OpenGamingDay(gaming_day=DAY, opener=OPENER, dealer=DEALER, table_id=TABLE, **D)
    _refused(script, by_dealer, NotAllowed, "a dealer may not open a gaming day")
    no_dealer = c.OpenGamingDay(gaming_day=DAY, opener=OPENER, dealer=CAGE, table_id=TABLE, **F)
    _refused(script, no_dealer, DomainError, "the dealer signs as dealer, not cage")


def test_buy_ins_record_their_medium_and_take_chips_from_the_tray() -> None:
    script = _open()
    _seat(script)
    buy = {"player_id": "ana", "actor": CAGE, "at": AT}
    script(c.BuyIn(amount=50_000, medium="cash", **buy))
    script(c.BuyIn(amount=100_000, medium="marker", marker="M-2291", **buy))
    assert script.state.tray == 810_000 - 50_000 - 100_000
    script(c.BuyIn(amount=20_000, medium="chips", **buy))
    script(c.BuyIn(amount=5_000, medium="promotional", **buy))
    assert script.state.tray == 660_000  # chips from elsewhere and promotional chips: no tray
    assert script.state.balances["ana"] == 175_000
    marker = script.events[-3]
    assert isinstance(marker, ChipsBoughtIn) and (marker.medium, marker.marker) == (
        "marker",
        "M-2291",
    )
    _refused(script, c.BuyIn(amount=1, medium="marker", **buy), DomainError, "marker's number")
    _refused(script, c.BuyIn(amount=1, medium="cheque", **buy), DomainError, "not 'cheque'")
    _refused(script, c.BuyIn(amount=660_100, medium="cash", **buy), DomainError, "holds 660000")


def test_an_old_buy_in_without_a_medium_keeps_its_bytes_and_reads_as_cash() -> None:
    stored = {
        "type": "chips_bought_in", "schema_version": 1, "table_id": TABLE, "round": None,
        "actor": {"id": "cage-1", "role": "cage"}, "at": "2025-03-14T21:30:00Z",
        "player_id": "ana", "amount": 50_000,
    }  # fmt: skip
    event = parse_event(stored)
    assert isinstance(event, ChipsBoughtIn) and event.medium is None
    assert event_to_dict(event) == stored
    script = _open()
    _seat(script)
    script(c.BuyIn(player_id="ana", amount=50_000, actor=CAGE, at=AT))
    assert script.state.tray == 760_000 and "medium" not in event_to_dict(script.events[-1])


def test_a_fill_and_a_credit_carry_their_slip_and_three_actors() -> None:
    script = _open()
    script(fill("F-0001", {2_500: 100_000, 10_000: 200_000}))
    filled = script.events[-1]
    assert isinstance(filled, TrayFilled)
    assert (filled.slip, filled.total, filled.gaming_day) == ("F-0001", 300_000, DAY)
    assert (filled.requested_by, filled.issued_by, filled.received_by) == (FLOOR, CAGE, DEALER)
    assert script.state.tray == 1_110_000
    script(credit("C-0001", {10_000: 600_000}))
    assert isinstance(script.events[-1], TrayCredited) and script.state.tray == 510_000


def test_slips_refuse_wrong_signers_reused_numbers_and_empty_slips() -> None:
    script = _open()
    script(fill("F-1", {100: 1_000}))
    _refused(script, fill("F-1", {100: 1_000}), DomainError, "slip F-1 is recorded already")
    _refused(script, fill("F-2", {100: 0}), DomainError, "at least one positive amount")
    wrong = c.FillTray(
        slip="F-3", chips={100: 100}, requested_by=FLOOR, issued_by=DEALER, received_by=DEALER, **F
    )
    _refused(script, wrong, DomainError, "the issuer signs as cage, not dealer")
    wrong = c.CreditTray(
        slip="C-1", chips={100: 100}, requested_by=CAGE, issued_by=DEALER, received_by=CAGE, **F
    )
    _refused(script, wrong, DomainError, "the requester signs as floor, not cage")


def test_a_credit_the_tray_cannot_cover_is_refused() -> None:
    script = _open({10_000: 100_000})
    _refused(
        script,
        credit("C-1", {10_000: 110_000}),
        DomainError,
        "holds 100000, credit C-1 needs 110000",
    )


def test_fills_and_credits_wait_for_the_round_to_end() -> None:
    script = _open()
    _seat(script)
    script(c.BuyIn(player_id="ana", amount=50_000, medium="cash", actor=CAGE, at=AT))
    script(c.StartRound(**D))
    _refused(
        script, fill("F-1", {100: 100}), WrongState, "cannot fill the tray in state open_for_bets"
    )
    _refused(script, credit("C-1", {100: 100}), WrongState, "in state open_for_bets")


def _winning_round(script: Script) -> RoundSettled:
    """Plays seeds until ana wins round 1 outright (10,000 wagered, 9,500 net at 5%)."""
    for seed in range(200):
        trial = Script(script.state)
        play_round(trial, {"ana": 10_000}, random.Random(seed))
        unchecked = dataclasses.replace(trial.state, books="untracked")  # the result, not the tray
        settled = decide(unchecked, c.Settle(**D))[0]
        assert isinstance(settled, RoundSettled)
        if settled.results[0].result == "win":
            script.state, script.events = trial.state, script.events + trial.events
            return settled
    raise AssertionError("no winning deal in 200 seeds")


def test_a_payout_the_tray_cannot_cover_is_refused_until_a_fill() -> None:
    script = _open({100: 0})
    _seat(script)
    script(c.BuyIn(player_id="ana", amount=50_000, medium="chips", actor=CAGE, at=AT))
    _winning_round(script)
    _refused(script, c.Settle(**D), DomainError, "holds 0, round 1's payouts needs 9500: fill")
    script(c.VoidRound(reason="tray short", actor=FLOOR, at=AT))
    script(fill("F-1", {100: 10_000}))
    _winning_round(script)
    finish_round(script)
    assert script.state.tray == 500  # 100.00 filled, 95.00 paid to ana
    assert script.state.balances["ana"] == 59_500


def test_close_records_the_closer_against_the_tray_and_stops_play() -> None:
    script = _open()
    _seat(script)
    script(c.BuyIn(player_id="ana", amount=50_000, medium="cash", actor=CAGE, at=AT))
    script(
        c.CloseGamingDay(closer={10_000: 500_000, 2_500: 250_000, 500: 10_000}, dealer=DEALER, **F)
    )
    closed = script.events[-1]
    assert isinstance(closed, GamingDayClosed)
    assert (closed.total, closed.expected, closed.variance) == (760_000, 760_000, 0)
    assert script.state.books == "closed" and script.state.uncounted == (DAY,)
    _refused(script, c.StartRound(**D), WrongState, "cannot start a round in state closed")
    _refused(script, fill("F-9", {100: 100}), WrongState, "cannot fill the tray in state closed")
    _refused(script, c.SeatPlayer(seat=2, player_id="bo", **D), WrongState, "state closed")
    _refused(
        script,
        c.BuyIn(player_id="ana", amount=100, medium="cash", actor=CAGE, at=AT),
        WrongState,
        "cannot buy in in state closed",
    )


def test_the_count_comes_after_the_close_once_per_day() -> None:
    script = _open()
    count = c.CountDrop(gaming_day=DAY, cash=45_000, markers=100_000, actor=COUNT, at=AT)
    _refused(script, count, DomainError, "gaming day 2025-03-14 of table PG-04 is not closed")
    script(c.CloseGamingDay(closer=OPENER, dealer=DEALER, **F))
    _refused(
        script,
        c.CountDrop(gaming_day=DAY, cash=1, markers=0, actor=CAGE, at=AT),
        NotAllowed,
        "a cage may not record the count",
    )
    _refused(
        script,
        c.CountDrop(gaming_day=DAY, cash=-1, markers=0, actor=COUNT, at=AT),
        DomainError,
        "the count's cash is whole, non-negative minor units: -1",
    )
    (counted,) = script(count)
    assert counted.total == 145_000  # type: ignore[union-attr]
    assert script.state.uncounted == ()
    _refused(script, count, DomainError, "is not closed and uncounted")


def test_the_next_opener_is_checked_against_the_last_closer() -> None:
    script = _open()
    script(c.CloseGamingDay(closer=OPENER, dealer=DEALER, **F))
    _refused(script, c.OpenGamingDay(gaming_day=DAY, opener=OPENER, dealer=DEALER, **F),
             DomainError, "gaming day 2025-03-14 is not after 2025-03-14")  # fmt: skip
    open_day(script, {**OPENER, 100: 9_900}, NEXT)  # one 1.00 chip short
    opened = script.events[-1]
    assert isinstance(opened, GamingDayOpened)
    assert (opened.last_closer, opened.total, opened.variance) == (810_000, 809_900, -100)
    assert script.state.tray == 809_900 and script.state.slips == frozenset()
    _refused(script, c.OpenGamingDay(gaming_day=date(2025, 3, 16), opener=OPENER,
             dealer=DEALER, **F), WrongState, "cannot open a gaming day in state open")  # fmt: skip


def test_a_rating_correction_names_its_reason() -> None:
    script = _open()
    _seat(script, card="CLUB-0042")
    assert script.state.ratings == {"ana": AT}
    fix = {"player_id": "ana", "average_bet": 2_500, "actor": FLOOR, "at": AT}
    _refused(script, c.CorrectRating(reason="  ", **fix), DomainError, "states its reason")
    _refused(script, c.CorrectRating(reason="x", player_id="ana", **F), DomainError, "gives an")
    _refused(
        script,
        c.CorrectRating(reason="x", player_id="bo", minutes=5, **F),
        DomainError,
        "bo has no",
    )
    (corrected,) = script(c.CorrectRating(reason="bets were 25.00, not 10.00", **fix))
    assert corrected.rating_start == AT and corrected.average_bet == 2_500  # type: ignore[union-attr]


def test_a_new_books_state_starts_untracked() -> None:
    assert TableState().books == "untracked" and TableState().tray is None
