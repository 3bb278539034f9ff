"""The event feed (docs/feed.md): a wake-up on every append, the checkpoints by position, and the
consumers' durable positions.

Revision ID: 0014_event_feed
Revises: 0013_floor_sessions
Create Date: 2026-12-04

- PostgreSQL: NOTIFY ``paigow_events`` when ``event_log`` rows are inserted (a statement-level
  AFTER INSERT trigger, as 0010's on ``checkpoints``): the feed's followers are woken when an
  append commits instead of polling. PostgreSQL delivers a notification only at commit (never for
  one rolled back), after the rows are visible, and folds the notifications of one transaction
  into one. The payload is the table's schema, so followers of other schemas of the same database
  ignore it. A notification is a wake-up only, never a fact: the follower reads the log, and
  polls too. The function belongs to the owner of ``event_log``; nobody is granted EXECUTE on it.
- ``ix_checkpoints_position``: the checkpoint that seals an event (the first at or after its
  position) is one index probe, not a scan of every checkpoint signed.
- ``feed_subscriptions``: one row per named subscription (its filter, its acknowledged position,
  who created it and when). Not part of the audit trail (no event, no trigger): the service role
  may select, insert, update (an acknowledgement) and delete (``DELETE /subscriptions/{name}``).

Frozen copy of ``adapters.store.subscriptions.feed_subscriptions``; a later change is a new
revision. On SQLite only the table and the index (the followers poll).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations import ddl

revision = "0014_event_feed"
down_revision = "0013_floor_sessions"
branch_labels = None
depends_on = None

TABLE = "feed_subscriptions"
FUNCTION = "paigow_notify_events()"


def upgrade() -> None:
    op.create_index("ix_checkpoints_position", "checkpoints", ["position"])
    op.create_table(
        TABLE,
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("types", sa.Text, nullable=True),
        sa.Column("table_ids", sa.Text, nullable=True),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("created_by", sa.String(200), nullable=False),
        sa.Column("acked_at", sa.String(32), nullable=True),
    )
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    owner, service = ddl.checked_role_names()
    ddl.notify_on_insert(FUNCTION, "paigow_events", "event_log_notify", "event_log")
    op.execute(f'ALTER TABLE "{TABLE}" OWNER TO "{owner}"')
    op.execute(f'GRANT SELECT, INSERT, UPDATE, DELETE ON "{TABLE}" TO "{service}"')


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.execute("DROP TRIGGER event_log_notify ON event_log")
        op.execute(f"DROP FUNCTION {FUNCTION}")
    op.drop_table(TABLE)
    op.drop_index("ix_checkpoints_position", "checkpoints")
