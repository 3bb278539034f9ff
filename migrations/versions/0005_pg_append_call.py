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

revision = "0005_pg_append_call"
down_revision = "0004_pg_sequencer_tail"
branch_labels = None
depends_on = None

# The arrays are the columns of ``events`` (sql.EVENT_COLUMNS, in that order) and of
# ``commands``, one element a row, as the client's multi-row insert sends them. Returns the rows
# of ``paigow_sequence_tail`` for this append's events, in version order. A unique violation
# (another writer took the version, or the command id is recorded) aborts the whole statement:
# nothing is written and the tail's lock was never taken.
APPEND = """
CREATE FUNCTION paigow_append(
    e_stream text[], e_version int[], e_type text[], e_schema int[], e_payload text[],
    e_recorded text[], e_actor_id text[], e_actor_role text[], e_command text[],
    e_prev text[], e_hash text[],
    c_command text[], c_stream text[], c_first int[], c_last int[])
RETURNS TABLE(log_position bigint, log_event_id bigint, log_hash text)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    ids bigint[];
    digests text[];
BEGIN
    WITH ins AS (
        INSERT INTO events (stream_id, version, type, schema_version, payload, recorded_at,
                            actor_id, actor_role, command_id, prev_hash, hash)
        SELECT * FROM unnest(e_stream, e_version, e_type, e_schema, e_payload, e_recorded,
                             e_actor_id, e_actor_role, e_command, e_prev, e_hash)
        RETURNING id, version, hash
    ), cmd AS (
        INSERT INTO commands (command_id, stream_id, first_version, last_version)
        SELECT * FROM unnest(c_command, c_stream, c_first, c_last)
    )
    SELECT array_agg(id ORDER BY version), array_agg(hash ORDER BY version)
        INTO ids, digests FROM ins;
    RETURN QUERY SELECT * FROM paigow_sequence_tail(ids, digests);
END
$$
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(APPEND)


def downgrade() -> None:
    raise RuntimeError("the PostgreSQL append call is never downgraded")
