"""Issue 22: the follower (``audit/follow.py``) verifies a live log checkpoint by checkpoint, with
the same checkers as ``paigow audit verify``, on SQLite and PostgreSQL, in process. The command
itself, as a separate process that runs while the casino plays, is tests/e2e/test_cli_follow.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from audit.follow import Checkers, Follower, Outcome, follow
from audit.follow_journal import FindingsJournal, FollowState, load_state, save_state
from audit.follow_log import LiveLog
from audit.follow_tail import TailWatch
from entrypoints.simulation.mixed_session import DEALER, FLOOR, Session
from service_layer.service import TableService
from table_core import commands as c

from .conftest import START, Casino


@pytest.fixture
def live(casino: Casino) -> Iterator[LiveLog]:
    log = LiveLog(casino.url, poll=0.05)
    yield log
    log.close()


def one_pass(
    casino: Casino, log: LiveLog, state: FollowState, tmp_path: Path
) -> tuple[int, list[Outcome]]:
    """``follow --once`` in process: its status and what it reported (the state saved)."""
    seen: list[Outcome] = []
    follower = Follower(log, Checkers(casino.store.public_key), state)
    status = follow(
        follower,
        seen.append,
        lambda: save_state(tmp_path / "state.json", state),
        lambda: False,
        once=True,
    )
    return status, seen


def found(outcomes: list[Outcome]) -> list[tuple[str, str, int | None]]:
    return [(f.kind, f.clause, f.position) for o in outcomes for f in o.findings]


def service(casino: Casino, day: int) -> TableService:
    """The casino's service again, later (its clock after the recorded session: R4)."""
    started = TableService(
        casino.store,
        clock=SteppingClock(START + timedelta(days=day), timedelta(seconds=2)),
        source=SeededDeckAndDice(day),
    )
    started.start()
    return started


def tampered_round(casino: Casino, at: TableService) -> int:
    """A round started at PG-1; an insider changes its ``round_started`` (not sealed yet) with
    the triggers off; the round is voided, which signs the checkpoint over the changed row.
    Its position."""
    at.execute("PG-1", c.StartRound(at=at.now(), actor=DEALER), "follow-test:start")
    position = max(
        int(row[0])
        for row in casino.forger.rows()
        if row[1] == "PG-1" and row[3] == "round_started"
    )
    casino.forger.replace_payload(position, lambda p: p.update(rules_version=9))
    at.execute("PG-1", c.VoidRound(at=at.now(), reason="test", actor=FLOOR), "follow-test:void")
    return position


def test_a_follower_verifies_every_round_and_keeps_its_position(
    casino: Casino, live: LiveLog, tmp_path: Path
) -> None:
    state = FollowState(source=live.name)
    status, seen = one_pass(casino, live, state, tmp_path)
    rows, checkpoints = casino.store.raw_log()
    assert (status, found(seen)) == (0, [])
    assert state.position == rows[-1][0] == max(c[0] for c in checkpoints)
    assert state.head == rows[-1][13]
    assert state.checkpoints == len(checkpoints)
    saved = load_state(tmp_path / "state.json")
    assert saved is not None and saved.position == state.position

    # More rounds: the next pass verifies only them, up to the new checkpoint.
    later = service(casino, 1)
    Session(later, seed=5, tables=1, prefix="PG-NEW-").play(2)
    status, seen = one_pass(casino, live, state, tmp_path)
    rows, checkpoints = casino.store.raw_log()
    assert (status, found(seen)) == (0, [])
    assert seen[-1].events == rows[-1][0] - saved.position
    assert state.position == rows[-1][0] == max(c[0] for c in checkpoints)


def test_a_row_changed_before_its_checkpoint_is_caught_at_its_position(
    casino: Casino, live: LiveLog, tmp_path: Path
) -> None:
    state = FollowState(source=live.name)
    assert one_pass(casino, live, state, tmp_path)[0] == 0
    position = tampered_round(casino, service(casino, 1))
    status, seen = one_pass(casino, live, state, tmp_path)
    assert status == 1
    # The stored bytes no longer give the row's hash; and the table's own code cannot fold the
    # changed event (a rules version the table never had): as ``paigow audit verify`` says.
    assert found(seen) == [
        ("integrity", "chain.hash", position),
        ("procedure", "replay", position),
    ]
    assert [(f.kind, f.clause, f.position) for f in casino.audit().findings] == found(seen)
    rows, checkpoints = casino.store.raw_log()
    assert state.position == rows[-1][0] == max(c[0] for c in checkpoints), (
        position,
        checkpoints[-3:],
        rows[-1][:4],
    )
    assert seen[-1].findings[0].stream_id == "PG-1"
    assert seen[-1].findings[0].event_type == "round_started"


