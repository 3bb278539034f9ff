"""Four local PostgreSQL clusters (three properties and a regulator's archive) built by
deploy/archive/three_clusters.sh, and what the archive's test and benchmark do with them: play on
a property, wait for its rows in the archive, run ``paigow audit follow --archive``.

    with Clusters() as archive:       # up on four free ports under /tmp, down at the end
        archive.play(3, "a", "b", "c")
        archive.wait_replicated("a", "b", "c")
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "deploy" / "archive" / "three_clusters.sh"
PAIGOW = Path(sys.executable).with_name("paigow")
NAMES = ("a", "b", "c")
WAIT = 60.0  # seconds, at most, for anything to happen on a loaded 2-core machine


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

    def script(self, *args: str) -> str:
        """``three_clusters.sh COMMAND DIR ARGS...`` (e.g. ``resubscribe``); its output."""
        command, *rest = args
        done = subprocess.run(
            ["bash", str(SCRIPT), command, str(self.folder), *rest],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def start_follow(self, *extra: str) -> Running:
        """``paigow audit follow --archive`` running (until terminated), its lines read as
        they come."""
        running = Running(
            subprocess.Popen(
                [*self.follow_command(), *extra],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                cwd=self.folder,
            )
        )
        threading.Thread(target=running.read, daemon=True).start()
        return running

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
        for process in self.start_play(rounds, *names):
            _out, err = process.communicate(timeout=300)
            assert process.returncode == 0, err

    def start_play(self, rounds: int, *names: str, **options: str) -> list[Any]:
        """The ``paigow simulate`` processes, started (``options``: more flags, e.g.
        ``commit_rounds="1"`` for ``--commit-rounds 1``)."""
        flags = [x for k, v in options.items() for x in (f"--{k.replace('_', '-')}", v)]
        return [
            subprocess.Popen(
                [str(PAIGOW), "simulate", "--db", self.url(name), "--rounds", str(rounds), *flags],
                env={**os.environ, "PAIGOW_SIGNING_KEY": self.key(name)},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                cwd=self.folder,
            )
            for name in names
        ]

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


class Clusters:
    """``three_clusters.sh up`` on four free ports in a folder of its own under /tmp (the
    servers' user must reach it: pytest's folders are root's only), ``down`` on leaving;
    ``fast``: fsync off (a throwaway run)."""

    def __init__(self, fast: bool = True) -> None:
        self.env = {**os.environ, "PAIGOW": str(PAIGOW)}
        if fast:
            self.env["PAIGOW_ARCHIVE_FAST"] = "1"
        self.folder = Path(tempfile.mkdtemp(prefix="paigow-archive-", dir="/tmp"))

    def __enter__(self) -> Archive:
        try:
            up = subprocess.run(
                ["bash", str(SCRIPT), "up", str(self.folder), str(free_base())],
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
                env=self.env,
            )
            if up.returncode != 0:
                raise RuntimeError(f"three_clusters.sh up failed: {up.stdout}{up.stderr}")
            values = {}
            for line in (self.folder / "archive.env").read_text().splitlines():
                key, _, value = line.partition("=")
                values[key] = value.strip("'")
        except BaseException:
            self.__exit__()
            raise
        return Archive(self.folder, values)

    def __exit__(self, *exc: object) -> None:
        subprocess.run(
            ["bash", str(SCRIPT), "down", str(self.folder)],
            capture_output=True,
            timeout=120,
            env=self.env,
            check=False,
        )


@dataclass
class Running:
    """``paigow audit follow --archive`` running; its JSON lines as they come."""

    process: subprocess.Popen[str]
    lines: list[dict[str, Any]] = field(default_factory=list)
    arrived: list[float] = field(default_factory=list)  # each line's time.time()

    def read(self) -> None:
        assert self.process.stdout is not None
        for text in self.process.stdout:
            self.arrived.append(time.time())
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
