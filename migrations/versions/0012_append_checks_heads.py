"""PostgreSQL: the one-call append checks the heads it extends; the service role loses what it never
uses.

Revision ID: 0012_append_checks_heads
Revises: 0011_table_snapshots
Create Date: 2026-12-03

A running service must notice at once a log cut or rewritten under it (adapters/store/
heads_seen.py). Its common append (``paigow_append``, migration 0005, 0009) reads no head: it
chains onto the head the store remembers writing. So the function now refuses, with SQLSTATE
``XX001`` (data_corrupted) and nothing written, when the stream's event it extends (the version
before its first event, with that event's ``prev_hash``) is not in ``events``, or when the log's
hash the store last saw (``batch->'seen'``: [position, hash], optional) is not at that position
in ``event_log``. Two index probes; a batch without ``seen`` (an older client) checks the stream
only.

Least privilege (docs/operations.md, "PostgreSQL roles"): the service role keeps only what the
service uses. It never inserts into ``event_log`` (positions come from ``paigow_sequence_tail``,
SECURITY DEFINER, with the owner's rights), ``sequencer_queue`` (only writers older than 0004 did)
or ``append_tag_anchors`` (``paigow keys signing rotate`` and ``paigow db adopt`` write anchors:
they run as the owner): INSERT on those three is revoked. ``CREATE`` on the schema is revoked from
PUBLIC (PostgreSQL before 15 grants it on ``public``). On SQLite a no-op. Frozen text: a later
change is a new revision.

From this revision's code on, the untagged first row 0009 wrote in ``append_tag_anchors`` counts
for nothing (adapters/store/tags.py): a log whose head no checkpoint sealed before the tags is
taken on by ``paigow db adopt``, an operator's recorded step, never silently. The row stays
(append-only).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from migrations import ddl

revision = "0012_append_checks_heads"
down_revision = "0011_table_snapshots"
branch_labels = None
depends_on = None

NO_INSERT = ("event_log", "sequencer_queue", "append_tag_anchors")

# 0009's function, the two checks in front.
APPEND = ddl.append_function(
    replace=True,
    tags=True,
    declare="""    first_event jsonb := batch->'events'->0;
    seen jsonb := batch->'seen';
""",
    checks="""    IF (first_event->>1)::int > 1 AND NOT EXISTS (
        SELECT 1 FROM events WHERE stream_id = first_event->>0
            AND version = (first_event->>1)::int - 1 AND hash = first_event->>9
    ) THEN
        RAISE EXCEPTION 'paigow: stream % has no event % with the hash this append extends',
            first_event->>0, (first_event->>1)::int - 1 USING ERRCODE = 'data_corrupted';
    END IF;
    IF seen IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM event_log WHERE position = (seen->>0)::bigint AND hash = seen->>1
    ) THEN
        RAISE EXCEPTION 'paigow: the log holds no hash % at position %', seen->>1, seen->>0
            USING ERRCODE = 'data_corrupted';
    END IF;
""",
)


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    owner, service = ddl.role_names()
    # 0008 checked the names and made the roles. CREATE OR REPLACE keeps the owner and grants.
    op.execute(APPEND)
    op.execute(f'ALTER FUNCTION paigow_append(jsonb) OWNER TO "{owner}"')
    for table in NO_INSERT:
        op.execute(f'REVOKE INSERT ON "{table}" FROM "{service}"')
    schema = bind.execute(sa.text("SELECT current_schema()")).scalar()
    op.execute(f'REVOKE CREATE ON SCHEMA "{schema}" FROM PUBLIC')


def downgrade() -> None:
    raise RuntimeError("the append's checks guard the audit trail: never downgraded")
