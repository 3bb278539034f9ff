"""Floor page sessions kept by the server: signing out, or revoking the key, ends a session at once.

Revision ID: 0013_floor_sessions
Revises: 0012_append_checks_heads
Create Date: 2026-12-03

Frozen copy of ``entrypoints.http.floor.session_store.floor_sessions``. One row per sign-in to the
floor's pages: the SHA-256 of the session's random id (the cookie holds the id, the database never
does), the API key it signed in with, when it expires (epoch seconds) and when it ended (sign-out).
Every floor request reads its row and checks its key against the log: a session signed out,
expired, or whose key was revoked is over, in every worker process of ``paigow serve --workers
N``. Not part of the audit trail (no event, no trigger): the service role may select, insert,
update (sign-out) and delete (sessions expired a day ago, cleared at each sign-in). The
downgrade drops the table: every open floor session then ends.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations import ddl

revision = "0013_floor_sessions"
down_revision = "0012_append_checks_heads"
branch_labels = None
depends_on = None

TABLE = "floor_sessions"


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("session_hash", sa.String(64), primary_key=True),
        sa.Column("key_id", sa.String(12), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("expires_at", sa.BigInteger, nullable=False),
        sa.Column("ended_at", sa.String(32), nullable=True),
    )
    if op.get_bind().dialect.name != "postgresql":
        return
    owner, service = ddl.checked_role_names()
    op.execute(f'ALTER TABLE "{TABLE}" OWNER TO "{owner}"')
    op.execute(f'GRANT SELECT, INSERT, UPDATE, DELETE ON "{TABLE}" TO "{service}"')


def downgrade() -> None:
    op.drop_table(TABLE)
