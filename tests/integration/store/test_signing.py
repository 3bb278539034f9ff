"""The checkpoint key: made for a new embedded database, kept beside it, out of git."""

from __future__ import annotations

import stat
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from adapters.settings import load_settings
from adapters.store import open_configured, open_store
from adapters.store.signing import Signer
from eventlog.keys import key_paths, load_public_key
from eventlog.verifier import verify_sqlite_file
from table_core.ports import SigningKeyMissing
from tests.integration.store.conftest import OPENED, wager

REPO = Path(__file__).resolve().parents[3]


def test_a_new_embedded_database_gets_its_own_key_pair(tmp_path: Path) -> None:
    db = tmp_path / "paigow.db"
    store = open_store(f"sqlite:///{db}")
    store.append("table-1", 0, [wager(1, 500)], "c1", checkpoint=True)
    store.close()

    private, public = key_paths(db)
    assert private.name == "paigow.db.signing-key" and public.name == "paigow.db.signing-key.pub"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    signer = Signer.from_file(private)
    assert load_public_key(public.read_bytes()) == signer.public_raw
    # The standalone, standard-library verifier checks the file with the public half only.
    report = verify_sqlite_file(db, public)
    assert report.ok and report.signatures_checked and report.checkpoints == 1


def test_reopening_uses_the_same_key(tmp_path: Path) -> None:
    db = tmp_path / "paigow.db"
    first = open_store(f"sqlite:///{db}")
    first.append("table-1", 0, [wager(1, 500)], "c1", checkpoint=True)
    first.close()
    again = open_store(f"sqlite:///{db}")
    again.append("table-1", 1, [wager(2, 500)], "c2", checkpoint=True)
    assert {c.key_id for c in again.checkpoints()} == {Signer.from_file(key_paths(db)[0]).key_id}
    assert again.verify().ok


def test_a_configured_key_wins_and_no_key_file_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key_file = tmp_path / "casino-signing.pem"
    signer = Signer.generate()
    key_file.write_bytes(signer.private_pem())
    key_file.chmod(0o600)  # a key its group or others can read is refused (issue 17)
    monkeypatch.setenv("PAIGOW_SIGNING_KEY", str(key_file))
    db = tmp_path / "configured.db"
    store = open_configured(load_settings(), f"sqlite:///{db}")
    store.append("table-1", 0, [wager(1, 500)], "c1", checkpoint=True)
    assert store.checkpoints()[0].key_id == signer.key_id
    assert not key_paths(db)[0].exists()
    store.close()


def test_without_a_key_nothing_is_appended_or_signed(tmp_path: Path) -> None:
    """A store without the private key writes nothing: an append it cannot tag would read, to the
    key's next holder, as an insider's INSERT (adapters/store/tags.py). One line naming the fix."""
    db = tmp_path / "keyless.db"
    open_store(f"sqlite:///{db}").close()
    key_paths(db)[0].unlink()  # the private half went to the vault; the public half stays
    store = open_store(f"sqlite:///{db}")
    with pytest.raises(SigningKeyMissing):
        store.append("table-1", 0, [wager(1, 500)], "c1", checkpoint=True)
    with pytest.raises(SigningKeyMissing):
        store.checkpoint(OPENED + timedelta(hours=1))
    with pytest.raises(SigningKeyMissing, match="set PAIGOW_SIGNING_KEY") as refused:
        store.append("table-1", 0, [wager(1, 500)], "c1")
    assert "\n" not in str(refused.value)
    with pytest.raises(SigningKeyMissing):
        store.append_streams([("table-1", 0, [("c2", [wager(1, 500)])])])
    assert store.read_all() == []
    assert store.verify().ok
    store.close()


def test_git_never_sees_a_signing_key() -> None:
    names = ["paigow.db.signing-key", "paigow.db.signing-key.pub", "var/casino.db.signing-key"]
    ignored = subprocess.run(
        ["git", "check-ignore", *names], cwd=REPO, capture_output=True, text=True
    )
    if ignored.returncode == 128:
        pytest.skip("not a git work tree")
    assert ignored.stdout.split() == names
