"""R17 on SQLite and PostgreSQL: a dispute's bundle is sealed. It carries the dispute's own events
(opened, the decks held, closed) with the checkpoints signed at them; its record and its recall
are derived again from those events, and the manifest (which states the digest of every line
after it) is signed: an edit anywhere in the bundle is a named finding."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from audit.bundle import open_bundle
from audit.verify import verify_log
from eventlog.canonical import event_hash, global_hash
from eventlog.system_events import SYSTEM_STREAM
from service_layer.disputes import Request, close_dispute, export_dispute, open_dispute
from service_layer.service import TableService
from table_core import commands as c
from table_core.events import Actor

from . import test_custody
from .test_custody import Opened, record

opened = test_custody.opened  # the fixture: a SQLite or PostgreSQL store, as the custody tests

AUDITOR = Actor(id="auditor-5", role="auditor")
FLOOR = Actor(id="floor-2", role="floor")
NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
REASON = "player ana says the banker's hand was set against the House Way"
OUTCOME = "upheld: round 3 paid again at the cage"


def disputed(opened: Opened, tmp_path: Path, *, close: bool = True) -> tuple[Path, dict[str, Any]]:
    """Rounds 1-4 (decks D-1 and D-2), a dispute on rounds 3 and 4 (both decks held); while it
    is open the service starts and a buy-in is recorded at the table; the dispute closed; its
    bundle exported."""
    store = opened.store
    record(store)
    opening = open_dispute(
        store, Request("PG-1", REASON, player="ana", rounds=[3, 4]), AUDITOR, NOW
    )
    service = TableService(
        store, clock=SteppingClock(NOW, timedelta(seconds=1)), source=SeededDeckAndDice(9)
    )
    service.start()  # the system stream moves on between the dispute's own events
    cage = Actor(id="cage-1", role="cage")
    service.execute("PG-1", c.BuyIn(player_id="ana", amount=5_000, actor=cage, at=NOW), "more")
    if close:
        close_dispute(store, opening["dispute_id"], OUTCOME, FLOOR, NOW + timedelta(hours=1))
    out = tmp_path / "dispute.jsonl"
    export_dispute(store, opened.url, opening["dispute_id"], out)
    return out, opening


def verify(opened: Opened, path: Path) -> Any:
    source = open_bundle(path, public_key=None)
    source.public_key = opened.store.public_key  # the casino's published key
    try:
        return verify_log(source)
    finally:
        source.close()


def named(report: Any) -> list[tuple[str, int | None]]:
    return sorted({(f.clause, f.position) for f in report.findings}, key=str)


class Bundle:
    """The bundle's lines as JSON, edited in place and written back."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = [json.loads(line) for line in path.read_text().splitlines()]

    @property
    def manifest(self) -> dict[str, Any]:
        manifest: dict[str, Any] = self.lines[0]["manifest"]
        return manifest

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [e["event"] for e in self.lines if e.get("event", {}).get("type") == kind]

    def drop_checkpoint(self, position: int) -> None:
        self.lines = [e for e in self.lines if e.get("checkpoint", {}).get("position") != position]

    def write(self) -> None:
        self.path.write_text(
            "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in self.lines)
        )


def test_a_dispute_bundle_holds_the_dispute_events_and_verifies(
    opened: Opened, tmp_path: Path
) -> None:
    out, opening = disputed(opened, tmp_path)
    bundle = Bundle(out)
    manifest = bundle.manifest
    assert manifest["format_version"] == 2
    assert manifest["dispute"]["reason"] == REASON
    assert (manifest["dispute"]["status"], manifest["dispute"]["outcome"]) == ("closed", OUTCOME)
    assert [r["round"] for r in manifest["recall"]] == [3, 4]
    assert manifest["scope"] == {"table": "PG-1", "from_round": 3, "to_round": 4, "anchored": True}
    assert manifest["seal"]["key_id"] == manifest["public_key"]["key_id"]
    own = [(e["stream_id"], e["type"]) for e in bundle.events("dispute_opened")]
    own += [(e["stream_id"], e["type"]) for e in bundle.events("dispute_closed")]
    assert own == [(SYSTEM_STREAM, "dispute_opened"), (SYSTEM_STREAM, "dispute_closed")]
    holds = bundle.events("deck_held")
    assert [(h["stream_id"], json.loads(h["payload"])["deck_id"]) for h in holds] == [
        ("PG-1", "D-1"),
        ("PG-1", "D-2"),
    ]
    # The buy-in after the opening is not in it: the table's stream ends at the holds.
    assert [json.loads(e["payload"])["amount"] for e in bundle.events("chips_bought_in")] == [
        100_000
    ]
    signed = {c["checkpoint"]["position"] for c in bundle.lines if "checkpoint" in c}
    opened_at, closed_at = (
        bundle.events(k)[0]["position"] for k in ("dispute_opened", "dispute_closed")
    )
    assert {opened_at, closed_at} <= signed
    report = verify(opened, out)
    assert report.ok, [str(f) for f in report.findings]
    assert report.not_covered == []
    assert opening["dispute_id"] == manifest["dispute"]["dispute_id"]


