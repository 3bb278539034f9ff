"""The append-only event store: events, global log, commands, checkpoints, sequencer queue.

Revision ID: 0001_event_store
Revises:
Create Date: 2025-01-01

Frozen copy of the tables (a migration never imports today's models); a test compares the result
with ``adapters.store.schema``. Triggers make the audit tables append-only on both engines.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations import ddl

revision = "0001_event_store"
down_revision = None
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
APPEND_ONLY = ("events", "event_log", "commands", "checkpoints")


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("type", sa.String(200), nullable=False),
        sa.Column("schema_version", sa.Integer, nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("recorded_at", sa.String(32), nullable=False),
        sa.Column("actor_id", sa.String(200), nullable=False),
        sa.Column("actor_role", sa.String(100), nullable=False),
        sa.Column("command_id", sa.String(200), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.UniqueConstraint("stream_id", "version", name="uq_events_stream_version"),
    )
    op.create_table(
        "event_log",
        sa.Column("position", Id, primary_key=True, autoincrement=False),
        sa.Column(
            "event_id",
            sa.BigInteger,
            sa.ForeignKey("events.id", name="fk_event_log_event"),
            nullable=False,
        ),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.UniqueConstraint("event_id", name="uq_event_log_event"),
    )
    op.create_table(
        "commands",
        sa.Column("command_id", sa.String(200), primary_key=True),
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("first_version", sa.Integer, nullable=False),
        sa.Column("last_version", sa.Integer, nullable=False),
    )
    op.create_table(
        "checkpoints",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("signed_at", sa.String(32), nullable=False),
        sa.Column("key_id", sa.String(16), nullable=False),
        sa.Column("signature", sa.String(128), nullable=False),
    )
    op.create_table(
        "sequencer_queue",
        sa.Column("event_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("hash", sa.String(64), nullable=False),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            """
        CREATE FUNCTION paigow_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'paigow: % on % refused: the event store is append-only',
                TG_OP, TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
        END
        $$
        """
        )
    ddl.append_only(APPEND_ONLY)


def downgrade() -> None:
    # Dropping the tables would destroy the audit trail; a regulator would never accept it.
    raise RuntimeError("the event store schema is never downgraded")
