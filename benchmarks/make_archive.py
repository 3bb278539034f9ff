"""A regulator-sized archive on PostgreSQL (issue 22), with real chains and real signatures.

Playing a million rounds through the service would take this shared machine days, so the archive
is built in two steps:

1. a BASE session is played through the application service (``bench_audit.generate``: the mixed
   session, several tables under different profiles, side bets, a rotating bank, fouls, voids,
   rules changes) into a SQLite file, kept for the next run;
2. the base is written ``--copies`` times into a PostgreSQL schema with ``COPY``, each copy a new
   casino day at new tables: every table stream is renamed (``PG-1`` -> ``A0007-1``: the stream,
   the payload's ``table_id``, the command ids), the system stream goes on from the copy before,
   and then EVERY hash is computed again (each stream's chain, the global chain over all copies)
   and every checkpoint of the base is signed again, at its new position, with a new Ed25519 key.

So each round in the archive is a round the table's own code decided, and the archive is one
chain the audit must verify from position 1 (nothing is trusted from the base: its hashes are
recomputed, not copied). The rounds of copy k repeat those of copy 1 at other tables; a
benchmark of the audit's speed is not changed by that (the audit re-derives each one).

Usage (repo root)::

    .venv/bin/python benchmarks/make_archive.py --rounds 100000 [--schema paigow_archive22]
        [--url postgresql://postgres@127.0.0.1:5432/test] [--base-rounds 2000] [--tables 4]
        [--key /tmp/paigow-archive22.key] [--drop]

Prints progress, then ONE JSON line (the URL to audit, the key file, events, rounds, seconds).
``--drop`` drops the schema and exits. Nothing here is committed: the base file and the key
live in /tmp.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from hashlib import sha256
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg
from sqlalchemy.engine import make_url

from adapters.store import migrate
from adapters.store.signing import Signer
from eventlog.canonical import GENESIS_HASH, quote
from eventlog.query import CHECKPOINT_QUERY, LOG_QUERY

EVENT_COLUMNS = (
    "id, stream_id, version, type, schema_version, payload, recorded_at, actor_id, actor_role, "
    "command_id, prev_hash, hash"
)


def schema_url(url: str, schema: str) -> str:
    """The URL with the schema first on the search path (as the tests' ``pg_url`` does)."""
    return (
        make_url(url)
        .update_query_dict({"options": f"-csearch_path={schema}"})
        .render_as_string(hide_password=False)
    )


def connect(url: str) -> Any:
    parsed = make_url(url)
    params = {k: v if isinstance(v, str) else v[-1] for k, v in parsed.query.items()}
    return psycopg.connect(
        host=parsed.host,
        port=parsed.port or 5432,
        user=parsed.username,
        password=parsed.password,
        dbname=parsed.database,
        **params,
    )


def base_log(path: Path, rounds: int, tables: int, seed: int) -> dict[str, Any]:
    """The base session (played through the service once, then reused) and its rows."""
    import sqlite3

    if not path.exists():
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_audit import generate

        print(f"playing the base: {rounds:,} rounds at {tables} tables into {path}")
        generate(path, rounds, tables, seed)
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = connection.execute(LOG_QUERY).fetchall()
    checkpoints = connection.execute(CHECKPOINT_QUERY).fetchall()
    commands = connection.execute(
        "SELECT command_id, stream_id, first_version, last_version FROM commands"
    ).fetchall()
    played = connection.execute(
        "SELECT count(*) FROM events WHERE type IN ('round_closed', 'round_voided') "
        "AND stream_id != 'system'"
    ).fetchone()[0]
    connection.close()
    return {"rows": rows, "checkpoints": checkpoints, "commands": commands, "rounds": played}


class Copier:
    """The base's rows renamed for copy k, re-chained: the chains go on across copies."""

    def __init__(self, base: dict[str, Any], signer: Signer) -> None:
        self.base = base
        self.signer = signer
        self.position = 0
        self.global_head = GENESIS_HASH
        self.system_version = 0
        self.system_head = GENESIS_HASH
        self.signed: list[tuple[Any, ...]] = []
        self.system_count = sum(1 for r in base["rows"] if r[1] == "system")
        self.checkpoint_at = {int(c[0]): c[2] for c in base["checkpoints"]}

    def rows(self, copy: int) -> Iterator[tuple[Any, ...]]:
        """Copy ``copy``'s rows as (events row, event_log row); checkpoints to ``signed``."""
        names = {s: f"A{copy:04d}-{s.split('-')[-1]}" for s in self._tables()}
        heads: dict[str, str] = {}
        offset = self.position
        for row in self.base["rows"]:
            (position, stream, version, kind, schema, payload, at, actor, role, command) = row[:10]
            if stream == "system":
                version = self.system_version + version
                prev = self.system_head
                command = f"{command}~{copy}"
            else:
                new = names[stream]
                payload = payload.replace(f'"table_id":"{stream}"', f'"table_id":"{new}"', 1)
                command = new + command[len(stream) :]
                prev = heads.get(new, GENESIS_HASH)
                stream = new
            for old, new_name in names.items():  # a system event that names a table
                if stream == "system" and f'"table_id":"{old}"' in payload:
                    payload = payload.replace(f'"table_id":"{old}"', f'"table_id":"{new_name}"')
            event = sha256(
                f'["paigow-event-v1","{prev}",{quote(stream)},{version},{quote(kind)},{schema},'
                f"{quote(at)},{quote(actor)},{quote(role)},{quote(command)}]\n{payload}".encode()
            ).hexdigest()
            new_position = offset + position
            global_ = sha256(
                f'["paigow-global-v1","{self.global_head}",{new_position},"{event}"]'.encode()
            ).hexdigest()
            if stream == "system":
                self.system_head = event
            else:
                heads[stream] = event
            yield (
                (new_position, stream, version, kind, schema, payload, at, actor, role, command,
                 prev, event),
                (new_position, new_position, self.global_head, global_),
            )  # fmt: skip
            self.global_head = global_
            self.position = new_position
            signed_at = self.checkpoint_at.get(position)
            if signed_at is not None:
                signature = self.signer.sign(new_position, global_, signed_at)
                self.signed.append(
                    (new_position, global_, signed_at, self.signer.key_id, signature)
                )
        self.system_version += self.system_count

    def commands(self, copy: int, system_before: int) -> Iterator[tuple[Any, ...]]:
        names = {s: f"A{copy:04d}-{s.split('-')[-1]}" for s in self._tables()}
        for command, stream, first, last in self.base["commands"]:
            if stream == "system":
                yield (f"{command}~{copy}", stream, system_before + first, system_before + last)
            else:
                yield (names[stream] + command[len(stream) :], names[stream], first, last)

    def _tables(self) -> list[str]:
        return sorted({r[1] for r in self.base["rows"] if r[1] != "system"})


def build(args: argparse.Namespace) -> dict[str, Any]:
    base = base_log(args.base, args.base_rounds, args.tables, args.seed)
    copies = max(1, -(-args.rounds // base["rounds"]))
    url = schema_url(args.url, args.schema)
    with connect(args.url) as admin:
        admin.execute(f'DROP SCHEMA IF EXISTS "{args.schema}" CASCADE')
        admin.execute(f'CREATE SCHEMA "{args.schema}"')
    migrate.upgrade(url)
    signer = Signer.generate()
    signer.write(args.key)
    copier = Copier(base, signer)
    started = time.perf_counter()
    with connect(url) as connection:
        for copy in range(1, copies + 1):
            system_before = copier.system_version
            _copy_one(connection, copier, copy, system_before)
            connection.commit()
            done = copy * base["rounds"]
            rate = copier.position / (time.perf_counter() - started)
            print(
                f"  copy {copy}/{copies}: {done:,} rounds, {copier.position:,} events "
                f"({rate:,.0f} events/s)",
                file=sys.stderr,
            )
        connection.execute("SELECT setval(pg_get_serial_sequence('events', 'id'), %s)",
                           (copier.position,))  # fmt: skip
        connection.execute("ANALYZE")
        connection.commit()
    return {
        "url": url,
        "key": str(args.key),
        "public_key": str(args.key) + ".pub",
        "events": copier.position,
        "rounds": copies * base["rounds"],
        "copies": copies,
        "checkpoints": len(base["checkpoints"]) * copies,
        "seconds": round(time.perf_counter() - started, 1),
    }


def _copy_one(connection: Any, copier: Copier, copy: int, system_before: int) -> None:
    events: list[tuple[Any, ...]] = []
    links: list[tuple[Any, ...]] = []
    copier.signed = []
    for event, link in copier.rows(copy):
        events.append(event)
        links.append(link)
    with connection.cursor() as cursor:
        with cursor.copy(f"COPY events ({EVENT_COLUMNS}) FROM STDIN") as out:
            for event in events:
                out.write_row(event)
        with cursor.copy("COPY event_log (position, event_id, prev_hash, hash) FROM STDIN") as out:
            for link in links:
                out.write_row(link)
        with cursor.copy(
            "COPY checkpoints (position, hash, signed_at, key_id, signature) FROM STDIN"
        ) as out:
            for checkpoint in copier.signed:
                out.write_row(checkpoint)
        with cursor.copy(
            "COPY commands (command_id, stream_id, first_version, last_version) FROM STDIN"
        ) as out:
            for command in copier.commands(copy, system_before):
                out.write_row(command)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--schema", default="paigow_archive22")
    parser.add_argument("--rounds", type=int, default=100_000, help="rounds in the archive")
    parser.add_argument("--base-rounds", type=int, default=2_000)
    parser.add_argument("--tables", type=int, default=4, help="tables of the base session")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--base", type=Path, default=Path("/tmp/paigow-archive22-base.db"))
    parser.add_argument("--key", type=Path, default=Path("/tmp/paigow-archive22.key"))
    parser.add_argument("--drop", action="store_true", help="drop the archive's schema and exit")
    args = parser.parse_args()
    if args.drop:
        with connect(args.url) as admin:
            admin.execute(f'DROP SCHEMA IF EXISTS "{args.schema}" CASCADE')
        print(json.dumps({"dropped": args.schema}))
        return 0
    if args.key.exists():
        args.key.unlink()  # a new key for a new archive (Signer.write never overwrites)
        Path(str(args.key) + ".pub").unlink(missing_ok=True)
    print(json.dumps(build(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
