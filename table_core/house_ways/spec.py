"""A casino's House Way as data (issue 32): read a TOML file, validate it, make it a HouseWay.

``parse_house_way(text)`` reads the text with the standard library's ``tomllib``, validates it
with pydantic (``spec_model``) and checks what only the whole file can tell: each clause id is
``<name>.<family>.<detail>`` and used once, every family has a clause, and no ``use`` makes a
loop. Every problem is one line with the file's line number (``spec_lines``); nothing is half
accepted. ``house_way_from_text(text)`` gives the :class:`HouseWay` the file defines (the
interpreter is ``spec_run``), not registered, cached by the text's SHA-256.

An action that can foul is accepted here: certification finds the hands (R-HW-5); a table never
plays a foul (``set_by_house_way`` refuses it).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import ValidationError

from table_core.errors import ConfigurationError
from table_core.house_ways import HouseWay, digest_of
from table_core.house_ways.shape import FAMILIES
from table_core.house_ways.spec_lines import Lines
from table_core.house_ways.spec_model import WayFile, problem_text
from table_core.house_ways.spec_run import compile_way

Problem = tuple[int | None, str]

_TOML_LINE = re.compile(r"\s*\(at line (\d+), column \d+\)$")
_DETAIL = re.compile(r"^[a-z0-9_]+$")


class HouseWayFileError(ConfigurationError):
    """A House Way file that cannot be used: one ``line N: message`` per problem, or
    ``FILE:N: message`` when ``source`` names the file (a problem without a line: no number)."""

    def __init__(self, problems: tuple[Problem, ...], source: str | None = None) -> None:
        self.problems = problems
        self.source = source
        super().__init__("\n".join(_shown(line, message, source) for line, message in problems))
        self.rule = "R-HW-1"


def _shown(line: int | None, message: str, source: str | None) -> str:
    if source is None:
        return message if line is None else f"line {line}: {message}"
    return f"{source}: {message}" if line is None else f"{source}:{line}: {message}"


@dataclass(frozen=True, eq=False)
class HouseWaySpec:
    """A valid House Way file: its name, clauses (id -> the casino's text, file order), the exact
    text and its SHA-256, and whether it reads suits only through straights and flushes."""

    name: str
    clauses: Mapping[str, str]
    text: str
    digest: str
    suit_blind: bool
    rules: WayFile


def parse_house_way(text: str) -> HouseWaySpec:
    """Validate a House Way file's text; raises :class:`HouseWayFileError` listing every problem."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        found = _TOML_LINE.search(message)
        line = int(found[1]) if found else None
        raise HouseWayFileError(((line, "not TOML: " + _TOML_LINE.sub("", message)),)) from None
    lines = Lines(text)
    problems = _whole_file_problems(raw, lines)
    try:
        way = WayFile.model_validate(raw)
    except ValidationError as error:
        problems += [(lines.line(e["loc"]), problem_text(e)) for e in error.errors()]
    if problems:
        raise HouseWayFileError(_ordered(problems))
    clauses = {
        clause.id: clause.text
        for each in way.families().values()
        for clause in each
        if clause.id is not None and clause.text is not None
    }
    # Every word of spec_words reads suits only through straights and flushes (its docstring).
    return HouseWaySpec(way.name, clauses, text, digest_of(text), True, way)


def _ordered(problems: list[Problem]) -> tuple[Problem, ...]:
    unique = list(dict.fromkeys(problems))
    return tuple(sorted(unique, key=lambda p: (p[0] is None, p[0] or 0)))


def _clauses(raw: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Family -> its clauses as read, for the families that are lists (pydantic names the rest)."""
    return {
        family: [c if isinstance(c, dict) else {} for c in raw[family]]
        for family in FAMILIES
        if isinstance(raw.get(family), list)
    }


def _whole_file_problems(raw: dict[str, Any], lines: Lines) -> list[Problem]:
    """What only the whole file tells: ids against the name and each other, empty families,
    loops of ``use``. Read from the parsed TOML, so they are listed with pydantic's problems."""
    name = raw.get("name") if isinstance(raw.get("name"), str) else None
    families = _clauses(raw)
    problems: list[Problem] = []
    seen: dict[str, int | None] = {}
    sends: dict[str, set[str]] = {}
    for family, clauses in families.items():
        if not clauses:
            problems.append((lines.line((family,)), f"family {family!r} has no clause"))
        for index, clause in enumerate(clauses):
            target, clause_id = clause.get("use"), clause.get("id")
            if isinstance(target, str) and target in FAMILIES:
                sends.setdefault(family, set()).add(target)
            if not isinstance(clause_id, str):
                continue
            line = lines.line((family, index, "id"))
            message = _id_problem(clause_id, name, family) if name else None
            if message:
                problems.append((line, message))
            if clause_id in seen:
                first = seen[clause_id]
                where = f" (first on line {first})" if first else ""
                problems.append((line, f"clause id {clause_id!r} is used twice{where}"))
            seen.setdefault(clause_id, line)
    for family, clauses in families.items():
        for index, clause in enumerate(clauses):
            target = clause.get("use")
            if isinstance(target, str) and target in FAMILIES and _reaches(sends, target, family):
                line = lines.line((family, index, "use"))
                if target == family:
                    message = f"use = {family!r} sends the hand to its own family"
                else:
                    message = f"use = {target!r} makes a loop: {target} sends hands back"
                problems.append((line, message))
    return problems


def _id_problem(clause_id: str, name: str, family: str) -> str | None:
    prefix = f"{name}.{family}."
    if not clause_id.startswith(f"{name}."):
        return f"clause id {clause_id!r} must start with the way's name: {prefix}"
    if not clause_id.startswith(prefix):
        return f"clause id {clause_id!r} of family {family} must start with {prefix}"
    if not _DETAIL.match(clause_id[len(prefix) :]):
        return f"clause id {clause_id!r}: after {prefix} lower-case letters, digits and _ only"
    return None


def _reaches(sends: dict[str, set[str]], start: str, goal: str) -> bool:
    """``start`` sends hands, directly or not, to ``goal``."""
    todo, seen = [start], set()
    while todo:
        here = todo.pop()
        if here == goal:
            return True
        if here not in seen:
            seen.add(here)
            todo.extend(sends.get(here, ()))
    return False


def house_way_from_text(text: str, digest: str | None = None) -> HouseWay:
    """The House Way a file defines (not registered): cached by digest, so its memo is shared.
    ``digest``, when the caller holds it (a table's installed text), spares hashing the text
    again; the text is part of the cache's key, so a wrong digest cannot give another way."""
    return _house_way(digest or digest_of(text), text)


@lru_cache(maxsize=16)
def _house_way(digest: str, text: str) -> HouseWay:
    spec = parse_house_way(text)
    decide = compile_way(spec.rules)
    return HouseWay(spec.name, dict(spec.clauses), decide, by_rank_pattern=spec.suit_blind)
