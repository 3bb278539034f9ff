"""`paigow set-hand` and `paigow house-way` contracts (issue 3), run as subprocesses."""

from __future__ import annotations

import json

import pytest

from table_core.house_ways import BUILT_IN
from tests.e2e.conftest import Run


@pytest.mark.parametrize("house_way", BUILT_IN)
def test_set_hand_writes_the_split_and_its_clause(paigow: Run, house_way: str) -> None:
    done = paigow("set-hand", "--house-way", house_way, stdin="2c 5d 8h Jc Qs Ad 9h\n")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "cards": ["2c", "5d", "8h", "Jc", "Qs", "Ad", "9h"],
        "back": ["Ad", "9h", "8h", "5d", "2c"],  # R-HW no pair: the ace back, Q-J front
        "front": ["Qs", "Jc"],
        "rule": f"{house_way}.no_pair.default",
        "house_way": house_way,
    }


def test_set_hand_reports_bad_lines_and_refuses_an_unknown_house_way(paigow: Run) -> None:
    done = paigow("set-hand", stdin="As Ks Qs\nAs Ah 7c 7h Kd 9s 2c\n")
    assert done.returncode == 1
    bad, good = (json.loads(line) for line in done.stdout.splitlines())
    assert bad == {"line": 1, "error": "expected 7 cards, got 3"}
    assert good["rule"] == "fr.two_pairs.split_aces" and good["front"] == ["7h", "7c"]
    unknown = paigow("set-hand", "--house-way", "bellagio", stdin="")
    assert unknown.returncode == 2
    assert unknown.stderr.startswith("paigow: unknown House Way: 'bellagio'")


def test_settle_resets_a_fouled_hand_by_the_house_way(paigow: Run) -> None:
    line = (
        '{"player": {"back": "9c 9d 5s 4h 2d", "front": "Ts Tc"}, '
        '"banker": {"back": "8s 8h 6d 5c 3h", "front": "Ac Kc"}, "wager": 2000}\n'
    )
    done = paigow("settle", "--house-way", "fr", stdin=line)
    # fr two pairs (a): tens are sevens or better and there is no single ace, so split: tens back,
    # nines front. Tens beat the banker's eights and nines beat A-K: the reset hand wins.
    assert json.loads(done.stdout) == {
        "result": "win",
        "back": "win",
        "front": "win",
        "player_fouled": True,
        "net": 1900,
        "commission": 100,
        "reset": {
            "back": ["Ts", "Tc", "5s", "4h", "2d"],
            "front": ["9d", "9c"],
            "rule": "fr.two_pairs.split_sevens_no_ace",
        },
    }


def test_house_way_stats_counts_every_clause_and_compares(paigow: Run) -> None:
    args = ("house-way", "stats", "--house-way", "fr", "--hands", "2000", "--seed", "5")
    done = paigow(*args, "--compare", "es", "--format", "json")
    assert done.returncode == 0, done.stderr
    stats = json.loads(done.stdout)
    assert stats["hands"] == 2000 and stats["seed"] == 5
    assert sum(stats["clauses"].values()) == 2000
    assert stats["compare"]["house_way"] == "es"
    assert 0 < stats["compare"]["different"] < 2000
    assert json.loads(paigow(*args, "--compare", "es", "--format", "json").stdout) == stats
    table = paigow(*args)
    assert table.stdout.startswith("House Way fr: 2,000 random hands (seed 5)")
    assert "fr.no_pair.default" in table.stdout
