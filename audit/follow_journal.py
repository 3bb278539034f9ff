"""The follower's own records, kept OUTSIDE the casino's database (it may only read that one):

- the state file (``--state``): how far it verified (the position, the global hash there, the
  last checkpoint's row id and position), written atomically (a temporary file, fsync, rename) so
  a crash leaves the old state or the new one, never half of one;
- the findings journal (``--findings``): each finding a significant event, one JSON object a
  line, append only, each line hashed with the one before it (``prev`` -> ``hash``, SHA-256 of
  the line's canonical JSON without ``hash``), so a line removed or edited later breaks the
  chain. The follower checks the chain when it opens the journal and refuses a broken one.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from audit.findings import Finding
from audit.sources import AuditUsageError

GENESIS = "0" * 64
STATE_VERSION = 1


@dataclass
class FollowState:
    """Where a follower stands: every row up to ``position`` verified, up to its checkpoint."""

    source: str = ""
    position: int = 0
    head: str | None = None  # the global hash at ``position``
    checkpoint_id: int = 0  # the last checkpoint row read (checkpoints.id)
    checkpoint_position: int = 0
    checkpoints: int = 0  # checkpoints verified
    findings: int = 0  # findings reported
    updated_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, **asdict(self)}

    def stands(self) -> dict[str, Any]:
        """Where it stands, without the time it was saved."""
        return {k: v for k, v in asdict(self).items() if k != "updated_at"}


def load_state(path: str | Path) -> FollowState | None:
    """The saved state (None: no file yet); ``AuditUsageError`` for a file that is not one."""
    target = Path(path)
    if not target.exists():
        return None
    try:
        value = json.loads(target.read_text(encoding="utf-8"))
        if value.pop("version") != STATE_VERSION:
            raise ValueError("another version")
        names = {f.name for f in fields(FollowState)}
        state = FollowState(**{k: v for k, v in value.items() if k in names})
        if type(state.position) is not int or type(state.checkpoint_id) is not int:
            raise ValueError("bad positions")
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as error:
        raise AuditUsageError(f"{target} is not a follower state file: {error}") from None
    return state


def save_state(path: str | Path, state: FollowState) -> None:
    """Atomically: the old state or the new one survives a crash, never a mix."""
    target = Path(path)
    state.updated_at = _now()
    text = json.dumps(state.to_dict(), indent=1) + "\n"
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except OSError as error:
        raise AuditUsageError(f"cannot write the state file {target}: {error.strerror}") from None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _digest(line: dict[str, Any]) -> str:
    text = json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


class FindingsJournal:
    """Append-only, hash-chained JSON lines of findings (see the module's docstring)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.count, self.head = self._check()

    def _check(self) -> tuple[int, str]:
        """The number of lines and the last hash, the chain checked from the first line."""
        count, head = 0, GENESIS
        if not self.path.exists():
            return count, head
        try:
            with self.path.open("r", encoding="utf-8") as handle:
                for number, text in enumerate(handle, start=1):
                    line = json.loads(text)
                    claimed = line.pop("hash")
                    if line.get("prev") != head or _digest(line) != claimed:
                        raise ValueError(f"line {number} breaks the journal's hash chain")
                    count, head = count + 1, claimed
        except (OSError, ValueError, KeyError, AttributeError) as error:
            raise AuditUsageError(f"the findings journal {self.path}: {error}") from None
        return count, head

    def record(self, finding: Finding, source: str, checkpoint: int | None) -> dict[str, Any]:
        """One finding, on the disk before the follower says it (fsync)."""
        line: dict[str, Any] = {
            "seq": self.count + 1,
            "recorded_at": _now(),
            "source": source,
            "checkpoint": checkpoint,
            "finding": finding.to_dict(),
            "prev": self.head,
        }
        line["hash"] = _digest(line)
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        self.count, self.head = self.count + 1, line["hash"]
        return line
