"""API keys of the HTTP API: each bound to an actor and a role, stored as SHA-256 of the token.

Revision ID: 0003_api_keys
Revises: 0002_projections
Create Date: 2026-01-01

Frozen copy of ``service_layer.operators.keys.api_keys`` (a migration never imports today's models);
a test compares the result with it. Not part of the audit trail: revoking a key sets
``revoked_at``, and a key authenticates only as the system stream's sealed key events say (the
rows are an index). The downgrade drops the table; the events are untouched.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_api_keys"
down_revision = "0002_projections"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "api_keys",
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column("key_id", sa.String(12), nullable=False),
        sa.Column("actor_id", sa.String(200), nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("revoked_at", sa.String(32), nullable=True),
        sa.UniqueConstraint("key_id", name="uq_api_keys_key_id"),
    )


def downgrade() -> None:
    op.drop_table("api_keys")
