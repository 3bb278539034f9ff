"""The bundle round-trips: export, verify with no database, and any change to the file is found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.bundle import export, open_bundle
from audit.recall import recall
from audit.sources import AuditUsageError
from audit.verify import verify_log

from .conftest import Casino


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def verify_bundle(path: Path, **scope: object) -> object:
    source = open_bundle(path)
    try:
        return verify_log(source, **scope)  # type: ignore[arg-type]
    finally:
        source.close()


def test_a_whole_log_bundle_verifies_offline_like_the_database(
    sqlite_casino: Casino, tmp_path: Path
) -> None:
    out = tmp_path / "casino.bundle"
    manifest = export(sqlite_casino.url, out)
    offline = verify_bundle(out)
    online = sqlite_casino.audit()
    assert offline.ok and online.ok  # type: ignore[attr-defined]
    assert (offline.events, offline.rounds, offline.checkpoints) == (  # type: ignore[attr-defined]
        online.events,
        online.rounds,
        online.checkpoints,
    )
    assert offline.signatures_checked  # type: ignore[attr-defined]
    assert manifest["counts"]["events"] == online.events
    assert manifest["counts"]["rounds"] == sqlite_casino.stats.rounds
    assert manifest["last"]["global_hash"] == sqlite_casino.forger.rows()[-1][13]
    assert manifest["software_version"]
    assert [p["table_id"] for p in manifest["rules_profiles"]][:2] == ["PG-1", "PG-2"]
    first = json.loads(lines(out)[0])
    assert first["manifest"]["format"] == "paigow-audit-bundle"


def test_a_table_bundle_holds_its_rounds_and_verifies_alone(
    sqlite_casino: Casino, tmp_path: Path
) -> None:
    out = tmp_path / "pg2.bundle"
    manifest = export(sqlite_casino.url, out, table="PG-2", from_round=2, to_round=4)
    assert manifest["stream_heads"].keys() == {"PG-2"}
    assert manifest["counts"]["rounds"] == 4  # rounds 1..4: round 1 is folded, not audited
    # Each round end was signed at a PG-2 event, and so was each table fact between rounds
    # (issue 17: every event sealed): the checkpoints at PG-2's events up to round 4's end.
    rows, checkpoints = sqlite_casino.store.raw_log()
    pg2 = [r for r in rows if r[1] == "PG-2"]
    end = next(r[0] for r in pg2 if r[3] == "round_closed" and '"round":4' in r[5])
    ours = {r[0] for r in pg2 if r[0] <= end} & {c[0] for c in checkpoints}
    assert len(ours) > 4 and manifest["checkpoints"] == len(ours)
    report = verify_bundle(out, table="PG-2", first_round=2, last_round=4)
    assert report.ok, report.findings  # type: ignore[attr-defined]
    assert report.rounds == 3 and report.checkpoints == len(ours)  # type: ignore[attr-defined]


def test_a_changed_byte_in_the_bundle_is_found(sqlite_casino: Casino, tmp_path: Path) -> None:
    out = tmp_path / "casino.bundle"
    export(sqlite_casino.url, out, table="PG-1")
    text = lines(out)
    number, line = next(
        (n, t) for n, t in enumerate(text) if '\\"type\\":\\"commission_taken\\"' in t
    )
    row = json.loads(line)["event"]
    payload = json.loads(row["payload"])
    payload["amount"] += 1
    row["payload"] = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    text[number] = json.dumps({"event": row}, separators=(",", ":")) + "\n"
    out.write_text("".join(text), encoding="utf-8")
    report = verify_bundle(out)
    assert not report.ok  # type: ignore[attr-defined]
    first = report.findings[0]  # type: ignore[attr-defined]
    assert (first.kind, first.clause, first.position) == (
        "integrity",
        "chain.hash",
        row["position"],
    )


def test_an_event_removed_from_the_bundle_is_found(sqlite_casino: Casino, tmp_path: Path) -> None:
    out = tmp_path / "casino.bundle"
    export(sqlite_casino.url, out, table="PG-1")
    text = lines(out)
    removed = json.loads(text[40])["event"]
    del text[40]
    out.write_text("".join(text), encoding="utf-8")
    report = verify_bundle(out)
    clauses = {(f.clause, f.version) for f in report.findings}  # type: ignore[attr-defined]
    assert ("chain.sequence", removed["version"] + 1) in clauses
    assert any(c == "bundle.manifest" for c, _ in clauses)


def test_a_truncated_bundle_is_found_by_its_manifest(sqlite_casino: Casino, tmp_path: Path) -> None:
    out = tmp_path / "casino.bundle"
    export(sqlite_casino.url, out)
    text = [t for t in lines(out) if not t.startswith('{"checkpoint"')]
    out.write_text("".join(text[:-30]), encoding="utf-8")  # the last events and every checkpoint
    report = verify_bundle(out)
    messages = [f.message for f in report.findings]  # type: ignore[attr-defined]
    assert any("the manifest's last does not match" in m for m in messages)
    assert any("checkpoints" in m for m in messages)


def test_a_file_that_is_no_bundle_is_bad_usage(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("hello\n", encoding="utf-8")
    with pytest.raises(AuditUsageError, match="not a paigow audit bundle"):
        open_bundle(junk)
    with pytest.raises(AuditUsageError, match="cannot open"):
        open_bundle(tmp_path / "missing.bundle")


def test_recall_lays_out_a_round_from_the_database_and_from_a_bundle(
    sqlite_casino: Casino, tmp_path: Path
) -> None:
    record = recall("PG-1", 2, db=sqlite_casino.url)
    assert record is not None
    types = [e["type"] for e in record["events"]]
    assert types[0] == "round_started" and types[-1] in ("round_closed", "round_voided")
    assert "banker_hand_set" in types or record["status"] == "voided"
    assert record["rules"]["house_way"] == "fr"
    out = tmp_path / "casino.bundle"
    export(sqlite_casino.url, out)
    assert recall("PG-1", 2, bundle=out) == record
    assert recall("PG-1", 99, db=sqlite_casino.url) is None
