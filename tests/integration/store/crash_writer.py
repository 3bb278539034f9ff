"""A dealer terminal that dies: run as ``python -m tests.integration.store.crash_writer URL MODE``.

MODE ``before_commit`` / ``holding_lock`` (PostgreSQL: inside the sequencer tail) /
``after_commit``: append one 30-event command, announce ``inside`` on stdout at that point of the
transaction, then hang until killed. MODE ``legacy_commit`` (PostgreSQL): commit one 30-event
command the way the two-transaction append of older versions did (events, command and
``sequencer_queue`` rows, no position), announce ``inside`` and hang: a legacy writer killed
between its commit and its sequencer pass. MODE ``loop``: append 30-event commands to two tables
until killed, printing each command id once it is committed.
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from adapters.store import open_store
from adapters.store.core import build_rows, command_rows
from adapters.store.signing import Signer
from adapters.store.sql import EVENT_COLUMNS
from eventlog.canonical import GENESIS_HASH
from eventlog.envelope import NewEvent
from table_core.ports import Actor

DEALER = Actor("dealer-ann", "dealer")
START = datetime(2025, 3, 14, 20, 0, tzinfo=UTC)


def round_events(number: int) -> list[NewEvent]:
    at = START + timedelta(minutes=number)
    return [
        NewEvent("wager_placed", 1, {"position": i % 7 + 1, "main": 100 * (i + 1)}, DEALER, at)
        for i in range(30)
    ]


def hang() -> None:
    print("inside", flush=True)
    time.sleep(120)


# Transaction 1 of the older two-transaction append, verbatim: the events queued for a pass.
LEGACY_INSERT = (
    f"WITH ins AS (INSERT INTO events ({EVENT_COLUMNS}) "
    "SELECT * FROM unnest(%b::text[], %b::int[], %b::text[], %b::int[], %b::text[], "
    "%b::text[], %b::text[], %b::text[], %b::text[], %b::text[], %b::text[]) "
    "RETURNING id, version, hash), "
    "queued AS (INSERT INTO sequencer_queue (event_id, hash) SELECT id, hash FROM ins), "
    "command AS (INSERT INTO commands (command_id, stream_id, first_version, last_version) "
    "SELECT * FROM unnest(%b::text[], %b::text[], %b::int[], %b::int[])) "
    "SELECT id, version FROM ins"
)


def legacy_commit(store: Any, stream_id: str, events: list[NewEvent], command_id: str) -> None:
    """Commit ``events`` unpositioned, queued for a sequencer pass that never comes."""
    with store._connection() as conn:
        head = conn.execute(
            "SELECT version, hash FROM events WHERE stream_id = %s ORDER BY version DESC LIMIT 1",
            (stream_id,),
        ).fetchone()
        version, digest = head if head else (0, GENESIS_HASH)
        rows = build_rows(stream_id, version, digest, events, command_id)
        commands = command_rows(stream_id, version, [(command_id, events)])
        with conn.transaction():
            conn.execute(
                LEGACY_INSERT,
                [
                    list(column)
                    for column in (*zip(*rows, strict=True), *zip(*commands, strict=True))
                ],
            )


def main(url: str, mode: str) -> None:
    store = open_store(url, signing_key=Signer.generate())  # appends need the key
    if mode == "legacy_commit":
        legacy_commit(store, "table-1", round_events(0), "doomed")
        hang()
        return
    if mode in ("before_commit", "holding_lock", "after_commit"):
        store.faults[mode] = hang
        store.append("table-1", store.stream_version("table-1"), round_events(0), "doomed")
        return
    number = 0
    while True:
        table = f"table-{number % 2 + 1}"
        command = f"round-{number}"
        store.append(table, store.stream_version(table), round_events(number), command)
        print(command, flush=True)
        number += 1


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
