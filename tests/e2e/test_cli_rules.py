"""The rules commands' stable command-line contracts (issues 2 and 3), run as subprocesses."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.e2e.conftest import PAIGOW, Run


def _json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines()]


def test_evaluate_writes_one_json_object_a_line_in_input_order(paigow: Run) -> None:
    done = paigow("evaluate", stdin="As Ks JK 7d 2c\nJK Kd\n9h Th Jh Qh JK\n")
    assert done.returncode == 0, done.stderr
    assert _json_lines(done.stdout) == [
        {
            "cards": ["As", "Ks", "JK", "7d", "2c"],
            "category": "one_pair",
            "strength": [1, 14, 13, 7, 2],
            "name": "Pair of aces, king-seven-deuce kickers",
        },
        {
            "cards": ["JK", "Kd"],
            "category": "high_card",
            "strength": [0, 14, 13],
            "name": "Ace-king",
        },
        {
            "cards": ["9h", "Th", "Jh", "Qh", "JK"],
            "category": "straight_flush",
            "strength": [8, 13],
            "name": "Straight flush, king high",
        },
    ]


def test_evaluate_reports_bad_lines_in_place_and_exits_1(paigow: Run) -> None:
    done = paigow("evaluate", stdin="as ah 2c 3d 4h\nAs As 2c 3d 4h\nQx Kd\nAs Kd Qc\n10h 9h\n")
    assert done.returncode == 1
    rows = _json_lines(done.stdout)
    assert rows[0]["category"] == "one_pair"
    assert rows[1:4] == [
        {"line": 2, "error": "duplicate card: As"},
        {"line": 3, "error": "unknown card: Qx"},
        {"line": 4, "error": "expected 5 or 2 cards, got 3"},
    ]
    assert rows[4]["cards"] == ["Th", "9h"]
    assert "Traceback" not in done.stderr


def test_evaluate_wheel_rank_setting_orders_the_wheel(paigow: Run) -> None:
    hands = "As 2d 3c 4h 5s\n2d 3c 4h 5s 6d\n"
    second = _json_lines(paigow("evaluate", stdin=hands).stdout)
    lowest = _json_lines(paigow("evaluate", "--wheel", "lowest", stdin=hands).stdout)
    assert second[0]["strength"] > second[1]["strength"]  # R-HI-2: the wheel is second highest
    assert lowest[0]["strength"] < lowest[1]["strength"]


SETTLE_WIN = (
    '{"player": {"back": "As Ad Qd 7c 7h", "front": "JK 2c"}, '
    '"banker": {"back": "Kd Kh 9s 8d 3c", "front": "Qh Jc"}, "wager": 2000}'
)
SETTLE_FOUL = (
    '{"player": {"back": "9c 9d 5s 4h 2d", "front": "Ts Tc"}, '
    '"banker": {"back": "8s 8h 6d 5c 3h", "front": "Ac Kc"}, "wager": 2000}'
)


def test_settle_win_pays_even_money_less_five_percent(paigow: Run) -> None:
    done = paigow("settle", stdin=SETTLE_WIN + "\n")
    assert done.returncode == 0, done.stderr
    assert _json_lines(done.stdout) == [
        {
            "result": "win",
            "back": "win",
            "front": "win",
            "player_fouled": False,
            "net": 1900,
            "commission": 100,
        }
    ]


def test_settle_forfeit_policy_loses_a_fouled_hand(paigow: Run) -> None:
    done = paigow("settle", "--foul-policy", "forfeit", stdin=SETTLE_FOUL + "\n")
    assert _json_lines(done.stdout) == [
        {
            "result": "loss",
            "back": "loss",
            "front": "loss",
            "player_fouled": True,
            "net": -2000,
            "commission": 0,
        }
    ]


def test_settle_flat_fee_rounding_options(paigow: Run) -> None:
    done = paigow("settle", "--commission", "flat", "--fee", "50", stdin=SETTLE_WIN + "\n")
    assert _json_lines(done.stdout)[0]["commission"] == 50
    assert _json_lines(done.stdout)[0]["net"] == 1950
    done = paigow("settle", "--rounding-unit", "25", "--rounding", "up", stdin=SETTLE_WIN + "\n")
    assert _json_lines(done.stdout)[0]["commission"] == 100


def test_settle_bad_lines_and_bad_rules(paigow: Run) -> None:
    lines = "\n".join(
        [
            "not json",
            '{"player": {"back": "As Ad Qd 7c 7h", "front": "JK 2c"}, "wager": 2000}',
            SETTLE_WIN.replace("2000", "-5"),
            SETTLE_WIN.replace('"Qh Jc"', '"Qh As"'),
            SETTLE_WIN.replace(
                '"Kd Kh 9s 8d 3c", "front": "Qh Jc"', '"Kd Qh 9s 8d 3c", "front": "Ah Jc"'
            ),
        ]
    )
    done = paigow("settle", stdin=lines + "\n")
    assert done.returncode == 1
    assert _json_lines(done.stdout) == [
        {"line": 1, "error": "not JSON: Expecting value at column 1"},
        {"line": 2, "error": '"banker" needs "back" (5 cards) and "front" (2 cards) as text'},
        {"line": 3, "error": '"wager" must be a positive whole number of minor units'},
        {"line": 4, "error": "duplicate card: As"},
        {
            "line": 5,
            "error": "banker hand is fouled: front Ah Jc outranks back Kd Qh 9s 8d 3c"
            " (--house-way NAME re-sets it, R11)",
        },
    ]
    bad = paigow("settle", "--commission", "flat")
    assert bad.returncode == 2
    assert bad.stderr.strip() == "paigow: bad rules: commission mode flat needs a fee above 0"


FOULED_BANKER = (
    '{"player": {"back": "As Ad Qd 7c 7h", "front": "JK 2c"}, '
    '"banker": {"back": "Kd Qh 9s 8d 3c", "front": "Ah Jc"}, "wager": 2000}'
)
BOTH_FOULED = (
    '{"player": {"back": "Kh Qc 9d 8c 3h", "front": "Ad Jh"}, '
    '"banker": {"back": "Kd Qh 9s 8d 3c", "front": "Ah Jc"}, "wager": 2000}'
)


def test_settle_resets_a_fouled_banker_hand_by_the_named_house_way(paigow: Run) -> None:
    """R11: a fouled banker hand is always re-set by the House Way, whatever the player's foul
    policy; the reset is written as for a player (``banker_reset``), then the line settles."""
    done = paigow("settle", "--house-way", "fr", stdin=f"{FOULED_BANKER}\n{BOTH_FOULED}\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        '{"result": "win", "back": "win", "front": "win", "player_fouled": false, "net": 1900,'
        ' "commission": 100, "banker_reset": {"back": ["Ah", "Jc", "9s", "8d", "3c"],'
        ' "front": ["Kd", "Qh"], "rule": "fr.no_pair.default"}}',
        # both re-set by fr to the same two hands: copies, which go to the banker (R-PAY-1)
        '{"result": "loss", "back": "copy", "front": "copy", "player_fouled": true, "net": -2000,'
        ' "commission": 0, "banker_reset": {"back": ["Ah", "Jc", "9s", "8d", "3c"],'
        ' "front": ["Kd", "Qh"], "rule": "fr.no_pair.default"}, "reset": {"back": ["Ad", "Jh",'
        ' "9d", "8c", "3h"], "front": ["Kh", "Qc"], "rule": "fr.no_pair.default"}}',
    ]
    forfeit = paigow(
        "settle", "--house-way", "es", "--foul-policy", "forfeit", stdin=FOULED_BANKER + "\n"
    )
    assert forfeit.stdout.splitlines() == [
        '{"result": "win", "back": "win", "front": "win", "player_fouled": false, "net": 1900,'
        ' "commission": 100, "banker_reset": {"back": ["Ah", "Jc", "9s", "8d", "3c"],'
        ' "front": ["Kd", "Qh"], "rule": "es.no_pair.default"}}'
    ]


def test_settle_without_a_house_way_keeps_refusing_a_fouled_banker_hand(paigow: Run) -> None:
    done = paigow("settle", stdin=FOULED_BANKER + "\n")
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        '{"line": 1, "error": "banker hand is fouled: front Ah Jc outranks back Kd Qh 9s 8d 3c'
        ' (--house-way NAME re-sets it, R11)"}'
    ]
    unknown = paigow("settle", "--house-way", "nope", "--foul-policy", "forfeit")
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == (
        "paigow: unknown House Way: 'nope' (known: es, foxwoods, fr, trump_plaza)"
    )


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path: Path) -> None:
    """`paigow evaluate | head -1`: the closed pipe is the reader's choice, not our error."""
    hands = tmp_path / "hands.txt"
    hands.write_text("As Ks JK 7d 2c\n" * 200_000)
    with (
        hands.open() as stdin,
        subprocess.Popen(
            [str(PAIGOW), "evaluate"],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as process,
    ):
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()
        process.stdout.close()  # the reader goes away after one line
        err = process.stderr.read()
        process.wait(timeout=120)
    assert json.loads(first)["category"] == "one_pair"
    assert "Traceback" not in err
    assert process.returncode == 0
