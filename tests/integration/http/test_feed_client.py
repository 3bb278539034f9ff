"""The feed client's verification (adapters/client/feed_client.py, docs/feed.md): its own copy of
the log's recipes agrees with eventlog's on every event of a played table, and it refuses an event
whose payload, link or chain was changed, and a checkpoint whose signature is not the casino's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature

from adapters.client.feed_client import (
    FeedClient,
    VerificationError,
    check_event,
    global_hash,
    signature_holds,
)
from adapters.store import InMemoryEventStore
from adapters.store.signing import Signer
from service_layer.feed import Feed, FeedScope, event_lines
from service_layer.operators.keys import MemoryKeyStore
from tests.integration.http.conftest import build_api, open_table
from tests.integration.http.test_feed import finish_round, open_round


@pytest.fixture(scope="module")
def played() -> tuple[list[dict[str, Any]], list[dict[str, Any]], bytes]:
    """Every event of a table that played two rounds, as the feed gives them, its checkpoints
    and the casino's public key."""
    store = InMemoryEventStore(Signer.generate())
    api = build_api(store, MemoryKeyStore(store))
    open_table(api, (2, "ana", 100_000))
    for _ in range(2):
        open_round(api)
        finish_round(api)
    feed = Feed(store)
    page = feed.page(0, 1000, FeedScope())
    events = [json.loads(line) for line in event_lines(page)]
    assert store.public_key is not None
    return events, feed.checkpoints(0, 1000), store.public_key


def test_the_clients_recipes_are_the_logs(played: Any) -> None:
    events, checkpoints, public_key = played
    assert len(events) > 20 and checkpoints
    client = FeedClient("http://unused", "token", public_key=public_key)
    for event in events:
        check_event(event)
        client.verify({**event, "sealed_by": None})  # the whole chain, link by link
    by_position = {e["position"]: e for e in events}
    for checkpoint in checkpoints:
        assert signature_holds(checkpoint, public_key)
        assert checkpoint["hash"] == by_position[checkpoint["position"]]["global_hash"]


@pytest.mark.parametrize(
    "change",
    [
        lambda e: e["payload"].update(amount=e["payload"].get("amount", 0) + 1),
        lambda e: e.update(at=e["at"].replace("20:", "21:")),
        lambda e: e.update(actor={"id": "someone", "role": "dealer"}),
        lambda e: e.update(global_prev="0" * 64),
        lambda e: e.update(hash="1" * 64),
    ],
)
def test_a_changed_event_is_refused(played: Any, change: Any) -> None:
    events, _, _ = played
    event = json.loads(json.dumps(next(e for e in events if e["type"] == "bet_placed")))
    check_event(event)
    change(event)
    with pytest.raises(VerificationError):
        check_event(event)


def test_a_broken_chain_and_a_forged_checkpoint_are_refused(played: Any) -> None:
    events, checkpoints, public_key = played
    client = FeedClient("http://unused", "token", public_key=public_key)
    client.verify({**events[0], "sealed_by": None})
    with pytest.raises(VerificationError, match="chain"):
        # the next position, its own links consistent, but not after the previous one
        forged = {**events[1], "global_prev": events[0]["global_prev"]}
        forged["global_hash"] = global_hash(forged)
        client.verify({**forged, "sealed_by": None})
    checkpoint = dict(checkpoints[0])
    assert signature_holds(checkpoint, public_key)
    later = {**checkpoint, "signed_at": "2030-01-01T00:00:00.000000Z"}
    assert not signature_holds(later, public_key)
    assert not signature_holds(checkpoint, Signer.generate().public_raw)


def test_the_verification_example_of_docs_feed_md_runs(played: Any) -> None:
    """The Python example of docs/feed.md ("Verifying an event"), run as written on each event
    and checkpoint: it uses only ``hashlib``, ``json`` and ``cryptography``."""
    text = (Path(__file__).resolve().parents[3] / "docs" / "feed.md").read_text()
    section = text[text.index("## Verifying an event") :]
    code = section[section.index("```python") + len("```python") : section.index("```\n", 10)]
    assert "import" in code and "from adapters" not in code
    events, checkpoints, public_key = played
    for event in events:
        exec(code, {"e": event})
    space: dict[str, Any] = {"e": events[0]}
    exec(code, space)
    for checkpoint in checkpoints:
        space["checkpoint_holds"](checkpoint, public_key)  # raises when it does not hold
    with pytest.raises(InvalidSignature):
        space["checkpoint_holds"]({**checkpoints[0], "position": 2}, public_key)