def _edit_reason(b: Bundle) -> None:
    b.manifest["dispute"]["reason"] = "player ana was paid in full"


def _edit_outcome(b: Bundle) -> None:
    b.manifest["dispute"]["outcome"] = "rejected"


def _edit_recall(b: Bundle) -> None:
    settled = next(e for e in b.manifest["recall"][1]["events"] if e["type"] == "round_settled")
    settled["results"][0]["net"] += 10_000


def _edit_manifest(b: Bundle) -> None:
    b.manifest["exported_at"] = "2026-12-01T00:00:00+00:00"


def _edit_scope(b: Bundle) -> None:
    b.manifest["scope"]["from_round"] = 4


#: Each part of the manifest edited, and the findings that name it.
MANIFEST_EDITS: list[tuple[str, Callable[[Bundle], None], set[str], str]] = [
    ("reason", _edit_reason, {"bundle.dispute", "bundle.seal"}, "the manifest's dispute reason"),
    ("outcome", _edit_outcome, {"bundle.dispute", "bundle.seal"}, "dispute outcome says"),
    ("recall", _edit_recall, {"bundle.recall", "bundle.seal"}, "the recall of round 4 differs"),
    ("manifest", _edit_manifest, {"bundle.seal"}, "the manifest's seal does not hold"),
    ("scope", _edit_scope, {"bundle.scope", "bundle.seal"}, "scope from_round is 4"),
]


@pytest.mark.parametrize(
    ("part", "edit", "clauses", "words"), MANIFEST_EDITS, ids=[e[0] for e in MANIFEST_EDITS]
)
def test_an_edited_part_of_the_manifest_is_named(
    opened: Opened,
    tmp_path: Path,
    part: str,
    edit: Callable[[Bundle], None],
    clauses: set[str],
    words: str,
) -> None:
    out, _ = disputed(opened, tmp_path)
    bundle = Bundle(out)
    edit(bundle)
    bundle.write()
    report = verify(opened, out)
    assert {f.clause for f in report.findings} == clauses
    assert any(words in f.message for f in report.findings), [str(f) for f in report.findings]


def test_an_edited_dispute_event_is_named_at_its_position(opened: Opened, tmp_path: Path) -> None:
    """The reason changed in the ``dispute_opened`` event itself: its hash no longer holds."""
    out, _ = disputed(opened, tmp_path)
    bundle = Bundle(out)
    (event,) = bundle.events("dispute_opened")
    payload = json.loads(event["payload"])
    payload["reason"] = "player ana was paid in full"
    event["payload"] = json.dumps(payload, separators=(",", ":"), sort_keys=True)
    bundle.write()
    report = verify(opened, out)
    at = event["position"]
    assert ("chain.hash", at) in named(report)
    assert ("bundle.body", None) in named(report)


def test_a_re_hashed_dispute_event_misses_its_signed_checkpoint(
    opened: Opened, tmp_path: Path
) -> None:
    """The outcome rewritten with every hash recomputed, the manifest fixed to match: only the
    signatures stand in the way, and they name it."""
    out, _ = disputed(opened, tmp_path)
    bundle = Bundle(out)
    (event,) = bundle.events("dispute_closed")
    payload = json.loads(event["payload"])
    payload["outcome"] = "rejected"
    event["payload"] = json.dumps(payload, separators=(",", ":"), sort_keys=True)
    event["hash"] = event_hash(
        event["prev_hash"],
        event["stream_id"],
        event["version"],
        event["type"],
        event["schema_version"],
        event["recorded_at"],
        event["actor_id"],
        event["actor_role"],
        event["command_id"],
        event["payload"],
    )
    event["global_hash"] = global_hash(event["global_prev"], event["position"], event["hash"])
    bundle.manifest["dispute"]["outcome"] = "rejected"
    bundle.manifest["last"]["hash"] = event["hash"]
    bundle.manifest["last"]["global_hash"] = event["global_hash"]
    bundle.manifest["stream_heads"][SYSTEM_STREAM]["hash"] = event["hash"]
    bundle.write()
    report = verify(opened, out)
    clauses = {f.clause for f in report.findings}
    assert {"chain.checkpoint", "bundle.seal", "bundle.body"} <= clauses
    assert "bundle.dispute" not in clauses  # the record matches the (re-hashed) event
    checkpoint = next(f for f in report.findings if f.clause == "chain.checkpoint")
    assert event["position"] in (checkpoint.position, checkpoint.last_position)


