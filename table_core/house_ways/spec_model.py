"""The shape of a House Way file, validated by pydantic (issue 32), and its errors as lines.

A file is a name and one list of clauses per R-HW-3 family (``[[two_pairs]]`` ...). A clause is
either a decision (``id``, ``text``, ``when``, ``front``, optional ``keep`` and ``joker``) or a
redirect (``when`` and ``use``: the named family's clauses decide and record their own id). The
words are those of ``spec_words``; a value outside them is refused with a message naming the
word and what is allowed. :func:`problem_text` turns a pydantic error into that one line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, model_validator

from table_core.house_ways.shape import FAMILIES
from table_core.house_ways.spec_words import (
    CLAUSE_KEYS,
    CONDITIONS,
    FRONTS,
    JOKER_WORDS,
    KEEP_FRONTS,
    KEEPS,
    PAIR_FRONTS,
    STRAIGHT_FLUSH_BACKS,
    known,
    parse_count,
    parse_rank,
    parse_ranks,
)

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


def _name(value: str) -> str:
    if not value or not value[0].isalpha() or not set(value) <= _NAME_CHARS:
        raise ValueError(
            f"bad name {value!r}: lower-case letters, digits and _ only, starting with a letter"
        )
    return value


def _ranks(value: str) -> str:
    parse_ranks(value)
    return value


def _rank(value: str) -> str:
    parse_rank(value)
    return value


def _count(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str):
        parse_count(value)
    return value


def _one_of(words: dict[str, str], what: str) -> Any:
    def check(value: str) -> str:
        if value not in words:
            raise ValueError(f"unknown {what} {value!r} (known: {known(words)})")
        return value

    return AfterValidator(check)


def _listed(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


def _fronts(value: list[str]) -> list[str]:
    for phrase in value:
        if phrase not in FRONTS:
            raise ValueError(f"unknown front {phrase!r} (known: {known(FRONTS)})")
    if not value:
        raise ValueError("front names no cards: give a phrase or a list of phrases")
    return value


WayName = Annotated[str, AfterValidator(_name)]
Ranks = Annotated[str, AfterValidator(_ranks)]
Rank = Annotated[str, AfterValidator(_rank)]
Count = Annotated[str, BeforeValidator(_count)]
Keep = Annotated[str, _one_of(KEEPS, "back to keep")]
Family = Annotated[str, _one_of(dict.fromkeys(FAMILIES, ""), "family")]
Fronts = Annotated[list[str], BeforeValidator(_listed), AfterValidator(_fronts)]
StraightFlushBack = Annotated[str, _one_of(STRAIGHT_FLUSH_BACKS, "straight_flush_back")]
JokerWord = Annotated[str, _one_of(JOKER_WORDS, "joker word")]

_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True)


class Condition(BaseModel):
    """Every condition that is given must hold (spec_words.CONDITIONS says what each tests)."""

    model_config = _STRICT

    pair_count: Count | None = None
    trips_count: Count | None = None
    high_pair: Ranks | None = None
    low_pair: Ranks | None = None
    trips_rank: Ranks | None = None
    quads_rank: Ranks | None = None
    other_pair: Ranks | None = None
    high_single: Ranks | None = None
    single_ace: bool | None = None
    holds_joker: bool | None = None
    trips_above_pairs: bool | None = None
    flush: bool | None = None
    straight: bool | None = None
    singles_include: list[Rank] | None = None
    any_of: list[Condition] | None = None
    straight_flush_back: StraightFlushBack | None = None
    front_at_least: Rank | None = None
    front_beats: Keep | None = None


class Clause(BaseModel):
    """One clause: a decision with a stable id, or a redirect to another family (``use``)."""

    model_config = _STRICT

    id: str | None = None
    text: str | None = None
    when: Condition = Condition()
    front: Fronts | None = None
    keep: Keep | None = None
    joker: JokerWord | None = None
    use: Family | None = None

    @model_validator(mode="after")
    def _complete(self) -> Clause:
        if self.use is not None:
            extra = [k for k in ("id", "text", "front", "keep", "joker") if getattr(self, k)]
            if extra:
                raise ValueError(
                    f"a clause with use = {self.use!r} takes no {', '.join(extra)}: the"
                    f" {self.use} clause that decides records its own id"
                )
            return self
        missing = [k for k in ("id", "text", "front") if getattr(self, k) is None]
        if missing:
            raise ValueError(
                f"the clause has no {', '.join(missing)} (or use = a family, to send the hand"
                " to that family's clauses)"
            )
        assert self.front is not None
        if self.keep is not None and not set(self.front) <= set(KEEP_FRONTS):
            bad = next(f for f in self.front if f not in KEEP_FRONTS)
            raise ValueError(f"front {bad!r} cannot go with keep (with keep: {known(KEEP_FRONTS)})")
        if self.joker is not None and not set(self.front) & set(PAIR_FRONTS):
            raise ValueError('joker = "front" needs a pair front (a phrase naming a pair)')
        if self.text is not None and not self.text.strip():
            raise ValueError("the clause text is empty")
        return self


class WayFile(BaseModel):
    """A whole file: its name and the clauses of each R-HW-3 family, in order."""

    model_config = _STRICT

    name: WayName
    five_aces: list[Clause]
    four_of_a_kind: list[Clause]
    straights: list[Clause]
    full_house: list[Clause]
    trips: list[Clause]
    three_pairs: list[Clause]
    two_pairs: list[Clause]
    one_pair: list[Clause]
    no_pair: list[Clause]

    def families(self) -> dict[str, list[Clause]]:
        """Family -> its clauses, in R-HW-3 order."""
        return {family: getattr(self, family) for family in FAMILIES}


_TYPE_WORDS = {
    "string_type": "must be text in quotes",
    "bool_type": "must be true or false",
    "list_type": "must be a list [...]",
    "model_type": "must be a table",
    "dict_type": "must be a table",
}


def problem_text(error: Mapping[str, Any]) -> str:
    """One line for one pydantic error, in the file's words."""
    kind, where = error["type"], error["loc"]
    key = next((str(p) for p in reversed(where) if isinstance(p, str)), "")
    if kind == "value_error":
        return str(error.get("ctx", {}).get("error", error["msg"]))
    if kind == "extra_forbidden":
        if len(where) == 1:
            return f"unknown family {key!r} (families: {known(FAMILIES)})"
        if "when" in where[:-1]:
            return f"unknown condition {key!r} (conditions: {known(CONDITIONS)})"
        return f"unknown clause key {key!r} (keys: {known(CLAUSE_KEYS)})"
    if kind == "missing":
        if key == "name":
            return 'the file has no name (name = "your_way" at the top)'
        return f"family {key!r} is missing: each family of R-HW-3 needs its clauses"
    if kind == "list_type" and len(where) == 1:
        return f"family {key!r} must be a list of clauses: write each one under [[{key}]]"
    return f"{key} {_TYPE_WORDS.get(kind, error['msg'])}"
