"""``audit verify`` on a recorded session: clean on both engines, and every kind of tampering
caught at the event it touched, by the check that owns it, in one pass."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from audit import ranges
from audit.findings import AuditReport, Finding
from audit.verify import verify_log
from table_core.cards import card_text, parse_cards
from table_core.hands import tables_for
from table_core.split import display_order, make_split, value_split

from .conftest import ROUNDS, TABLES, Casino


def kinds(report: AuditReport) -> set[str]:
    return {f.kind for f in report.findings}


def at(report: AuditReport, position: int) -> list[Finding]:
    return [f for f in report.findings if f.position == position]


def rate_in_force(forger: Any, table: str, round_: int) -> int:
    """The commission rate of the profile a round played under, read from the events."""
    rate = 0
    for row in forger.rows():
        if row[1] == table and row[3] in ("table_opened", "rules_changed"):
            payload = json.loads(row[5])
            if payload.get("applies_from_round", 1) <= round_:
                rate = payload["rules"]["hand"]["commission"]["rate_bp"]
    return rate


def test_a_clean_session_verifies_on_both_engines(casino: Casino) -> None:
    report = casino.audit()
    assert report.findings == []
    assert report.ok
    assert report.tables == TABLES
    assert report.rounds == casino.stats.rounds == TABLES * ROUNDS
    assert report.rounds_unchecked == []
    # Every round end was signed (R-DEAL: the service checkpoints each closed or voided round),
    # and so is the last event, the service's stop (issue 17: every event sealed).
    rows, checkpoints = casino.store.raw_log()
    signed = {c[0] for c in checkpoints}
    ends = {r[0] for r in rows if r[1] != "system" and r[3] in ("round_closed", "round_voided")}
    assert len(ends) == casino.stats.settled + casino.stats.voided and ends <= signed
    assert rows[-1][3] == "service_stopped" and rows[-1][0] in signed
    assert report.checkpoints == len(checkpoints)
    assert report.signatures_checked and report.key_id is not None
    assert report.events == len(casino.forger.rows())
    assert report.summary().startswith("audit OK: ")
    for money in report.money:  # the books: bought in - cashed out = held + the house's take
        assert money.bought_in - money.cashed_out - money.balances == (
            money.house_result + money.commission
        )


def test_a_flipped_byte_in_a_payload_is_a_hash_finding_at_that_event(
    sqlite_casino: Casino,
) -> None:
    casino = sqlite_casino
    position = casino.forger.find("bet_placed")
    amount = casino.forger.payload(position)["amount"]
    casino.forger.replace_payload(position, lambda p: p.update(amount=amount + 1_000))
    report = casino.audit()
    first, *rest = report.findings
    assert (first.kind, first.clause, first.position) == ("integrity", "chain.hash", position)
    assert "changed after they were written" in first.message
    assert (first.event_type, first.stream_id) == ("bet_placed", "PG-1")
    assert len(report.rounds_unchecked) == 1  # that round's rules are not re-derived
    # What the change did: the player's chips no longer add up once the round is over.
    round_ = casino.forger.payload(position)["round"]
    assert [(f.kind, f.round) for f in rest] == [("money", round_)]
    assert f"after round {round_}, the books do not balance" in rest[0].message


def test_a_deleted_event_is_a_sequence_finding_where_it_was(casino: Casino) -> None:
    position = casino.forger.find("hand_set")
    casino.forger.delete(position)
    report = casino.audit()
    first = report.findings[0]
    assert (first.kind, first.clause, first.position) == ("integrity", "chain.sequence", position)
    assert "missing" in first.message
    # The table's own chain names the same gap, at the event after it in that stream.
    stream = [f for f in report.findings if f.stream_id == "PG-1" and f.clause == "chain.sequence"]
    assert stream, report.findings
    assert not report.ok


def test_two_swapped_events_are_found_at_both_places_and_nothing_else(
    sqlite_casino: Casino,
) -> None:
    casino = sqlite_casino
    rows = casino.forger.rows()
    position = next(
        r[0] for r, s in itertools.pairwise(rows) if r[3] == "bet_placed" and s[1] == r[1]
    )
    casino.forger.swap(position)
    report = casino.audit()
    assert kinds(report) == {"integrity"}
    assert {f.position for f in report.findings} <= {position, position + 1}
    assert {position, position + 1} <= {f.position for f in report.findings if f.position}


def test_a_changed_commission_with_the_chain_rewritten_is_caught_by_the_rules(
    sqlite_casino: Casino,
) -> None:
    casino = sqlite_casino
    forger = casino.forger
    taken = forger.find("commission_taken", lambda p: p["payer"] == "player")
    charged = forger.payload(taken)
    settled = next(r[0] for r in reversed(forger.rows()[: taken - 1]) if r[3] == "round_settled")

    def overcharge(payload: dict[str, Any]) -> None:
        for result in payload["results"]:
            if result["seat"] == charged["seat"]:
                result["commission"] += 5
                result["net"] -= 5

    forger.forge(settled, overcharge)
    forger.forge(taken, lambda p: p.update(amount=p["amount"] + 5))
    report = casino.audit()
    assert "integrity" not in kinds(report)  # the chain and every signature hold
    rules = [f for f in report.findings if f.kind == "rules"]
    assert [(f.clause, f.position) for f in rules] == [("R-PAY-2", settled), ("R-PAY-2", taken)]
    amount = charged["amount"]
    rate = rate_in_force(forger, "PG-1", charged["round"])  # a change of rules may apply
    assert (
        f"round {charged['round']}, seat {charged['seat']}: commission recorded {amount + 5}, "
        f"rules give {amount} (percent {rate} bp, half_up to 1)"
    ) in rules[0].message
    assert f"commission recorded {amount + 5}, rules give {amount}" in rules[1].message


def test_a_changed_die_with_the_chain_rewritten_is_caught_by_the_procedure(
    sqlite_casino: Casino,
) -> None:
    casino = sqlite_casino
    forger = casino.forger
    position = forger.find("dice_rolled")
    faces = forger.payload(position)["faces"]
    changed = [faces[0] % 6 + 1, *faces[1:]]
    forger.forge(position, lambda p: p.update(faces=changed))
    report = casino.audit()
    assert [(f.kind, f.clause, f.position) for f in report.findings] == [
        ("procedure", "R-DEAL-3", position)
    ]
    message = report.findings[0].message
    assert f"dice {' '.join(map(str, changed))} total {sum(changed)}" in message
    assert f"recorded total {sum(faces)}" in message


def _another_legal_split(payload: dict[str, Any], wheel: str) -> tuple[list[str], list[str]]:
    seven = parse_cards([*payload["back"], *payload["front"]])
    tables = tables_for(wheel)
    chosen = (tuple(parse_cards(payload["back"])), tuple(parse_cards(payload["front"])))
    for front in itertools.combinations(seven, 2):
        back = [c for c in seven if c not in front]
        split = make_split(back, front)
        if value_split(split, tables).legal and (split.back, split.front) != (
            display_order(chosen[0]),
            display_order(chosen[1]),
        ):
            return [card_text(c) for c in split.back], [card_text(c) for c in split.front]
    raise AssertionError("no other legal split")


def test_a_legal_banker_split_that_is_not_the_house_way_is_caught_by_the_rules(
    sqlite_casino: Casino,
) -> None:
    casino = sqlite_casino
    forger = casino.forger
    position = forger.find("banker_hand_set", lambda p: p["table_id"] == "PG-1")
    original = forger.payload(position)
    back, front = _another_legal_split(original, "second")
    forger.forge(position, lambda p: p.update(back=back, front=front))
    report = casino.audit()
    assert "integrity" not in kinds(report)
    first = report.findings[0]
    assert (first.kind, first.clause, first.position) == ("rules", "R-HW-1", position)
    assert f"recorded back {' '.join(back)} / front {' '.join(front)}" in first.message
    assert (
        f"the House Way fr gives back {' '.join(original['back'])} / front "
        f"{' '.join(original['front'])} by {original['rule']}"
    ) in first.message


def test_every_finding_is_reported_in_one_pass(sqlite_casino: Casino) -> None:
    forger = sqlite_casino.forger
    dice = forger.find("dice_rolled")
    bet = forger.find("bet_placed", lambda p: p["table_id"] == "PG-2")
    forger.forge(dice, lambda p: p.update(faces=[p["faces"][0] % 6 + 1, *p["faces"][1:]]))
    forger.replace_payload(bet, lambda p: p.update(amount=p["amount"] + 1))
    report = sqlite_casino.audit()
    places = [(f.kind, f.position) for f in report.findings]
    assert ("procedure", dice) in places
    assert ("integrity", bet) in places
    assert report.summary().startswith(f"audit FAILED: {len(report.findings)} findings")


def test_an_accepted_fouled_split_is_caught_by_the_rules(sqlite_casino: Casino) -> None:
    forger = sqlite_casino.forger
    position = forger.find("hand_set", lambda p: p["reason"] == "player_set")
    hand = forger.payload(position)
    seven = [*hand["back"], *hand["front"]]
    tables = tables_for("second")
    fouled = next(
        (sorted(set(seven) - set(front)), list(front))
        for front in itertools.combinations(seven, 2)
        if not value_split(
            make_split(parse_cards([c for c in seven if c not in front]), parse_cards(front)),
            tables,
        ).legal
    )
    forger.forge(position, lambda p: p.update(back=fouled[0], front=fouled[1]))
    report = sqlite_casino.audit()
    findings = at(report, position)
    assert findings and findings[0].kind == "rules" and findings[0].clause == "R-SET-1"
    assert "was accepted, but it is fouled" in findings[0].message


def test_a_bet_above_the_limit_is_a_procedure_finding(sqlite_casino: Casino) -> None:
    forger = sqlite_casino.forger
    position = forger.find("bet_placed")
    forger.forge(position, lambda p: p.update(amount=1_000_000))
    report = sqlite_casino.audit()
    first = report.findings[0]
    assert (first.kind, first.position) == ("procedure", position)
    assert "the table's rules refuse this bet: a bet at this table is 1000..100000" in first.message


def test_removing_the_last_events_is_caught_by_the_signed_checkpoint(
    sqlite_casino: Casino,
) -> None:
    forger = sqlite_casino.forger
    last = len(forger.rows())
    forger.delete(last)  # the service's last event (system stream), then a table's round end
    forger.delete(last - 1)
    report = sqlite_casino.audit()
    assert any(
        f.clause == "chain.checkpoint" and "events were removed" in f.message
        for f in report.findings
    ) or any("its last events were removed" in f.message for f in report.findings)


def test_rounds_can_be_limited_and_one_table_chosen(sqlite_casino: Casino) -> None:
    report = sqlite_casino.audit(table="PG-2", first_round=3, last_round=5)
    assert report.ok and report.tables == 1 and report.rounds == 3
    missing = sqlite_casino.audit(table="PG-9")
    assert [f.message for f in missing.findings] == ["no event of table PG-9 is in the log"]


def test_worker_processes_find_exactly_what_one_process_finds(sqlite_casino: Casino) -> None:
    forger = sqlite_casino.forger
    forger.forge(forger.find("dice_rolled"), lambda p: p.update(faces=[6, 6, 6]))
    forger.forge(forger.find("commission_taken"), lambda p: p.update(amount=p["amount"] + 1))
    forger.delete(forger.find("side_bet_settled"))
    alone = sqlite_casino.audit()
    shared = sqlite_casino.audit(jobs=2)
    assert alone.findings and shared.findings == alone.findings
    assert (shared.rounds, shared.rounds_unchecked, shared.money) == (
        alone.rounds,
        alone.rounds_unchecked,
        alone.money,
    )


def test_worker_processes_keep_no_batch_of_a_table_gone_quiet(
    sqlite_casino: Casino, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22: a table that closed must not keep its last part-filled batch in the main process
    to the end of the log (an archive of thousands of closed tables grew to 1,100 MiB)."""
    sweep = 16
    monkeypatch.setattr(ranges, "_SWEEP", sweep, raising=False)
    routed = itertools.count(1)
    seen: dict[str, int] = {}  # a table: the log row (of those routed) that last came to it
    stale: list[tuple[str, int, int]] = []
    route_row = ranges.TablesInProcesses.row

    def row(self: Any, log_row: Any, *args: Any) -> None:
        route_row(self, log_row, *args)
        count = seen[log_row[1]] = next(routed)
        stale.extend(
            (stream, seen[stream], count)
            for stream, route in self.routes.items()
            if route.batch and seen[stream] <= count - 2 * sweep
        )

    monkeypatch.setattr(ranges.TablesInProcesses, "row", row)
    alone = verify_log(sqlite_casino.source())
    shared = verify_log(sqlite_casino.source(), jobs=2, range_rows=100)
    assert shared.events > 2 * 100 and shared.ok and shared.findings == alone.findings
    assert shared.rounds == alone.rounds == TABLES * ROUNDS
    assert stale == []


