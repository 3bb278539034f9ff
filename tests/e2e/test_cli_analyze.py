"""``paigow analyze edge``'s stable contract (issue 8).

Most tests register the command on a fresh ``argparse`` parser, as ``entrypoints.cli.main`` does for
each command module, and run it in process (the long reference runs stay fast); the last ones run
the installed ``paigow`` console script as a subprocess.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest

from entrypoints.cli.commands import analyze
from table_core.errors import ConfigurationError
from tests.e2e.conftest import Run

CONTRACT_KEYS = {"house_way", "rounds", "win", "push", "loss", "edge", "edge_ci95"}

# Published figures, dealer banking, 5% commission, one player against the banker (issue 8).
PUBLISHED = {
    "trump_plaza": {"win": 0.2861, "push": 0.4148, "loss": 0.2991, "edge": 0.0273},
    "foxwoods": {"win": 0.2912, "push": 0.4050, "loss": 0.3038, "edge": 0.0272},
}


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="paigow")
    analyze.register(root.add_subparsers(dest="command", required=True))
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    args = parser().parse_args(["analyze", "edge", *argv])
    assert args.handler(args) == 0
    return capsys.readouterr().out


def edge_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    out = run(capsys, *argv, "--format", "json")
    assert out.count("\n") == 1  # one JSON line, nothing else on standard output
    figures: dict[str, Any] = json.loads(out)
    return figures


def test_a_small_fixed_seed_run_gives_exact_figures(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("--house-way", "trump_plaza", "--rounds", "2000", "--seed", "7")
    figures = edge_json(capsys, *argv)
    assert figures.keys() >= CONTRACT_KEYS
    assert (figures["house_way"], figures["banker_house_way"]) == ("trump_plaza", "trump_plaza")
    assert (figures["rounds"], figures["hands"], figures["seed"]) == (2000, 2000, 7)
    # 561 wins, 856 pushes, 583 losses of 2,000 hands.
    assert (figures["win"], figures["push"], figures["loss"]) == (0.2805, 0.428, 0.2915)
    # The house edge follows from them: 583 lost units less 561 wins paid 0.95 (R-PAY-1, 2).
    assert figures["edge"] == (583 * 1000 - 561 * 950) / 2_000_000 == 0.025025
    low, high = figures["edge_ci95"]
    assert low < 0.025025 < high
    assert edge_json(capsys, *argv) == figures  # the seed reproduces the run exactly


def test_six_players_against_a_banker_of_another_house_way(
    capsys: pytest.CaptureFixture[str],
) -> None:
    figures = edge_json(
        capsys,
        *("--house-way", "fr", "--banker-house-way", "es", "--players", "6"),
        *("--rounds", "2000", "--seed", "7"),
    )
    assert (figures["banker_house_way"], figures["hands"]) == ("es", 12_000)
    # Issue 20's clarified fr straights clauses set two of these hands differently (two pushes
    # became wins): 3467 wins, 4901 pushes, 3632 losses (before: 3465, 4903, 3632).
    assert (figures["win"], figures["push"], figures["loss"]) == (
        3467 / 12_000,
        4901 / 12_000,
        3632 / 12_000,
    )
    assert figures["edge"] == (3632 * 1000 - 3467 * 950) / 12_000_000


def test_a_player_banker_reports_its_own_return(capsys: pytest.CaptureFixture[str]) -> None:
    figures = edge_json(
        capsys,
        *("--house-way", "es", "--banker", "player", "--players", "3"),
        *("--rounds", "2000", "--seed", "7"),
    )
    # Two other players and the house hand against the player-banker each round (R-BANK-2).
    assert (figures["party"], figures["banker"], figures["hands"]) == (
        "player_banker",
        "player",
        6000,
    )
    assert figures["expected_return"] == -0.003625
    assert figures["edge"] == 0.003625  # the edge against the player-banker, per unit banked


def test_ez_charges_no_commission(capsys: pytest.CaptureFixture[str]) -> None:
    figures = edge_json(
        capsys, "--house-way", "fr", "--variant", "ez", "--rounds", "500", "--seed", "7"
    )
    assert figures["variant"] == "ez"
    assert figures["commission_per_unit"] == 0.0
    # Without commission a win pays the full unit: the edge is the loss share less the win share.
    assert figures["edge"] == pytest.approx(figures["loss"] - figures["win"])


@pytest.mark.parametrize("house_way", sorted(PUBLISHED))
def test_published_figures_lie_inside_the_intervals(
    capsys: pytest.CaptureFixture[str], house_way: str
) -> None:
    figures = edge_json(capsys, "--house-way", house_way, "--rounds", "100000", "--seed", "2025")
    for key, published in PUBLISHED[house_way].items():
        low, high = figures[f"{key}_ci95"]
        assert low <= published <= high, (key, published, figures[key])


def test_the_table_shows_the_figures_and_a_fresh_seed(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "--house-way", "foxwoods", "--rounds", "300")
    lines = out.splitlines()
    assert lines[0].startswith("foxwoods players against a foxwoods banker, commission")
    assert lines[1].startswith("300 rounds, 300 hands (seed ")  # the drawn seed is printed
    assert [line.split()[1] for line in lines[3:6]] == ["win", "push", "loss"]
    assert lines[6].startswith("house edge")


@pytest.mark.parametrize(
    "argv",
    [
        ("--rounds", "10"),  # --house-way is required
        ("--house-way", "fr", "--rounds", "0"),
        ("--house-way", "fr", "--rounds", "10", "--players", "7"),
        ("--house-way", "fr", "--rounds", "10", "--variant", "spanish"),
        ("--house-way", "fr", "--rounds", "10", "--banker", "rotating"),
    ],
)
def test_bad_arguments_are_refused(argv: tuple[str, ...]) -> None:
    with pytest.raises(SystemExit) as exit_:
        parser().parse_args(["analyze", "edge", *argv])
    assert exit_.value.code == 2


def test_an_unknown_house_way_is_a_domain_error() -> None:
    args = parser().parse_args(["analyze", "edge", "--house-way", "bellagio", "--rounds", "5"])
    with pytest.raises(ConfigurationError, match="unknown House Way: 'bellagio'"):
        args.handler(args)


def test_the_installed_command_prints_one_json_line(paigow: Run) -> None:
    done = paigow(
        *("analyze", "edge", "--house-way", "es", "--rounds", "2000", "--seed", "7"),
        *("--format", "json"),
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no progress bar when nobody watches a terminal
    figures = json.loads(done.stdout)
    assert (figures["house_way"], figures["rounds"], figures["seed"]) == ("es", 2000, 7)


def test_the_installed_command_refuses_an_unknown_house_way_in_one_line(paigow: Run) -> None:
    done = paigow("analyze", "edge", "--house-way", "bellagio", "--rounds", "5")
    assert done.returncode == 2
    assert done.stderr.startswith("paigow: unknown House Way: 'bellagio'")
    assert done.stdout == ""
