"""``/ready`` names a failover that one of its own checks noticed: the store answered the first
query (a session still open, or a standby's), then the signing key's read found no primary. The
message is the failover's, as its ``failover`` field says, not the later check's error."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from adapters.store.primary import PrimaryWatch
from service_layer.readiness import readiness

LOST_AT = datetime(2026, 12, 4, 22, 0, tzinfo=UTC)
PRIMARY = "10.0.0.1:5432"


class StoreLosingItsPrimary:
    """Answers the schema's query, then loses the primary while the last checkpoint is read."""

    engine = None
    signer = SimpleNamespace(key_id="k-1")

    def __init__(self) -> None:
        self.primary_watch = PrimaryWatch(failover=True, clock=lambda: LOST_AT)
        self.primary_watch.connected(PRIMARY)

    def stream_version(self, stream: str) -> int:
        return 0

    def checkpoints(self) -> list[Any]:
        self.primary_watch.lost(PRIMARY)
        raise ConnectionError("session is read-only")


def test_a_failover_noticed_by_the_signing_key_check_is_what_ready_names() -> None:
    service = SimpleNamespace(read_only=None, tampered=None, refusing=None)
    found = readiness(StoreLosingItsPrimary(), service, head="0014")
    assert found.reason == (
        "store: no primary: failover in progress since 2026-12-04T22:00:00.000000Z, "
        f"last primary {PRIMARY}"
    )
    assert found.checks["signing_key"] == "not checked"
    assert found.failover is not None and found.failover["in_progress"] is True
    assert found.failover["last_primary"] == PRIMARY
    assert found.primary is None
