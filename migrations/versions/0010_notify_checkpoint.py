"""PostgreSQL: NOTIFY ``paigow_checkpoint`` when checkpoints are signed, so ``paigow audit
follow`` verifies each round as soon as its checkpoint commits instead of polling (issue 22).

Revision ID: 0010_notify_checkpoint
Revises: 0009_append_tags
Create Date: 2026-12-01

A statement-level AFTER INSERT trigger on ``checkpoints``: a batch that signs several checkpoints
notifies once, and PostgreSQL delivers a notification only when its transaction commits (never
for one rolled back), after the rows are visible. The payload is the table's schema, so followers
of other schemas of the same database can ignore it. A notification is a wake-up only, never a
fact the follower trusts: it reads the checkpoints themselves, and polls when none arrives (a
checkpoint inserted with the triggers switched off is still found). LISTEN needs no right on the
tables, so a read-only follower can wait on it.

The function belongs to the owner of ``checkpoints`` (migration 0008's owner role, when it made
one), like the append-only trigger's; nobody is granted EXECUTE on it (a trigger function is not
checked for EXECUTE when it fires). On SQLite a no-op: the follower polls.
"""

from __future__ import annotations

from alembic import op

from migrations import ddl

revision = "0010_notify_checkpoint"
down_revision = "0009_append_tags"
branch_labels = None
depends_on = None

FUNCTION = "paigow_notify_checkpoint()"


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    ddl.notify_on_insert(FUNCTION, "paigow_checkpoint", "checkpoints_notify", "checkpoints")


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    op.execute("DROP TRIGGER checkpoints_notify ON checkpoints")
    op.execute(f"DROP FUNCTION {FUNCTION}")
