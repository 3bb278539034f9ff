"""The insider WITHOUT the signing key, as a red team plays it: on PostgreSQL logged in as the
service role (what the service's own login may do, nothing more), on SQLite with write access
to the file. Rows are INSERTed by the published recipes (docs/store.md); the owner's powers
(UPDATE, DELETE: triggers off) are the ``Forger``'s (tamper.py).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from sqlalchemy.engine import make_url

from eventlog.canonical import GENESIS_HASH, canonical_json, event_hash, global_hash
from eventlog.system_events import SYSTEM_STREAM

from .conftest import Casino


class Insider:
    """Plain statements, one transaction, as the service role (PostgreSQL) or the file's writer."""

    def __init__(self, casino: Casino) -> None:
        self.casino = casino
        self.postgres = not casino.url.startswith("sqlite")

    @contextmanager
    def connection(self) -> Iterator[Any]:
        if not self.postgres:
            connection = sqlite3.connect(self.casino.url.removeprefix("sqlite:///"))
            try:
                yield connection
                connection.commit()
            finally:
                connection.close()
            return
        url = make_url(self.casino.url)
        options = url.query["options"]
        assert isinstance(options, str)
        with psycopg.connect(
            host=url.host,
            port=url.port,
            user=os.environ["PAIGOW_PG_SERVICE_ROLE"],
            dbname=url.database,
            options=options,
        ) as connection:
            yield connection

    def run(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        with self.connection() as connection:
            text = sql.replace("?", "%s") if self.postgres else sql
            cursor = connection.execute(text, params)
            return cursor.fetchone() if cursor.description else None

    def append_forged(self, stream: str, event_type: str, payload: dict[str, Any]) -> int:
        """An event at the tail of ``stream`` and of the log, hashed by the published recipes,
        with its command row; on PostgreSQL positioned by ``paigow_sequence_tail`` (the service
        role may call it; it has no INSERT on ``event_log``). Its global position."""
        rows = self.casino.forger.rows()
        mine = [row for row in rows if row[1] == stream]
        version = mine[-1][2] + 1 if mine else 1
        prev = mine[-1][11] if mine else GENESIS_HASH
        text = canonical_json(payload)
        who = payload.get("actor") or {"id": payload["actor_id"], "role": payload["actor_role"]}
        at, actor, role = payload["at"], who["id"], who["role"]
        command = f"forged-{stream}-{version}"
        digest = event_hash(prev, stream, version, event_type, 1, at, actor, role, command, text)
        with self.connection() as connection:
            q = "%s" if self.postgres else "?"
            event_id = connection.execute(
                "INSERT INTO events (stream_id, version, type, schema_version, payload, "
                "recorded_at, actor_id, actor_role, command_id, prev_hash, hash) "
                f"VALUES ({q}, {q}, {q}, 1, {q}, {q}, {q}, {q}, {q}, {q}, {q}) RETURNING id",
                (stream, version, event_type, text, at, actor, role, command, prev, digest),
            ).fetchone()[0]
            connection.execute(
                "INSERT INTO commands (command_id, stream_id, first_version, last_version) "
                f"VALUES ({q}, {q}, {q}, {q})",
                (command, stream, version, version),
            )
            if self.postgres:
                log = connection.execute(
                    "SELECT * FROM paigow_sequence_tail(ARRAY[%s]::bigint[], ARRAY[%s]::text[])",
                    (event_id, digest),
                ).fetchall()
                return int(log[-1][0])
            last = rows[-1]
            position = last[0] + 1
            connection.execute(
                "INSERT INTO event_log (position, event_id, prev_hash, hash) VALUES (?, ?, ?, ?)",
                (position, event_id, last[13], global_hash(last[13], position, digest)),
            )
            return int(position)

    def insert_event_only(self, stream: str, event_type: str, payload: dict[str, Any]) -> int:
        """An ``events`` row with no place in the global log; its stream version."""
        rows = [row for row in self.casino.forger.rows() if row[1] == stream]
        version, prev = rows[-1][2] + 1, rows[-1][11]
        text = canonical_json(payload)
        command = f"unpositioned-{stream}-{version}"
        digest = event_hash(prev, stream, version, event_type, 1, payload["at"],
                            "cage-1", "cage", command, text)  # fmt: skip
        self.run(
            "INSERT INTO events (stream_id, version, type, schema_version, payload, recorded_at, "
            "actor_id, actor_role, command_id, prev_hash, hash) "
            "VALUES (?, ?, ?, 1, ?, ?, 'cage-1', 'cage', ?, ?, ?)",
            (stream, version, event_type, text, payload["at"], command, prev, digest),
        )
        return int(version)


def cash_out_payload(casino: Casino, table: str) -> dict[str, Any]:
    """A ``chips_cashed_out`` shaped as the table's first buy-in, at the log's last time."""
    forger = casino.forger
    template = forger.payload(forger.find("chips_bought_in", lambda p: p["table_id"] == table))
    template.update(type="chips_cashed_out", at=forger.rows()[-1][6])
    template.pop("source", None)
    return template


def system_events(casino: Casino, kind: str) -> list[tuple[int, dict[str, Any]]]:
    return [
        (int(r[0]), json.loads(r[5]))
        for r in casino.forger.rows()
        if r[1] == SYSTEM_STREAM and r[3] == kind
    ]
