"""A dealer terminal that dies: run as ``python -m tests.integration.store.crash_writer URL MODE``.

MODE ``before_commit`` / ``after_commit``: append one 30-event command, announce ``inside`` on
stdout at that point of the transaction, then hang until killed. MODE ``loop``: append 30-event
commands to two tables until killed, printing each command id once it is committed.
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime, timedelta

from adapters.store import open_store
from table_core.ports import Actor, NewEvent

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


def main(url: str, mode: str) -> None:
    store = open_store(url)
    if mode in ("before_commit", "after_commit"):
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
