"""No signed forgery by database access alone: every row an insider WITHOUT the key can INSERT,
UPDATE or DELETE (anchors, tags, checkpoints, a key rotation, snapshots, the system stream, an
event without a place in the log) to smuggle a forged event past the append tags is refused. On
SQLite (the file's writer) and PostgreSQL (the service role's login; the owner where only the
owner could), each test asserts: refused, ``verification_failed`` recorded naming the position,
every command refused, nothing signed over it, and ``paigow audit verify`` naming the position.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from adapters.clock import SteppingClock
from adapters.logging import get_logger
from adapters.rng import SeededDeckAndDice
from adapters.store.signing import Signer
from adapters.store.tags import anchor_tag
from eventlog.canonical import key_rotation_message
from eventlog.system_events import SYSTEM_STREAM, SigningKeyRotated
from service_layer.service import LogTampered, StoreUnverified, TableService
from service_layer.snapshots import INSERT as INSERT_SNAPSHOT
from service_layer.snapshots import NEWEST, Snapshot, Snapshots
from table_core import commands as c
from table_core.events import Actor
from table_core.ports import ConcurrencyError

from .conftest import START, Casino
from .insider import Insider, cash_out_payload, system_events
from .test_insider import verify

FLOOR = Actor(id="floor-1", role="floor")
DEALER = Actor(id="dealer-1", role="dealer")


def _service(casino: Casino, *, snapshots: bool = False, hour: int = 2) -> TableService:
    store = casino.store
    return TableService(
        store,
        clock=SteppingClock(START + timedelta(hours=hour), timedelta(seconds=2)),
        source=SeededDeckAndDice(7),
        verify=lambda: store.verify().first_bad,
        snapshots=Snapshots(store, 1000, get_logger(store="test")) if snapshots else None,
    )


def _tables(casino: Casino) -> list[str]:
    return sorted({str(r[1]) for r in casino.forger.rows() if r[1] != SYSTEM_STREAM})


def _serving(casino: Casino) -> tuple[TableService, Any]:
    """A started service holding every table, as a running server does; the rules to open with."""
    service = _service(casino)
    service.start()
    rules = next(service.load(t).rules for t in _tables(casino))
    return service, rules


def _refused(
    casino: Casino,
    service: TableService,
    rules: Any,
    position: int,
    problem: str,
    tmp_path: Path,
    capsys: Any,
) -> list[dict[str, Any]]:
    """The next sealed command is refused naming ``position``; so is every command after; the
    failure is recorded; nothing is signed at or after it; the audit names it. The findings."""
    signed = [cp.position for cp in casino.store.checkpoints()]
    opening = c.OpenTable(table_id="NEW-1", rules=rules, actor=FLOOR, at=service.now())
    with pytest.raises(LogTampered, match=f"position {position}"):
        service.execute("NEW-1", opening, "NEW-1:open")  # a table fact: sealed at once
    assert casino.store.stream_version("NEW-1") == 0  # nothing written
    table = _tables(casino)[0]
    with pytest.raises(StoreUnverified, match="commands are refused"):
        service.execute(table, c.StartRound(actor=DEALER, at=service.now()), f"{table}:after")
    service.stop()
    failed = [
        (p["position"], p["problem"]) for _, p in system_events(casino, "verification_failed")
    ]
    assert failed == [(position, problem)]
    assert [cp.position for cp in casino.store.checkpoints()] == signed
    status, findings, _ = verify(casino, tmp_path, capsys)
    assert status == 1
    recorded = [f for f in findings if f["clause"] == "service.verification_failed"]
    assert len(recorded) == 1 and f"position {position}" in recorded[0]["message"]
    return findings


def _forge_cash_out(casino: Casino, insider: Insider) -> tuple[str, int]:
    table = _tables(casino)[0]
    return table, insider.append_forged(table, "chips_cashed_out", cash_out_payload(casino, table))


def _unsealed_at(findings: list[dict[str, Any]], position: int) -> bool:
    return ("chain.unsealed", position) in [(f["clause"], f["position"]) for f in findings]


# --- anchors -------------------------------------------------------------------------------------


def test_the_issues_anchor_row_moves_no_floor(live: Casino, tmp_path: Path, capsys: Any) -> None:
    """``INSERT INTO append_tag_anchors(id, position, hash, tag) VALUES (0, 1000000000000, 'x',
    NULL)`` then a cash-out at a table's tail: refused. On PostgreSQL the service role may not
    even insert the anchor (migration 0012); the owner can, and it changes nothing."""
    insider = Insider(live)
    service, rules = _serving(live)
    anchor = (
        "INSERT INTO append_tag_anchors(id, position, hash, tag) "
        "VALUES (0, 1000000000000, 'x', NULL)"
    )
    if insider.postgres:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            insider.run(anchor)
        live.forger._insert_only([(anchor, ())])
    else:
        insider.run(anchor)
    _table, forged = _forge_cash_out(live, insider)
    findings = _refused(live, service, rules, forged, "untagged", tmp_path, capsys)
    assert _unsealed_at(findings, forged)


@pytest.mark.parametrize("kind", ["garbage tag", "a real tag moved up", "tagged by another key"])
def test_an_anchor_without_this_keys_tag_moves_no_floor(
    live: Casino, tmp_path: Path, capsys: Any, kind: str
) -> None:
    insider = Insider(live)
    service, rules = _serving(live)
    _table, forged = _forge_cash_out(live, insider)
    head = live.forger.row(forged)[13]
    if kind == "garbage tag":
        row = (forged, head, "ab" * 32)
    elif kind == "a real tag moved up":  # a rotation's anchor, copied to the forged head
        before = forged - 1
        key = live.store.signer.tagger().key
        real = anchor_tag(key, before, live.forger.row(before)[13])
        row = (forged, head, real)
    else:
        row = (forged, head, anchor_tag(Signer.generate().tagger().key, forged, head))
    live.forger._insert_only(
        [("INSERT INTO append_tag_anchors (position, hash, tag) VALUES (?, ?, ?)", row)]
    )
    findings = _refused(live, service, rules, forged, "untagged", tmp_path, capsys)
    assert _unsealed_at(findings, forged)


# --- tags ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["garbage HMAC", "a real tag copied", "a real tag rewritten"])
def test_a_tag_row_not_made_by_the_key_covers_nothing(
    live: Casino, tmp_path: Path, capsys: Any, kind: str
) -> None:
    insider = Insider(live)
    service, rules = _serving(live)
    table, forged = _forge_cash_out(live, insider)
    version, digest = live.forger.row(forged)[2], live.forger.row(forged)[11]
    if kind == "garbage HMAC":
        insider.run(
            "INSERT INTO append_tags (stream_id, first_version, last_version, last_hash, tag) "
            "VALUES (?, ?, ?, ?, ?)",
            (table, version, version, digest, "cd" * 32),
        )
    elif kind == "a real tag copied":  # the tag of the table's previous append, on the forgery
        real = insider.run(
            "SELECT tag FROM append_tags WHERE stream_id = ? ORDER BY last_version DESC LIMIT 1",
            (table,),
        )[0]
        insider.run(
            "INSERT INTO append_tags (stream_id, first_version, last_version, last_hash, tag) "
            "VALUES (?, ?, ?, ?, ?)",
            (table, version, version, digest, real),
        )
    else:  # the owner's UPDATE: the table's last tag stretched over the forgery
        live.forger._sql(
            [
                (
                    "UPDATE append_tags SET last_version = ?, last_hash = ? WHERE id = "
                    "(SELECT max(id) FROM append_tags WHERE stream_id = ?)",
                    (version, digest, table),
                )
            ]
        )
    findings = _refused(live, service, rules, forged, "untagged", tmp_path, capsys)
    assert _unsealed_at(findings, forged)


def test_a_deleted_tag_fails_closed(live: Casino, tmp_path: Path, capsys: Any) -> None:
    """The owner deletes the tag of the service's own last append after the last checkpoint: the
    store cannot vouch for it any more and signs nothing over it."""
    service, rules = _serving(live)
    table = _tables(live)[0]
    player = sorted(service.load(table).balances)[0]
    cage = Actor(id="cage-1", role="cage")
    buy_in = c.BuyIn(player_id=player, amount=100, actor=cage, at=service.now())
    service.execute(table, buy_in, f"{table}:in")  # between rounds: sealed at once
    assert live.store.checkpoints()[-1].position == live.forger.rows()[-1][0]
    service.execute(table, c.StartRound(actor=DEALER, at=service.now()), f"{table}:start")
    started = live.forger.rows()[-1][0]
    live.forger._sql(
        [
            (
                "DELETE FROM append_tags WHERE id = (SELECT max(id) FROM append_tags "
                "WHERE stream_id = ?)",
                (table,),
            )
        ]
    )
    findings = _refused(live, service, rules, started, "untagged", tmp_path, capsys)
    assert _unsealed_at(findings, started)


# --- checkpoints ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["garbage signature", "a real signature copied"])
def test_a_checkpoint_of_the_key_that_does_not_hold_is_named(
    live: Casino, tmp_path: Path, capsys: Any, kind: str
) -> None:
    insider = Insider(live)
    service, rules = _serving(live)
    _table, forged = _forge_cash_out(live, insider)
    head, at = live.forger.row(forged)[13], live.forger.row(forged)[6]
    signer = live.store.signer
    copied = live.store.checkpoints()[-1].signature
    signature = "ef" * 64 if kind == "garbage signature" else copied
    insider.run(
        "INSERT INTO checkpoints (position, hash, signed_at, key_id, signature) "
        "VALUES (?, ?, ?, ?, ?)",
        (forged, head, at, signer.key_id, signature),
    )
    findings = _refused(live, service, rules, forged, "checkpoint", tmp_path, capsys)
    assert ("chain.checkpoint", forged) in [(f["clause"], f["position"]) for f in findings]


def test_a_checkpoint_signed_by_another_key_vouches_for_nothing(
    live: Casino, tmp_path: Path, capsys: Any
) -> None:
    insider = Insider(live)
    service, rules = _serving(live)
    _table, forged = _forge_cash_out(live, insider)
    head, at = live.forger.row(forged)[13], str(live.forger.row(forged)[6])
    mine = Signer.generate()
    insider.run(
        "INSERT INTO checkpoints (position, hash, signed_at, key_id, signature) "
        "VALUES (?, ?, ?, ?, ?)",
        (forged, head, at, mine.key_id, mine.sign(forged, head, at)),
    )
    findings = _refused(live, service, rules, forged, "untagged", tmp_path, capsys)
    assert _unsealed_at(findings, forged)


# --- a key rotation ------------------------------------------------------------------------------


def test_a_rotation_to_the_insiders_key_with_its_anchor_is_refused(
    live: Casino, tmp_path: Path, capsys: Any
) -> None:
    """The insider records a rotation to a key of their own (signed by it) and an anchor tagged
    by it: neither is the casino key's; the rotation event is the forgery the store refuses."""
    insider = Insider(live)
    service, rules = _serving(live)
    mine = Signer.generate()
    at = str(live.forger.rows()[-1][6])
    old = live.store.signer.key_id
    event = SigningKeyRotated.model_validate(
        {
            "at": at,
            "old_key_id": old,
            "new_key_id": mine.key_id,
            "new_public_key": mine.public_raw.hex(),
            "signed_at": at,
            "signature": mine.private_key.sign(
                key_rotation_message(old, mine.public_raw.hex(), at)
            ).hex(),
        }
    )
    payload = {**event.model_dump(mode="json"), "at": at}
    forged = insider.append_forged(SYSTEM_STREAM, "signing_key_rotated", payload)
    head = live.forger.row(forged)[13]
    live.forger._insert_only(
        [
            (
                "INSERT INTO append_tag_anchors (position, hash, tag) VALUES (?, ?, ?)",
                (forged, head, anchor_tag(mine.tagger().key, forged, head)),
            )
        ]
    )
    findings = _refused(live, service, rules, forged, "untagged", tmp_path, capsys)
    found = [(f["clause"], f["position"]) for f in findings]
    assert ("keys.rotation", forged) in found and ("chain.unsealed", forged) in found


