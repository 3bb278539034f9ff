"""One contract, three stores: the in-memory fake, SQLite and a real PostgreSQL.

``Backdoor`` is how a test plays the attacker (or a careless DBA): it edits the stored log behind
the store's back, with the append-only triggers switched off, so the verifier has something to
catch.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from adapters.store import InMemoryEventStore, SqlEventStore, open_store
from adapters.store.signing import Signer
from eventlog.envelope import NewEvent
from table_core.ports import Actor

DEALER = Actor("dealer-ann", "dealer")
PIT_BOSS = Actor("pit-boss-raoul", "pit_boss")
OPENED = datetime(2025, 3, 14, 20, 0, tzinfo=UTC)


def wager(seat: int, amount: int, minute: int = 0) -> NewEvent:
    return NewEvent(
        "wager_placed",
        1,
        {"seat": seat, "main": amount, "currency": "EUR"},
        DEALER,
        OPENED + timedelta(minutes=minute),
    )


def dice(total: list[int], minute: int = 0) -> NewEvent:
    return NewEvent("dice_rolled", 1, {"dice": total}, DEALER, OPENED + timedelta(minutes=minute))


class Backdoor:
    """Tampering for tests, by global position."""

    def __init__(self, store: Any, kind: str, target: Any) -> None:
        self.store = store
        self.kind = kind
        self.target = target

    @contextlib.contextmanager
    def _raw(self) -> Iterator[Any]:
        pooled = self.store.engine.raw_connection()
        try:
            yield pooled.driver_connection
        finally:
            pooled.close()

    # Each engine's way around its own triggers.
    def _sql(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        if self.kind == "sqlite":
            connection = sqlite3.connect(self.target, isolation_level=None)
            try:
                connection.execute("PRAGMA foreign_keys=OFF")
                for (name,) in connection.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'trigger'"
                ).fetchall():
                    connection.execute(f"DROP TRIGGER {name}")
                for sql, params in statements:
                    connection.execute(sql, params)
            finally:
                connection.close()
            return
        with self._raw() as connection:
            # Superuser only: no triggers (so no foreign keys either) for this session.
            connection.execute("SET session_replication_role = replica")
            try:
                for sql, params in statements:
                    connection.execute(sql.replace("?", "%s"), params)
            finally:
                connection.execute("SET session_replication_role = origin")

    def _ids(self) -> dict[int, int]:
        with self._raw() as connection:
            return dict(connection.execute("SELECT position, event_id FROM event_log").fetchall())

    def flip_payload_byte(self, position: int) -> None:
        """One digit of the stored payload changes: still valid JSON, a different amount."""
        if self.kind == "memory":
            row = list(self.store.rows[position - 1])
            row[5] = _flip_digit(row[5])
            self.store.rows[position - 1] = tuple(row)
            return
        event_id = self._ids()[position]
        rows, _ = self.store.raw_log()
        payload = _flip_digit(rows[position - 1][5])
        self._sql([("UPDATE events SET payload = ? WHERE id = ?", (payload, event_id))])

    def delete(self, position: int) -> None:
        if self.kind == "memory":
            del self.store.rows[position - 1]
            return
        event_id = self._ids()[position]
        self._sql(
            [
                ("DELETE FROM event_log WHERE position = ?", (position,)),
                ("DELETE FROM events WHERE id = ?", (event_id,)),
            ]
        )

    def swap(self, position: int) -> None:
        """The events at ``position`` and ``position + 1`` change places in the global order."""
        if self.kind == "memory":
            rows = self.store.rows
            rows[position - 1], rows[position] = rows[position], rows[position - 1]
            return
        ids = self._ids()
        first, second = ids[position], ids[position + 1]
        self._sql(
            [
                ("UPDATE event_log SET event_id = ? WHERE position = ?", (-1, position)),
                ("UPDATE event_log SET event_id = ? WHERE position = ?", (first, position + 1)),
                ("UPDATE event_log SET event_id = ? WHERE position = ?", (second, position)),
            ]
        )

    def forge_checkpoint_signature(self) -> None:
        if self.kind == "memory":
            row = list(self.store.checkpoint_rows[-1])
            row[4] = _flip_hex(row[4])
            self.store.checkpoint_rows[-1] = tuple(row)
            return
        _, checkpoints = self.store.raw_log()
        signature = checkpoints[-1][4]
        self._sql(
            [
                (
                    "UPDATE checkpoints SET signature = ? WHERE signature = ?",
                    (_flip_hex(signature), signature),
                )
            ]
        )

    def raw(self, sql: str) -> None:
        """A statement through the store's own connection, triggers on."""
        with self._raw() as connection:
            connection.execute(sql)


def _flip_digit(text: str) -> str:
    for index, char in enumerate(text):
        if char.isdigit():
            return text[:index] + str((int(char) + 1) % 10) + text[index + 1 :]
    raise AssertionError(f"no digit to flip in {text}")


def _flip_hex(text: str) -> str:
    return ("1" if text[0] == "0" else "0") + text[1:]


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store_and_backdoor(
    backend: str, request: pytest.FixtureRequest
) -> Iterator[tuple[Any, Backdoor]]:
    if backend == "memory":
        memory = InMemoryEventStore(Signer.generate())
        yield memory, Backdoor(memory, "memory", None)
        return
    if backend == "sqlite":
        url = request.getfixturevalue("sqlite_url")  # at the head revision already
        store = open_store(url)
        target: Any = url.removeprefix("sqlite:///")
    else:
        url = request.getfixturevalue("pg_url")  # at the head revision already
        store = open_store(url, signing_key=Signer.generate())
        target = url
    assert isinstance(store, SqlEventStore)
    try:
        yield store, Backdoor(store, backend, target)
    finally:
        store.close()


@pytest.fixture
def store(store_and_backdoor: tuple[Any, Backdoor]) -> Any:
    return store_and_backdoor[0]


@pytest.fixture
def backdoor(store_and_backdoor: tuple[Any, Backdoor]) -> Backdoor:
    return store_and_backdoor[1]
