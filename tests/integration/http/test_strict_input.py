"""Strict input at the door (issue 17): a body that could be read two ways, or that would put a
control character into the record, is refused with 422 ``invalid_request`` in the documented
shape by the command door, and writes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from adapters.settings import load_settings
from adapters.store import InMemoryEventStore
from adapters.store.signing import Signer
from entrypoints.http.app import create_app
from service_layer.operators.keys import MemoryKeyStore
from tests.integration.http.conftest import TABLE, build_api, open_table

JSON = {"Content-Type": "application/json"}

# (path, raw body, where the error is, the type of error)
REFUSED: list[tuple[str, bytes, list[Any], str]] = [
    (
        "/round/bet",
        b'{"player_id": "ana", "amount": 1000, "amount": 90000}',
        ["body"],
        "json_invalid",
    ),
    (
        "/round/bet",
        json.dumps({"player_id": "ana", "amount": 1000}).encode("utf-16"),
        ["body"],
        "json_invalid",
    ),
    ("/round/bet", b'\xef\xbb\xbf{"player_id": "ana", "amount": 1000}', ["body"], "json_invalid"),
    ("/round/bet", b'{"player_id": "ana", "amount": "7"}', ["body", "amount"], "int_type"),
    ("/seat", b'{"seat": "4", "player_id": "cy"}', ["body", "seat"], "int_type"),
    (
        "/rules",
        b'{"rules": {"version": "7"}, "reason": "x"}',
        ["body", "rules", "version"],
        "strict_type",
    ),
    (
        "/rules",
        b'{"rules": {"version": 2, "co_bank": 0}, "reason": "x"}',
        ["body", "rules", "co_bank"],
        "strict_type",
    ),
    (
        "/rules",
        b'{"rules": {"version": 2, "limits": {"min_bet": 1000.0}}, "reason": "x"}',
        ["body", "rules", "limits", "min_bet"],
        "strict_type",
    ),
    (
        "/rules",
        b'{"rules": {"version": 2, "denominations": ["100", "500"]}, "reason": "x"}',
        ["body", "rules", "denominations", 0],
        "strict_type",
    ),
    (
        "/round/bank/accept",
        b'{"player_id": "ana", "co_bank": 1}',
        ["body", "co_bank"],
        "strict_type",
    ),
    (
        "/round/void",
        b'{"reason": "\\u001b[31mno reason\\u001b[0m"}',
        ["body"],
        "string_unprintable",
    ),
    ("/round/void", b'{"reason": "a\\rb"}', ["body"], "string_unprintable"),
    ("/round/void", b'{"reason": "nul\\u0000"}', ["body"], "string_unprintable"),
    ("/round/void", b'{"reason": "rtl \\u202e evil"}', ["body"], "string_unprintable"),
    (
        "/rules",
        b'{"rules": {"hand": {"house_way": "fr\\u0007"}}, "reason": "x"}',
        ["body"],
        "string_unprintable",
    ),
    ("/round/void", b'{"reason": ' + b"[" * 1000 + b"]" * 1000 + b"}", ["body"], "json_invalid"),
    (
        "/round/bet",
        b'{"player_id": "ana", "amount": ' + b"9" * 4300 + b"}",
        ["body"],
        "json_invalid",
    ),
]


@pytest.fixture
def client_and_store() -> tuple[TestClient, Any, dict[str, str]]:
    store = InMemoryEventStore(Signer.generate())
    keys = MemoryKeyStore(store)
    api = build_api(store, keys)
    open_table(api, (1, "ana", 100_000))
    api.ok("dealer", "/round/start")
    client = TestClient(create_app(api.service, keys, load_settings()))
    return client, api.service.store, api.tokens


@pytest.mark.parametrize(("path", "raw", "loc", "kind"), REFUSED)
def test_a_body_that_is_not_strict_is_refused_with_422_and_writes_nothing(
    client_and_store: tuple[TestClient, Any, dict[str, str]],
    path: str,
    raw: bytes,
    loc: list[Any],
    kind: str,
) -> None:
    client, store, tokens = client_and_store
    before = len(store.read_all())
    role = "floor" if path in ("/rules", "/round/void") else "dealer"
    response = client.post(
        f"/tables/{TABLE}{path}",
        content=raw,
        headers={"Authorization": f"Bearer {tokens[role]}", "Idempotency-Key": "k-1", **JSON},
    )
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["error"] == "invalid_request"
    assert body["detail"][0]["loc"] == loc and body["detail"][0]["type"] == kind
    assert len(store.read_all()) == before


def test_the_same_bodies_written_plainly_go_through() -> None:
    """The refusals above are about the form, not the values: the plain forms pass."""
    store = InMemoryEventStore(Signer.generate())
    api = build_api(store, MemoryKeyStore(store))
    open_table(api, (1, "ana", 100_000))
    api.ok("floor", "/rules", {"rules": {"version": 2, "co_bank": False}, "reason": "é ok"})
    # Members the model keeps in its own order (sorted denominations), and its defaults written
    # out: the same values, not a conversion.
    tray = {"version": 3, "denominations": [2_500, 100, 500]}
    api.ok("floor", "/rules", {"rules": tray, "reason": "tray"})
    tray = {"version": 4, "denominations": [100, 500, 2_500, 10_000]}
    api.ok("floor", "/rules", {"rules": tray, "reason": "default tray"})
    api.ok("dealer", "/round/start")
    api.ok("dealer", "/round/bet", {"player_id": "ana", "amount": 1000})
    api.ok("floor", "/round/void", {"reason": "card exposed — re-deal (floor: Zoë)"})


@pytest.mark.parametrize(
    ("path", "raw", "said"),
    [
        ("/round/bet", b'{"player_id": "ana", "amount": 25.00}', "25.00 would be 2500"),
        ("/round/bet", b'{"player_id": "ana", "amount": 25.5}', "25.50 is sent as 2550"),
        ("/round/bet", b'{"player_id": "ana", "amount": "2500"}', 'send 2500, not "2500"'),
        (
            "/rules",
            b'{"rules": {"version": 2, "limits": {"min_bet": 10.0}}, "reason": "x"}',
            "10.00 would be 1000",
        ),
    ],
)
def test_money_given_as_no_integer_is_told_amounts_are_integer_cents(
    client_and_store: tuple[TestClient, Any, dict[str, str]], path: str, raw: bytes, said: str
) -> None:
    client, store, tokens = client_and_store
    before = len(store.read_all())
    role = "floor" if path == "/rules" else "dealer"
    response = client.post(
        f"/tables/{TABLE}{path}",
        content=raw,
        headers={"Authorization": f"Bearer {tokens[role]}", "Idempotency-Key": "k-1", **JSON},
    )
    assert response.status_code == 422, response.text
    body = response.json()
    assert "amounts are integer cents (minor units)" in body["message"] and said in body["message"]
    assert body["detail"][0]["msg"] in body["message"]
    assert len(store.read_all()) == before


def test_a_count_that_is_no_integer_keeps_pydantics_words(
    client_and_store: tuple[TestClient, Any, dict[str, str]],
) -> None:
    """Only money is told about cents: a seat given as a float is another integer."""
    client, _, tokens = client_and_store
    response = client.post(
        f"/tables/{TABLE}/seat",
        content=b'{"seat": 2.0, "player_id": "cy"}',
        headers={"Authorization": f"Bearer {tokens['dealer']}", "Idempotency-Key": "k-2", **JSON},
    )
    assert response.status_code == 422 and "cents" not in response.json()["message"]
