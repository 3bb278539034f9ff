"""``paigow house-way certify``, ``diff`` and ``edge`` as a games manager runs them (issue 32)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import Run

ROOT = Path(__file__).resolve().parents[2]


def test_a_file_that_is_not_there_is_one_line(paigow: Run) -> None:
    done = paigow("house-way", "certify", "bellagio.toml")
    assert done.returncode == 2
    assert done.stderr == (
        "paigow: bellagio.toml: no such file, nor a built-in House Way "
        "(fr, es, trump_plaza, foxwoods)\n"
    )


def test_a_bad_file_names_its_lines(paigow: Run, tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text('name = "bad"\n[[no_such_family]]\n', encoding="utf-8")
    done = paigow("house-way", "certify", "bad.toml")
    assert done.returncode == 2
    assert done.stderr.startswith("paigow: bad.toml:")
    assert "Traceback" not in done.stderr


def test_diff_counts_every_hand_two_ways_set_differently(paigow: Run) -> None:
    done = paigow("house-way", "diff", "fr", "es", "--jobs", "2", "--format", "json")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert (figures["hands"], figures["different"]) == (154_143_080, 8_326_332)
    assert sum(figures["by_family"].values()) == 8_326_332
    assert sum(row["hands"] for row in figures["by_clauses"]) == 8_326_332
    assert figures["by_family"]["two_pairs"] == 4_909_032
    front = figures["banker_front"]["one_pair"]
    assert (front["fr"], front["es"], front["difference"]) == (33_857_164, 34_677_364, 820_200)
    assert len(figures["examples"]) == 5 and figures["undecided"] == {}


def test_edge_measures_the_casinos_way_and_optimal_play(paigow: Run) -> None:
    done = paigow("house-way", "edge", "fr", "--rounds", "3000", "--seed", "7",
                  "--banker-sample", "20000", "--format", "json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["file_sha256"] and figures["rounds"] == 3000
    for measure in ("casino_way", "optimal"):
        row = figures[measure]
        assert row["rounds"] == 3000 and row["party"] == "player"
        low, high = row["edge_ci95"]
        assert low < row["edge"] < high


def test_a_certificate_never_writes_over_another_file(paigow: Run, tmp_path: Path) -> None:
    """Refused before the hour of work: the certificate and its summary replace only their own
    kind, so a typo cannot turn the House Way file itself into a certificate."""
    way = tmp_path / "lakeside.toml"
    way.write_text((ROOT / "table_core/house_ways/fr.toml").read_text())
    (tmp_path / "notes.txt").write_text("the pit's notes\n")
    refusals = {
        "lakeside.toml": "paigow: lakeside.toml exists and is no House Way certificate: it is "
        "never written over\n",
        "notes.json": "paigow: notes.txt exists and is no House Way certificate's summary: it "
        "is never written over\n",
        "c.txt": "paigow: --certificate c.txt: name it .json, its summary goes beside it as .txt\n",
        "no-folder/c.json": "paigow: --certificate no-folder/c.json: no folder no-folder\n",
    }
    for out, line in refusals.items():
        done = paigow("house-way", "certify", "lakeside.toml", "--certificate", out)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", line)
    assert way.read_text() == (ROOT / "table_core/house_ways/fr.toml").read_text()


def test_an_earlier_certificate_and_its_summary_may_be_replaced() -> None:
    from entrypoints.cli.house_way_checks import certificate_problem

    assert certificate_problem(ROOT / "docs/house-way-certificates/fr.json") is None
