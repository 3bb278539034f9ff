"""A self-contained audit bundle: the log as JSON lines, for a machine with no database.

One UTF-8 text file, one JSON object per line::

    {"manifest": {...}}                       the first line
    {"event": {"position": 1, "stream_id": ..., "payload": "<the stored bytes>", ...}}
    ...                                       every event, global position order
    {"checkpoint": {"position": ..., "hash": ..., "signed_at": ..., "key_id": ..., ...}}

Each event carries every stored column (``eventlog.query.ROW_COLUMNS``); ``payload`` is the
exact stored text, so every hash recomputes. The manifest holds the counts, the first and last
events' hashes, each stream's head, the rules profiles recorded, the public key the checkpoints
were signed with, the software version, the SHA-256 of every line after it (``body_sha256``) and,
when the exporter holds the signing key, its ``seal`` (format 2, ``audit.bundle_checks``).
``paigow audit verify --bundle FILE`` checks all of it and re-derives every round, exactly as from
the database. A dispute's bundle (R17, ``audit.bundle_dispute``) also carries the dispute's own
events, and its record and recall, derived from them.

Scope: the whole log, or one table (``--table``). A table's bundle holds its stream from the first
event (its state at any round is re-derived, never taken from a snapshot) up to the end of round
``--to``; ``--from`` names the first round whose rules are re-derived. Between one table's events
the global chain runs through other tables, so each event's global link is checked on its own and
the checkpoints kept are those signed at one of its events (the end of a round, on SQLite).

The bundle's own public key proves nothing against someone who rewrote the bundle and re-signed
it: an auditor passes the casino's published key with ``--public-key``; the summary names the key.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from hashlib import sha256
from pathlib import Path
from typing import Any, Protocol, TextIO

from sqlalchemy.engine import URL

from audit.bundle_checks import BundleChecks, manifest_digest
from audit.bundle_dispute import dispute_rows
from audit.findings import Finding
from audit.round_records import RoundRecords
from audit.sources import (
    AuditUsageError,
    Heads,
    LogSource,
    checkpoint_rows,
    connect,
    log_rows,
    log_url,
    public_key_for,
    stream_rows,
)
from eventlog.keys import key_id
from eventlog.provenance import software_version
from eventlog.query import CHECKPOINT_COLUMNS, ROW_COLUMNS

FORMAT = "paigow-audit-bundle"
FORMAT_VERSION = 2
#: The formats this reader checks: 1 before bundles were sealed (``bundle_checks``).
FORMAT_VERSIONS = (1, 2)
_PROFILE_TYPES = frozenset({"table_opened", "rules_changed"})


class _Tally:
    """What the manifest says about the events: kept while writing, and again while reading."""

    def __init__(self) -> None:
        self.events = 0
        self.by_type: Counter[str] = Counter()
        self.first: dict[str, Any] | None = None
        self.last: dict[str, Any] | None = None
        self.heads: dict[str, dict[str, Any]] = {}
        self.rounds: dict[str, int] = {}
        self.profiles: list[dict[str, Any]] = []

    def add(self, row: Sequence[Any]) -> None:
        self.events += 1
        kind = row[3]
        self.by_type[kind] += 1
        mark = {
            "position": row[0],
            "stream_id": row[1],
            "version": row[2],
            "hash": row[11],
            "global_hash": row[13],
        }
        if self.first is None:
            self.first = mark
        self.last = mark
        self.heads[row[1]] = {"version": row[2], "hash": row[11]}
        if kind == "round_started" or kind in _PROFILE_TYPES:
            try:
                payload = json.loads(row[5])
            except (TypeError, ValueError):
                return
            if kind == "round_started":
                self.rounds[row[1]] = self.rounds.get(row[1], 0) + 1
            elif isinstance(payload, dict):
                rules = payload.get("rules")
                self.profiles.append(
                    {
                        "table_id": row[1],
                        "position": row[0],
                        "version": rules.get("version") if isinstance(rules, dict) else None,
                        "applies_from_round": payload.get("applies_from_round", 1),
                        "rules": rules,
                    }
                )

    def as_manifest(self) -> dict[str, Any]:
        return {
            "counts": {
                "events": self.events,
                "streams": len(self.heads),
                "rounds": sum(self.rounds.values()),
                "by_type": dict(sorted(self.by_type.items())),
            },
            "first": self.first,
            "last": self.last,
            "stream_heads": dict(sorted(self.heads.items())),
            "rules_profiles": self.profiles,
        }


# --- export ------------------------------------------------------------------------------------


class Sealer(Protocol):
    """The casino's signing key, as the exporter holds it (``adapters.store.signing.Signer``)."""

    @property
    def public_raw(self) -> bytes: ...

    def seal_bundle(self, digest: str) -> tuple[str, str]: ...


