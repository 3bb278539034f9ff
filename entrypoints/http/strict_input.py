"""Strict input at the door: a command's body is read as strict JSON and validated without any
conversion, by the command door (``command_door.py``).

Refused with 422 ``invalid_request`` (issue 17), nothing written:

- what ``adapters.strict_json`` refuses: a body that is not UTF-8 (UTF-16), a key given twice,
  ``NaN``, nesting past 32 levels, a number past 40 digits, and a control character (ANSI
  escapes, ``\\r``, NUL, bidirectional overrides) in any string: reasons, names, house ways;
- a value of another JSON type than the schema's: ``"7"`` for an integer, ``0`` or ``1`` for a
  boolean, ``25.0`` for an integer. pydantic's lax mode would convert each; its strict mode
  also refuses a JSON array for a set (the rules profile's ``offered`` bets), so the body is
  validated as usual and then compared with the model's own JSON: any value that changed type
  was converted, and is refused with its location.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from pydantic_core import to_jsonable_python

from adapters import strict_json

_JSON_TYPES = {
    str: "a string",
    int: "an integer",
    bool: "a boolean",
    float: "a number",
    list: "an array",
    dict: "an object",
    type(None): "null",
}


def _refused(
    loc: tuple[Any, ...], msg: str, kind: str, given: Any = None
) -> RequestValidationError:
    return RequestValidationError(
        [{"loc": ("body", *loc), "msg": msg, "type": kind, "input": given}]
    )


def _child(obj: Any, key: Any) -> Any:
    if isinstance(obj, BaseModel):
        return getattr(obj, key, None)
    if isinstance(obj, dict):
        return obj.get(key)
    if isinstance(obj, list | tuple) and isinstance(key, int) and key < len(obj):
        return obj[key]
    return None


def _scalars(values: list[Any]) -> list[tuple[str, Any]] | None:
    """The list's members as sortable (type, value) pairs, or ``None`` if one is not a scalar."""
    if not all(isinstance(v, str | int | float | bool) for v in values):
        return None
    return sorted((type(v).__name__, v) for v in values)


def _converted(given: Any, dumped: Any, loc: tuple[Any, ...], obj: Any) -> tuple[Any, ...] | None:
    """Where ``given`` (the parsed body) differs in type or value from ``dumped`` (the model's
    JSON; ``obj`` the model's value there), or ``None``. Only the keys the caller gave are
    compared (defaults fill the rest); a key the model's JSON leaves out (a default it does not
    write) is compared with the model's value itself."""
    if isinstance(given, dict):
        if not isinstance(dumped, dict):
            return loc
        for key, value in given.items():
            child = _child(obj, key)
            back = dumped[key] if key in dumped else to_jsonable_python(child)
            found = _converted(value, back, (*loc, key), child)
            if found is not None:
                return found
        return None
    if isinstance(given, list):
        if not isinstance(dumped, list) or len(given) != len(dumped):
            return loc
        mine = _scalars(given)
        if mine is not None and mine == _scalars(dumped):
            return None  # the same members, which the model keeps in its own order
        for index, (value, back) in enumerate(zip(given, dumped, strict=True)):
            found = _converted(value, back, (*loc, index), _child(obj, index))
            if found is not None:
                return found
        return None
    if type(given) is not type(dumped) or given != dumped:
        return loc
    return None


def _walk(value: Any, loc: tuple[Any, ...]) -> Any:
    for part in loc:
        value = value[part]
    return value


def _walk_model(value: Any, loc: tuple[Any, ...]) -> Any:
    for part in loc:
        value = _child(value, part)
    return value


#: A body up to this size is read on the event loop (a command's is a few hundred bytes); a larger
#: one, up to the body limit (body_limit.py), in the reader thread: reading 64 KiB strictly takes
#: tens of milliseconds, which no request should hold the loop for.
ON_LOOP = 4096
#: ONE thread reads the larger bodies, one after the other: the reading holds the GIL, and twenty
#: threads reading at once kept the loop from its turn for most of a second (and held twenty
#: parsed bodies in memory); one thread gives it up to the loop every switch interval (5 ms).
_READER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paigow-strict-json")


async def read_strictly(model: type[BaseModel], raw: bytes) -> Any:
    """``strict_body``, in the reader thread for a body over :data:`ON_LOOP` bytes."""
    if len(raw) <= ON_LOOP:
        return strict_body(model, raw)
    return await asyncio.get_running_loop().run_in_executor(_READER, strict_body, model, raw)


def strict_body(model: type[BaseModel], raw: bytes) -> Any:
    """The body ``raw`` as ``model``, read strictly; ``RequestValidationError`` (the API's 422
    ``invalid_request``) otherwise."""
    try:
        data = strict_json.loads(raw, printable=True)
    except strict_json.StrictJsonError as error:
        kind = "string_unprintable" if "control character" in str(error) else "json_invalid"
        raise _refused((), str(error), kind) from None
    try:
        body = model.model_validate(data)
    except ValidationError as error:
        raise RequestValidationError(
            [
                # ``input`` words the answer (errors.py: money given as 25.00); never echoed
                {
                    "loc": ("body", *e["loc"]),
                    "msg": e["msg"],
                    "type": e["type"],
                    "input": e["input"],
                }
                for e in error.errors(include_url=False)
            ]
        ) from None
    where = _converted(data, body.model_dump(mode="json"), (), body)
    if where is not None:
        given = _walk(data, where)
        wanted = to_jsonable_python(_walk_model(body, where))
        if type(given) is type(wanted):
            message = f"{given!r} is not written as the schema keeps it ({wanted!r})"
        else:
            message = (
                f"{_JSON_TYPES.get(type(given), 'a value')} given where the schema wants "
                f"{_JSON_TYPES.get(type(wanted), 'another value')}: no conversion is made"
            )
        raise _refused(where, message, "strict_type", given)
    return body