def test_a_restart_resumes_without_reporting_again(
    casino: Casino, live: LiveLog, tmp_path: Path
) -> None:
    journal = FindingsJournal(tmp_path / "findings.jsonl")
    position = tampered_round(casino, service(casino, 1))
    state = FollowState(source=live.name)
    status, seen = one_pass(casino, live, state, tmp_path)
    for outcome in seen:
        for finding in outcome.findings:
            journal.record(finding, live.name, outcome.checkpoint)
    assert (status, [f[:2] for f in found(seen)]) == (
        1,
        [("integrity", "chain.hash"), ("procedure", "replay")],
    )

    # A new process: the saved state, the tables re-folded up to it in silence.
    restarted = load_state(tmp_path / "state.json")
    assert restarted is not None
    status, seen = one_pass(casino, live, restarted, tmp_path)
    assert (status, found(seen)) == (0, [])
    assert restarted.position == state.position
    lines = [json.loads(x) for x in (tmp_path / "findings.jsonl").read_text().splitlines()]
    assert [(x["seq"], x["finding"]["position"]) for x in lines] == [(1, position), (2, position)]
    assert FindingsJournal(tmp_path / "findings.jsonl").count == 2  # its chain holds


def test_history_changed_behind_the_follower_is_a_finding(
    casino: Casino, live: LiveLog, tmp_path: Path
) -> None:
    state = FollowState(source=live.name)
    assert one_pass(casino, live, state, tmp_path)[0] == 0
    last = state.position
    casino.forger.cut_tail(last - 3)
    status, seen = one_pass(casino, live, state, tmp_path)
    assert (status, found(seen)) == (1, [("integrity", "follow.history", last)])


def test_a_forged_event_no_checkpoint_covers_is_a_finding_once_it_stands(
    casino: Casino, live: LiveLog, tmp_path: Path
) -> None:
    """An insider without the key appends a cash-out with the published hash recipe, INSERTs
    only: no checkpoint covers it. With ``--unsealed-after`` the follower says so once the tail
    has stood that long (here at once: the second pass that sees it), and only once."""
    state = FollowState(source=live.name)
    follower = Follower(live, Checkers(casino.store.public_key), state, TailWatch(0))
    assert follower.step().findings == []
    forger = casino.forger
    template = forger.payload(forger.find("chips_bought_in"))
    template.update(type="chips_cashed_out", at=forger.rows()[-1][6])
    template.pop("source", None)
    position = forger.append_forged(template["table_id"], "chips_cashed_out", template)
    assert follower.step().findings == []  # first seen: its time starts now
    found = follower.step().findings
    assert [(f.kind, f.clause, f.position, f.last_position) for f in found] == [
        ("integrity", "chain.unsealed", position, position)
    ]
    assert "a table event outside any round in progress" in found[0].message
    assert follower.step().findings == []  # said once
    assert state.position == position - 1  # never judged as sealed


def test_a_round_in_progress_is_no_unsealed_finding(
    casino: Casino, live: LiveLog, tmp_path: Path
) -> None:
    state = FollowState(source=live.name)
    follower = Follower(live, Checkers(casino.store.public_key), state, TailWatch(0))
    assert follower.step().findings == []
    at = service(casino, 1)
    at.execute("PG-1", c.StartRound(at=at.now(), actor=DEALER), "follow-test:start")
    assert [follower.step().findings for _ in range(3)] == [[], [], []]


def test_a_forged_findings_journal_is_refused(tmp_path: Path) -> None:
    from audit.findings import Finding
    from audit.sources import AuditUsageError

    path = tmp_path / "findings.jsonl"
    journal = FindingsJournal(path)
    for n in (1, 2):
        journal.record(
            Finding(kind="integrity", clause="chain.hash", message="x", position=n), "db", n
        )
    lines = path.read_text().splitlines()
    path.write_text(lines[1] + "\n")  # the first line removed
    with pytest.raises(AuditUsageError, match="line 1 breaks the journal's hash chain"):
        FindingsJournal(path)
