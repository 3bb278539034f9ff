"""A casino's own House Way file installed on a table (issue 32), end to end: certified and
installed by the floor (``paigow house-way install``), rounds played under it with the banker's
hands set by exactly that text, ``audit verify`` OK from the log alone; the file's text edited in
the log afterwards (the chain re-hashed and re-signed, as an insider with the key would) is named
by the audit."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from adapters.clock import SteppingClock
from adapters.house_way_files import built_in_text
from adapters.rng import SeededDeckAndDice
from adapters.store import open_store
from entrypoints.simulation.mixed_session import CAGE, DEALER, FLOOR, Session
from service_layer.service import TableService
from tests.e2e.conftest import Run, operator_keys
from tests.integration.audit.tamper import Forger

#: A casino that keeps two low pairs together when it holds an ace: fr's way otherwise.
LOW_PAIRS = """[[two_pairs]]
id = "riverside.two_pairs.low_pairs_together"
text = "Two pairs, sixes or lower, and a single ace: both pairs back, the ace and the next front."
when = { high_pair = "2-6", single_ace = true }
front = "two highest singles"

"""


class Clock(SteppingClock):
    """The simulation's clock, three seconds a reading, that can be moved on past the time the
    command line recorded the install at."""

    def __init__(self, start: datetime) -> None:
        super().__init__(start, timedelta(seconds=3))
        self._at = start

    def __call__(self) -> datetime:
        now, self._at = self._at, self._at + timedelta(seconds=3)
        return now

    def jump(self, to: datetime) -> None:
        self._at = to


def riverside() -> str:
    text = built_in_text("fr").replace('name = "fr"', 'name = "riverside"')
    text = text.replace('id = "fr.', 'id = "riverside.')
    first = text.index("[[two_pairs]]")
    return text[:first] + LOW_PAIRS + text[first:]


def test_a_certified_file_sets_the_bankers_hands_and_the_audit_rederives_them(
    paigow: Run, tmp_path: Path
) -> None:
    db = tmp_path / "casino.db"
    start = datetime.now(UTC) - timedelta(minutes=30)
    store = open_store(f"sqlite:///{db}")
    # The simulated staff hold keys (R19), made before the table opens.
    keys = operator_keys(
        "sqlite:///casino.db",
        tmp_path,
        roles=("security", "floor", "dealer", "cage"),
        at=start - timedelta(hours=1),
        floor=FLOOR.id,
        dealer=DEALER.id,
        cage=CAGE.id,
    )
    clock = Clock(start)
    service = TableService(store, clock=clock, source=SeededDeckAndDice(42))
    session = Session(service, seed=4, tables=1)
    session.play(2)
    (tmp_path / "riverside.toml").write_text(riverside(), encoding="utf-8")

    refused = paigow("house-way", "install", "riverside.toml", "--table", "PG-1", "--reason",
                     "new House Way posted", "--key-file", str(keys["dealer"]),
                     "--db", "sqlite:///casino.db")  # fmt: skip
    assert refused.returncode == 2
    assert "dealer" in refused.stderr and "Traceback" not in refused.stderr

    done = paigow("house-way", "install", "riverside.toml", "--table", "PG-1", "--reason",
                  "new House Way posted", "--key-file", str(keys["floor"]), "--jobs", "2",
                  "--db", "sqlite:///casino.db")  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["events"] == ["house_way_installed", "rules_changed"]
    assert answer["house_way"] == "riverside"
    digest = answer["file_sha256"]

    service.refresh("PG-1")  # another process (the command line) wrote to the table
    clock.jump(datetime.now(UTC) + timedelta(seconds=5))  # after the install, as time goes
    session.play(12)
    assert session.stats.refused == []
    state = service.load("PG-1")
    assert state.rules is not None and state.rules.hand.house_way_digest == digest
    forger = Forger(store, "sqlite", str(db))
    installed = forger.find("house_way_installed")
    banker_rules = [
        json.loads(row[5])["rule"]
        for row in forger.rows()
        if row[3] == "banker_hand_set" and row[0] > installed
    ]
    assert len(banker_rules) >= 10
    assert all(rule.startswith("riverside.") for rule in banker_rules)

    verified = paigow("audit", "verify", "--db", "sqlite:///casino.db")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "rounds re-derived" in verified.stdout.splitlines()[-1]

    # An insider with the key edits the installed text (low pairs kept together without an ace
    # too) and re-hashes and re-signs the chain: only the re-derivation can tell.
    edited = 'high_pair = "2-6", single_ace = true'
    assert edited in forger.payload(installed)["text"]
    forger.forge(
        installed,
        lambda p: p.update(text=p["text"].replace(edited, 'high_pair = "2-6"')),
    )
    store.close()
    tampered = paigow("audit", "verify", "--db", "sqlite:///casino.db")
    assert tampered.returncode == 1
    finding = tampered.stdout.splitlines()[0]
    assert finding.startswith(f"position {installed}, table PG-1 ")
    assert "house_way_installed: rules R-HW-1" in finding
    assert "the House Way text's SHA-256 is " in finding and f"not {digest} as installed" in finding
