"""What operations read (issue 19): ``/ready`` and its reasons, ``/metrics`` after a round, the
access log without secrets, unknown routes in the error shape, ``/reports?day=all``, and
``/docs`` / ``/redoc`` served with no outside URL.

``/ready`` flips on a PostgreSQL the server stops reaching: the store is opened through a TCP
proxy that the test cuts (the shared server itself is never stopped)."""

from __future__ import annotations

import contextlib
import re
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.engine import make_url
from structlog.testing import capture_logs

from adapters.settings import load_settings
from adapters.store import InMemoryEventStore, migrate, open_store
from adapters.store.signing import Signer
from entrypoints.http.app import create_app
from service_layer.metrics import MeteredStore
from service_layer.operators.keys import MemoryKeyStore, key_store_for
from service_layer.service import TableService
from tests.integration.http.conftest import TABLE, Api, build_api, open_table
from tests.integration.http.test_queries import play_the_live_round


def metered_api(store: Any, keys: Any = None) -> Api:
    """The API as ``paigow serve`` builds it: the service's appends timed and counted."""
    api = build_api(store, keys or MemoryKeyStore(store))
    api.service.store = MeteredStore(store)
    return api


def samples(api: Api) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = api.client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    found = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(found: dict[Any, float], name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


# --- /ready ---------------------------------------------------------------------------------


def test_ready_when_the_store_answers_and_every_check_holds(api: Api) -> None:
    response = api.client.get("/ready")
    assert response.status_code == 200, response.text
    assert response.json() == {
        "status": "ready",
        "checks": {"store": True, "schema": True, "signing_key": True, "commands": True},
    }


def test_not_ready_while_commands_are_refused(api: Api) -> None:
    api.service.refusing = "event 7: hash mismatch"
    response = api.client.get("/ready")
    assert response.status_code == 503
    body = response.json()
    assert body["error"] == "not_ready"
    assert body["message"] == "commands: commands are refused: event 7: hash mismatch"
    assert api.client.get("/health").json() == {
        "status": "ok",
        "refusing": "event 7: hash mismatch",
    }


def test_read_only_refuses_every_command_and_answers_queries(api: Api) -> None:
    open_table(api, (1, "ana", 10_000))
    api.service.read_only = "no signing key"
    refused = api.post("dealer", "/round/start")
    assert refused.status_code == 503
    assert refused.json() == {
        "error": "read_only",
        "message": "this server is read-only: no signing key",
    }
    assert api.get("cage", f"/tables/{TABLE}").json()["balances"] == {"ana": 10_000}
    ready = api.client.get("/ready")
    assert (ready.status_code, ready.json()["message"]) == (
        503,
        "commands: read-only: no signing key",
    )
    assert api.version() == 3  # opened, seated, bought in: nothing written since


def test_not_ready_when_the_key_did_not_sign_the_last_checkpoint(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'casino.db'}"
    first = open_store(url, signing_key=Signer.generate())
    api = build_api(first, key_store_for(first))
    play_the_live_round(api)  # round_closed: a checkpoint signed by the first key
    first.close()
    other = open_store(url, signing_key=Signer.generate())
    try:
        # The keys over a store of their own: the other key cannot seal over the first one's log.
        keys = MemoryKeyStore(InMemoryEventStore(Signer.generate()))
        response = build_api(other, keys).client.get("/ready")
    finally:
        other.close()
    assert response.status_code == 503
    assert response.json()["checks"]["signing_key"].startswith("the key ")
    assert "did not sign the last checkpoint" in response.json()["message"]


class Proxy:
    """A TCP proxy to PostgreSQL on a loopback port; :meth:`cut` closes it and every connection
    through it, as a network failure or a stopped database would look to the server."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        self.cut_off = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.cut_off:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.cut_off:
                client.close()
                return
            upstream = socket.create_connection(self.target)
            self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        self.cut_off = True
        # Wakes the thread blocked in accept(): close() alone leaves the port listening.
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        for s in self.sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()


@pytest.fixture
def proxied_pg(pg_url: str) -> Iterator[tuple[str, Proxy]]:
    migrate.upgrade(pg_url, load_settings().pg_roles())
    url = make_url(pg_url)
    proxy = Proxy((url.host or "127.0.0.1", url.port or 5432))
    try:
        yield url.set(port=proxy.port).render_as_string(hide_password=False), proxy
    finally:
        proxy.cut()


def test_ready_flips_when_postgresql_stops_answering(proxied_pg: tuple[str, Proxy]) -> None:
    url, proxy = proxied_pg
    store = open_store(url, signing_key=Signer.generate())
    try:
        api = metered_api(store, key_store_for(store))
        open_table(api, (1, "ana", 10_000))
        assert api.client.get("/ready").status_code == 200
        assert value(samples(api), "paigow_ready") == 1.0
        proxy.cut()
        response = api.client.get("/ready")
        assert response.status_code == 503, response.text
        body = response.json()
        assert body["error"] == "not_ready"
        assert body["message"].startswith("store: the store does not answer")
        assert body["checks"]["schema"] == "not checked"
        assert api.client.get("/health").status_code == 200  # alive, not ready
        assert value(samples(api), "paigow_ready") == 0.0
    finally:
        store.close()


# --- /metrics and the access log ------------------------------------------------------------


def test_metrics_after_a_round(api: Api) -> None:
    api = metered_api(InMemoryEventStore(Signer.generate()))
    before = samples(api)
    play_the_live_round(api)
    refused = api.post("dealer", "/round/bet", {"player_id": "ana", "amount": 500})
    assert refused.json()["error"] == "rule_violation"  # no round open: R-… refusal
    api.post("dealer", "/round/start", key="x" * 300)  # a malformed key: FastAPI's 422
    after = samples(api)
    bet = {"route": "/tables/{table_id}/round/bet", "method": "POST"}
    assert (
        value(after, "paigow_http_requests_total", **bet, status="200")
        - value(before, "paigow_http_requests_total", **bet, status="200")
        == 1
    )
    assert (
        value(after, "paigow_http_request_duration_seconds_count", **bet)
        - value(before, "paigow_http_request_duration_seconds_count", **bet)
        == 2
    )
    for reason in ("rule_violation", "invalid_request"):
        grown = value(after, "paigow_commands_refused_total", reason=reason) - value(
            before, "paigow_commands_refused_total", reason=reason
        )
        assert grown == 1, reason
    assert (
        value(after, "paigow_rounds_settled_total") - value(before, "paigow_rounds_settled_total")
        == 1
    )
    appends = value(after, "paigow_store_append_seconds_count") - value(
        before, "paigow_store_append_seconds_count"
    )
    # each of the round's 16 commands one append (open .. close, the deck's three included)
    assert appends == 16
    assert 0 <= value(after, "paigow_checkpoint_age_seconds") < 365 * 86400
    assert value(after, "paigow_verification_ok") == 1.0
    assert value(after, "paigow_read_only") == 0.0
    assert value(after, "paigow_ready") == 1.0


def test_one_access_log_line_per_request_without_secrets(api: Api) -> None:
    token = api.tokens["dealer"]
    open_table(api, (1, "ana", 10_000))
    with capture_logs() as logs:
        api.ok("dealer", "/round/start", key="idem-start-1")  # the fast path
        api.get("dealer", f"/tables/{TABLE}")  # FastAPI
        api.client.get("/no/such/route", headers={"Authorization": f"Bearer {token}"})
    lines = [line for line in logs if line["event"] == "http_request"]
    assert [(x["method"], x["route"], x["status"], x["actor"]) for x in lines] == [
        ("POST", "/tables/{table_id}/round/start", 200, "dealer-1"),
        ("GET", "/tables/{table_id}", 200, "dealer-1"),
        ("GET", "unmatched", 404, None),
    ]
    assert lines[0]["table_id"] == TABLE and lines[0]["role"] == "dealer"
    assert all(isinstance(x["ms"], float) for x in lines)
    everything = repr(logs)
    assert token not in everything and "Bearer" not in everything
    access = repr(lines).lower()
    assert "authorization" not in access and "idem-start-1" not in access


# --- errors, reports, documents -------------------------------------------------------------


def test_unknown_routes_answer_in_the_error_shape(api: Api) -> None:
    missing = api.client.get("/no/such/route")
    assert missing.status_code == 404
    assert missing.json() == {
        "error": "not_found",
        "message": "no route GET /no/such/route: see /docs",
    }
    wrong = api.client.delete("/health")
    assert wrong.status_code == 405
    assert wrong.json() == {
        "error": "method_not_allowed",
        "message": "DELETE is not allowed on /health",
    }
    assert wrong.headers["allow"] == "GET"


def test_reports_day_all_is_every_gaming_day(api: Api) -> None:
    play_the_live_round(api)
    every = api.get("floor", "/reports?day=all")
    assert every.status_code == 200, every.text
    assert every.json() == api.get("floor", "/reports").json()
    assert every.json()["gaming_day"] is None
    assert every.json()["accounting"] and every.json()["accounting"][0]["table_id"] == TABLE
    assert api.get("floor", "/reports?day=yesterday").status_code == 422


OUTSIDE_URL = re.compile(r"(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}")


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_documents_are_served_with_no_outside_url(api: Api, page: str) -> None:
    response = api.client.get(page)
    assert response.status_code == 200
    html = response.text
    assert OUTSIDE_URL.findall(html) == []
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets and all(a.startswith("/docs-assets/") for a in assets), assets
    for asset in assets:
        assert api.client.get(asset).status_code == 200, asset
    assert "/openapi.json" in html


def test_the_app_over_a_plain_service_has_the_same_routes() -> None:
    """``create_app`` over an unmetered service (tests, the OpenAPI writer) serves them too."""
    service = TableService(InMemoryEventStore(Signer.generate()))
    client = TestClient(create_app(service, MemoryKeyStore(service.store), load_settings()))
    assert client.get("/ready").status_code == 200
    assert "paigow_http_requests_total" in client.get("/metrics").text
