"""PostgreSQL: an append as ONE server-side call, ``paigow_append``: inserts, then the tail.

Revision ID: 0005_pg_append_call
Revises: 0004_pg_sequencer_tail
Create Date: 2026-11-29

The common append (the store wrote the stream's head itself, no checkpoint to sign) was a client
pipeline: BEGIN, the inserts, ``paigow_sequence_tail``, COMMIT. As one function call on an
autocommit connection it is one statement in its own transaction: the same inserts, the same
tail as the transaction's LAST lock (taken by the nested call, a VOLATILE function whose
statements take snapshots after the lock), the commit right behind it, and no pipeline to drive
from Python (about a tenth of the HTTP server's CPU a command). docs/store.md, "Gap-free global
order". On SQLite a no-op. Frozen text: a later change is a new revision.
"""

from __future__ import annotations

from alembic import op

from migrations import ddl

revision = "0005_pg_append_call"
down_revision = "0004_pg_sequencer_tail"
branch_labels = None
depends_on = None

# The rows come as two JSON arrays: ``events``, one array a row holding the columns of
# ``events`` in the order of ``sql.EVENT_COLUMNS`` (texts and integers), and ``commands``, one
# [command_id, stream_id, first_version, last_version] a command. One text parameter: psycopg
# adapts fifteen arrays in Python (about 40-80 us an append, under the client's GIL), a text
# parameter in about 2 us, and the server parses the JSON in C. ``->>`` gives a JSON string back
# as the exact text it encoded, so the stored payload bytes are those the client hashed. Returns
# the rows of ``paigow_sequence_tail`` for this append's events, in version order. A unique
# violation (another writer took the version, or the command id is recorded) aborts the whole
# statement: nothing is written and the tail's lock was never taken.
APPEND = ddl.append_function(replace=False, tags=False)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(APPEND)


def downgrade() -> None:
    raise RuntimeError("the PostgreSQL append call is never downgraded")
