"""A casino's House Way file on a table (issue 32): installed by the floor with a reason, the
text checked against its digest, played from the next round by exactly that text (R-HW-1)."""

from __future__ import annotations

import pytest

from adapters.house_way_files import built_in_text
from table_core import commands as c
from table_core.cards import parse_cards
from table_core.errors import ConfigurationError, DomainError
from table_core.events import Actor, HouseWayInstalled, RulesChanged
from table_core.house_ways import set_by_house_way
from table_core.house_ways.spec import HouseWayFileError
from table_core.table import NotAllowed
from table_core.table.house_way_install import (
    clause_words,
    house_way_of,
    house_way_status,
    text_digest,
)

from .support import AT, DEALER, FLOOR, TABLE, Script, rules

CERTIFICATE = "c" * 64


def riverside() -> str:
    text = built_in_text("es").replace('name = "es"', 'name = "riverside"')
    return text.replace('id = "es.', 'id = "riverside.')


def install(
    text: str, digest: str | None = None, actor: Actor = FLOOR, reason: str = "new sign"
) -> c.Command:
    return c.InstallHouseWay(
        text=text,
        digest=digest or text_digest(text),
        certificate_digest=CERTIFICATE,
        reason=reason,
        actor=actor,
        at=AT,
    )


def opened() -> Script:
    script = Script()
    script(c.OpenTable(table_id=TABLE, rules=rules(), actor=FLOOR, at=AT))
    return script


def test_the_floor_installs_a_file_and_the_table_plays_exactly_its_text() -> None:
    script = opened()
    text = riverside()
    digest = text_digest(text)
    installed, changed = script(install(text))
    assert isinstance(installed, HouseWayInstalled) and isinstance(changed, RulesChanged)
    assert (installed.name, installed.text, installed.digest) == ("riverside", text, digest)
    assert installed.certificate_digest == CERTIFICATE and installed.round is None
    assert (changed.reason, changed.applies_from_round, changed.rules.version) == ("new sign", 1, 2)
    hand = changed.rules.hand
    assert (hand.house_way, hand.house_way_digest) == ("riverside", digest)
    state = script.state
    assert state.house_ways[digest].text == text
    way = house_way_of(state, hand)
    assert not isinstance(way, str) and way.name == "riverside"
    split = set_by_house_way(parse_cards("As Ad 7c 7h Kd 9s 2c"), way)
    assert split.rule == "riverside.two_pairs.split"
    assert clause_words(state, split.rule) == way.clauses[split.rule]
    assert house_way_status(state) == {
        "name": "riverside",
        "digest": digest,
        "certificate_digest": CERTIFICATE,
        "kind": "certified file",
    }
    # The profile's bytes name the digest only when it is set (profiles of old keep theirs).
    assert "house_way_digest" not in rules().model_dump(mode="json")["hand"]
    assert hand.model_dump(mode="json")["house_way_digest"] == digest


def test_a_rules_change_goes_back_to_a_built_in_or_to_an_installed_file_only() -> None:
    script = opened()
    text = riverside()
    script(install(text))
    now = script.state.rules
    assert now is not None
    back = now.model_copy(
        update={
            "version": 3,
            "hand": now.hand.model_copy(update={"house_way": "fr", "house_way_digest": None}),
        }
    )
    script(c.ChangeRules(rules=back, reason="back to fr", actor=FLOOR, at=AT))
    assert house_way_of(script.state, back.hand) == "fr"
    again = now.model_copy(update={"version": 4})
    script(c.ChangeRules(rules=again, reason="riverside again", actor=FLOOR, at=AT))
    unknown = now.model_copy(
        update={"version": 5, "hand": now.hand.model_copy(update={"house_way_digest": "d" * 64})}
    )
    with pytest.raises(ConfigurationError, match="is not installed on this table"):
        script(c.ChangeRules(rules=unknown, reason="a file never installed", actor=FLOOR, at=AT))


def test_an_install_is_refused_to_a_dealer_without_reason_or_with_another_digest() -> None:
    script = opened()
    text = riverside()
    with pytest.raises(NotAllowed):
        script(install(text, actor=DEALER))
    with pytest.raises(DomainError, match="states its reason"):
        script(install(text, reason=" "))
    with pytest.raises(DomainError, match=f"SHA-256 is {text_digest(text)}, not {'e' * 64}"):
        script(install(text, digest="e" * 64))
    with pytest.raises(HouseWayFileError, match="line 1"):
        script(install("name = 1\n"))
    assert script.state.house_ways == {} and script.state.rules == rules()