# --- misdeals: the void records what was reported, and the audit deals it again (R-DEAL-2) ----

NEW_DECK = [card_text(card) for card in range(53)]  # the 53 distinct cards, in new-deck order


def _misdeal(forger: Any) -> int:
    """The mixed session's misdeal: a live shuffler reported a deck with a duplicate."""
    return forger.find(
        "round_voided",
        lambda p: p["reason"].startswith("misdeal:") and p.get("reported_deck") is not None,
    )


def test_a_genuine_misdeal_records_the_reported_deck_and_verifies_clean(
    sqlite_casino: Casino,
) -> None:
    casino = sqlite_casino
    voided = casino.forger.payload(_misdeal(casino.forger))
    deck = voided["reported_deck"]
    assert len(deck) == 53 and len(set(deck)) == 52  # one card twice, one missing
    assert voided["reason"].startswith("misdeal: duplicate card: ")
    assert voided["rule"] == "R-CARD-2"
    assert voided["reported_hands"] is None
    report = casino.audit()
    assert report.findings == []
    assert report.ok


@pytest.mark.parametrize(
    ("reported", "what"),
    [
        ({"reported_deck": NEW_DECK}, "the reported deck is the 53 distinct cards"),
        (
            {
                "reported_deck": None,
                "reported_hands": [NEW_DECK[i : i + 7] for i in range(0, 49, 7)],
            },
            "the reported hands are seven hands of seven distinct cards",
        ),
    ],
)
def test_a_good_deal_recorded_as_a_misdeal_is_a_procedure_finding(
    sqlite_casino: Casino, reported: dict[str, Any], what: str
) -> None:
    # An insider rewrites the misdeal's record to a good deal (the reason kept, every hash and
    # checkpoint recomputed): a round voided for nothing, which only the re-derivation can see.
    casino = sqlite_casino
    forger = casino.forger
    position = _misdeal(forger)
    round_ = forger.payload(position)["round"]
    forger.forge(position, lambda p: p.update(reported))
    report = casino.audit()
    assert [(f.kind, f.clause, f.position, f.round) for f in report.findings] == [
        ("procedure", "R-DEAL-2", position, round_)
    ]
    assert report.findings[0].message == (
        f"round {round_}: voided as a misdeal, but {what} (R-DEAL-2)"
    )


