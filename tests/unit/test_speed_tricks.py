"""The speed measures stay contained (one private ``_speed.py`` a package) and each gives exactly
what the plain code gives; no code folder generates code (``exec``, ``eval``, ``compile``).

``trusted`` is checked in tests/unit/table/test_trusted_events.py and on every event the table
tests emit (tests/unit/table/conftest.py); the event dumper and ``time_text`` in
tests/unit/table/test_event_json.py and the same conftest."""

from __future__ import annotations

import ast
import copy
import pickle
from dataclasses import FrozenInstanceError, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from eventlog.envelope import NewEvent
from table_core._speed import become, fill_twin, named_tuple_maker, slot_setter
from table_core.ports import Actor, RecordedEvent

ROOT = Path(__file__).resolve().parents[2]
CODE = ("table_core", "eventlog", "adapters", "service_layer", "entrypoints", "audit")
#: The House Ways build their named tuples with ``tuple.__new__`` in place: the decision of a
#: hand is the hottest loop of the analysis (a later change may take ``named_tuple_maker``).
HOUSE_WAYS = ("table_core/house_ways/__init__.py", "table_core/house_ways/memo.py",
              "table_core/house_ways/shape.py")  # fmt: skip
WHEN = datetime(2026, 3, 14, 21, 30, tzinfo=UTC)
DEALER = Actor("dealer-ann", "dealer")


def _code_files() -> list[tuple[str, ast.Module]]:
    found = []
    for folder in CODE:
        for path in sorted((ROOT / folder).rglob("*.py")):
            found.append((path.relative_to(ROOT).as_posix(), ast.parse(path.read_text())))
    return found


def test_no_code_folder_generates_code() -> None:
    calls = [
        f"{name}:{node.lineno} {node.func.id}"
        for name, tree in _code_files()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in {"exec", "eval", "compile"}
    ]
    assert calls == []


def _tricks(tree: ast.Module) -> list[str]:
    """``__class__`` assigned, a descriptor's ``__set__`` taken, ``tuple.__new__`` called."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and target.attr == "__class__":
                    found.append(f"{node.lineno} __class__ =")
        elif isinstance(node, ast.Attribute):
            if node.attr == "__set__":
                found.append(f"{node.lineno} .__set__")
            elif (
                node.attr == "__new__"
                and isinstance(node.value, ast.Name)
                and node.value.id == "tuple"
            ):
                found.append(f"{node.lineno} tuple.__new__")
    return found


def test_the_speed_tricks_live_in_one_private_module_a_package() -> None:
    outside = {
        name: tricks
        for name, tree in _code_files()
        if not name.endswith("/_speed.py") and name not in HOUSE_WAYS
        if (tricks := _tricks(tree))
    }
    assert outside == {}


def test_the_house_ways_tricks_are_the_listed_ones() -> None:
    # Listed above and in docs/decisions.md; a new one is moved to table_core/_speed.py.
    for name in HOUSE_WAYS:
        assert _tricks(ast.parse((ROOT / name).read_text())), name


class _Frozen:
    __slots__ = ("a", "b")


def test_a_slot_setter_writes_what_object_setattr_writes() -> None:
    plain, fast = object.__new__(_Frozen), object.__new__(_Frozen)
    object.__setattr__(plain, "a", 1)
    slot_setter(_Frozen, "a")(fast, 1)
    assert fast.a == plain.a == 1

    class Fields:
        pass

    plain_dict, fast_dict = Fields(), Fields()
    object.__setattr__(plain_dict, "__dict__", {"x": 1, "y": 2})
    slot_setter(Fields, "__dict__")(fast_dict, {"x": 1, "y": 2})
    assert fast_dict.__dict__ == plain_dict.__dict__ and list(vars(fast_dict)) == ["x", "y"]


def _plainly(cls: type, values: dict[str, Any]) -> Any:
    """A frozen dataclass on slots built the plain way: every field by ``object.__setattr__``."""
    made = object.__new__(cls)
    for name, value in values.items():
        object.__setattr__(made, name, value)
    return made


def _same(fast: Any, plain: Any) -> None:
    assert type(fast) is type(plain)
    assert fast == plain and repr(fast) == repr(plain)  # (a payload dict: no hash)
    names = [f.name for f in fields(plain)]
    assert [getattr(fast, n) for n in names] == [getattr(plain, n) for n in names]
    with pytest.raises(FrozenInstanceError):
        fast.type = "another"
    assert pickle.loads(pickle.dumps(fast)) == plain and copy.copy(fast) == plain


def test_a_recorded_event_is_the_plainly_built_one() -> None:
    values = {"position": 7, "stream_id": "PG-1", "version": 3, "type": "bet_placed",
              "schema_version": 1, "payload": {"amount": 2500}, "actor": DEALER, "at": WHEN,
              "command_id": "c-1", "prev_hash": "a" * 64, "hash": "b" * 64}  # fmt: skip
    _same(RecordedEvent(**values), _plainly(RecordedEvent, values))


def test_an_envelope_is_the_plainly_built_one() -> None:
    fast = NewEvent("bet_placed", 1, {"amount": 2500}, DEALER, WHEN)
    plain = _plainly(NewEvent, {"type": "bet_placed", "schema_version": 1,
                                "payload": {"amount": 2500}, "actor": DEALER, "at": WHEN,
                                "serialized": False, "plain": True})  # fmt: skip
    _same(fast, plain)
    assert (fast.serialized, fast.plain) == (plain.serialized, plain.plain)


def test_become_refuses_a_class_of_another_layout() -> None:
    class Slots:
        __slots__ = ("a",)

    class Other:
        __slots__ = ("a", "b")

    with pytest.raises(TypeError):
        become(object.__new__(fill_twin(Slots)), Other)


class _Seat(NamedTuple):
    split: str
    rule: str
    house: bool = False


def test_a_named_tuple_made_in_c_is_the_named_tuple() -> None:
    fast, plain = named_tuple_maker(_Seat)(("7s-Ks", "R-HW-2", False)), _Seat("7s-Ks", "R-HW-2")
    assert type(fast) is _Seat and fast == plain and fast.rule == "R-HW-2"
    assert repr(fast) == repr(plain)
