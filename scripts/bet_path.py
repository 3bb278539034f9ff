"""The files one bet runs through: ``POST /tables/{id}/round/bet`` traced from request to response.

    python scripts/bet_path.py            # the files, one a line, then their count
    python scripts/bet_path.py --json     # one JSON object
    python scripts/bet_path.py --makers   # the files that make one of the bet's shapes

The method (docs/architecture.md, "One bet"): the HTTP app is built in this process over a new
SQLite store, a table is opened, two players seated and bought in, a round started and one bet
placed (imports, caches and lazy set-up happen then). The second player's bet is then traced: every
Python function that runs, in any thread, is noted by the file that defines it, and the files of
the project's packages are counted. A file counts once however often it runs.

The files that make the bet's shapes are the ones to read to follow it: those with a function that
returns the route's body model, the command, the event, the store's envelope, the recorded event
or the table's state the bet is folded into (or a list of them), noted while the same bet runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PACKAGES = ("table_core", "eventlog", "audit", "adapters", "service_layer", "entrypoints")

_recording = False
_seen: set[str] = set()
_makers: set[str] = set()
_shapes: tuple[type, ...] = ()


def _profile(frame: FrameType, event: str, arg: Any) -> None:
    if not _recording:
        return
    if event == "call":
        _seen.add(frame.f_code.co_filename)
    elif event == "return" and (
        isinstance(arg, _shapes)
        or (type(arg) in (list, tuple) and arg and isinstance(arg[0], _shapes))
    ):
        _makers.add(frame.f_code.co_filename)


def bet_shapes() -> tuple[type, ...]:
    """The bet's shapes between its bytes: body model, command, event, envelope, recorded event,
    and the table's state it is folded into."""
    from entrypoints.http.models import BetBody
    from eventlog.envelope import NewEvent
    from table_core.commands import PlaceBet
    from table_core.events import BetPlaced
    from table_core.ports import RecordedEvent
    from table_core.table import TableState

    return (BetBody, PlaceBet, BetPlaced, NewEvent, RecordedEvent, TableState)


def project_files(paths: set[str]) -> list[str]:
    """The project's own files among ``paths``, relative to the root, sorted."""
    found = []
    for name in paths:
        path = Path(name)
        if not path.is_absolute():
            continue
        try:
            relative = path.resolve().relative_to(ROOT)
        except ValueError:
            continue
        if relative.parts and relative.parts[0] in PACKAGES:
            found.append(str(relative))
    return sorted(found)


def trace_one_bet() -> tuple[list[str], list[str]]:
    """The project files that run during the bet, and those that make one of its shapes."""
    global _recording, _shapes
    _shapes = bet_shapes()
    threading.setprofile(_profile)
    sys.setprofile(_profile)
    from fastapi.testclient import TestClient

    from adapters.clock import SteppingClock
    from adapters.rng import SeededDeckAndDice
    from adapters.settings import load_settings
    from adapters.store import open_store
    from adapters.store.signing import Signer
    from entrypoints.http.app import create_app
    from service_layer.operators.keys import key_store_for
    from service_layer.service import TableService

    start = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(f"sqlite:///{folder}/casino.db", signing_key=Signer.generate())
        service = TableService(
            store, clock=SteppingClock(start, timedelta(seconds=1)), source=SeededDeckAndDice(1)
        )
        keys = key_store_for(store)
        tokens = {}
        for role in ("security", "floor", "dealer", "cage"):
            tokens[role] = keys.create(f"{role}-1", role, start)[1]
        numbers = iter(range(1, 1000))

        def post(client: TestClient, role: str, path: str, body: Any = None) -> None:
            headers = {
                "Authorization": f"Bearer {tokens[role]}",
                "Idempotency-Key": f"k-{next(numbers)}",
            }
            answer = client.post(f"/tables/PG-1{path}", json=body, headers=headers)
            if answer.status_code != 200:
                raise SystemExit(f"{path}: {answer.status_code} {answer.text}")

        with TestClient(create_app(service, keys, load_settings())) as client:
            post(client, "floor", "/open", {})
            for seat, player in ((1, "ana"), (2, "ben")):
                post(client, "dealer", "/seat", {"seat": seat, "player_id": player})
                post(client, "cage", "/buy-in", {"player_id": player, "amount": 50_000})
            post(client, "dealer", "/round/start")
            post(client, "dealer", "/round/bet", {"player_id": "ana", "amount": 2_500})
            _recording = True
            post(client, "dealer", "/round/bet", {"player_id": "ben", "amount": 2_500})
            _recording = False
        store.close()
    sys.setprofile(None)
    threading.setprofile(None)  # type: ignore[arg-type]
    return project_files(_seen), project_files(_makers)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.add_argument("--makers", action="store_true", help="the files that make its shapes")
    args = parser.parse_args()
    files, makers = trace_one_bet()
    if args.json:
        print(
            json.dumps(
                {"files": len(files), "paths": files, "makers": len(makers), "maker_paths": makers}
            )
        )
    else:
        shown = makers if args.makers else files
        print("\n".join(shown))
        print(f"{len(shown)} files" + (" make the bet's shapes" if args.makers else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