def test_a_payload_one_byte_off_the_decided_event_is_the_same_rules_finding(
    sqlite_casino: Casino,
) -> None:
    """A forged payload (chain rewritten, checkpoints re-signed) that differs from what the core
    decides in ONE byte: found at that event with the exact rules finding, and the books'."""
    casino = sqlite_casino
    forger = casino.forger
    taken = forger.find("commission_taken", lambda p: p["amount"] % 10 != 9)
    before = forger.row(taken)[5]
    charged = forger.payload(taken)
    forger.forge(taken, lambda p: p.update(amount=p["amount"] + 1))
    after = forger.row(taken)[5]
    assert len(after) == len(before)
    assert sum(a != b for a, b in zip(before, after, strict=True)) == 1
    report = casino.audit()
    round_, amount = charged["round"], charged["amount"]
    closed = forger.find("round_closed", lambda p: p["table_id"] == "PG-1" and p["round"] == round_)
    rate = rate_in_force(forger, "PG-1", round_)
    rules, money = report.findings
    assert (rules.kind, rules.clause, rules.position, rules.round, rules.message) == (
        "rules",
        "R-PAY-2",
        taken,
        round_,
        f"round {round_}, seat {charged['seat']}: commission recorded {amount + 1}, rules give "
        f"{amount} (percent {rate} bp, half_up to 1)",
    )
    assert (money.kind, money.clause, money.position, money.round) == (
        "money",
        "books",
        closed,
        round_,
    )
    assert money.message.startswith(f"after round {round_}, the books do not balance: ")
    assert money.message.endswith(" = 1, not 0")  # the commission one chip over the players' loss