def export(
    url: str | URL,
    out: str | Path,
    *,
    table: str | None = None,
    from_round: int | None = None,
    to_round: int | None = None,
    public_key: str | Path | None = None,
    signing_key: str | Path | None = None,
    extra: dict[str, Any] | None = None,
    through_position: int | None = None,
    dispute: str | None = None,
    sealer: Sealer | None = None,
    replace_bundle: bool = False,
) -> dict[str, Any]:
    """Write the bundle of the database at ``url`` to ``out`` (atomically) and answer its
    manifest; the key is ``sources.public_key_for``'s (else the sealer's). ``extra``: more
    manifest entries, carried as given. ``through_position``: the whole log up to that global
    position only (a purge's archive, R18). ``dispute``: a dispute's bundle (R17,
    ``bundle_dispute``). ``sealer``: seal the manifest (``bundle_checks``). ``replace_bundle``:
    an earlier bundle at ``out`` may be replaced (``target_problem``)."""
    _refuse_target(out, replace_bundle)
    connection, mark, shown = connect(url)
    try:
        key = public_key_for(log_url(url), public_key, signing_key)
        if key is None and sealer is not None:
            key = sealer.public_raw
        recall: RoundRecords | None = None
        if dispute is not None:
            chosen = dispute_rows(connection, mark, shown, dispute)
            table, from_round, to_round = chosen.table, chosen.from_round, chosen.to_round
            recall = RoundRecords(table, chosen.record["rounds"])
            rows: Iterator[tuple[Any, ...]] = chosen.rows
        elif table is not None:
            rows = _through_round(stream_rows(connection, mark, table), to_round)
        else:
            rows = _through_position(log_rows(connection), through_position)
        checkpoints = [
            c
            for c in checkpoint_rows(connection)
            if through_position is None or c[0] <= through_position
        ]
        target = Path(out)
        tally = _Tally()
        body_digest = sha256()
        with tempfile.TemporaryFile("w+", encoding="utf-8") as body:

            def write(text: str) -> None:
                body.write(text)
                body_digest.update(text.encode("utf-8"))

            positions = set()  # one table's: the checkpoints signed at one of its events
            for row in rows:
                tally.add(row)
                if table is not None:
                    positions.add(row[0])
                if recall is not None and row[1] == table:
                    recall.add(row)
                write(_line("event", dict(zip(ROW_COLUMNS, row, strict=True))))
            kept = [c for c in checkpoints if table is None or c[0] in positions]
            for checkpoint in kept:
                write(_line("checkpoint", dict(zip(CHECKPOINT_COLUMNS, checkpoint, strict=True))))
            if table is not None and tally.events == 0:
                raise AuditUsageError(f"table {table} has no events in {shown}")
            if dispute is not None:
                assert recall is not None
                records = recall.records()
                extra = {
                    **(extra or {}),
                    "dispute": chosen.record,
                    "recall": [records[n] for n in chosen.record["rounds"] if n in records],
                }
            manifest = {
                "format": FORMAT,
                "format_version": FORMAT_VERSION,
                "software_version": software_version(),
                "exported_at": datetime.now(UTC).isoformat(),
                "source": shown,
                "scope": {
                    "table": table,
                    "from_round": from_round,
                    "to_round": to_round,
                    "anchored": table is not None,
                    **({} if through_position is None else {"through_position": through_position}),
                },
                **tally.as_manifest(),
                "checkpoints": len(kept),
                "public_key": None if key is None else {"key_id": key_id(key), "hex": key.hex()},
                **(extra or {}),
                "body_sha256": body_digest.hexdigest(),
            }
            if sealer is not None:
                signer, signature = sealer.seal_bundle(manifest_digest(manifest))
                manifest["seal"] = {"key_id": signer, "signature": signature}
            body.seek(0)
            _refuse_target(target, replace_bundle)  # nothing appeared there meanwhile
            _write_atomically(target, _line("manifest", manifest), body)
        return manifest
    finally:
        connection.close()


