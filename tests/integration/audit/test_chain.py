"""The chain part of the audit on an in-memory log: every finding, each where it belongs, and the
audit carries on after each (the store's own verifier stops at the first)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adapters.store import InMemoryEventStore
from adapters.store.signing import Signer
from audit.sources import LogSource
from audit.verify import verify_log
from eventlog.canonical import canonical_json, event_hash, global_hash

from .conftest import record_session


@pytest.fixture(scope="module")
def recorded() -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], bytes]:
    store = InMemoryEventStore(Signer.generate())
    record_session(store, tables=2, rounds=4)
    assert store.public_key is not None
    return list(store.rows), list(store.checkpoint_rows), store.public_key


def audit(rows: list[Any], checkpoints: list[Any], key: bytes | None) -> Any:
    return verify_log(LogSource("memory", iter(rows), checkpoints, key))


def with_payload(row: tuple[Any, ...], change: dict[str, Any]) -> tuple[Any, ...]:
    payload = json.loads(row[5])
    payload.update(change)
    return (*row[:5], canonical_json(payload), *row[6:])


def first_of(rows: list[Any], kind: str, after: int = 0) -> int:
    return next(i for i, row in enumerate(rows) if row[3] == kind and i >= after)


def test_two_changed_payloads_are_two_findings(recorded: Any) -> None:
    rows, checkpoints, key = recorded
    rows = list(rows)
    one = first_of(rows, "bet_placed")
    two = first_of(rows, "bet_placed", after=len(rows) // 2)
    rows[one] = with_payload(rows[one], {"amount": 99_000})
    rows[two] = with_payload(rows[two], {"amount": 98_000})
    report = audit(rows, checkpoints, key)
    chain = [(f.clause, f.position) for f in report.findings if f.kind == "integrity"]
    assert chain == [("chain.hash", rows[one][0]), ("chain.hash", rows[two][0])]


def test_a_duplicated_event_is_found_once_and_the_table_is_followed(recorded: Any) -> None:
    rows, checkpoints, key = recorded
    index = first_of(rows, "side_bet_placed")
    doubled = [*rows[: index + 1], rows[index], *rows[index + 1 :]]
    report = audit(doubled, checkpoints, key)
    assert {f.kind for f in report.findings} == {"integrity"}
    assert report.findings[0].position == rows[index][0]  # found again where it already was


def test_a_row_of_garbage_is_a_finding_not_a_crash(recorded: Any) -> None:
    rows, checkpoints, key = recorded
    rows = list(rows)
    rows[10] = (rows[10][0], "PG-1", "seven", None, "x", "{", "", "", "", "", "", "", "", "")
    report = audit(rows, checkpoints, key)
    assert report.findings and report.findings[0].position == rows[10][0]
    assert report.findings[0].kind == "integrity"


def test_a_forged_signature_and_a_foreign_key_are_checkpoint_findings(recorded: Any) -> None:
    rows, checkpoints, key = recorded
    forged = [list(c) for c in checkpoints]
    forged[1][4] = ("1" if forged[1][4][0] == "0" else "0") + forged[1][4][1:]
    report = audit(rows, [tuple(c) for c in forged], key)
    assert [(f.clause, f.position) for f in report.findings] == [
        ("chain.checkpoint", checkpoints[1][0])
    ]
    assert "signature does not hold" in report.findings[0].message
    other = Signer.generate().public_raw
    foreign = audit(rows, checkpoints, other)
    # Every checkpoint refused, so no event is sealed (issue 17): one more finding, at position 1.
    assert len(foreign.findings) == len(checkpoints) + 1
    sealed, *refused = foreign.findings
    assert (sealed.clause, sealed.position) == ("chain.unsealed", 1)
    assert sealed.message.startswith(f"unsealed: {len(rows)} events from position 1")
    assert all("signed by key" in f.message for f in refused)
    unsigned = audit(rows, checkpoints, None)
    assert unsigned.ok and not unsigned.signatures_checked
    assert "signatures NOT checked" in unsigned.summary()


def rehash(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The rows with every hash recomputed over their (edited) payloads: a consistent chain."""
    heads: dict[str, str] = {}
    global_prev = "0" * 64
    out = []
    for row in rows:
        (position, stream, version, kind, schema, text, at, actor, role, command) = row[:10]
        prev = heads.get(stream, "0" * 64)
        digest = event_hash(prev, stream, version, kind, schema, at, actor, role, command, text)
        chained = global_hash(global_prev, position, digest)
        out.append((*row[:10], prev, digest, global_prev, chained))
        heads[stream], global_prev = digest, chained
    return out


def test_a_payload_that_is_not_its_event_is_a_schema_or_envelope_finding(recorded: Any) -> None:
    rows, _checkpoints, key = recorded
    rows = list(rows)
    closed = first_of(rows, "round_closed")
    bet = first_of(rows, "bet_placed")
    rows[closed] = with_payload(rows[closed], {"table_id": "PG-9"})
    rows[bet] = with_payload(rows[bet], {"amount": "2500"})  # a string is not minor units
    report = audit(rehash(rows), [], key)
    found = [(f.kind, f.clause, f.position) for f in report.findings]
    assert found == [
        ("integrity", "chain.unsealed", 1),  # no checkpoint given: never OK (issue 17)
        ("integrity", "schema", rows[bet][0]),
        ("integrity", "envelope", rows[closed][0]),
        # The bet that cannot be read left the player's chips unaccounted for.
        ("money", "books", rows[closed][0]),
    ]
    assert "belongs to table PG-9, not PG-1" in report.findings[2].message
