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

import re

import sqlalchemy as sa
from alembic import context, op

revision = "0014_event_feed"
down_revision = "0013_floor_sessions"
branch_labels = None
depends_on = None

TABLE = "feed_subscriptions"
FUNCTION = "paigow_notify_events()"
DEFAULT_ROLES = ("paigow_owner", "paigow_service")
ROLE_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


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
    owner, service = context.config.attributes.get("pg_roles") or DEFAULT_ROLES
    for name in (owner, service):
        if ROLE_NAME.fullmatch(name) is None:  # as 0008 checks them: names go into the SQL
            raise ValueError(f"{name!r} is not a role name ([a-z0-9_])")
    op.execute(
        f"""
        CREATE FUNCTION {FUNCTION} RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('paigow_events', TG_TABLE_SCHEMA);
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        "CREATE TRIGGER event_log_notify AFTER INSERT ON event_log "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}"
    )
    log_owner = bind.execute(
        sa.text(
            "SELECT tableowner FROM pg_tables "
            "WHERE schemaname = current_schema() AND tablename = 'event_log'"
        )
    ).scalar()
    op.execute(f'ALTER FUNCTION {FUNCTION} OWNER TO "{log_owner}"')
    op.execute(f"REVOKE ALL ON FUNCTION {FUNCTION} FROM PUBLIC")
    op.execute(f'ALTER TABLE "{TABLE}" OWNER TO "{owner}"')
    op.execute(f'GRANT SELECT, INSERT, UPDATE, DELETE ON "{TABLE}" TO "{service}"')


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.execute("DROP TRIGGER event_log_notify ON event_log")
        op.execute(f"DROP FUNCTION {FUNCTION}")
    op.drop_table(TABLE)
    op.drop_index("ix_checkpoints_position", "checkpoints")
