"""``paigow bonus``'s stable command-line contract (issue 9): subprocess runs, and its printing."""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from entrypoints.cli.commands.bonus import exhaustive_report, percent, print_table
from table_core.side_bets import FORTUNE_8000
from table_core.side_bets.exhaustive import Exhaustive
from tests.e2e.conftest import Run


@pytest.fixture
def bonus(paigow: Run) -> Run:
    """``paigow bonus …`` through the installed entry point."""

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return paigow("bonus", *args, stdin=stdin)

    return run


def _json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines()]


def test_fortune_pays_each_hand_a_line_in_input_order(bonus: Run) -> None:
    hands = (
        "9s 9h 9d 9c 2s 5h Kd\nAs Ks Qs Js Ts Kh Qh\nks kh 9s 9h 4d 4c 2s\n8s 8h 8d 9c Ts Jh Qd\n"
    )
    done = bonus("--bet", "fortune", stdin=hands)
    assert done.returncode == 0, done.stderr
    assert _json_lines(done.stdout) == [
        {
            "cards": ["9s", "9h", "9d", "9c", "2s", "5h", "Kd"],
            "bet": "fortune",
            "line": "four_of_a_kind",
            "pays": 25,
        },
        {
            "cards": ["As", "Ks", "Qs", "Js", "Ts", "Kh", "Qh"],
            "bet": "fortune",
            "line": "royal_flush_royal_match",
            "pays": 2000,
        },
        {
            "cards": ["Ks", "Kh", "9s", "9h", "4d", "4c", "2s"],
            "bet": "fortune",
            "line": "nothing",
            "pays": -1,
        },
        {
            "cards": ["8s", "8h", "8d", "9c", "Ts", "Jh", "Qd"],
            "bet": "fortune",
            "line": "three_of_a_kind",
            "pays": 3,
        },
    ]


def test_pay_table_by_name_and_emperors_treasure(bonus: Run) -> None:
    natural = "7h 8h 9h Th Jh Qh Kh\n"
    top = _json_lines(bonus("--pay-table", "fortune_5000", stdin=natural).stdout)
    assert top[0]["pays"] == 5000
    emperors = bonus("--bet", "emperors_treasure", stdin="9s 8h 7d 5c 4s 3h 2d\n" + natural)
    assert [(row["line"], row["pays"]) for row in _json_lines(emperors.stdout)] == [
        ("pai_gow_nine_high", 40),
        ("natural_seven_card_straight_flush", 5000),
    ]


def test_bad_lines_are_reported_in_place_and_exit_1(bonus: Run) -> None:
    done = bonus(
        stdin="As As 2c 3d 4h 5h 6h\nQx Kd 2c 3d 4h 5h 6h\nAs Kd\n\n9s 9h 9d 9c 2s 5h Kd\n"
    )
    assert done.returncode == 1
    rows = _json_lines(done.stdout)
    assert rows[:3] == [
        {"line": 1, "error": "duplicate card: As"},
        {"line": 2, "error": "unknown card: Qx"},
        {"line": 3, "error": "expected 7 cards, got 2"},
    ]
    assert rows[3]["line"] == "four_of_a_kind"
    assert "Traceback" not in done.stderr


def test_insurance_needs_the_casinos_table(bonus: Run, tmp_path: Path) -> None:
    refused = bonus("--bet", "insurance", stdin="9s 8h 7d 5c 4s 3h 2d\n")
    assert refused.returncode == 2
    assert refused.stdout == ""
    assert "Pai Gow Insurance has no standard pay table" in refused.stderr
    assert "--pay-table-file" in refused.stderr
    table = {"name": "casino", "bet": "insurance", "pays": {"pai_gow_nine_high": 100}}
    (tmp_path / "insurance.json").write_text(json.dumps(table))
    paid = bonus(
        "--bet",
        "insurance",
        "--pay-table-file",
        "insurance.json",
        stdin="9s 8h 7d 5c 4s 3h 2d\nTs 8h 7d 5c 4s 3h 2d\n",
    )
    assert paid.returncode == 0, paid.stderr
    assert [(row["line"], row["pays"]) for row in _json_lines(paid.stdout)] == [
        ("pai_gow_nine_high", 100),
        ("nothing", -1),
    ]


