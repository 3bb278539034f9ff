"""R18: purging the head of the log once it is past retention, as a logged maintenance path.

``purge(store, url, through=N, ...)`` removes global positions first..N (first: where the log
starts now), in this order, and refuses before writing anything when:

- the reason is empty, or the actor's role is not ``floor``;
- N is not in the log;
- a category of the range is still inside its retention period (``eventlog/retention.py``: game
  events, system events, dispute history, access logs; ``PAIGOW_RETENTION_*``), judged against the
  log's own time, the recorded time of its last sealed event (``service_layer/log_time.py``), never
  the host's clock; or that time cannot be read as the store's key vouches for it;
- a table of the range is held by an open dispute (R17: a dispute holds its table's stream from
  its opening, which every disputed round is re-derived from), or an open dispute was opened
  inside the range;
- a table has events on both sides of N: a purge takes a table's whole stream (a table still in
  play is folded from its first event; there are no snapshots), only the ``system`` stream may
  be cut;
- the previous purge's ``range_purged`` event lies after N (this archive would start where only
  that event vouches for it: purge through it or later).

Then: (1) the archive, a whole-log bundle of positions first..N (``audit/bundle.py``) with the
checkpoints signed inside it, written atomically, that ``paigow audit verify --bundle`` checks on
its own; (2) the ``range_purged`` event on the ``system`` stream (first and last positions and
hashes, the global hash at N, the heads of the streams that go on, the archive's SHA-256, the
log's time and the periods it was judged by, each category's newest event), hashed, chained and
signed like every event, after a ``retention_set`` in the same transaction when the configured
periods differ from the last recorded ones (the purge's actor and reason: the change takes effect
in this purge); (3) in ONE transaction, the append-only triggers
dropped, the rows at positions <= N deleted (``event_log``, ``events``, the checkpoints at or
before N, the purged tables' ``commands`` rows), the triggers created again exactly as migration
0001 made them. Nothing is ever updated. Run it as the database's owner role (it drops
triggers). The remaining log verifies from N + 1 (``eventlog/verifier.py``, ``PurgeBoundary``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import text

from adapters.store.schema import APPEND_ONLY_TABLES
from eventlog.canonical import parse_time
from eventlog.query import LOG_QUERY
from eventlog.retention import (
    CATEGORIES,
    GAME,
    Newest,
    below_minimum,
    inside_retention,
    newest_by_category,
    recorded_periods,
)
from eventlog.system_events import SYSTEM_STREAM, RangePurged, RetentionSet
from service_layer.disputes import disputes
from service_layer.log_time import LogTime, LogTimeUnknown, sealed_log_time
from service_layer.system_stream import SystemStream
from table_core.ports import EventStore

_RANGE_QUERY = LOG_QUERY.replace("ORDER BY", "WHERE g.position <= :last ORDER BY")


class PurgeRefused(ValueError):
    """A purge that may not run: nothing was written."""


@dataclass(frozen=True)
class Plan:
    first: tuple[Any, ...]  # the first row of the range
    last: tuple[Any, ...]  # the row at N
    tables: list[str]  # the tables whose whole stream goes
    heads: dict[str, dict[str, Any]]  # the streams that go on: their head at N
    log_time: LogTime  # what retention was judged against
    newest: dict[str, Newest]  # each category's newest event in the range
    recorded: dict[str, int] | None  # the periods last recorded in the log (None: never)


def plan(store: Any, through: int, retention: Mapping[str, int]) -> Plan:
    """What a purge through position ``through`` removes; ``PurgeRefused`` when it may not."""
    with store.engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(text(_RANGE_QUERY), {"last": through})]
    if not rows or rows[-1][0] != through:
        raise PurgeRefused(f"position {through} is not in the log")
    last = rows[-1]
    try:
        log_time = sealed_log_time(store)
    except LogTimeUnknown as error:
        raise PurgeRefused(f"the log's time cannot be read: {error}") from None
    if log_time.position <= through:
        raise PurgeRefused(
            f"the log's time is that of position {log_time.position}, its last sealed event, "
            "inside the range: a purge keeps the event it is judged by (the audit reads it)"
        )
    newest = newest_by_category((r[0], r[1], r[3], parse_time(r[6])) for r in rows)
    inside = inside_retention(newest, retention, log_time.at)
    if inside:
        where = f", its last sealed event at position {log_time.position}"
        raise PurgeRefused(inside[0].message(where))
    ends: dict[str, tuple[int, str]] = {}
    previous_purges = []
    for row in rows:
        ends[row[1]] = (row[2], row[11])
    recorded: dict[str, int] | None = None
    for e in store.read_stream(SYSTEM_STREAM):
        if e.type == "range_purged":
            previous_purges.append(e.position)
        recorded = recorded_periods(e.type, e.payload) or recorded
    _check_held(store, ends, through)
    tables, heads = [], {}
    for stream, (version, digest) in sorted(ends.items()):
        if store.stream_version(stream) == version and stream != SYSTEM_STREAM:
            tables.append(stream)
        elif stream == SYSTEM_STREAM:
            heads[stream] = {"version": version, "hash": digest}
        else:
            raise PurgeRefused(
                f"table {stream} has events on both sides of position {through}: a purge takes a "
                "table's whole stream"
            )
    later = [p for p in previous_purges if p > through]
    if later and rows[0][0] > 1:
        raise PurgeRefused(
            f"the previous purge is recorded at position {later[0]}: purge through it or later, "
            "so the archive verifies on its own"
        )
    return Plan(rows[0], last, tables, heads, log_time, newest, recorded)


def _check_held(store: EventStore, ends: dict[str, tuple[int, str]], through: int) -> None:
    for record in disputes(store).values():
        if record["status"] != "open":
            continue
        if record["table_id"] in ends:
            raise PurgeRefused(
                f"table {record['table_id']} is held by dispute {record['dispute_id']} "
                f"(rounds {', '.join(str(n) for n in record['rounds'])}): it cannot be purged"
            )
        if record["position"] <= through:
            raise PurgeRefused(
                f"dispute {record['dispute_id']} is open and was opened at position "
                f"{record['position']}, inside the range"
            )


def purge(
    store: Any,
    url: Any,
    *,
    through: int,
    archive: str | Path,
    actor: Any,
    reason: str,
    retention: Mapping[str, int],
    now: datetime,
    public_key: str | Path | None = None,
    signing_key: str | Path | None = None,
) -> dict[str, Any]:
    """Archive, record and remove positions first..``through``; the ``range_purged`` payload.
    ``retention``: the configured periods (category -> days); ``now``: the host's clock, which
    only stamps the purge's own records (retention is judged against the log's time)."""
    from audit import bundle

    if actor.role != "floor":
        raise PurgeRefused(f"the {actor.role} role may not purge: it is the floor's")
    if not reason.strip():
        raise PurgeRefused("a purge needs a reason: it was left empty")
    problems = below_minimum(retention)
    if problems:
        raise PurgeRefused(f"the retention may not be in force: {'; '.join(problems)} (R18)")
    if getattr(store, "engine", None) is None:
        raise PurgeRefused("a memory store keeps nothing to purge")
    periods = {name: retention[name] for name in CATEGORIES}
    planned = plan(store, through, periods)
    target = Path(archive)
    manifest = bundle.export(
        url, target, through_position=through, public_key=public_key, signing_key=signing_key
    )
    events: list[Any] = []
    if planned.recorded != periods:
        events.append(
            RetentionSet(
                at=now,
                actor_id=actor.id,
                actor_role=actor.role,
                periods=periods,
                previous=planned.recorded,
                reason=reason.strip(),
            )
        )
    event = RangePurged(
        at=now,
        actor_id=actor.id,
        actor_role=actor.role,
        first_position=planned.first[0],
        last_position=through,
        first_hash=planned.first[11],
        last_hash=planned.last[11],
        last_global_hash=planned.last[13],
        stream_heads=planned.heads,
        tables=planned.tables,
        archive={
            "file": target.name,
            "sha256": hashlib.sha256(target.read_bytes()).hexdigest(),
            "events": manifest["counts"]["events"],
            "checkpoints": manifest["checkpoints"],
        },
        retention_days=periods[GAME],
        reason=reason.strip(),
        log_time=planned.log_time.at,
        log_time_position=planned.log_time.position,
        retention=periods,
        newest={name: n.to_dict() for name, n in planned.newest.items()},
    )
    events.append(event)
    SystemStream(store).append(events)
    _remove(store.engine, through, planned.tables)
    payload: dict[str, Any] = json.loads(event.model_dump_json())
    return payload


def _remove(engine: Any, through: int, tables: list[str]) -> None:
    """Positions <= ``through`` deleted with the append-only triggers off, in one transaction."""
    postgres = engine.dialect.name == "postgresql"
    with engine.begin() as conn:
        for table in APPEND_ONLY_TABLES:
            for trigger in _triggers(table, postgres):
                conn.execute(text(f"DROP TRIGGER {trigger}" + (f" ON {table}" if postgres else "")))
        ids = "SELECT event_id FROM event_log WHERE position <= :last"
        conn.execute(text(f"CREATE TEMPORARY TABLE purged_ids AS {ids}"), {"last": through})
        conn.execute(text("DELETE FROM event_log WHERE position <= :last"), {"last": through})
        conn.execute(text("DELETE FROM events WHERE id IN (SELECT event_id FROM purged_ids)"))
        conn.execute(text("DELETE FROM checkpoints WHERE position <= :last"), {"last": through})
        for table_id in tables:
            conn.execute(text("DELETE FROM commands WHERE stream_id = :s"), {"s": table_id})
        conn.execute(text("DROP TABLE purged_ids"))
        for table in APPEND_ONLY_TABLES:
            for statement in _create_triggers(table, postgres):
                conn.execute(text(statement))


def _triggers(table: str, postgres: bool) -> list[str]:
    if postgres:
        return [f"{table}_append_only", f"{table}_no_truncate"]
    return [f"{table}_no_update", f"{table}_no_delete"]


def _create_triggers(table: str, postgres: bool) -> list[str]:
    """Migration 0001's triggers, word for word."""
    if postgres:
        return [
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION paigow_append_only()",
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION paigow_append_only()",
        ]
    return [
        f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
        f"BEGIN SELECT RAISE(ABORT, 'paigow: {action} on {table} refused: "
        "the event store is append-only'); END"
        for action in ("UPDATE", "DELETE")
    ]
