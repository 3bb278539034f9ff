"""Tampering with a recorded session, as an attacker (or a careless DBA) with database access would.

``Backdoor`` (from the store tests) edits the stored rows behind the store's back with the
append-only triggers switched off. ``Forger`` adds the worst case: an insider who also holds the
signing key changes a payload and then recomputes every hash after it and re-signs every
checkpoint, so the chain holds and only the audit's re-derivation of the rules can catch it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from eventlog.canonical import GENESIS_HASH, canonical_json, event_hash, global_hash
from tests.integration.store.conftest import Backdoor

Edit = Callable[[dict[str, Any]], None]


class Forger(Backdoor):
    """Backdoor edits by global position, plus edits with the whole chain rewritten after them."""

    def rows(self) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = self.store.raw_log()[0]
        return rows

    def find(
        self, event_type: str, where: Callable[[dict[str, Any]], bool] = lambda p: True
    ) -> int:
        """The global position of the first ``event_type`` event whose payload ``where`` likes."""
        for row in self.rows():
            if row[3] == event_type and where(json.loads(row[5])):
                return int(row[0])
        raise AssertionError(f"no {event_type} event matches")

    def row(self, position: int) -> tuple[Any, ...]:
        return next(row for row in self.rows() if row[0] == position)

    def payload(self, position: int) -> dict[str, Any]:
        return dict(json.loads(self.row(position)[5]))

    def replace_payload(self, position: int, edit: Edit) -> None:
        """Change one payload and leave its hashes as they were (the chain must catch it)."""
        payload = self.payload(position)
        edit(payload)
        event_id = self._ids()[position]
        self._sql(
            [("UPDATE events SET payload = ? WHERE id = ?", (canonical_json(payload), event_id))]
        )

    # --- an insider WITHOUT the key (issue 17) ---------------------------------------------------

    def _insert_only(self, statements: list[tuple[str, tuple[Any, ...]]]) -> list[Any]:
        """Plain INSERTs in one transaction, the triggers left alone; each statement's first
        returned value (``RETURNING id``), or None."""
        out: list[Any] = []
        if self.kind == "sqlite":
            connection = sqlite3.connect(self.target, isolation_level=None)
            try:
                connection.execute("BEGIN")
                for sql, params in statements:
                    found = connection.execute(sql, params).fetchone()
                    out.append(found[0] if found else None)
                connection.execute("COMMIT")
            finally:
                connection.close()
            return out
        with self._raw() as connection, connection.transaction():
            for sql, params in statements:
                cursor = connection.execute(sql.replace("?", "%s"), params)
                out.append(cursor.fetchone()[0] if cursor.description else None)
        return out

    def append_forged(self, stream: str, event_type: str, payload: dict[str, Any]) -> int:
        """A new event at the tail of ``stream`` and of the log, its stream hash, global hash and
        command row computed by the published recipe, written with INSERTs only; its position."""
        rows = self.rows()
        last = rows[-1]
        mine = [row for row in rows if row[1] == stream]
        version = mine[-1][2] + 1 if mine else 1
        prev = mine[-1][11] if mine else GENESIS_HASH
        text = canonical_json(payload)
        who = payload.get("actor") or {"id": payload["actor_id"], "role": payload["actor_role"]}
        at, actor, role = payload["at"], who["id"], who["role"]
        command = f"forged-{stream}-{version}"
        digest = event_hash(prev, stream, version, event_type, 1, at, actor, role, command, text)
        position = last[0] + 1
        chained = global_hash(last[13], position, digest)
        (event_id,) = self._insert_only(
            [
                (
                    "INSERT INTO events (stream_id, version, type, schema_version, payload, "
                    "recorded_at, actor_id, actor_role, command_id, prev_hash, hash) VALUES "
                    "(?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (stream, version, event_type, text, at, actor, role, command, prev, digest),
                )
            ]
        )
        self._insert_only(
            [
                (
                    "INSERT INTO event_log (position, event_id, prev_hash, hash) "
                    "VALUES (?, ?, ?, ?)",
                    (position, event_id, last[13], chained),
                ),
                (
                    "INSERT INTO commands (command_id, stream_id, first_version, last_version) "
                    "VALUES (?, ?, ?, ?)",
                    (command, stream, version, version),
                ),
            ]
        )
        return position

    def delete_checkpoints(self, positions: list[int] | None = None) -> None:
        """Checkpoints removed (all when ``positions`` is None), the triggers got round."""
        if positions is None:
            self._sql([("DELETE FROM checkpoints", ())])
            return
        self._sql([("DELETE FROM checkpoints WHERE position = ?", (p,)) for p in positions])

    def cut_tail(self, first: int) -> None:
        """Every event from global position ``first`` on removed, with their command rows and
        the checkpoints over them: what remains is a shorter log that holds as a chain."""
        rows = self.rows()
        ids = self._ids()
        gone = [row for row in rows if row[0] >= first]
        statements: list[tuple[str, tuple[Any, ...]]] = [
            ("DELETE FROM checkpoints WHERE position >= ?", (first,))
        ]
        for row in gone:
            statements.append(("DELETE FROM event_log WHERE position = ?", (row[0],)))
            statements.append(("DELETE FROM events WHERE id = ?", (ids[row[0]],)))
        for command in sorted({row[9] for row in gone}):
            statements.append(("DELETE FROM commands WHERE command_id = ?", (command,)))
        self._sql([("BEGIN", ()), *statements, ("COMMIT", ())])

    def forge(self, position: int, edit: Edit, *, sign: bool = True) -> None:
        """Change one payload, recompute every event and global hash from there on and re-sign
        every checkpoint: a log that verifies as a chain but no longer holds by the rules.
        ``sign=False``: an insider without the key, whose checkpoints are left as they were."""
        rows, checkpoints = self.store.raw_log()
        signer = self.store.signer
        assert signer is not None or not sign, "forging needs the signing key"
        ids = self._ids()
        heads: dict[str, str] = {}
        before = [row for row in rows if row[0] < position]
        global_prev = before[-1][13] if before else "0" * 64
        statements: list[tuple[str, tuple[Any, ...]]] = []
        for row in before:
            heads[row[1]] = row[11]
        new_global: dict[int, str] = {}
        for row in rows[len(before) :]:
            (pos, stream, version, kind, schema, text, at, actor_id, role, command, _prev,
             _hash, _gprev, _ghash) = row  # fmt: skip
            if pos == position:
                payload = json.loads(text)
                edit(payload)
                text = canonical_json(payload)
            prev = heads.get(stream, "0" * 64)
            digest = event_hash(
                prev, stream, version, kind, schema, at, actor_id, role, command, text
            )
            heads[stream] = digest
            chained = global_hash(global_prev, pos, digest)
            statements.append(
                (
                    "UPDATE events SET payload = ?, prev_hash = ?, hash = ? WHERE id = ?",
                    (text, prev, digest, ids[pos]),
                )
            )
            statements.append(
                (
                    "UPDATE event_log SET prev_hash = ?, hash = ? WHERE position = ?",
                    (global_prev, chained, pos),
                )
            )
            new_global[pos] = chained
            global_prev = chained
        for checkpoint in checkpoints if sign and signer is not None else []:
            signed, _old_head, signed_at, _key, old_signature = checkpoint
            if signed in new_global:
                head = new_global[signed]
                signature = signer.sign(signed, head, signed_at)
                statements.append(
                    (
                        "UPDATE checkpoints SET hash = ?, signature = ?, key_id = ? "
                        "WHERE signature = ?",
                        (head, signature, signer.key_id, old_signature),
                    )
                )
        # One transaction: thousands of single-statement commits would each wait for the disk.
        self._sql([("BEGIN", ()), *statements, ("COMMIT", ())])


def copy_log(source: Any, target: Any, *, without: frozenset[int] = frozenset()) -> None:
    """A copy of ``source``'s whole log in the empty store ``target``, the events at the global
    positions ``without`` left out: every other event appended again as it was recorded (type,
    payload, actor, time, command id), so the copy's positions, versions and hashes are
    recomputed and its checkpoints signed with ``target``'s key (a test key), after each command
    the source signed after. A log that verifies as a chain, missing only what was removed."""
    from datetime import datetime

    from eventlog.envelope import NewEvent
    from table_core.ports import Actor

    log, checkpoints = source.raw_log()
    signed = {c[0] for c in checkpoints}
    rows = [row for row in log if row[0] not in without]
    groups: list[list[tuple[Any, ...]]] = []
    for row in rows:  # one append per command, as the service made them
        if groups and (groups[-1][0][1], groups[-1][0][9]) == (row[1], row[9]):
            groups[-1].append(row)
        else:
            groups.append([row])
    for group in groups:
        stream, command = group[0][1], group[0][9]
        events = [
            NewEvent(
                type=row[3],
                schema_version=row[4],
                payload=json.loads(row[5]),
                actor=Actor(id=row[7], role=row[8]),
                at=datetime.fromisoformat(row[6]),
            )
            for row in group
        ]
        # Signed where the source was (each round's end, and since issue 17 every event the
        # service sealed: its start and stop, its notes, the table facts between rounds).
        ends = any(row[0] in signed for row in group)
        target.append(stream, target.stream_version(stream), events, command, checkpoint=ends)
