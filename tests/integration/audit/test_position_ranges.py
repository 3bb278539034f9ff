"""``audit verify --jobs`` on a database: the chain and the signatures checked by stretches of
global positions in the workers (``audit.position_ranges``). Every finding must be the one
process's, word for word, wherever the stretches are cut: an edit at a stretch's first or last
event or in its middle, an event deleted at a boundary, a checkpoint's signature broken in a later
stretch; and a log that holds is read by the workers alone (never again by the main process)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from audit import position_ranges
from audit.findings import AuditReport
from audit.verify import verify_log

from .conftest import Casino, assert_same


@pytest.fixture
def spread(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Whether each spread audit kept its stretches' result (False: checked again in one
    process, because the chain did not hold)."""
    kept: list[bool] = []
    run = position_ranges.run

    def watched(*args: Any, **kwargs: Any) -> Any:
        result = run(*args, **kwargs)
        kept.append(result is not None)
        return result

    monkeypatch.setattr(position_ranges, "run", watched)
    yield kept


def audits(casino: Casino, range_rows: int) -> tuple[AuditReport, AuditReport]:
    """One process, then two workers with stretches of ``range_rows`` positions: the same."""
    alone = verify_log(casino.source())
    shared = verify_log(casino.source(), jobs=2, range_rows=range_rows, stretches_from=2)
    assert_same(shared, alone)
    return alone, shared


def bet_after(casino: Casino, position: int) -> int:
    """The first bet recorded after ``position``."""
    return next(int(r[0]) for r in casino.forger.rows() if r[0] > position and r[3] == "bet_placed")


def test_a_log_that_holds_is_read_by_the_workers_alone(live: Casino, spread: list[bool]) -> None:
    alone, shared = audits(live, 50)
    assert alone.ok and shared.events == alone.events > 500
    assert spread == [True]


@pytest.mark.parametrize("where", ["first", "last", "middle"])
def test_a_rules_edit_the_chain_was_rehashed_over_is_found_wherever_the_stretch_is_cut(
    live: Casino, spread: list[bool], where: str
) -> None:
    """An insider with the key: the chain holds, the stretches are kept, and the re-derivation
    in the workers finds the bet that no longer matches its round (R-PAY-1)."""
    bet = bet_after(live, 120)
    live.forger.forge(bet, lambda p: p.update(amount=p["amount"] + 100))
    size = {"first": bet - 1, "last": bet, "middle": bet + 37}[where]
    alone, _ = audits(live, size)
    assert not alone.ok and alone.findings[0].position is not None
    assert alone.findings[0].position >= bet
    assert spread == [True]


@pytest.mark.parametrize("where", ["first", "last", "middle"])
def test_a_changed_payload_is_a_hash_finding_at_that_event_wherever_the_stretch_is_cut(
    live: Casino, spread: list[bool], where: str
) -> None:
    bet = bet_after(live, 120)
    live.forger.replace_payload(bet, lambda p: p.update(amount=p["amount"] + 100))
    size = {"first": bet - 1, "last": bet, "middle": bet + 37}[where]
    alone, _ = audits(live, size)
    assert [(f.clause, f.position) for f in alone.findings[:1]] == [("chain.hash", bet)]
    assert spread == [False]  # checked again in one process, which words it


@pytest.mark.parametrize("where", ["first", "last"])
def test_an_event_deleted_at_a_boundary_is_named_at_its_position(
    live: Casino, spread: list[bool], where: str
) -> None:
    bet = bet_after(live, 120)
    live.forger.delete(bet)
    alone, _ = audits(live, bet - 1 if where == "first" else bet)
    assert ("chain.sequence", bet) in [(f.clause, f.position) for f in alone.findings]
    assert spread == [False]


def test_a_broken_signature_in_a_later_stretch_is_named_at_its_checkpoint(
    live: Casino, spread: list[bool]
) -> None:
    last_signed = live.store.raw_log()[1][-1][0]
    live.forger.forge_checkpoint_signature()  # the log's last checkpoint
    alone, _ = audits(live, 40)
    assert last_signed > 3 * 40  # in the fourth stretch or later
    assert [(f.clause, f.position) for f in alone.findings if f.clause == "chain.checkpoint"] == [
        ("chain.checkpoint", last_signed)
    ]
    assert "the checkpoint signature does not hold" in alone.findings[0].message
    assert spread == [False]


def test_a_stretch_of_one_position_each(live: Casino, spread: list[bool]) -> None:
    """Every event its own stretch: every link between two events is a boundary."""
    alone, _ = audits(live, 1)
    assert alone.ok and spread == [True]
