"""A store outage under HTTP load (issue 17): the server answers 503 ``store_unavailable`` with
``Retry-After`` (never 500 with a traceback), one log line each; nothing is lost and commands work
again once the database is back. PostgreSQL is reached through a TCP proxy inside the test, cut
and restored; SQLite is a file opened read-only."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from datetime import timedelta
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import make_url

from adapters.clock import SteppingClock
from adapters.settings import load_settings
from adapters.store import migrate, open_store, sqlite_engine
from adapters.store.signing import Signer
from adapters.store.sqlite import SqliteEventStore
from entrypoints.http.app import create_app
from service_layer.operators.keys import key_store_for
from service_layer.service import TableService
from tests.integration.http.conftest import (
    START,
    TABLE,
    Api,
    build_api,
    open_table,
    served,
)


class CuttableProxy:
    """Forwards 127.0.0.1:<port> to the PostgreSQL server; ``cut()`` drops every connection and
    refuses new ones (accepted, then closed at once) until ``restore()``."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.cut_off = False
        self.open: set[socket.socket] = set()
        self.guard = threading.Lock()
        self.running = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while self.running:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.cut_off:
                client.close()
                continue
            server = socket.create_connection(self.target)
            with self.guard:
                self.open |= {client, server}
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for each in (source, sink):
                with contextlib.suppress(OSError):
                    each.shutdown(socket.SHUT_RDWR)
                each.close()

    def cut(self) -> None:
        self.cut_off = True
        with self.guard:
            for each in self.open:
                with contextlib.suppress(OSError):
                    each.shutdown(socket.SHUT_RDWR)
            self.open.clear()

    def restore(self) -> None:
        self.cut_off = False

    def close(self) -> None:
        self.running = False
        self.cut()
        self.listener.close()


def _buy_ins(base: str, token: str, count: int, answers: list[tuple[int, Any, Any]]) -> None:
    """``count`` buy-ins of 1..count minor units, each retried with its key until it is 200."""
    with httpx.Client(base_url=base, timeout=30) as client:
        for number in range(1, count + 1):
            while True:
                response = client.post(
                    f"/tables/{TABLE}/buy-in",
                    json={"player_id": "ana", "amount": number},
                    headers={"Authorization": f"Bearer {token}", "Idempotency-Key": f"b-{number}"},
                )
                answers.append(
                    (response.status_code, response.json(), response.headers.get("Retry-After"))
                )
                if response.status_code == 200:
                    break
                time.sleep(0.05)


def test_postgresql_cut_and_restored_under_load_answers_only_503(
    pg_url: str, capfd: pytest.CaptureFixture[str]
) -> None:
    # The store retries a lost connection this long (the ``db_retry_s`` setting) before
    # answering unavailable (failover.py): the cut below lasts longer, so the answers of a real
    # outage show.
    migrate.upgrade(pg_url, load_settings().pg_roles())
    real = make_url(pg_url)
    proxy = CuttableProxy(real.host or "127.0.0.1", real.port or 5432)
    url = real.set(port=proxy.port).render_as_string(hide_password=False)
    store = open_store(url, signing_key=Signer.generate(), retry_s=1)
    try:
        api = build_api(store, key_store_for(store))
        open_table(api, (1, "ana", 1_000))
        answers: list[tuple[int, Any, Any]] = []
        with served(create_app(api.service, api.keys, load_settings())) as base:
            load = threading.Thread(target=_buy_ins, args=(base, api.tokens["cage"], 60, answers))
            load.start()
            while len(answers) < 10:
                time.sleep(0.01)
            proxy.cut()
            time.sleep(3.5)
            cut_answers = len(answers)
            proxy.restore()
            load.join(timeout=120)
            assert not load.is_alive()
        statuses = {status for status, _, _ in answers}
        assert statuses == {200, 503}, statuses
        refused = [(body, retry) for status, body, retry in answers if status == 503]
        assert refused and all(body["error"] == "store_unavailable" for body, _ in refused)
        assert all(retry == "1" for _, retry in refused)
        assert cut_answers > 10
        # Nothing lost, nothing twice: every buy-in once, whatever the retries.
        bought = [e.payload["amount"] for e in store.read_stream(TABLE)[3:]]
        assert sorted(bought) == list(range(1, 61))
        assert api.service.load(TABLE).balances["ana"] == 1_000 + sum(range(1, 61))
        # Commands work after: one more.
        assert api.post("cage", "/buy-in", {"player_id": "ana", "amount": 7}).status_code == 200
    finally:
        store.close()
        proxy.close()
    err = capfd.readouterr()
    logged = err.out + err.err
    assert "Traceback" not in logged
    assert logged.count("store_unavailable") >= len(refused)


def test_a_read_only_sqlite_file_answers_503_and_writes_nothing(tmp_path: Any) -> None:
    path = tmp_path / "casino.db"
    signer = Signer.generate()  # the casino's key, which vouches for its keys' events too
    writable = open_store(f"sqlite:///{path}", signing_key=signer)
    api = build_api(writable, key_store_for(writable))
    open_table(api, (1, "ana", 1_000))
    writable.close()
    read_only = sqlite_engine(make_url(f"sqlite:///file:{path}?mode=ro&uri=true"))
    store = SqliteEventStore(read_only, signer=signer)
    try:
        service = TableService(store, clock=SteppingClock(START, timedelta(seconds=1)))
        keys = key_store_for(store)  # the keys made above, read from the file
        frozen = Api(
            TestClient(create_app(service, keys, load_settings())), service, keys, api.tokens
        )
        for amount in (5, 5, 6):
            response = frozen.post("cage", "/buy-in", {"player_id": "ana", "amount": amount})
            assert response.status_code == 503, response.text
            assert response.json()["error"] == "store_unavailable"
            assert response.headers["Retry-After"] == "1"
        assert [e.type for e in store.read_stream(TABLE)][-1] == "chips_bought_in"
        assert store.stream_version(TABLE) == 3
    finally:
        store.close()
