"""Issue 17: an insider with write access to the database and NO signing key cannot change, add,
remove or roll back history without ``paigow audit verify`` failing (exit status 1) and naming
where. Each attack runs on SQLite and on PostgreSQL, through the command itself (in process), with
the casino's public key given as the regulator holds it (``--public-key``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.projections import ProjectionRunner
from entrypoints.cli.main import main
from eventlog.system_events import SYSTEM_STREAM
from service_layer.service import TableService

from .conftest import Casino


def key_file(casino: Casino, tmp_path: Path) -> str:
    path = tmp_path / "casino-published.pub"
    path.write_text(casino.store.public_key.hex())
    return str(path)


def verify(
    casino: Casino, tmp_path: Path, capsys: Any, *extra: str
) -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
    """``paigow audit verify --format json`` on the casino: status, findings, summary."""
    capsys.readouterr()
    status = main(
        [
            "audit",
            "verify",
            "--db",
            casino.url,
            "--public-key",
            key_file(casino, tmp_path),
            "--format",
            "json",
            *extra,
        ]
    )
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return status, lines[:-1], lines[-1]


def sealing(findings: list[dict[str, Any]]) -> list[tuple[str, int | None, str]]:
    return [
        (f["clause"], f["position"], f["message"].split(":")[0] + ":" + f["message"].split(":")[1])
        for f in findings
        if f["clause"] == "chain.unsealed"
    ]


def last_position(casino: Casino) -> int:
    return int(casino.forger.rows()[-1][0])


def checkpoint_positions(casino: Casino) -> list[int]:
    return [int(c[0]) for c in casino.store.raw_log()[1]]


def test_a_clean_session_is_sealed_to_its_last_event(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    status, findings, summary = verify(casino, tmp_path, capsys)
    assert (status, findings) == (0, [])
    # The service sealed its stop: the last checkpoint is the last event (issue 17).
    assert checkpoint_positions(casino)[-1] == last_position(casino)
    assert casino.forger.rows()[-1][3] == "service_stopped"
    assert summary["key_source"] == "given" and summary["key_beside_database"] is False


def test_a_forged_cash_out_appended_with_inserts_only_is_unsealed(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    forger = casino.forger
    template = forger.payload(forger.find("chips_bought_in"))
    rows = forger.rows()
    template.update(type="chips_cashed_out", at=rows[-1][6])
    template.pop("source", None)
    position = forger.append_forged(template["table_id"], "chips_cashed_out", template)
    assert position == last_position(casino)
    status, findings, _summary = verify(casino, tmp_path, capsys)
    assert status == 1
    assert sealing(findings) == [
        ("chain.unsealed", position, f"unsealed: 1 events from position {position}")
    ]
    # The tail of a finished table is no round in progress: the flag does not excuse it.
    status, findings, _summary = verify(casino, tmp_path, capsys, "--allow-unsealed-tail")
    assert status == 1
    assert [f["position"] for f in findings if f["clause"] == "chain.unsealed"] == [position]


def test_the_last_checkpoint_deleted_leaves_the_stop_unsealed(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    *_, before, last = checkpoint_positions(casino)
    casino.forger.delete_checkpoints([last])
    status, findings, _summary = verify(casino, tmp_path, capsys)
    assert status == 1
    count = last - before
    assert sealing(findings) == [
        ("chain.unsealed", before + 1, f"unsealed: {count} events from position {before + 1}")
    ]


def test_every_checkpoint_deleted_is_never_ok(casino: Casino, tmp_path: Path, capsys: Any) -> None:
    casino.forger.delete_checkpoints()
    total = last_position(casino)
    for extra in ((), ("--allow-unsealed-tail",)):
        status, findings, summary = verify(casino, tmp_path, capsys, *extra)
        assert status == 1
        assert sealing(findings) == [
            ("chain.unsealed", 1, f"unsealed: {total} events from position 1")
        ]
        assert summary["checkpoints"] == 0


def test_a_raised_buy_in_rehashed_with_checkpoints_deleted_is_unsealed(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    forger = casino.forger
    position = forger.find("chips_bought_in")
    forger.forge(position, lambda p: p.update(amount=p["amount"] + 500_000), sign=False)
    forger.delete_checkpoints()
    status, findings, _summary = verify(casino, tmp_path, capsys)
    assert status == 1
    total = last_position(casino)
    assert sealing(findings) == [("chain.unsealed", 1, f"unsealed: {total} events from position 1")]


def test_a_rehashed_edit_between_checkpoints_is_named_as_a_range(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    forger = casino.forger
    position = forger.find("commission_taken")
    forger.forge(position, lambda p: p.update(amount=p["amount"] + 7), sign=False)
    signed = checkpoint_positions(casino)
    after = next(i for i, p in enumerate(signed) if p >= position)  # the first one it breaks
    before = signed[after - 1] if after else 0
    status, findings, _summary = verify(casino, tmp_path, capsys)
    assert status == 1
    ranged = [f for f in findings if f["last_position"] is not None]
    assert [(f["clause"], f["position"], f["last_position"]) for f in ranged] == [
        ("chain.checkpoint", before + 1, signed[after])
    ]
    message = ranged[0]["message"]
    assert message.startswith(
        f"the chain from checkpoint {after} (position {before}) to checkpoint {after + 1} "
        f"(position {signed[after]}"
    )
    assert "does not reach the signed head" in message
    assert f"the rules re-derivation first disagrees at position {position}" in message
    assert f"the {len(signed) - after - 1} checkpoint(s) after it do not reach" in message
    assert any(f["position"] == position and f["clause"] == "R-PAY-2" for f in findings)


def _more_checkpoints(casino: Casino) -> None:
    """The casino goes on: a service start and stop, each sealed by a new checkpoint."""
    service = TableService(casino.store)
    service.start()
    service.stop()


def test_an_older_copy_of_the_database_lacks_a_witnessed_checkpoint(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    witness = tmp_path / "regulator.witness"
    old_end = last_position(casino)
    _more_checkpoints(casino)
    assert main(["audit", "witness", "--db", casino.url, "--out", str(witness)]) == 0
    newest = checkpoint_positions(casino)[-1]
    # The older copy: the database as it was before the service started again (on SQLite a
    # file copy made then is the same rows as this cut).
    casino.forger.cut_tail(old_end + 1)
    status, findings, _ = verify(casino, tmp_path, capsys)
    assert (status, findings) == (0, [])  # without the witness it holds: that is the threat
    status, findings, _ = verify(casino, tmp_path, capsys, "--witness", str(witness))
    assert status == 1
    witnessed = [(f["clause"], f["position"]) for f in findings]
    assert witnessed[-1] == ("chain.witness", newest)
    assert f"the log ends at position {old_end}" in findings[-1]["message"]
    # And the witness itself notices on its next run: exit 1, nothing appended.
    size = witness.stat().st_size
    assert main(["audit", "witness", "--db", casino.url, "--out", str(witness)]) == 1
    assert witness.stat().st_size == size
    # A witness file named by a typo (a SQLite database) is refused, and left as it was.
    database = tmp_path / "casino.db"
    database.write_bytes(b"SQLite format 3\x00\x10\x00\x02\x02\x00@  \x00\x00\x00\xec")
    before = database.read_bytes()
    capsys.readouterr()
    assert main(["audit", "witness", "--db", casino.url, "--out", str(database)]) == 2
    assert capsys.readouterr().err == f"paigow: {database} is not a witness file: it is not text\n"
    assert database.read_bytes() == before


def test_the_last_20_rounds_cut_with_their_checkpoints_fail_against_the_witness(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    witness = tmp_path / "regulator.witness"
    assert main(["audit", "witness", "--db", casino.url, "--out", str(witness)]) == 0
    rows = casino.forger.rows()
    starts = [row[0] for row in rows if row[3] == "round_started"]
    signed = checkpoint_positions(casino)
    # Cut right after the checkpoint before the 20th round from the end: what is left is sealed.
    first = max(p for p in signed if p < starts[-20]) + 1
    first_cut = next(p for p in signed if p >= first)
    casino.forger.cut_tail(first)
    status, findings, _ = verify(casino, tmp_path, capsys)
    assert (status, findings) == (0, [])  # the shorter log holds as a chain
    status, findings, summary = verify(casino, tmp_path, capsys, "--witness", str(witness))
    assert status == 1
    assert findings[0]["clause"] == "chain.witness" and findings[0]["position"] == first_cut
    assert findings[0]["message"].startswith(f"the witnessed checkpoint at position {first_cut} ")
    assert len(findings) == len([p for p in signed if p >= first])
    assert summary["witnessed"] == len(signed)


def test_a_forked_history_contradicts_the_witness(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    witness = tmp_path / "regulator.witness"
    assert main(["audit", "witness", "--db", casino.url, "--out", str(witness)]) == 0
    position = casino.forger.find("commission_taken")
    casino.forger.forge(position, lambda p: p.update(amount=p["amount"] + 7))  # WITH the key
    status, findings, _ = verify(casino, tmp_path, capsys, "--witness", str(witness))
    assert status == 1
    forked = [f for f in findings if f["clause"] == "chain.witness"]
    first = next(p for p in checkpoint_positions(casino) if p >= position)
    assert forked[0]["position"] == first
    assert "a forked or rewritten history" in forked[0]["message"]


def test_an_edited_accounting_projection_is_named_by_table_day_and_figure(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    ProjectionRunner(casino.store).catch_up()
    with casino.store.engine.begin() as connection:
        table, bucket, commission = connection.exec_driver_sql(
            "SELECT table_id, bucket, commission FROM proj_accounting WHERE commission > 0 "
            "ORDER BY table_id, bucket LIMIT 1"
        ).one()
        connection.exec_driver_sql(
            f"UPDATE proj_accounting SET commission = commission + 500 "
            f"WHERE table_id = '{table}' AND bucket = {bucket}"
        )
    status, findings, _ = verify(casino, tmp_path, capsys)
    assert status == 1
    assert [(f["kind"], f["clause"]) for f in findings] == [
        ("integrity", "projection.proj_accounting")
    ]
    assert findings[0]["message"] == (
        f"a projection does not match the events: proj_accounting: table {table}, gaming day "
        "2026-11-27 (quarter hour from 2026-11-27 20:00 UTC), commission: stored "
        f"{commission + 500}, the events give {commission}"
    )


def test_the_service_seals_its_stop_and_a_round_in_progress_may_be_allowed(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    """A table playing when the audit runs: its round in progress is the only unsealed tail."""
    from table_core import commands as c
    from table_core.events import Actor

    table = next(r[1] for r in casino.forger.rows() if r[1] != SYSTEM_STREAM)
    service = TableService(casino.store)
    service.start()
    floor = {"actor": Actor(id="floor-1", role="floor")}
    state = service.load(table)
    service.execute(table, c.StartRound(**floor, at=service.now()), f"{table}:tail:1")
    status, findings, _ = verify(casino, tmp_path, capsys)
    assert status == 1 and sealing(findings)[0][2].startswith("unsealed: ")
    status, findings, summary = verify(casino, tmp_path, capsys, "--allow-unsealed-tail")
    assert (status, findings) == (0, [])
    assert summary["unsealed_tail"]["rounds_in_progress"] == [
        f"{table} round {(state.round.number if state.round else 0) + 1}"
    ]
    assert "unsealed tail allowed: " in summary["summary"]


@pytest.mark.parametrize("backend", ["sqlite"])
def test_a_replaced_pub_beside_the_database_is_not_an_independent_check(
    casino: Casino, tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only SQLite keeps a key beside the database. The insider forges with a key of their own
    and replaces the ``.pub``: with no key chosen, the audit says whose key it used."""
    from adapters.store.signing import Signer

    real = casino.store.public_key
    mine = Signer.generate()
    casino.store.signer = mine
    position = casino.forger.find("commission_taken")
    casino.forger.forge(position, lambda p: p.update(amount=p["amount"] + 7))
    db = Path(casino.url.removeprefix("sqlite:///"))
    Path(str(db) + ".signing-key.pub").write_bytes(mine.public_pem())
    Path(str(db) + ".signing-key").unlink()
    capsys.readouterr()
    status = main(["audit", "verify", "--db", casino.url, "--format", "json"])
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    # The chain and the forged signatures hold: only the rules catch the commission, and the
    # result says the key was not chosen by the verifier.
    assert status == 1 and summary["key_beside_database"] is True
    assert "key taken from beside the database: not an independent check" in summary["summary"]
    assert summary["key_note"] == "key taken from beside the database: not an independent check"
    # The casino's published key in the setting: every re-signed checkpoint is refused.
    published = tmp_path / "published.pub"
    published.write_text(real.hex())
    monkeypatch.setenv("PAIGOW_PUBLIC_KEY", str(published))
    status = main(["audit", "verify", "--db", casino.url, "--format", "json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 1 and lines[-1]["key_source"] == "setting"
    refused = [f for f in lines[:-1] if f["clause"] == "chain.checkpoint"]
    assert refused and all(f"signed by key {mine.key_id}, not " in f["message"] for f in refused)
