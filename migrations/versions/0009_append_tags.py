"""Append tags: every append transaction records an HMAC under a key derived from the signing key.

Revision ID: 0009_append_tags
Revises: 0008_pg_roles
Create Date: 2026-12-02

Issue 17, the insider hole: a well-formed event INSERTed by the published recipes while the
service runs would otherwise be folded and sealed by the service's next checkpoint. The store
tags what it appends (``append_tags``: stream, version range, the last event's hash and the
HMAC) and refuses to sign, or to catch a table up over, events after the last checkpoint that no
valid tag covers (docs/store.md, "Append tags").

``append_tag_anchors`` says from where tags are required: its FIRST row is written here, the log's
head at the upgrade (0 for a new database), so a log written before this revision keeps working;
a later row counts only with a tag of the store's own key (``paigow keys signing rotate`` writes
one for the new key). Both tables are append-only (triggers, as the other audit tables); on
PostgreSQL the owner role of 0008 owns them and the service role may SELECT and INSERT only.
``paigow_append`` (0005) is replaced by a version that also inserts the batch's tag rows.
Frozen text: a later change is a new revision.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations import ddl

revision = "0009_append_tags"
down_revision = "0008_pg_roles"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TABLES = ("append_tags", "append_tag_anchors")

# 0005's function, plus one INSERT of ``batch->'tags'`` ([stream, first, last, last_hash, tag]
# each) in the same statement, so an append and its tag commit together or not at all.
APPEND = ddl.append_function(replace=True, tags=True)


def upgrade() -> None:
    op.create_table(
        "append_tags",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("stream_id", sa.String(200), nullable=False),
        sa.Column("first_version", sa.Integer, nullable=False),
        sa.Column("last_version", sa.Integer, nullable=False),
        sa.Column("last_hash", sa.String(64), nullable=False),
        sa.Column("tag", sa.String(64), nullable=False),
    )
    # No unique key: a row an insider inserts must never block the service's own append.
    op.create_index("append_tags_stream", "append_tags", ["stream_id", "last_version"])
    op.create_table(
        "append_tag_anchors",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("tag", sa.String(64), nullable=True),
    )
    bind = op.get_bind()
    head = bind.execute(
        sa.text("SELECT position, hash FROM event_log ORDER BY position DESC LIMIT 1")
    ).first()
    position, digest = (int(head[0]), str(head[1])) if head else (0, "0" * 64)
    bind.execute(
        sa.text("INSERT INTO append_tag_anchors (position, hash) VALUES (:p, :h)"),
        {"p": position, "h": digest},
    )
    ddl.append_only(TABLES)
    if bind.dialect.name == "postgresql":
        _postgresql(bind)


def _postgresql(bind: sa.Connection) -> None:
    op.execute(APPEND)
    owner, service = ddl.role_names()
    # 0008 checked the names; the roles exist since then. As 0008 did for the other audit tables.
    for table in TABLES:
        op.execute(f'ALTER TABLE "{table}" OWNER TO "{owner}"')
        op.execute(f'GRANT SELECT, INSERT ON "{table}" TO "{service}"')
    op.execute(f'ALTER FUNCTION paigow_append(jsonb) OWNER TO "{owner}"')
    op.execute("REVOKE ALL ON FUNCTION paigow_append(jsonb) FROM PUBLIC")
    op.execute(f'GRANT EXECUTE ON FUNCTION paigow_append(jsonb) TO "{service}"')
    schema = bind.execute(sa.text("SELECT current_schema()")).scalar()
    op.execute(f'GRANT USAGE ON ALL SEQUENCES IN SCHEMA "{schema}" TO "{service}"')


def downgrade() -> None:
    raise RuntimeError("the append tags are part of the audit trail: never downgraded")
