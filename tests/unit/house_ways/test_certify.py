"""Certification finds what a broken House Way file does wrong, with the hands (R-HW-5, R-HW-3).

fr's file broken twice: its one-pair clause sends the pair front (every such hand fouls: the back
holds no pair), and its two-pair family keeps only the aces clause (a gap: two pairs without aces
are decided by no clause). On small decks whose ranks no straight joins, the suit classes count
exactly the hands one by one, and the certificate names the failures with example hands. The
committed certificates of the built-ins are those of the files shipped today.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from adapters.house_way_files import built_in_text
from service_layer.house_way_certificates import WaySource, certificate
from service_layer.house_way_install import NotCertified
from table_core.house_ways import BUILT_IN
from table_core.house_ways.certify import FOUL, NO_CLAUSE, tally_hands, tally_patterns
from table_core.house_ways.hand_classes import every_hand, rank_patterns
from table_core.house_ways.spec import digest_of, house_way_from_text

#: Ranks no straight can join, no joker: five (every hand holds two pairs or more; 77,520 hands,
#: counted one by one too) and six (one pair hands too).
FIVE = (13, 9, 7, 4, 2)
SIX = (13, 11, 9, 7, 4, 2)
CERTIFICATES = Path(__file__).parents[3] / "docs" / "house-way-certificates"


def broken() -> str:
    text = built_in_text("fr")
    text = text.replace(
        'id = "fr.one_pair.default"\ntext = "One pair: the pair stays back, the two highest other'
        ' cards go front."\nfront = "two highest singles"',
        'id = "fr.one_pair.default"\ntext = "One pair: the pair goes front."\n'
        'front = "highest pair"',
    )
    clauses = "split_sevens_no_ace|split_jacks_sixes_ace|keep_both"
    gap = r'\[\[two_pairs\]\]\nid = "fr\.two_pairs\.(' + clauses + r')"[^\[]*'
    text, removed = re.subn(gap, "", text)
    assert removed == 3 and 'front = "highest pair"' in text
    return text


def test_a_fouling_clause_and_a_gap_fail_with_the_hands_named() -> None:
    way = house_way_from_text(broken())
    by_class = tally_patterns(way, rank_patterns(FIVE, joker=False))
    by_hand = tally_hands(way, every_hand(FIVE, joker=False))
    assert by_class.failures == by_hand.failures
    assert by_class.failures[NO_CLAUSE] == by_class.families["two_pairs"] == 22_680
    by_class.merge(tally_patterns(way, rank_patterns(SIX, joker=False)))
    assert by_class.failures[FOUL] == by_class.clauses["fr.one_pair.default"] > 0
    source = WaySource("fr", broken())
    done = certificate(source, by_class, way)
    figures = done.figures
    assert figures["certified"] is False
    assert set(figures["failures"]) == {NO_CLAUSE, FOUL}
    foul = figures["failure_examples"][FOUL][0]
    assert re.fullmatch(
        r"(\S\S ){6}\S\S: fr\.one_pair\.default sets (\S\S ){4}\S\S / \S\S \S\S, a foul \(R-HW-5\)",
        foul,
    ), foul
    gap = figures["failure_examples"][NO_CLAUSE][0]
    assert re.fullmatch(r"(\S\S ){6}\S\S: .*two_pairs.*", gap), gap
    refused = str(NotCertified(done))
    assert refused.startswith("House Way fr does not certify (no_clause_decides ")
    assert foul in refused or gap in refused


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_committed_certificates_are_the_shipped_files(name: str) -> None:
    figures = json.loads((CERTIFICATES / f"{name}.json").read_text(encoding="utf-8"))
    assert figures["file_sha256"] == digest_of(built_in_text(name))
    assert figures["certified"] is True and figures["hands"] == 154_143_080
    assert figures["unreachable_clauses"] == [] and figures["failures"] == {}
    assert sum(figures["clauses"].values()) == sum(figures["banker_back"].values()) == 154_143_080
