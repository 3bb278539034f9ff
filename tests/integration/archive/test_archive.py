"""A regulator's central archive (deploy/archive/README.md): three properties, each its own
PostgreSQL cluster, publish their signed logs by logical replication into one archive database, a
schema each (``deploy/archive/three_clusters.sh`` builds the four clusters on their own ports);
``paigow audit follow --archive`` verifies the three at once, each with its own pinned key; an
insider's edit of one property's archive copy is a finding naming the property and the position;
a property whose replication stops is reported ``stale`` within ``--stale-after``.

Marked ``archive`` (and ``slow``: outside the quick tier). It needs PostgreSQL's server programs
(Debian's ``postgresql``, which ``.ci/run`` installs when missing): CI fails without them, a
machine without them skips.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy.engine import make_url

from .harness import NAMES, Archive, Clusters, missing

pytestmark = [pytest.mark.archive, pytest.mark.slow]

STALE_AFTER = 5.0  # seconds; an idle link shows a keepalive every 2 s (wal_receiver_timeout 4 s)
PUBLISHED = ["append_tag_anchors", "checkpoints", "commands", "event_log", "events"]


@pytest.fixture(scope="module")
def archive() -> Iterator[Archive]:
    lacking = missing()
    if lacking:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the archive test; not installed: {lacking}")
        pytest.skip(f"not installed: {lacking}")
    with Clusters() as built:
        yield built


def alerts(lines: list[dict[str, Any]]) -> list[tuple[str, str, int | None]]:
    return [
        (x["property"], x["alert"]["clause"], x["alert"]["position"]) for x in lines if "alert" in x
    ]


def test_three_properties_archived_verified_tampered_and_stale(
    archive: Archive, tmp_path: Path
) -> None:
    # What each property publishes: the log the audit reads, never projections or keys.
    for name in NAMES:
        with archive.publisher(name) as connection:
            published = connection.execute(
                "SELECT tablename FROM pg_publication_tables WHERE pubname = 'paigow_archive' "
                "ORDER BY tablename"
            ).fetchall()
        assert [t for (t,) in published] == PUBLISHED

    # Play on each, replicate: the follower verifies all three, each with its own key.
    archive.play(3, *NAMES)
    print(f"\nreplicated in {archive.wait_replicated(*NAMES):.2f} s")
    states = tmp_path / "states"
    states.mkdir()
    status, lines = archive.follow("--once", "--state-dir", str(states))
    assert (status, alerts(lines)) == (0, [])
    verified = {x["property"]: x["verified"] for x in lines if "verified" in x}
    assert verified == {name: archive.head(name)[1] for name in NAMES}
    assert sorted(p.name for p in states.iterdir()) == ["a.json", "b.json", "c.json"]

    # The follower's role reads and nothing else, even with its read-only default switched off.
    follower = make_url(archive.env["ARCHIVE_FOLLOWER_DB"])
    with psycopg.connect(
        host="127.0.0.1", port=follower.port, user=follower.username, dbname="archive"
    ) as connection:
        connection.autocommit = True
        connection.execute("SET default_transaction_read_only = off")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            connection.execute("DELETE FROM property_a.events")

    # An insider at the archive: the triggers refuse a plain UPDATE; with them switched off, a
    # round's start in b's copy is changed: a finding naming b and the position.
    with archive.admin() as admin:
        position, event_id, payload = admin.execute(
            "SELECT g.position, e.id, e.payload FROM property_b.event_log g "
            "JOIN property_b.events e ON e.id = g.event_id "
            "WHERE e.type = 'round_started' ORDER BY g.position LIMIT 1"
        ).fetchone()
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            admin.execute("UPDATE property_b.events SET payload = '{}' WHERE id = %s", (event_id,))
        changed = payload.replace('"rules_version":1', '"rules_version":9')
        assert changed != payload
        _write_bypassing_triggers(admin, event_id, changed)
    status, lines = archive.follow("--once")
    found = alerts(lines)
    assert status == 1
    assert found[0] == ("b", "chain.hash", position), found
    assert {name for name, _clause, _position in found} == {"b"}

    # Each property's own key: b checked with a's key is b's checkpoints refused.
    swapped = tmp_path / "swapped.toml"
    text = Path(archive.env["ARCHIVE_PROPERTIES"]).read_text()
    swapped.write_text(text.replace("keys/property_b.pem.pub", "keys/property_a.pem.pub"))
    (tmp_path / "keys").symlink_to(archive.folder / "keys")
    with archive.admin() as admin:
        _write_bypassing_triggers(admin, event_id, payload)  # b's copy as replicated
    status, lines = archive.follow("--once", properties=swapped)
    assert status == 1
    assert {(name, clause) for name, clause, _p in alerts(lines)} == {("b", "chain.checkpoint")}

    # Replication of c stopped at the archive while the properties play on: `stale` for c alone,
    # within --stale-after; a plays on and is verified.
    running = archive.start_follow("--state-dir", str(states), "--stale-after", str(STALE_AFTER))
    try:
        archive.play(1, *NAMES)
        committed = time.monotonic()
        for name in NAMES:
            running.verified(name, archive.head(name)[1])
        print(f"three rounds committed -> all verified: {time.monotonic() - committed:.2f} s")
        c_verified = archive.head("c")[1]

        with archive.admin() as admin:
            admin.execute("ALTER SUBSCRIPTION property_c DISABLE")
        stopped = time.monotonic()
        archive.play(1, "a", "c")
        stale = running.until("stale for c", lambda x: "stale" in x)
        waited = time.monotonic() - stopped
        print(f"replication of c stopped -> stale reported: {waited:.2f} s")
        assert waited < STALE_AFTER + 15
        assert (stale["property"], stale["alert"]["clause"]) == ("c", "archive.stale")
        assert stale["alert"]["position"] == c_verified
        assert stale["stale"]["enabled"] is False
        assert "disabled" in stale["alert"]["message"]
        running.verified("a", archive.head("a")[1])
        assert archive.archived_head("c") != archive.head("c")  # c's new round is not there

        # c's publisher fails over and its slot is gone (PostgreSQL 15 keeps no logical slot on
        # a standby): its subscription is made again from the start, the archive takes what it
        # lacks once, skips what it holds, and c is verified up to its head again.
        with archive.publisher("c") as publisher:
            publisher.execute("SELECT pg_drop_replication_slot('property_c')")
        archive.script("resubscribe", "c")
        running.until("c resumed", lambda x: x["property"] == "c" and x.get("resumed"))
        running.verified("c", archive.head("c")[1])
        with archive.admin() as admin:
            count, last = admin.execute(
                "SELECT count(*), max(position) FROM property_c.event_log"
            ).fetchone()
        assert count == last == archive.head("c")[1]
    finally:
        running.process.terminate()
        status = running.process.wait(timeout=30)
    time.sleep(0.1)  # the reader takes the last lines
    assert status == 0, running.process.stderr.read() if running.process.stderr else ""
    assert alerts(running.lines) == [("c", "archive.stale", c_verified)]


def _write_bypassing_triggers(admin: Any, event_id: int, payload: str) -> None:
    """What the archive's owner can do: the append-only trigger off, a row changed, on again."""
    with admin.transaction():
        admin.execute("ALTER TABLE property_b.events DISABLE TRIGGER archive_refuse_change")
        admin.execute(
            "UPDATE property_b.events SET payload = %s WHERE id = %s", (payload, event_id)
        )
        admin.execute("ALTER TABLE property_b.events ENABLE ALWAYS TRIGGER archive_refuse_change")
