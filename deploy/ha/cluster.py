"""A local PostgreSQL pair under Patroni with etcd: start, watch, fail over, tear down.

Standard library only (the tests and the benchmark import it; `python3 deploy/ha/cluster.py up`
runs it from a shell). Everything lives under one temporary folder: etcd's data, each member's
data directory, socket and logs, on ports picked free at start. As root, PostgreSQL refuses to
run, so Patroni and etcd run as the ``postgres`` user (``runuser``); the folder is theirs.

    with HaCluster() as cluster:          # etcd + 2 members, a leader and a synchronous standby
        cluster.create_database("paigow")
        url = cluster.url("paigow")       # postgresql+psycopg://...?host=..&host=..&target_..
        cluster.kill_leader()             # SIGKILL the leader's postmaster
        cluster.wait_healthy()            # a new leader, the old one back as sync standby

deploy/ha/README.md says what each step looks like in the logs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "patroni.yml.in"


def _pg_bin() -> Path:
    """``$PAIGOW_HA_PG_BIN``, else the newest of Debian's ``/usr/lib/postgresql/N/bin``."""
    if os.environ.get("PAIGOW_HA_PG_BIN"):
        return Path(os.environ["PAIGOW_HA_PG_BIN"])
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/postgres"),
        key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0,
    )
    return found[-1].parent if found else Path("/usr/lib/postgresql/15/bin")


PG_BIN = _pg_bin()
RUN_AS = "postgres"  # PostgreSQL refuses root
SUPERUSER = "postgres"


