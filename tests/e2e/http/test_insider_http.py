"""The insider against a live ``paigow serve`` over real HTTP, on SQLite and PostgreSQL, exactly as
the red team played it:

1. while the server runs, ``INSERT INTO append_tag_anchors(id, position, hash, tag) VALUES (0,
   1000000000000, 'x', NULL)`` (PostgreSQL: the service role may not; the owner can) and a
   ``chips_cashed_out`` appended at a table's tail by the published hash recipe (PostgreSQL: as
   the service role, positioned by ``paigow_sequence_tail``): the next command answers 503
   ``log_tampered``, ``/ready`` 503 naming it, ``/metrics`` counts it, nothing is signed over
   it, and ``paigow audit verify --public-key`` fails at its position;
2. a table's last round cut with its checkpoint while the server runs: the next command at that
   table answers 503 ``log_tampered`` (never 409), ``/ready`` names it.

A server logged in as a PostgreSQL superuser says so once at start and in ``/ready``.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from sqlalchemy.engine import make_url

from adapters.settings import load_settings
from adapters.store import SqlEventStore, migrate, open_store
from adapters.store.signing import Signer
from entrypoints.simulation.mixed_session import SessionStats
from service_layer.operators.keys import key_store_for
from tests.e2e.conftest import PAIGOW
from tests.e2e.serving import Served, serving
from tests.integration.audit.conftest import Casino
from tests.integration.audit.insider import Insider, cash_out_payload, system_events
from tests.integration.audit.tamper import Forger
from tests.integration.conftest import pg_database, pg_url_empty  # noqa: F401 (fixtures)

TABLE = "PG-X"
ANCHOR = (
    "INSERT INTO append_tag_anchors(id, position, hash, tag) VALUES (0, 1000000000000, 'x', NULL)"
)


@dataclass
class Live:
    """The database, its key files, the API tokens and the insider's tools."""

    url: str
    kind: str
    folder: Path
    env: dict[str, str]
    public_key: Path
    tokens: dict[str, str]
    store: SqlEventStore

    def casino(self) -> Casino:
        target = self.url if self.kind == "postgresql" else self.url.removeprefix("sqlite:///")
        return Casino(self.store, Forger(self.store, self.kind, target), self.url, SessionStats())

    def serve_url(self, *, as_service: bool) -> str:
        if not as_service or self.kind != "postgresql":
            return self.url
        role = os.environ["PAIGOW_PG_SERVICE_ROLE"]
        return make_url(self.url).set(username=role).render_as_string(hide_password=False)


@pytest.fixture(params=["sqlite", "postgresql"])
def live(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Live]:
    signer = Signer.generate()
    key_file = tmp_path / "signing.pem"
    public = signer.write(key_file)  # mode 0600 (a key others can read is refused)
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'casino.db'}"
    else:
        url = request.getfixturevalue("pg_url_empty")
        migrate.upgrade(
            url, load_settings().pg_roles()
        )  # as the migrating superuser: the roles, the owner, the grants
    store = open_store(url, signing_key=signer)
    assert isinstance(store, SqlEventStore)
    now = datetime.now(UTC)
    keys = key_store_for(store)
    tokens = {r: keys.create(f"{r}-1", r, now)[1] for r in ("dealer", "floor", "cage")}
    env = {**os.environ, "PAIGOW_LOG_FORMAT": "json", "PAIGOW_SIGNING_KEY": str(key_file)}
    try:
        yield Live(url, request.param, tmp_path, env, public, tokens, store)
    finally:
        store.close()


