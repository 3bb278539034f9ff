"""A House Way file that cannot be used is refused with one line per problem and its line number
(issue 32): unknown family, clause id that does not start with the way's name, unknown words,
bad ranks, loops of ``use``. A front that can foul is accepted (certification fails it, R-HW-5).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.house_way_files import read_house_way_file
from table_core.cards import parse_cards
from table_core.house_ways.shape import FAMILIES, analyse
from table_core.house_ways.spec import (
    HouseWayFileError,
    house_way_from_text,
    parse_house_way,
)
from table_core.house_ways.spec_run import NoClauseDecides

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "lakeside.toml"


def _clause(family: str, front: str = "best front", detail: str = "default") -> str:
    clause_id = f"mine.{family}.{detail}"
    return f'[[{family}]]\nid = "{clause_id}"\ntext = "The {family} clause."\nfront = "{front}"\n'


#: A valid file: line 1 the name, then four lines per family (five_aces from line 3).
VALID = 'name = "mine"\n\n' + "\n".join(_clause(family) for family in FAMILIES)


def _problems(text: str) -> list[str]:
    with pytest.raises(HouseWayFileError) as refused:
        parse_house_way(text)
    assert str(refused.value).splitlines() == [
        f"line {line}: {message}" if line else message for line, message in refused.value.problems
    ]
    return str(refused.value).splitlines()


def test_the_valid_file_parses_with_its_clauses_in_file_order() -> None:
    spec = parse_house_way(VALID)
    assert spec.name == "mine"
    assert list(spec.clauses) == [f"mine.{family}.default" for family in FAMILIES]
    assert spec.text == VALID
    assert len(spec.digest) == 64


def test_the_worked_example_parses() -> None:
    spec = parse_house_way(EXAMPLE.read_text())
    assert spec.name == "lakeside"
    assert len(spec.clauses) == 18
    way = house_way_from_text(spec.text)
    chosen, clause = way.decide(analyse(parse_cards("5s 5h 3d 3c Kh 9d 4c")))
    assert clause == "lakeside.two_pairs.low_pairs_together"
    assert sorted(chosen.front) == sorted(parse_cards("Kh 9d"))


def test_not_toml_names_the_line() -> None:
    assert _problems(VALID.replace('front = "best front"\n\n[[straights]]', "front =\n\n")) == [
        "line 11: not TOML: Invalid value"
    ]


def test_unknown_family() -> None:
    text = VALID + '\n[[four_of_kind]]\nid = "mine.four_of_kind.x"\n'
    assert _problems(text) == [
        'line 48: unknown family \'four_of_kind\' (families: "five_aces", "four_of_a_kind",'
        ' "straights", "full_house", "trips", "three_pairs", "two_pairs", "one_pair", "no_pair")'
    ]


def test_clause_ids_must_start_with_the_name_and_the_family() -> None:
    text = VALID.replace('"mine.trips.default"', '"yours.trips.default"')
    text = text.replace('"mine.no_pair.default"', '"mine.one_pair.high_card"')
    text = text.replace('"mine.two_pairs.default"', '"mine.two_pairs.Split"')
    assert _problems(text) == [
        "line 24: clause id 'yours.trips.default' must start with the way's name: mine.trips.",
        "line 34: clause id 'mine.two_pairs.Split': after mine.two_pairs. lower-case letters,"
        " digits and _ only",
        "line 44: clause id 'mine.one_pair.high_card' of family no_pair must start with"
        " mine.no_pair.",
    ]


def test_a_clause_id_used_twice() -> None:
    text = VALID + "\n" + _clause("no_pair")
    assert _problems(text) == [
        "line 49: clause id 'mine.no_pair.default' is used twice (first on line 44)"
    ]


def test_unknown_words_and_bad_ranks_name_their_lines() -> None:
    text = VALID.replace(
        'id = "mine.two_pairs.default"',
        'id = "mine.two_pairs.default"\nwhen = { high_pair = "Z" }\nkeep = "flush"',
    ).replace(
        'id = "mine.one_pair.default"',
        'id = "mine.one_pair.default"\nwhen = { colour = "red", low_pair = "K-7" }',
    )
    text = text.replace(
        'front = "best front"\n\n[[no_pair]]', 'front = "the big ones"\n\n[[no_pair]]'
    )
    assert _problems(text) == [
        "line 35: bad rank 'Z': expected a rank (2-10, J, Q, K, A), a range such as 7-10, or a"
        " floor such as J+",
        'line 36: unknown back to keep \'flush\' (known: "straight or flush", "straight flush",'
        ' "plain straight or flush")',
        "line 42: bad rank range 'K-7': the higher rank comes second",
        'line 42: unknown condition \'colour\' (conditions: "pair_count", "trips_count",'
        ' "high_pair", "low_pair", "trips_rank", "quads_rank", "other_pair", "high_single",'
        ' "single_ace", "holds_joker", "trips_above_pairs", "flush", "straight",'
        ' "singles_include", "any_of", "straight_flush_back", "front_at_least", "front_beats")',
        'line 44: unknown front \'the big ones\' (known: "highest pair", "lower pair", "pair of'
        ' the three of a kind", "pair of the four of a kind", "pair beside the four of a kind",'
        ' "pair of aces", "pair of kings", "two highest singles", "second and third highest'
        ' singles", "ace and highest other single", "first ace and highest other single",'
        ' "best front")',
    ]


def test_values_of_the_wrong_kind() -> None:
    text = VALID.replace(
        'id = "mine.trips.default"', 'id = "mine.trips.default"\nwhen = { single_ace = "yes" }'
    ).replace(
        'id = "mine.three_pairs.default"',
        'id = "mine.three_pairs.default"\nwhen = { pair_count = "many" }',
    )
    assert _problems(text) == [
        "line 25: single_ace must be true or false",
        "line 31: bad count 'many': expected a number, a range such as 1-2, or 1+",
    ]


def test_a_clause_needs_its_parts_and_keep_goes_with_pair_or_best_fronts() -> None:
    text = VALID.replace('front = "best front"\n\n[[trips]]', "\n[[trips]]").replace(
        'front = "best front"\n\n[[one_pair]]',
        'front = "two highest singles"\nkeep = "straight or flush"\n\n[[one_pair]]',
    )
    assert _problems(text) == [
        "line 18: the clause has no front (or use = a family, to send the hand to that family's"
        " clauses)",
        "line 32: front 'two highest singles' cannot go with keep (with keep: \"highest pair\","
        ' "lower pair", "pair of the three of a kind", "pair of the four of a kind", "pair beside'
        ' the four of a kind", "pair of aces", "pair of kings", "best front")',
    ]


def test_use_may_not_loop() -> None:
    text = (
        VALID
        + '\n[[straights]]\nuse = "straights"\n'
        + '\n[[two_pairs]]\nwhen = { single_ace = true }\nuse = "one_pair"\n'
        + '\n[[one_pair]]\nuse = "two_pairs"\n'
    )
    assert _problems(text) == [
        "line 49: use = 'straights' sends the hand to its own family",
        "line 53: use = 'one_pair' makes a loop: one_pair sends hands back",
        "line 56: use = 'two_pairs' makes a loop: two_pairs sends hands back",
    ]


def test_missing_name_and_family() -> None:
    text = VALID.replace('name = "mine"\n', "").replace(_clause("no_pair"), "")
    assert _problems(text) == [
        'the file has no name (name = "your_way" at the top)',
        "family 'no_pair' is missing: each family of R-HW-3 needs its clauses",
    ]


def test_a_front_that_fouls_is_accepted_and_a_gap_is_named_when_a_hand_falls_in_it() -> None:
    fouls = VALID.replace(
        'id = "mine.two_pairs.default"\ntext = "The two_pairs clause."\nfront = "best front"',
        'id = "mine.two_pairs.default"\ntext = "Higher pair front."\nfront = "highest pair"',
    )
    way = house_way_from_text(fouls)
    chosen, clause = way.decide(analyse(parse_cards("Ks Kh 3d 3c 9h 7d 4c")))
    assert (clause, chosen.legal) == ("mine.two_pairs.default", False)  # R-HW-5 at certification
    gap = VALID.replace(
        'front = "best front"\n\n[[one_pair]]',
        'front = "best front"\nwhen = { single_ace = true }\n\n[[one_pair]]',
    )
    with pytest.raises(NoClauseDecides) as missing:
        house_way_from_text(gap).decide(analyse(parse_cards("Ks Kh 3d 3c 9h 7d 4c")))
    assert str(missing.value) == "House Way mine: no two_pairs clause decides Ks Kh 9h 7d 4c 3d 3c"


def test_a_file_on_disk_is_named_in_each_line(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(VALID.replace('"mine.trips.default"', '"yours.trips.default"'))
    with pytest.raises(HouseWayFileError) as refused:
        read_house_way_file(path)
    assert str(refused.value) == (
        f"{path}:24: clause id 'yours.trips.default' must start with the way's name: mine.trips."
    )
    assert refused.value.problems == (
        (24, "clause id 'yours.trips.default' must start with the way's name: mine.trips."),
    )
    with pytest.raises(HouseWayFileError) as unread:
        read_house_way_file(tmp_path / "absent.toml")
    assert (
        str(unread.value) == f"{tmp_path / 'absent.toml'}: cannot read: No such file or directory"
    )
