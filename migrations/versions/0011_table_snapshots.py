"""Table snapshots (issue 22): a table's folded state, signed, at a checkpoint of the log.

Revision ID: 0011_table_snapshots
Revises: 0010_notify_checkpoint
Create Date: 2026-12-01

A restart takes the newest snapshot of each table, checks its signature and that the log's event
at its position has its global hash, and folds only the events after it
(service_layer/snapshots.py). Insert only, like the audit trail: triggers refuse UPDATE and DELETE
(and TRUNCATE on PostgreSQL), and the service role may only SELECT and INSERT (as migration 0008
grants the audit tables). Frozen text: a later change is a new revision.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations import ddl

revision = "0011_table_snapshots"
down_revision = "0010_notify_checkpoint"
branch_labels = None
depends_on = None

TABLE = "table_snapshots"
Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("stream_hash", sa.String(64), nullable=False),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("global_hash", sa.String(64), nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("taken_at", sa.String(32), nullable=False),
        sa.Column("key_id", sa.String(16), nullable=False),
        sa.Column("signature", sa.String(128), nullable=False),
    )
    op.create_index("ix_table_snapshots_table", TABLE, ["table_id", "id"])
    ddl.append_only((TABLE,))
    if op.get_bind().dialect.name != "postgresql":
        return
    owner, service = ddl.checked_role_names()
    schema = op.get_bind().execute(sa.text("SELECT current_schema()")).scalar()
    op.execute(f'ALTER TABLE "{TABLE}" OWNER TO "{owner}"')
    op.execute(f'GRANT SELECT, INSERT ON "{TABLE}" TO "{service}"')
    op.execute(f'GRANT USAGE ON ALL SEQUENCES IN SCHEMA "{schema}" TO "{service}"')


def downgrade() -> None:
    op.drop_table(TABLE)
