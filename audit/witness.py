"""The witness: signed checkpoints recorded OUTSIDE the casino's database, by the regulator or a
follower, as they are made (issue 17).

A checkpoint proves the log up to its position, but only while it is in the log: an insider who
can write the database can restore an older copy, or cut the last rounds together with their
checkpoints, and what remains still verifies. A witness file remembers each checkpoint it saw
(position, head hash, time, key id, signature), one JSON object a line, append only; ``paigow
audit verify --witness FILE`` then fails a log that lacks a witnessed checkpoint (an older copy, a
cut tail) or holds another head at its position (a forked or rewritten history).

``record`` (``paigow audit witness --db URL --out FILE``) appends only the checkpoints it does not
hold yet; when the database contradicts what it already holds (a witnessed checkpoint missing, or
changed), it appends nothing and reports each contradiction.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.sources import AuditUsageError, checkpoint_rows, connect

COLUMNS = ("position", "hash", "signed_at", "key_id", "signature")


def load(path: str | Path) -> list[tuple[Any, ...]]:
    """The checkpoints a witness file holds, as checkpoint rows (position, hash, signed_at,
    key_id, signature); ``AuditUsageError`` for a missing or unreadable file."""
    target = Path(path)
    entries: list[tuple[Any, ...]] = []
    try:
        with target.open("r", encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                    entry = tuple(value[c] for c in COLUMNS)
                except (ValueError, KeyError, TypeError) as error:
                    raise AuditUsageError(
                        f"{target}: line {number} is not a witnessed checkpoint: {error}"
                    ) from None
                if type(entry[0]) is not int or not isinstance(entry[1], str):
                    raise AuditUsageError(f"{target}: line {number}: a bad position or hash")
                entries.append(entry)
    except OSError as error:
        raise AuditUsageError(f"cannot read the witness {target}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise AuditUsageError(f"{target} is not a witness file: it is not text") from None
    return entries


@dataclass
class Recorded:
    """What one ``record`` did: checkpoints appended, held already, and contradictions."""

    appended: int = 0
    held: int = 0
    contradictions: list[str] = field(default_factory=list)


def contradictions(held: Sequence[Sequence[Any]], found: Sequence[Sequence[Any]]) -> list[str]:
    """Each witnessed checkpoint the database lacks or holds differently, in words."""
    by_position = {int(row[0]): tuple(row) for row in found}
    out = []
    for entry in held:
        now = by_position.get(int(entry[0]))
        if now is None:
            out.append(
                f"the witnessed checkpoint at position {entry[0]} (signed at {entry[2]}) is not "
                "in the database: an older copy, or its tail was cut"
            )
        elif tuple(now) != tuple(entry):
            changed = [c for c, a, b in zip(COLUMNS, entry, now, strict=True) if a != b]
            out.append(
                f"the checkpoint at position {entry[0]} differs from the witnessed one "
                f"({', '.join(changed)}): a forked or rewritten history"
            )
    return out


def record(url: Any, out: str | Path) -> Recorded:
    """Append the database's checkpoints the witness file does not hold yet (nothing when the
    database contradicts it)."""
    target = Path(out)
    held = load(target) if target.exists() else []
    connection, _mark, _shown = connect(url)
    try:
        found = checkpoint_rows(connection)
    finally:
        connection.close()
    result = Recorded(held=len(held))
    result.contradictions = contradictions(held, found)
    if result.contradictions:
        return result
    known = {int(entry[0]) for entry in held}
    new = [row for row in found if int(row[0]) not in known]
    if new:
        lines = "".join(
            json.dumps(dict(zip(COLUMNS, row, strict=True)), separators=(",", ":")) + "\n"
            for row in new
        )
        # Append only, and on the disk before we say so.
        descriptor = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(lines)
            handle.flush()
            os.fsync(handle.fileno())
    result.appended = len(new)
    return result
