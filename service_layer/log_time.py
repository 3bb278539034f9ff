"""R18: the log's own time, as a purge judges retention by it: the recorded time of the last
sealed event (the last one at or before the newest signed checkpoint that is not one of the
purge's own records, ``eventlog.retention.MAINTENANCE_TYPES``), never the clock of the host.

The time is taken as the key vouches for it: the newest checkpoint's signature must hold with the
store's key, and the rows from that event to the checkpoint are hashed again (the event hash
covers the recorded time; the global chain runs to the signed head), so a row inserted or edited
by whoever can write to the database, without the key, cannot move the log's time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text

from eventlog.canonical import event_hash, global_hash, parse_time
from eventlog.keys import checkpoint_signature_holds
from eventlog.query import LOG_QUERY
from eventlog.retention import MAINTENANCE_TYPES

_NEWEST_CHECKPOINT = (
    "SELECT position, hash, signed_at, key_id, signature FROM checkpoints "
    "ORDER BY position DESC, id DESC LIMIT 1"
)
_BACK_FROM = LOG_QUERY.replace(
    "ORDER BY g.position", "WHERE g.position <= :head ORDER BY g.position DESC"
)
#: Rows read back from the signed head at a time, looking for the last one that is not the
#: purge's own record (a few at most: a purge writes two).
_PAGE = 64


class LogTimeUnknown(ValueError):
    """The log's time cannot be read as the key vouches for it."""


@dataclass(frozen=True)
class LogTime:
    """The log's time: ``at``, the recorded time of the event at ``position``."""

    position: int
    at: datetime


def sealed_log_time(store: Any) -> LogTime:
    """The log's time of ``store`` (a SQL event store); ``LogTimeUnknown`` when no checkpoint is
    signed, the newest does not hold with the store's key, or the rows under it do not hash to
    it."""
    public = getattr(store, "public_key", None)
    if public is None:
        raise LogTimeUnknown("the store has no key to check its checkpoints with")
    with store.engine.connect() as conn:
        head = conn.execute(text(_NEWEST_CHECKPOINT)).fetchone()
        if head is None:
            raise LogTimeUnknown("no checkpoint is signed: nothing in the log is sealed")
        position, chain_hash, signed_at, _, signature = head
        if not checkpoint_signature_holds(public, signature, position, chain_hash, signed_at):
            raise LogTimeUnknown(
                f"the newest checkpoint (position {position}) is not signed by the store's key"
            )
        rows = _back_to_the_log(conn, position)
    _hashes_hold(rows, position, chain_hash)
    return LogTime(rows[0][0], parse_time(rows[0][6]))


def _back_to_the_log(conn: Any, head: int) -> list[tuple[Any, ...]]:
    """The rows from the last one that is not a purge's record up to ``head``, in log order."""
    rows: list[tuple[Any, ...]] = []
    while True:
        found = conn.execute(text(f"{_BACK_FROM} LIMIT {_PAGE}"), {"head": head})
        page = [tuple(r) for r in found]
        for row in page:
            rows.append(row)
            if row[3] not in MAINTENANCE_TYPES:
                return rows[::-1]
        if len(page) < _PAGE:
            raise LogTimeUnknown("the sealed log holds only the purge's own records")
        head = page[-1][0] - 1


def _hashes_hold(rows: list[tuple[Any, ...]], head: int, chain_hash: str) -> None:
    """Each row's event hash from its columns, each global link to the next, the last one the
    signed head's."""
    previous = None
    for row in rows:
        digest = event_hash(
            row[10], row[1], row[2], row[3], row[4], row[6], row[7], row[8], row[9], row[5]
        )
        linked = global_hash(row[12], row[0], digest)
        if digest != row[11] or linked != row[13] or (previous is not None and row[12] != previous):
            raise LogTimeUnknown(f"position {row[0]} does not hash to the signed head {head}")
        previous = linked
    if rows[-1][0] != head or previous != chain_hash:
        raise LogTimeUnknown(f"the log at position {head} is not the signed head's")
