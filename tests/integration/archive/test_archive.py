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

import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy.engine import make_url

pytestmark = [pytest.mark.archive, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "deploy" / "archive" / "three_clusters.sh"
PAIGOW = Path(sys.executable).with_name("paigow")
NAMES = ("a", "b", "c")
STALE_AFTER = 5.0  # seconds; an idle link shows a keepalive every 2 s (wal_receiver_timeout 4 s)
WAIT = 60.0  # seconds, at most, for anything to happen on a loaded 2-core machine
PUBLISHED = ["append_tag_anchors", "checkpoints", "commands", "event_log", "events"]


def missing() -> str | None:
    """What this machine lacks to run the four clusters (None: nothing)."""
    if not sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb")):
        return "PostgreSQL's server programs (apt-get install postgresql)"
    if os.geteuid() == 0:
        import pwd

        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "a postgres user to run the servers as (root may not)"
        if shutil.which("runuser") is None:
            return "runuser"
    return None


def free_base() -> int:
    """A port with the three after it free too."""
    for _ in range(200):
        base = random.randrange(20000, 60000)
        try:
            for port in range(base, base + 4):
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise RuntimeError("no four free ports in a row")


@dataclass
class Archive:
    folder: Path
    env: dict[str, str]

    def url(self, name: str) -> str:
        return self.env[f"PROPERTY_{name.upper()}_DB"]

    def key(self, name: str) -> str:
        return self.env[f"PROPERTY_{name.upper()}_SIGNING_KEY"]

    def publisher(self, name: str) -> Any:
        """A psycopg connection to property ``name``'s own database (autocommit)."""
        url = make_url(self.url(name))
        return _connect(url.port, "paigow", options=str(url.query["options"]))

    def admin(self) -> Any:
        """The archive's superuser (autocommit): the insider of these tests."""
        return _connect(make_url(self.env["ARCHIVE_ADMIN_DB"]).port, "archive")

    def follow(self, *extra: str, properties: Path | None = None) -> tuple[int, list[dict]]:
        """One ``paigow audit follow --archive`` run to its end: status and JSON lines."""
        done = subprocess.run(
            [*self.follow_command(properties), *extra],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            cwd=self.folder,
        )
        assert done.returncode in (0, 1), done.stdout + done.stderr
        return done.returncode, [json.loads(line) for line in done.stdout.splitlines()]

    def follow_command(self, properties: Path | None = None) -> list[str]:
        return [
            str(PAIGOW),
            "audit",
            "follow",
            "--archive",
            self.env["ARCHIVE_FOLLOWER_DB"],
            "--properties",
            str(properties or self.env["ARCHIVE_PROPERTIES"]),
            "--format",
            "json",
        ]

    def play(self, rounds: int, *names: str) -> None:
        """``paigow simulate`` on each property named, side by side (each its own key)."""
        running = [
            subprocess.Popen(
                [str(PAIGOW), "simulate", "--db", self.url(name), "--rounds", str(rounds)],
                env={**os.environ, "PAIGOW_SIGNING_KEY": self.key(name)},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                cwd=self.folder,
            )
            for name in names
        ]
        for process in running:
            _out, err = process.communicate(timeout=180)
            assert process.returncode == 0, err

    def head(self, name: str) -> tuple[int, int]:
        """The property's own (last checkpoint id, its position)."""
        with self.publisher(name) as connection:
            found = connection.execute(
                "SELECT id, position FROM checkpoints ORDER BY id DESC LIMIT 1"
            ).fetchone()
        return (int(found[0]), int(found[1])) if found else (0, 0)

    def archived_head(self, name: str) -> tuple[int, int]:
        with self.admin() as connection:
            found = connection.execute(
                f"SELECT id, position FROM property_{name}.checkpoints ORDER BY id DESC LIMIT 1"
            ).fetchone()
        return (int(found[0]), int(found[1])) if found else (0, 0)

    def wait_replicated(self, *names: str) -> float:
        """Until the archive holds each property's last checkpoint; the seconds waited."""
        started = time.monotonic()
        heads = {name: self.head(name) for name in names}
        while any(self.archived_head(name) != heads[name] for name in names):
            assert time.monotonic() - started < WAIT, heads
            time.sleep(0.1)
        return time.monotonic() - started


def _connect(port: int | None, database: str, options: str = "") -> Any:
    return psycopg.connect(
        host="127.0.0.1",
        port=port,
        user="postgres",
        dbname=database,
        options=options,
        autocommit=True,
        connect_timeout=10,
    )


@pytest.fixture(scope="module")
def archive() -> Iterator[Archive]:
    lacking = missing()
    if lacking:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the archive test; not installed: {lacking}")
        pytest.skip(f"not installed: {lacking}")
    # Under /tmp itself: the servers' user must reach it (pytest's own folders are root's only).
    folder = Path(tempfile.mkdtemp(prefix="paigow-archive-", dir="/tmp"))
    env = {**os.environ, "PAIGOW": str(PAIGOW), "PAIGOW_ARCHIVE_FAST": "1"}
    try:
        up = subprocess.run(
            ["bash", str(SCRIPT), "up", str(folder), str(free_base())],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            env=env,
        )
        assert up.returncode == 0, up.stdout + up.stderr
        values = {}
        for line in (folder / "archive.env").read_text().splitlines():
            key, _, value = line.partition("=")
            values[key] = value.strip("'")
        yield Archive(folder, values)
    finally:
        subprocess.run(
            ["bash", str(SCRIPT), "down", str(folder)], capture_output=True, timeout=120, env=env
        )


@dataclass
class Running:
    """``paigow audit follow --archive`` running; its JSON lines as they come."""

    process: subprocess.Popen[str]
    lines: list[dict[str, Any]] = field(default_factory=list)

    def read(self) -> None:
        assert self.process.stdout is not None
        for text in self.process.stdout:
            self.lines.append(json.loads(text))

    def until(self, what: str, test: Any) -> dict[str, Any]:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if test(line):
                    return line
            assert self.process.poll() is None, self.lines
            time.sleep(0.05)
        raise AssertionError(f"no line {what} in {WAIT} s: {self.lines}")

    def verified(self, name: str, position: int) -> dict[str, Any]:
        return self.until(
            f"verifying {name} up to {position}",
            lambda x: x["property"] == name and x.get("verified", 0) >= position,
        )


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
    # within --stale-after; a plays on and is verified; c enabled again catches up.
    running = Running(
        subprocess.Popen(
            [
                *archive.follow_command(),
                "--state-dir",
                str(states),
                "--stale-after",
                str(STALE_AFTER),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=archive.folder,
        )
    )
    threading.Thread(target=running.read, daemon=True).start()
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

        with archive.admin() as admin:
            admin.execute("ALTER SUBSCRIPTION property_c ENABLE")
        running.until("c resumed", lambda x: x["property"] == "c" and x.get("resumed"))
        running.verified("c", archive.head("c")[1])
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
