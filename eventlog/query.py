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

#: The log's rows with their ``event_log`` link (``ROW_COLUMNS``), before the condition and order.
_LOG_SELECT = (
    "SELECT g.position, e.stream_id, e.version, e.type, e.schema_version, e.payload, "
    "e.recorded_at, e.actor_id, e.actor_role, e.command_id, e.prev_hash, e.hash, "
    "g.prev_hash, g.hash FROM event_log g JOIN events e ON e.id = g.event_id "
)
_CHECKPOINT_SELECT = "SELECT position, hash, signed_at, key_id, signature FROM checkpoints "

LOG_QUERY = _LOG_SELECT + "ORDER BY g.position"
CHECKPOINT_QUERY = _CHECKPOINT_SELECT + "ORDER BY position, id"
#: The rows of one stretch of global positions (``audit verify --jobs``: each worker reads its
#: own), ``{p}`` the driver's parameter mark; the first and last position are given.
LOG_RANGE_QUERY = _LOG_SELECT + "WHERE g.position BETWEEN {p} AND {p} ORDER BY g.position"
CHECKPOINT_RANGE_QUERY = (
    _CHECKPOINT_SELECT + "WHERE position BETWEEN {p} AND {p} ORDER BY position, id"
)
#: The log's first and last position and its rows, and how many checkpoints there are.
LOG_BOUNDS_QUERY = (
    "SELECT (SELECT min(position) FROM event_log), (SELECT max(position) FROM event_log), "
    "(SELECT count(*) FROM event_log), (SELECT count(*) FROM checkpoints)"
)