class ClusterError(RuntimeError):
    """The pair did not reach the state asked for in time (the message says which)."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def missing_tools() -> list[str]:
    """The programs this needs that are not installed (empty: it can run)."""
    needed = ["patroni", "etcd"]
    missing = [tool for tool in needed if shutil.which(tool) is None]
    if not (PG_BIN / "postgres").exists():
        missing.append(str(PG_BIN / "postgres"))
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        missing.append("runuser")
    return missing


class Member:
    def __init__(self, name: str, root: Path) -> None:
        self.name = name
        self.pg_port = free_port()
        self.rest_port = free_port()
        self.dir = root / name
        self.config = self.dir / "patroni.yml"
        self.log = self.dir / "patroni.log"
        self.process: subprocess.Popen[bytes] | None = None

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.dir / "data" / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None


class HaCluster:
    """etcd and ``members`` Patroni members (2: a primary and its synchronous standby)."""

    def __init__(
        self,
        root: Path | None = None,
        *,
        members: int = 2,
        strict: bool = False,
        scope: str = "paigow",
    ) -> None:
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix="paigow-ha-"))
        self.own_root = root is None
        self.strict = strict
        self.scope = scope
        self.etcd_port = free_port()
        self.etcd_peer_port = free_port()
        self.members = [Member(f"pg{n}", self.root) for n in range(1, members + 1)]
        self.etcd: subprocess.Popen[bytes] | None = None
        self.as_user = os.geteuid() == 0

    # -- start and stop -------------------------------------------------------------------

    def __enter__(self) -> HaCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _spawn(self, command: list[str], log: Path) -> subprocess.Popen[bytes]:
        if self.as_user:
            command = ["runuser", "-u", RUN_AS, "--", *command]
        with log.open("ab") as out:
            return subprocess.Popen(
                command,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.root,
                start_new_session=True,  # a Ctrl-C at the terminal is ours to handle
            )

    def start(self, timeout: float = 90.0) -> None:
        missing = missing_tools()
        if missing:
            raise ClusterError("not installed: " + ", ".join(missing))
        template = string.Template(TEMPLATE.read_text())
        # What every member's file says alike; each adds its own name and ports.
        shared = {
            "scope": self.scope,
            "etcd_port": self.etcd_port,
            "dir": self.root,
            "bin_dir": PG_BIN,
            "superuser": SUPERUSER,
            "strict": "true" if self.strict else "false",
        }
        for member in self.members:
            member.dir.mkdir(parents=True, exist_ok=True)
            own = {"name": member.name, "rest_port": member.rest_port, "pg_port": member.pg_port}
            member.config.write_text(template.substitute(shared, **own))
        if self.as_user:
            shutil.chown(self.root, RUN_AS)
            for path in self.root.rglob("*"):
                shutil.chown(path, RUN_AS)
        etcd_url = f"http://127.0.0.1:{self.etcd_port}"
        peer_url = f"http://127.0.0.1:{self.etcd_peer_port}"
        self.etcd = self._spawn(
            [
                "etcd",
                "--name=paigow-ha",
                f"--data-dir={self.root / 'etcd'}",
                f"--listen-client-urls={etcd_url}",
                f"--advertise-client-urls={etcd_url}",
                f"--listen-peer-urls={peer_url}",
                f"--initial-advertise-peer-urls={peer_url}",
                f"--initial-cluster=paigow-ha={peer_url}",
            ],
            self.root / "etcd.log",
        )
        self._wait(lambda: _get(f"{etcd_url}/health") is not None, 30, "etcd did not start")
        for member in self.members:
            member.process = self._spawn(["patroni", str(member.config)], member.log)
        self.wait_healthy(timeout)

    def stop(self) -> None:
        """Stop every member (Patroni stops its PostgreSQL), then etcd; kill what lingers; remove
        the folder when it was ours."""
        for member in self.members:
            if member.process is not None and member.process.poll() is None:
                member.process.send_signal(signal.SIGTERM)
        for member in self.members:
            if member.process is not None:
                try:
                    member.process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    member.process.kill()
                    member.process.wait()
            pid = member.postmaster_pid()
            if pid is not None and _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if self.etcd is not None and self.etcd.poll() is None:
            self.etcd.terminate()
            try:
                self.etcd.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.etcd.kill()
                self.etcd.wait()
        if self.own_root:
            shutil.rmtree(self.root, ignore_errors=True)

    # -- the cluster's state ------------------------------------------------------------------

    def state(self) -> list[dict[str, Any]]:
        """Patroni's view of the members (``GET /cluster`` of the first member that answers):
        name, role (``leader``, ``sync_standby``, ``replica``), state, lag, timeline."""
        for member in self.members:
            found = _get(f"http://127.0.0.1:{member.rest_port}/cluster")
            if found is not None:
                members: list[dict[str, Any]] = json.loads(found).get("members", [])
                return members
        return []

    def leader(self) -> Member | None:
        for entry in self.state():
            if entry.get("role") == "leader" and entry.get("state") == "running":
                return self._member(entry["name"])
        return None

    def _member(self, name: str) -> Member:
        return next(m for m in self.members if m.name == name)

    def healthy(self) -> bool:
        """A running leader and every other member its running synchronous standby (with 2:
        the next failover can promote it with every acknowledged commit)."""
        found = self.state()
        roles = sorted(e.get("role", "") for e in found if e.get("state") == "running")
        return len(found) == len(self.members) and roles == sorted(
            ["leader"] + ["sync_standby"] * (len(self.members) - 1)
        )

    def wait_healthy(self, timeout: float = 90.0) -> float:
        """Wait for :meth:`healthy`; returns the seconds waited."""
        return self._wait(self.healthy, timeout, "no leader with a synchronous standby")

    def timeline(self) -> int:
        return max((int(e.get("timeline") or 0) for e in self.state()), default=0)

    def _wait(self, ready: Any, timeout: float, what: str) -> float:
        started = time.monotonic()
        while not ready():
            if time.monotonic() - started > timeout:
                raise ClusterError(f"{what} within {timeout:.0f} s: logs in {self.root}")
            time.sleep(0.2)
        return time.monotonic() - started

    # -- what the service and the tests use ---------------------------------------------------

    def hosts(self) -> str:
        return "&".join(f"host=127.0.0.1:{m.pg_port}" for m in self.members)

    def url(self, database: str = "paigow", attrs: str = "read-write") -> str:
        """The multi-host URL for SQLAlchemy + psycopg 3: the hosts as repeated ``host`` query
        parameters, the session wanted (``read-write``: the primary, whichever it is;
        ``prefer-standby``: a standby when one is up, for reads that may lag)."""
        return (
            f"postgresql+psycopg://{SUPERUSER}@/{database}?{self.hosts()}"
            f"&target_session_attrs={attrs}&connect_timeout=2"
        )

    def libpq(self, database: str = "postgres", attrs: str = "read-write") -> str:
        """The same as a libpq connection string (psql, psycopg.connect)."""
        hosts = ",".join("127.0.0.1" for _ in self.members)
        ports = ",".join(str(m.pg_port) for m in self.members)
        return (
            f"host={hosts} port={ports} user={SUPERUSER} dbname={database} "
            f"target_session_attrs={attrs} connect_timeout=2"
        )

    def psql(self, sql: str, database: str = "postgres") -> str:
        found = subprocess.run(
            [str(PG_BIN / "psql"), self.libpq(database), "-XAtqc", sql],
            capture_output=True,
            text=True,
            check=True,
        )
        return found.stdout

    def create_database(self, name: str) -> None:
        self.psql(f'CREATE DATABASE "{name}"')

    def wait_promoted(self, old: str, timeout: float = 60.0) -> float:
        """Wait until a member other than ``old`` leads; returns the seconds waited."""

        def promoted() -> bool:
            leader = self.leader()
            return leader is not None and leader.name != old

        try:
            return self._wait(promoted, timeout, f"no member took over from {old}")
        except ClusterError as error:
            tail = self._member(old).log.read_text(errors="replace")[-3000:]
            raise ClusterError(f"{error}\n{old}'s Patroni log ends:\n{tail}") from None

    def kill_leader(self) -> tuple[str, float]:
        """SIGKILL the leader's postmaster (its backends die with it); returns the member's name
        and the ``time.monotonic()`` of the kill."""
        leader = self.leader()
        if leader is None:
            raise ClusterError("no leader to kill")
        pid = leader.postmaster_pid()
        if pid is None:
            raise ClusterError(f"{leader.name} has no postmaster.pid")
        os.kill(pid, signal.SIGKILL)
        return leader.name, time.monotonic()


def _get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return str(answer.read().decode())
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="deploy/ha/cluster.py",
        description="Run a local PostgreSQL pair (Patroni + etcd) until Ctrl-C, then tear it down.",
    )
    parser.add_argument("command", choices=["up"])
    parser.add_argument("--dir", type=Path, help="keep everything here (default: a temp folder)")
    parser.add_argument("--database", default="paigow", help="create this database (paigow)")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="synchronous_mode_strict: refuse writes while no standby is in sync",
    )
    args = parser.parse_args(argv)
    stopping = False

    def _stop(_signum: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    with HaCluster(args.dir, strict=args.strict) as cluster:
        cluster.create_database(args.database)
        print(f"folder     {cluster.root}", flush=True)
        print(f"leader     {cluster.leader().name if cluster.leader() else '?'}", flush=True)
        print(f"PAIGOW_DB  {cluster.url(args.database)}", flush=True)
        print(f"reads      {cluster.url(args.database, 'prefer-standby')}", flush=True)
        print(f"psql       psql '{cluster.libpq(args.database)}'", flush=True)
        for member in cluster.members:
            print(
                f"{member.name}        postgres :{member.pg_port}  patroni REST :"
                f"{member.rest_port}  log {member.log}",
                flush=True,
            )
        print("Ctrl-C (or SIGTERM) tears it all down.", flush=True)
        while not stopping:
            time.sleep(0.5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
