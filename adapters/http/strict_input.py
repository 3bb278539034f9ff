"""Strict input at the door: a command's body is read as strict JSON and validated without any
conversion, on both request paths (the FastAPI endpoints and the fast path of ``fast.py``).

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

from typing import Any

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

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


def _refused(loc: tuple[Any, ...], msg: str, kind: str) -> RequestValidationError:
    return RequestValidationError([{"loc": ("body", *loc), "msg": msg, "type": kind}])


def _converted(given: Any, dumped: Any, loc: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """Where ``given`` (the parsed body) differs in type or value from ``dumped`` (the model's
    JSON), or ``None``. Only the keys the caller gave are compared (defaults fill the rest)."""
    if isinstance(given, dict):
        if not isinstance(dumped, dict):
            return loc
        for key, value in given.items():
            if key not in dumped:
                return (*loc, key)
            found = _converted(value, dumped[key], (*loc, key))
            if found is not None:
                return found
        return None
    if isinstance(given, list):
        if not isinstance(dumped, list) or len(given) != len(dumped):
            return loc
        pairs = list(zip(given, dumped, strict=True))
        if all(isinstance(v, str) for v in given) and sorted(given) == sorted(dumped):
            return None  # a set's members, which the model keeps in its own order
        for index, (value, back) in enumerate(pairs):
            found = _converted(value, back, (*loc, index))
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
                {"loc": ("body", *e["loc"]), "msg": e["msg"], "type": e["type"]}
                for e in error.errors(include_url=False)
            ]
        ) from None
    where = _converted(data, body.model_dump(mode="json"), ())
    if where is not None:
        given = _walk(data, where)
        wanted = _walk(body.model_dump(mode="json"), where)
        if type(given) is type(wanted):
            message = f"{given!r} is not written as the schema keeps it ({wanted!r})"
        else:
            message = (
                f"{_JSON_TYPES.get(type(given), 'a value')} given where the schema wants "
                f"{_JSON_TYPES.get(type(wanted), 'another value')}: no conversion is made"
            )
        raise _refused(where, message, "strict_type")
    return body