# --- the system stream ---------------------------------------------------------------------------


def _system_payload(kind: str, at: str) -> dict[str, Any]:
    if kind == "software_version_authorised":
        fields = {"version": "6.6.6", "reason": "mine"}
    else:
        fields = {"key_id": "0123456789ab", "key_actor": "mallory", "role": "floor"}
    return {"type": kind, "schema_version": 1, "at": at, "actor_id": "mallory",
            "actor_role": "floor", **fields}  # fmt: skip


@pytest.mark.parametrize("kind", ["software_version_authorised", "api_key_created"])
def test_a_system_event_inserted_while_serving_is_never_sealed(
    live: Casino, tmp_path: Path, capsys: Any, kind: str
) -> None:
    insider = Insider(live)
    service, rules = _serving(live)
    at = str(live.forger.rows()[-1][6])
    forged = insider.append_forged(SYSTEM_STREAM, kind, _system_payload(kind, at))
    findings = _refused(live, service, rules, forged, "untagged", tmp_path, capsys)
    assert _unsealed_at(findings, forged)


@pytest.mark.parametrize("kind", ["software_version_authorised", "api_key_created"])
def test_a_system_event_inserted_while_stopped_is_refused_at_start(
    live: Casino, tmp_path: Path, capsys: Any, kind: str
) -> None:
    """What the service folds from the system stream at start (the software authorisations, the
    last start) comes from events its start seals: an untagged one there refuses the start's
    seal, and the service refuses every command from its start on."""
    insider = Insider(live)
    at = str(live.forger.rows()[-1][6])
    forged = insider.append_forged(SYSTEM_STREAM, kind, _system_payload(kind, at))
    service = _service(live)
    service.start()
    assert service.tampered is not None and f"position {forged}" in service.tampered
    table = _tables(live)[0]
    with pytest.raises(StoreUnverified):
        service.execute(table, c.StartRound(actor=DEALER, at=service.now()), f"{table}:s")
    service.stop()
    failed = [(p["position"], p["problem"]) for _, p in system_events(live, "verification_failed")]
    assert failed == [(forged, "untagged")]
    assert all(cp.position < forged for cp in live.store.checkpoints())
    status, findings, _ = verify(live, tmp_path, capsys)
    assert status == 1 and _unsealed_at(findings, forged)


