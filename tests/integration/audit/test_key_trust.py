"""Issue 17: keys the verifier did not choose are not trusted. Key rotation is an event of the
system stream signed by the old key: a verifier holding the first key follows each rotation and
refuses a checkpoint signed by a key it cannot reach. Signing key files are 0600, checked on load.
On SQLite and PostgreSQL where the log is involved."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from adapters.projections import ProjectionRunner
from adapters.store import open_store
from adapters.store.signing import Signer
from entrypoints.cli.main import main
from eventlog.canonical import key_rotation_message
from eventlog.keys import KeyFileExposed
from eventlog.system_events import SYSTEM_STREAM, SigningKeyRotated
from service_layer.operators.keys import key_store_for
from service_layer.service import TableService
from table_core.ports import UntaggedEvents

from .conftest import Casino


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def _audit(casino: Casino, capsys: Any, key: Path) -> tuple[int, list[dict[str, Any]]]:
    status, out, _ = _run(
        capsys, "audit", "verify", "--db", casino.url, "--public-key", str(key), "--format", "json"
    )
    return status, [json.loads(line) for line in out.splitlines()]


def _start_stop(url: str, key: Signer | Path) -> None:
    """A service run on ``key``: its start and stop are each sealed by a checkpoint."""
    store = open_store(url, signing_key=key)
    try:
        service = TableService(store)
        service.start()
        service.stop()
    finally:
        store.close()


def _old_key(casino: Casino, tmp_path: Path) -> tuple[Path, Path]:
    signer = casino.store.signer
    assert signer is not None
    path = tmp_path / "first.key"
    return path, signer.write(path)


def test_a_verifier_holding_the_first_key_follows_a_rotation(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    old, old_pub = _old_key(casino, tmp_path)
    new = tmp_path / "second.key"
    # The rotation acts as the key officer's API key (R19): the store's first key.
    security = tmp_path / "security.key"
    security.write_text(
        key_store_for(casino.store).create("sec-1", "security", datetime.now(UTC))[1]
    )
    security.chmod(0o600)
    status, out, err = _run(
        capsys,
        "keys",
        "signing",
        "rotate",
        "--db",
        casino.url,
        "--key",
        str(old),
        "--out",
        str(new),
        "--key-file",
        str(security),
    )
    assert status == 0, err
    rotated = json.loads(out)
    assert os.stat(new).st_mode & 0o777 == 0o600
    assert "set PAIGOW_SIGNING_KEY=" in err
    _start_stop(casino.url, new)
    status, lines = _audit(casino, capsys, old_pub)
    assert status == 0, lines
    summary = lines[-1]
    assert summary["keys_followed"] == [rotated["new_key_id"]]
    assert f"(rotated to {rotated['new_key_id']})" in summary["summary"]
    # A service left on the old key after the rotation cannot vouch for the new key's appends
    # (their tags are not its key's, issue 17): it signs nothing, records verification_failed
    # naming the first of them, and the audit fails on its unsealed events.
    after = casino.forger.rows()[-1][0]
    _start_stop(casino.url, Signer.from_file(old))
    status, lines = _audit(casino, capsys, old_pub)
    assert status == 1
    failed = [r for r in casino.forger.rows() if r[3] == "verification_failed"]
    assert [json.loads(r[5])["problem"] for r in failed] == ["untagged"]
    assert [(f["clause"], f["position"]) for f in lines[:-1]] == [
        ("chain.unsealed", after + 1),
        ("service.verification_failed", failed[0][0]),  # the service's own record of it
    ]


def test_a_checkpoint_signed_by_a_key_it_cannot_reach_is_refused(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    _old, old_pub = _old_key(casino, tmp_path)
    before = casino.forger.rows()[-1][0]
    stranger = Signer.generate()
    _start_stop(casino.url, stranger)
    status, lines = _audit(casino, capsys, old_pub)
    assert status == 1
    findings = lines[:-1]
    # A key that signed nothing of this log cannot check a tag of it (issue 17): the service on
    # it signs nothing and records verification_failed, and what it appended is unsealed.
    assert [(f["clause"], f["position"]) for f in findings] == [
        ("chain.unsealed", before + 1),
        ("service.verification_failed", before + 3),
    ]
    types = [r[3] for r in casino.forger.rows() if r[0] > before]
    assert types == [
        "service_started",
        "store_opened",
        "verification_failed",
        "commands_refused",
        "service_stopped",
    ]
    assert casino.store.checkpoints()[-1].position <= before
    store = open_store(casino.url, signing_key=stranger)  # nor a bare checkpoint
    try:
        with pytest.raises(UntaggedEvents):
            store.checkpoint(casino.store.checkpoints()[-1].at)
    finally:
        store.close()
    # A checkpoint signed by that key all the same (its holder INSERTs it): the audit refuses
    # it, a key it cannot reach from the key it holds.
    last = casino.forger.rows()[-1]
    signed_at = str(last[6])
    casino.forger._insert_only(
        [
            (
                "INSERT INTO checkpoints (position, hash, signed_at, key_id, signature) "
                "VALUES (?, ?, ?, ?, ?)",
                (last[0], last[13], signed_at, stranger.key_id,
                 stranger.sign(last[0], last[13], signed_at)),
            )
        ]
    )  # fmt: skip
    status, lines = _audit(casino, capsys, old_pub)
    assert status == 1
    findings = lines[:-1]
    assert [(f["clause"], f["position"]) for f in findings] == [
        ("chain.unsealed", before + 1),
        ("service.verification_failed", before + 3),
        ("chain.checkpoint", last[0]),
    ]
    assert f"signed by key {stranger.key_id}, not " in findings[2]["message"]
    assert "cannot reach" in findings[2]["message"]


def test_a_rotation_the_key_in_force_did_not_sign_is_not_followed(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    """The insider writes a rotation to a key of their own, signed by that key (they do not hold
    the casino's): the rotation is a finding and its key signs nothing the audit accepts."""
    _old, old_pub = _old_key(casino, tmp_path)
    mine = Signer.generate()
    at = casino.forger.rows()[-1][6]
    message = key_rotation_message(casino.store.signer.key_id, mine.public_raw.hex(), at)
    event = SigningKeyRotated.model_validate(
        {
            "at": at,
            "old_key_id": casino.store.signer.key_id,
            "new_key_id": mine.key_id,
            "new_public_key": mine.public_raw.hex(),
            "signed_at": at,
            "signature": mine.private_key.sign(message).hex(),
        }
    )
    payload = event.model_dump(mode="json")
    payload["at"] = at
    position = casino.forger.append_forged(SYSTEM_STREAM, "signing_key_rotated", payload)
    status, lines = _audit(casino, capsys, old_pub)
    assert status == 1
    found = [(f["clause"], f["position"]) for f in lines[:-1]]
    assert ("keys.rotation", position) in found
    assert ("chain.unsealed", position) in found


def test_a_group_readable_private_key_is_refused_on_load(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "casino.key"
    Signer.generate().write(path)
    assert os.stat(path).st_mode & 0o777 == 0o600
    Signer.from_file(path)  # 0600 loads
    os.chmod(path, 0o640)
    with pytest.raises(KeyFileExposed, match=r"readable by its group or others \(mode 0640\)"):
        Signer.from_file(path)
    status, out, err = _run(capsys, "keys", "signing", "show", "--key", str(path))
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith(f"paigow: the private key {path} is readable")


def test_signing_key_commands(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "casino.key"
    status, out, _ = _run(capsys, "keys", "signing", "create", "--out", str(path))
    assert status == 0
    made = json.loads(out)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert made["public_key_file"] == f"{path}.pub"
    status, out, _ = _run(capsys, "keys", "signing", "show", "--key", str(path))
    assert (status, json.loads(out)["key_id"]) == (0, made["key_id"])
    status, out, _ = _run(capsys, "keys", "signing", "show", "--key", f"{path}.pub")
    assert json.loads(out)["public_key"] == made["public_key"]
    status, out, _ = _run(capsys, "keys", "signing", "export-public", "--key", str(path))
    assert out.encode() == Path(f"{path}.pub").read_bytes()
    # To a file: a new one, or one holding that very key; never over the private key (a typo).
    private = path.read_bytes()
    status, out, err = _run(
        capsys, "keys", "signing", "export-public", "--key", str(path), "--out", str(path)
    )
    assert (status, err) == (
        2,
        f"paigow: {path} exists and holds something else: a key file is never overwritten\n",
    )
    assert path.read_bytes() == private
    for target in (tmp_path / "regulator.pub", Path(f"{path}.pub")):
        status, out, err = _run(
            capsys, "keys", "signing", "export-public", "--key", str(path), "--out", str(target)
        )
        assert (status, out, err) == (0, "", "")
        assert target.read_bytes() == Path(f"{path}.pub").read_bytes()
    status, out, err = _run(capsys, "keys", "signing", "create", "--out", str(path))
    assert (status, err) == (
        2,
        f"paigow: {path} exists: a signing key and its public key are never overwritten "
        "(nothing was written)\n",
    )
    # A published public key alone is never written over either, and no private key is left.
    other = tmp_path / "other.key"
    Path(f"{other}.pub").write_bytes(b"the key the regulator was given")
    status, out, err = _run(capsys, "keys", "signing", "create", "--out", str(other))
    assert (status, err) == (
        2,
        f"paigow: {other}.pub exists: a signing key and its public key are never overwritten "
        "(nothing was written)\n",
    )
    assert Path(f"{other}.pub").read_bytes() == b"the key the regulator was given"
    assert not other.exists()
    # Beside a SQLite database, where the store looks (the server's advice names this command).
    status, out, _ = _run(capsys, "keys", "signing", "create", "--db", f"sqlite:///{tmp_path}/c.db")
    assert status == 0 and json.loads(out)["private_key_file"] == f"{tmp_path}/c.db.signing-key"
    status, _, err = _run(
        capsys, "keys", "signing", "create", "--db", "postgresql://postgres@127.0.0.1/test"
    )
    assert status == 2 and "keeps no key beside it: give --out FILE" in err
    assert json.loads(_run(capsys, "keys", "signing", "show", "--key", str(path))[1]) == {
        "key_id": made["key_id"],
        "public_key": made["public_key"],
        "file": str(path),
    }


def test_report_verify_refuses_an_edited_projection(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    _old, old_pub = _old_key(casino, tmp_path)
    os.environ["PAIGOW_PUBLIC_KEY"] = str(old_pub)
    try:
        status, out, err = _run(capsys, "report", "--db", casino.url, "--day", "all", "--verify")
        assert (status, err) == (0, ""), err
        ProjectionRunner(casino.store).catch_up()
        with casino.store.engine.begin() as connection:
            connection.exec_driver_sql("UPDATE proj_bankroll_house SET commission = commission + 1")
        status, out, err = _run(capsys, "report", "--db", casino.url, "--day", "all", "--verify")
    finally:
        del os.environ["PAIGOW_PUBLIC_KEY"]
    assert status == 1 and out == ""
    lines = err.splitlines()
    assert all("integrity projection.proj_bankroll_house: " in line for line in lines[:-1])
    assert lines[-1] == (
        f"paigow report: verification FAILED: {len(lines) - 1} finding(s); no report"
    )