@pytest.mark.parametrize("which", ["dispute_opened", "dispute_closed"])
def test_a_dropped_checkpoint_leaves_the_dispute_event_unsealed(
    opened: Opened, tmp_path: Path, which: str
) -> None:
    """A checkpoint at the other dispute event does not vouch for this one: the bundle does not
    hold the system stream between them."""
    out, _ = disputed(opened, tmp_path)
    bundle = Bundle(out)
    at = bundle.events(which)[0]["position"]
    bundle.drop_checkpoint(at)
    bundle.manifest["checkpoints"] -= 1
    bundle.write()
    report = verify(opened, out)
    unsealed = [f for f in report.findings if f.clause == "chain.unsealed"]
    assert [f.position for f in unsealed] == [at if which == "dispute_closed" else at - 2]
    assert {f.clause for f in report.findings} == {"chain.unsealed", "bundle.body", "bundle.seal"}


def test_a_dropped_deck_hold_is_named(opened: Opened, tmp_path: Path) -> None:
    out, _ = disputed(opened, tmp_path)
    bundle = Bundle(out)
    last_hold = bundle.events("deck_held")[-1]
    bundle.lines = [e for e in bundle.lines if e.get("event") is not last_hold]
    bundle.write()
    report = verify(opened, out)
    messages = [f.message for f in report.findings if f.clause == "bundle.dispute"]
    assert messages == [
        "deck D-2 was held by the dispute's opening, but its deck_held event is not in the bundle"
    ]


def test_a_stripped_seal_is_a_finding_of_a_dispute_bundle(opened: Opened, tmp_path: Path) -> None:
    out, _ = disputed(opened, tmp_path)
    bundle = Bundle(out)
    del bundle.manifest["seal"]
    bundle.write()
    report = verify(opened, out)
    assert [(f.clause, f.message) for f in report.findings] == [
        ("bundle.seal", "a dispute bundle must be sealed: no seal")
    ]


def test_an_old_format_bundle_is_checked_for_what_it_carries(
    opened: Opened, tmp_path: Path
) -> None:
    """Format 1 (before bundles were sealed): no seal, no body digest, no dispute events. Its
    events, checkpoints and recall are checked; the report says plainly what is not covered."""
    out, _ = disputed(opened, tmp_path)
    bundle = Bundle(out)
    manifest = bundle.manifest
    for key in ("seal", "body_sha256"):
        del manifest[key]
    manifest["format_version"] = 1
    # As format 1 was written: the table's stream through the last disputed round alone.
    new = ("dispute_opened", "dispute_closed", "deck_held")
    gone = {e["event"]["position"] for e in bundle.lines if e.get("event", {}).get("type") in new}
    last = max(
        e["event"]["position"]
        for e in bundle.lines
        if "event" in e and e["event"]["position"] not in gone
    )
    bundle.lines = [
        e
        for e in bundle.lines
        if e.get("event", e.get("checkpoint", {})).get("position") not in gone
    ]
    counts = manifest["counts"]
    counts["events"] -= len(gone)
    counts["streams"] = 1
    counts["by_type"] = {k: v for k, v in counts["by_type"].items() if k not in new}
    del manifest["stream_heads"][SYSTEM_STREAM]
    table = next(e["event"] for e in bundle.lines if e.get("event", {}).get("position") == last)
    manifest["last"] = {k: table[k] for k in manifest["last"]}
    manifest["stream_heads"]["PG-1"] = {"version": table["version"], "hash": table["hash"]}
    manifest["checkpoints"] = sum(1 for e in bundle.lines if "checkpoint" in e)
    manifest["dispute"]["reason"] = "edited: not covered in format 1"
    bundle.write()
    report = verify(opened, out)
    assert report.ok, [str(f) for f in report.findings]
    assert report.not_covered == [
        "the manifest is not sealed (bundle format 1): its export time, source, software version "
        "and scope are carried as written",
        "the dispute record (reason, player, outcome, who) is carried as written: this format 1 "
        "bundle holds no dispute events",
    ]
    assert "NOT covered: the manifest is not sealed (bundle format 1)" in report.summary()
    # Its recall is still derived again from its events.
    _edit_recall(bundle)
    bundle.write()
    assert {f.clause for f in verify(opened, out).findings} == {"bundle.recall"}


def test_a_bundle_rewritten_as_format_1_still_has_its_dispute_events_checked(
    opened: Opened, tmp_path: Path
) -> None:
    """Format 1 with the seal and digest stripped and the reason edited: the dispute's events are
    still in it, so the record is still compared with them."""
    out, _ = disputed(opened, tmp_path)
    bundle = Bundle(out)
    for key in ("seal", "body_sha256"):
        del bundle.manifest[key]
    bundle.manifest["format_version"] = 1
    _edit_reason(bundle)
    bundle.write()
    report = verify(opened, out)
    assert {f.clause for f in report.findings} == {"bundle.dispute"}
    assert report.not_covered == [
        "the manifest is not sealed (bundle format 1): its export time, source, software version "
        "and scope are carried as written"
    ]


def test_an_open_dispute_exports_and_verifies(opened: Opened, tmp_path: Path) -> None:
    out, _ = disputed(opened, tmp_path, close=False)
    bundle = Bundle(out)
    assert bundle.manifest["dispute"]["status"] == "open"
    assert bundle.events("dispute_closed") == []
    assert verify(opened, out).ok