def _line(kind: str, value: Any) -> str:
    return json.dumps({kind: value}, separators=(",", ":"), ensure_ascii=True) + "\n"


def target_problem(out: str | Path, *, replace_bundle: bool = False) -> str | None:
    """Why a bundle may not be written at ``out``, else None. The bundle is renamed over ``out``
    once whole, so a file there is replaced only when it is empty (a name made for it) or, with
    ``replace_bundle``, an earlier bundle: never anything else (the database itself, a key, the
    archive of a purge, whose events are nowhere else)."""
    target = Path(out)
    if target.is_dir():
        return f"{target} is a folder: name the bundle's file"
    if not target.parent.is_dir():
        return f"{target}: no folder {target.parent}"
    if not os.access(target.parent, os.W_OK | os.X_OK):
        return f"{target}: the folder {target.parent} is not writable"
    try:
        if target.stat().st_size == 0 or (replace_bundle and _is_bundle(target)):
            return None
    except FileNotFoundError:
        return None
    if replace_bundle:
        return f"{target} exists and is no audit bundle: a bundle never replaces another file"
    return f"{target} exists: this bundle never replaces a file (name a new one)"


def _refuse_target(out: str | Path, replace_bundle: bool) -> None:
    problem = target_problem(out, replace_bundle=replace_bundle)
    if problem is not None:
        raise AuditUsageError(problem)


def _is_bundle(path: Path) -> bool:
    """Whether ``path`` starts with a bundle's manifest line."""
    try:
        with path.open("rb") as handle:
            manifest = json.loads(handle.readline(1 << 20))["manifest"]
        return isinstance(manifest, dict) and manifest.get("format") == FORMAT
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _write_atomically(target: Path, head: str, body: TextIO) -> None:
    handle, temporary = tempfile.mkstemp(dir=target.parent or Path("."), prefix=".bundle-")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(head)
            while chunk := body.read(1 << 20):
                out.write(chunk)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _through_position(rows: Iterator[tuple[Any, ...]], last: int | None) -> Iterator[Any]:
    for row in rows:
        if last is not None and row[0] > last:
            return
        yield row


def _through_round(rows: Iterator[tuple[Any, ...]], to_round: int | None) -> Iterator[Any]:
    """A stream's rows up to the end of round ``to_round``: stop at the next round's start."""
    for row in rows:
        if to_round is not None and row[3] == "round_started":
            try:
                number = json.loads(row[5]).get("round")
            except (TypeError, ValueError, AttributeError):
                number = None
            if isinstance(number, int) and number > to_round:
                return
        yield row


# --- read --------------------------------------------------------------------------------------


