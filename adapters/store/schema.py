"""The store's tables, as SQLAlchemy Core metadata. Alembic (``migrations/``) creates them; a test
checks that the migrated schema matches this metadata on both engines.

- ``events``: every event, with its stream chain (``prev_hash`` → ``hash``). Insert only.
- ``event_log``: the global order, dense positions 1, 2, 3 … with the global chain. Insert only.
  A separate table because on PostgreSQL an event's row is written before its position is known
  (the position is given at the transaction's tail, under the sequencer lock: docs/store.md) and
  an ``events`` row is never touched again; on SQLite both rows are written together.
- ``commands``: one row per command id, for idempotent retries. Insert only.
- ``checkpoints``: signed chain heads. Insert only.
- ``append_tags``: one row per append transaction, the HMAC (a key derived from the signing key)
  over the stream, its version range and the last event's hash (adapters/store/tags.py). Insert
  only. ``append_tag_anchors``: from where tags are required, each row tagged by a key (a key
  rotation, an operator's adoption of untagged events); an untagged row (migration 0009's first)
  counts for nothing. Insert only.
- ``sequencer_queue``: events an older PostgreSQL writer (two transactions an append) committed
  without a position; the next append's tail drains them into ``event_log``. The only table with
  deletes, and no part of the audit trail.

Every audit table has database triggers refusing UPDATE and DELETE (and TRUNCATE on PostgreSQL).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

# SQLite makes only a column declared exactly INTEGER PRIMARY KEY an alias of its row id.
Id = BigInteger().with_variant(Integer(), "sqlite")
HASH = 64

metadata = MetaData()

events = Table(
    "events",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("stream_id", String(200), nullable=False),
    Column("version", Integer, nullable=False),
    Column("type", String(200), nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("payload", Text, nullable=False),
    Column("recorded_at", String(32), nullable=False),
    Column("actor_id", String(200), nullable=False),
    Column("actor_role", String(100), nullable=False),
    Column("command_id", String(200), nullable=False),
    Column("prev_hash", String(HASH), nullable=False),
    Column("hash", String(HASH), nullable=False),
    UniqueConstraint("stream_id", "version", name="uq_events_stream_version"),
)

event_log = Table(
    "event_log",
    metadata,
    Column("position", Id, primary_key=True, autoincrement=False),
    Column(
        "event_id",
        BigInteger,
        ForeignKey("events.id", name="fk_event_log_event"),
        nullable=False,
    ),
    Column("prev_hash", String(HASH), nullable=False),
    Column("hash", String(HASH), nullable=False),
    UniqueConstraint("event_id", name="uq_event_log_event"),
)

commands = Table(
    "commands",
    metadata,
    Column("command_id", String(200), primary_key=True),
    Column("stream_id", String(200), nullable=False),
    Column("first_version", Integer, nullable=False),
    Column("last_version", Integer, nullable=False),
)

checkpoints = Table(
    "checkpoints",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("position", BigInteger, nullable=False),
    Column("hash", String(HASH), nullable=False),
    Column("signed_at", String(32), nullable=False),
    Column("key_id", String(16), nullable=False),
    Column("signature", String(128), nullable=False),
    # The checkpoint that seals an event: the first at or after its position (migration 0014).
    Index("ix_checkpoints_position", "position"),
)

sequencer_queue = Table(
    "sequencer_queue",
    metadata,
    Column("event_id", BigInteger, primary_key=True, autoincrement=False),
    Column("hash", String(HASH), nullable=False),
)

append_tags = Table(
    "append_tags",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("stream_id", String(200), nullable=False),
    Column("first_version", Integer, nullable=False),
    Column("last_version", Integer, nullable=False),
    Column("last_hash", String(HASH), nullable=False),
    Column("tag", String(HASH), nullable=False),
    # No unique key: a row an insider inserts must never block the service's own append.
    Index("append_tags_stream", "stream_id", "last_version"),
)

append_tag_anchors = Table(
    "append_tag_anchors",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("position", BigInteger, nullable=False),
    Column("hash", String(HASH), nullable=False),
    Column("tag", String(HASH), nullable=True),
)

APPEND_ONLY_TABLES = ("events", "event_log", "commands", "checkpoints")
#: Append-only too (migration 0009), but never purged: a tag of a purged stream is harmless.
TAG_TABLES = ("append_tags", "append_tag_anchors")

#: A table's state signed at a checkpoint (issue 22, service_layer/snapshots.py): a restart folds
#: only
#: the events after it. Insert only (triggers, migration 0011), outside ``APPEND_ONLY_TABLES``:
#: not part of the audit trail (nothing is lost when one is refused), so purge leaves them be.
table_snapshots = Table(
    "table_snapshots",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("table_id", String(200), nullable=False),
    Column("version", Integer, nullable=False),
    Column("stream_hash", String(HASH), nullable=False),
    Column("position", BigInteger, nullable=False),
    Column("global_hash", String(HASH), nullable=False),
    Column("state", Text, nullable=False),
    Column("taken_at", String(32), nullable=False),
    Column("key_id", String(16), nullable=False),
    Column("signature", String(128), nullable=False),
    Index("ix_table_snapshots_table", "table_id", "id"),
)
