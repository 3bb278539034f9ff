"""``Session.play_rounds``: K rounds in one batch (group commit) record exactly the table events of
K batches of one round, and still sign a checkpoint at every round's end."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from adapters.store import InMemoryEventStore
from adapters.store.signing import Signer
from entrypoints.simulation import Session, SessionSettings
from service_layer.service import TableService
from table_core.table import TableState

START = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)
ROUNDS = 23  # batches of 7: 7, 7, 7 and a last, shorter one of 2
TOP_UPS = SessionSettings(
    rounds=ROUNDS, players=2, banking="rotating", fortune=True, seed=2, bankroll=1_500
)


def _session(settings: SessionSettings) -> tuple[Session, TableState]:
    store = InMemoryEventStore(Signer.generate())
    service = TableService(
        store,
        clock=SteppingClock(START, timedelta(milliseconds=1)),
        source=SeededDeckAndDice(settings.seed),
    )
    service.start()
    session = Session(service, "SIM-1", settings)
    return session, session.open()


def _table_log(session: Session) -> list[tuple[Any, ...]]:
    """Everything the table's stream holds of each event but its global position."""
    return [
        (e.version, e.type, e.payload, e.at, e.actor, e.command_id, e.prev_hash, e.hash)
        for e in session.service.store.read_stream(session.table_id)
    ]


@pytest.mark.parametrize(
    "settings",
    [
        SessionSettings(rounds=ROUNDS, seed=1),
        # Rotating bank with Fortune and Envy, players splitting by a House Way of their own.
        SessionSettings(
            rounds=ROUNDS, players=4, banking="rotating", fortune=True, seed=3,
            player_strategy="foxwoods",
        ),
        # A bankroll of one round's wagers: players go back to the cage between the rounds of a
        # batch, and player-bankers cover only part of the layout (wagers returned, R-BANK-3).
        TOP_UPS,
        SessionSettings(
            rounds=ROUNDS, players=3, seed=8, bankroll=2_500, wager=1_000,
            player_strategy="dealer",
        ),
    ],
    ids=["dealer", "rotating-fortune", "top-ups-partial-cover", "top-ups-dealer-sets"],
)  # fmt: skip
def test_rounds_in_batches_of_seven_record_exactly_the_events_of_one_round_batches(
    settings: SessionSettings,
) -> None:
    single, state = _session(settings)
    single_events = []
    for _ in range(ROUNDS):
        state, events = single.play(state)
        single_events += events
    single_final = state

    grouped, state = _session(settings)
    grouped_events = []
    done = 0
    while done < ROUNDS:
        batch = min(7, ROUNDS - done)
        state, events = grouped.play_rounds(state, batch)
        grouped_events += events
        done += batch

    assert _table_log(grouped) == _table_log(single)
    assert [e.hash for e in grouped_events] == [e.hash for e in single_events]
    assert state == single_final and state.last_round == ROUNDS
    # Every round still ends on its own signed checkpoint, inside its batch.
    store = grouped.service.store
    ends = [e.position for e in grouped_events if e.type in ("round_closed", "round_voided")]
    assert len(ends) == ROUNDS
    # And so is the service's start (service_started, store_opened: positions 1-2; issue 17).
    assert [c.position for c in store.checkpoints()] == [2, *ends]
    assert store.verify().ok


def test_the_top_ups_case_meets_top_ups_player_banks_and_returned_wagers() -> None:
    # The third case above must exercise what it claims, or its equality proves little.
    session, state = _session(TOP_UPS)
    state, events = session.play_rounds(state, ROUNDS)
    types = [e.type for e in events]
    assert types.count("chips_bought_in") > 0 and types.count("bank_accepted") > 0
    assert types.count("wager_returned") > 0 and types.count("side_bet_placed") > 0


def test_a_batch_plays_one_round_or_more() -> None:
    session, state = _session(SessionSettings(rounds=1, seed=1))
    with pytest.raises(ValueError, match="1 round or more"):
        session.play_rounds(state, 0)