def test_bad_pay_tables_are_refused_clearly(bonus: Run, tmp_path: Path) -> None:
    unknown = bonus("--pay-table", "fortune_9000")
    assert unknown.returncode == 2
    assert "unknown fortune pay table: 'fortune_9000'" in unknown.stderr
    (tmp_path / "bad.json").write_text('{"name": "x", "bet": "insurance", "pays": {"flush": 4}}')
    bad = bonus("--bet", "insurance", "--pay-table-file", "bad.json")
    assert bad.returncode == 2
    assert "insurance pays pai gow lines only, not flush" in bad.stderr
    insurance = {"name": "x", "bet": "insurance", "pays": {"pai_gow_nine_high": 50}}
    (tmp_path / "insurance.json").write_text(json.dumps(insurance))
    wrong = bonus("--bet", "fortune", "--pay-table-file", "insurance.json")
    assert wrong.returncode == 2
    assert "insurance.json is a insurance table, not fortune" in wrong.stderr
    assert "missing.json" in bonus("--pay-table-file", "missing.json").stderr
    assert "Traceback" not in bad.stderr + wrong.stderr


@pytest.mark.slow
def test_exhaustive_prints_every_count_and_the_exact_edge(bonus: Run) -> None:
    done = bonus("--exhaustive", "--bet", "fortune", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["hands"] == 154_143_080
    assert report["lines"]["natural_seven_card_straight_flush"] == 32
    assert report["lines"]["three_of_a_kind"] == 7_672_500
    assert report["lines"]["nothing"] == 124_556_196
    assert report["categories"]["straight"] == 11_236_028
    assert report["pai_gow_by_highest_card"]["pai_gow_nine_high"] == 31_080
    assert report["house_edge"] == {
        "numerator": 11_970_096,
        "denominator": 154_143_080,
        "reduced": "1496262/19267885",
        "percent": "7.7656%",
    }


# Hands per hand class (table_core.side_bets.lines.KINDS order), as the exhaustive count finds them.
KIND_COUNTS: tuple[int, ...] = (
    *(4, 28, 72, 36, 160, 1_128, 25_948, 184_644, 307_472, 4_188_528, 6_172_088),
    *(7_470_676, 201_824, 11_034_204, 2_862_000, 32_691_816, 64_221_960),
    *(31_080, 248_640, 963_480, 2_719_500, 6_386_940, 14_430_780, 72),
)


def test_the_exhaustive_table_a_person_reads(capsys: pytest.CaptureFixture[str]) -> None:
    counted = Exhaustive(KIND_COUNTS, (6_009_159, 962_988))
    print_table(exhaustive_report(counted, FORTUNE_8000, 12.34))
    shown = capsys.readouterr().out
    assert shown.startswith("All 154,143,080 seven-card hands of the 53-card deck (R-VAR-7)")
    assert "through 6,972,147 suit classes in 12.3 s" in shown
    assert "  royal_flush_royal_match                         72   0.00005%  pays  2000\n" in shown
    assert "  nothing                                124,556,196  80.80557%  pays    -1\n" in shown
    assert shown.endswith("House edge: 11,970,096 / 154,143,080 = 1496262/19267885 = 7.7656%\n")


def test_percent_rounds_the_exact_fraction_half_up() -> None:
    assert percent(Fraction(11_970_096, 154_143_080)) == "7.7656%"
    assert percent(Fraction(1, 8), 2) == "12.50%"
    assert percent(Fraction(-1, 3)) == "-33.3333%"
    assert percent(Fraction(1, 200_000), 4) == "0.0005%"
