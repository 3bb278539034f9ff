"""The log and checkpoint queries every reader of a stored log runs, and their column lists.

Plain SQL that SQLite and PostgreSQL both take: the verifier, the replay and the audit read rows in
exactly these column orders.
"""

from __future__ import annotations

#: A log row, in global position order: the event's columns, then its ``event_log`` link.
ROW_COLUMNS = (
    "position",
    "stream_id",
    "version",
    "type",
    "schema_version",
    "payload",
    "recorded_at",
    "actor_id",
    "actor_role",
    "command_id",
    "prev_hash",
    "hash",
    "global_prev",
    "global_hash",
)
#: (position, hash, signed_at, key_id, signature) in position order.
CHECKPOINT_COLUMNS = ("position", "hash", "signed_at", "key_id", "signature")

LOG_QUERY = (
    "SELECT g.position, e.stream_id, e.version, e.type, e.schema_version, e.payload, "
    "e.recorded_at, e.actor_id, e.actor_role, e.command_id, e.prev_hash, e.hash, "
    "g.prev_hash, g.hash FROM event_log g JOIN events e ON e.id = g.event_id ORDER BY g.position"
)
CHECKPOINT_QUERY = (
    "SELECT position, hash, signed_at, key_id, signature FROM checkpoints ORDER BY position, id"
)