def open_bundle(
    path: str | Path, public_key: str | Path | None = None, public_setting: str | None = None
) -> LogSource:
    """The log in a bundle file; the manifest is checked against the events after the pass. The
    key: the one given, else the public key setting, else the bundle's own."""
    target = Path(path)
    try:
        # newline="": the lines exactly as the file holds them, for the body's digest.
        handle = target.open("r", encoding="utf-8", newline="")
    except OSError as error:
        raise AuditUsageError(f"cannot open the bundle {target}: {error.strerror}") from None
    findings: list[Finding] = []
    manifest = _read_manifest(target, handle)
    chosen = public_key if public_key is not None else public_setting
    key = public_key_for(None, chosen) if chosen else _manifest_key(manifest)
    key_source = ("given" if public_key is not None else "setting") if chosen else "bundle"
    tally = _Tally()
    checks = BundleChecks(manifest, manifest["format_version"])
    checkpoints: list[tuple[Any, ...]] = []
    # Checkpoints follow the events; they are read first so the pass can check them in order.
    body_start = handle.tell()
    for number, line in enumerate(handle, start=2):
        if line.startswith('{"checkpoint":'):
            try:
                value = json.loads(line)["checkpoint"]
                checkpoints.append(tuple(value[c] for c in CHECKPOINT_COLUMNS))
            except (ValueError, KeyError, TypeError) as error:
                findings.append(_damaged(number, f"unreadable checkpoint: {error}"))
    handle.seek(body_start)

    def rows() -> Iterator[tuple[Any, ...]]:
        for number, line in enumerate(handle, start=2):
            checks.line(line)
            if line.startswith('{"checkpoint":'):
                continue
            try:
                value = json.loads(line)["event"]
                row = tuple(value[c] for c in ROW_COLUMNS)
            except (ValueError, KeyError, TypeError) as error:
                findings.append(_damaged(number, f"unreadable event line: {error}"))
                continue
            tally.add(row)
            checks.row(row)
            yield row

    def after(heads: Heads) -> list[Finding]:
        return findings + _manifest_findings(manifest, tally, len(checkpoints))

    scope = manifest.get("scope") or {}
    return LogSource(
        name=f"bundle {target.name}",
        rows=rows(),
        checkpoints=checkpoints,
        public_key=key,
        total=(manifest.get("counts") or {}).get("events"),
        anchored=bool(scope.get("anchored")),
        after=after,
        close=handle.close,
        manifest=manifest,
        key_source=key_source if key is not None else None,
        sealed=checks.findings,
        not_covered=checks.notes,
    )


def _read_manifest(target: Path, handle: TextIO) -> dict[str, Any]:
    """The bundle's first line, its manifest, of this format and version; the handle is closed
    and ``AuditUsageError`` raised when it is not."""
    try:
        manifest = json.loads(handle.readline())["manifest"]
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise ValueError("not a paigow audit bundle")
    except (ValueError, KeyError, TypeError) as error:
        handle.close()
        raise AuditUsageError(f"{target} is not a paigow audit bundle: {error}") from None
    if manifest.get("format_version") not in FORMAT_VERSIONS:
        handle.close()
        raise AuditUsageError(
            f"{target} is bundle format {manifest.get('format_version')}, this paigow reads "
            f"{' and '.join(str(v) for v in FORMAT_VERSIONS)}"
        )
    return manifest


def _manifest_key(manifest: dict[str, Any]) -> bytes | None:
    entry = manifest.get("public_key")
    if not isinstance(entry, dict) or not isinstance(entry.get("hex"), str):
        return None
    try:
        return bytes.fromhex(entry["hex"])
    except ValueError:
        return None


def _damaged(line: int, detail: str) -> Finding:
    return Finding(
        kind="integrity", clause="bundle.damaged", message=f"bundle line {line}: {detail}"
    )


def _manifest_findings(manifest: dict[str, Any], tally: _Tally, checkpoints: int) -> list[Finding]:
    """The manifest against the events read: every figure it states must hold."""
    found = tally.as_manifest()
    out = []
    for name in ("counts", "first", "last", "stream_heads", "rules_profiles"):
        if manifest.get(name) != found[name]:
            out.append(
                Finding(
                    kind="integrity",
                    clause="bundle.manifest",
                    message=(
                        f"the manifest's {name} does not match the events in the bundle: it "
                        f"says {_short(manifest.get(name))}, the events give {_short(found[name])}"
                    ),
                )
            )
    if manifest.get("checkpoints") != checkpoints:
        out.append(
            Finding(
                kind="integrity",
                clause="bundle.manifest",
                message=f"the manifest counts {manifest.get('checkpoints')} checkpoints, the "
                f"bundle holds {checkpoints}",
            )
        )
    return out


def _short(value: Any) -> str:
    text = json.dumps(value, separators=(",", ":"))
    return text if len(text) <= 300 else text[:297] + "..."