# --- an event with no place in the log -----------------------------------------------------------


def test_an_event_without_a_global_position_is_never_folded(
    live: Casino, tmp_path: Path, capsys: Any
) -> None:
    insider = Insider(live)
    service, _rules = _serving(live)
    table = _tables(live)[0]
    held = service.load(table)
    player = sorted(held.balances)[0]
    version = insider.insert_event_only(table, "chips_cashed_out", cash_out_payload(live, table))
    buy_in = c.BuyIn(player_id=player, amount=100, actor=Actor(id="cage-1", role="cage"),
                     at=service.now())  # fmt: skip
    with pytest.raises(ConcurrencyError):  # its version is taken: another writer, it seems...
        service.execute(table, buy_in, f"{table}:in")
    with pytest.raises(LogTampered, match="no global position"):  # ...caught up: never folded
        service.execute(table, buy_in, f"{table}:in")
    with pytest.raises(StoreUnverified):
        service.load(table)  # still held as before; every command refused
        service.execute(table, buy_in, f"{table}:in")
    assert service.tampered is not None and "no global position" in service.tampered
    service.stop()
    failed = [(p["stream_id"], p["problem"]) for _, p in system_events(live, "verification_failed")]
    if insider.postgres:
        assert failed == [(table, "unpositioned")]
    else:  # the row holds the id the next position takes: the store writes nothing more at all
        assert failed == []
    status, findings, _ = verify(live, tmp_path, capsys)
    assert status == 1
    assert any(
        f["clause"] == "chain.sequence" and f"{table} v{version}" in f["message"] for f in findings
    )