class Terminal:
    """The tables' terminals: one request per command, each with its own idempotency key."""

    def __init__(self, served: Served, tokens: dict[str, str]) -> None:
        self.base, self.tokens, self.numbers = served.base, tokens, iter(range(1, 10_000))

    def post(self, role: str, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        headers = {
            "Authorization": f"Bearer {self.tokens[role]}",
            "Idempotency-Key": f"insider-{next(self.numbers)}",
        }
        return httpx.post(f"{self.base}/tables/{TABLE}{path}", json=body, headers=headers)

    def ok(self, role: str, path: str, body: dict[str, Any] | None = None) -> None:
        response = self.post(role, path, body)
        assert response.status_code == 200, response.text

    def open(self) -> None:
        self.ok("floor", "/open", {})
        self.ok("dealer", "/seat", {"seat": 1, "player_id": "ana"})
        self.ok("cage", "/buy-in", {"player_id": "ana", "amount": 20_000})

    def round(self) -> None:
        self.ok("dealer", "/round/start")
        self.ok("dealer", "/round/bet", {"player_id": "ana", "amount": 2_000})
        for path in ("/round/close-bets", "/round/deal", "/round/dice"):
            self.ok("dealer", path)
        self.ok("dealer", "/round/hand", {"player_id": "ana"})
        for path in ("/round/banker-hand", "/round/settle", "/round/close"):
            self.ok("dealer", path)


def _tampered(served: Served, terminal: Terminal, position: int) -> None:
    """The next command, /ready and /metrics after the insider's move."""
    refused = terminal.post("cage", "/buy-in", {"player_id": "ana", "amount": 500})
    assert refused.status_code == 503, refused.text
    assert refused.json()["error"] == "log_tampered"
    assert f"position {position}" in refused.json()["message"]
    again = terminal.post("dealer", "/round/start")
    assert again.status_code == 503 and again.json()["error"] in ("log_tampered",
                                                                   "commands_refused")  # fmt: skip
    ready = httpx.get(f"{served.base}/ready")
    assert ready.status_code == 503
    assert ready.json()["message"].startswith("commands: log_tampered: ")
    assert f"position {position}" in ready.json()["message"]
    metrics = httpx.get(f"{served.base}/metrics").text
    assert "paigow_log_tampered_total 1.0" in metrics.splitlines()


def _audit(casino: Live) -> tuple[int, list[dict[str, Any]]]:
    done = subprocess.run(
        [str(PAIGOW), "audit", "verify", "--db", casino.url, "--public-key",
         str(casino.public_key), "--format", "json"],
        cwd=casino.folder, capture_output=True, text=True, env=casino.env, timeout=300,
        check=False,
    )  # fmt: skip
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()[:-1]]


def test_the_issues_inserted_anchor_and_forged_cash_out_are_refused_live(
    live: Live,
) -> None:
    view = live.casino()
    insider = Insider(view)
    with serving(live.serve_url(as_service=True), live.folder, live.env, timeout=60) as served:
        terminal = Terminal(served, live.tokens)
        terminal.open()
        terminal.round()
        if insider.postgres:  # the service role may not; the owner can, and it changes nothing
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                insider.run(ANCHOR)
            view.forger._insert_only([(ANCHOR, ())])
        else:
            insider.run(ANCHOR)
        signed = [cp.position for cp in live.store.checkpoints()]
        forged = insider.append_forged(TABLE, "chips_cashed_out", cash_out_payload(view, TABLE))
        _tampered(served, terminal, forged)
    assert [cp.position for cp in live.store.checkpoints()] == signed  # nothing signed since
    failed = [(p["position"], p["problem"]) for _, p in system_events(view, "verification_failed")]
    assert failed == [(forged, "untagged")]
    status, findings = _audit(live)
    assert status == 1
    assert ("chain.unsealed", forged) in [(f["clause"], f["position"]) for f in findings]


def test_a_round_cut_while_serving_is_log_tampered_never_409(live: Live) -> None:
    view = live.casino()
    # On PostgreSQL the server runs as the superuser here: it says so, and serves.
    with serving(live.serve_url(as_service=False), live.folder, live.env, timeout=60) as served:
        terminal = Terminal(served, live.tokens)
        terminal.open()
        terminal.round()
        held = int(view.forger.rows()[-1][0])  # the round's end, sealed
        terminal.round()
        ready = httpx.get(f"{served.base}/ready")
        assert ready.status_code == 200, ready.text
        if live.kind == "postgresql":
            (warning,) = ready.json()["warnings"]
            assert "is a superuser: it can change history with plain SQL" in warning
        else:
            assert "warnings" not in ready.json()
        last = int(view.forger.rows()[-1][0])
        view.forger.cut_tail(held + 1)  # the second round and its checkpoint
        _tampered(served, terminal, last)
    log = served.log.read_text()
    warned = [line for line in log.splitlines() if '"store_role_warning"' in line]
    assert len(warned) == (1 if live.kind == "postgresql" else 0)
    failed = [(p["position"], p["problem"]) for _, p in system_events(view, "verification_failed")]
    assert failed == [(last, "rewound")]
    status, findings = _audit(live)
    recorded = [f for f in findings if f["clause"] == "service.verification_failed"]
    assert status == 1 and f"position {last}" in recorded[0]["message"]