# --- snapshots -----------------------------------------------------------------------------------


def test_a_snapshot_the_key_did_not_sign_is_refused_as_tampering(
    live: Casino, tmp_path: Path, capsys: Any
) -> None:
    """The insider plants the newest snapshot of a table, its balances raised, naming the casino's
    key: the restart uses none of it, records the failure and refuses every command."""
    first = _service(live, snapshots=True)
    first.start()
    table = _tables(live)[0]
    whole = first.load(table)
    first.stop()  # snapshots taken at the stop
    with live.store._connection() as conn:
        snaps = [Snapshot(*row) for row in conn.execute(NEWEST)]
    snap = next(s for s in snaps if s.table_id == table)
    data = json.loads(snap.state)
    data["state"]["balances"] = [[k, v + 100_000] for k, v in data["state"]["balances"]]
    state = json.dumps(data, sort_keys=True, separators=(",", ":"))
    forged = Snapshot(**{**snap.__dict__, "state": state})
    Insider(live).run(INSERT_SNAPSHOT, tuple(forged.__dict__.values()))
    again = _service(live, snapshots=True, hour=3)
    again.start()
    assert again.tampered is not None and f"position {snap.position}" in again.tampered
    assert again.load(table).balances == whole.balances  # the log's, never the planted state
    with pytest.raises(StoreUnverified):
        again.execute(table, c.StartRound(actor=DEALER, at=again.now()), f"{table}:s")
    again.stop()
    failed = [(p["position"], p["stream_id"], p["problem"])
              for _, p in system_events(live, "verification_failed")]  # fmt: skip
    assert failed == [(snap.position, table, "snapshot")]
    status, findings, _ = verify(live, tmp_path, capsys)
    recorded = [f for f in findings if f["clause"] == "service.verification_failed"]
    assert status == 1 and f"position {snap.position}" in recorded[0]["message"]
