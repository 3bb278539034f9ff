"""JSON read strictly, for input from outside (an HTTP body, a line of ``paigow settle``, a
pay-table file): one meaning or a clear refusal, never a crash (issue 17).

Refused, each with a one-line reason (:class:`StrictJsonError`, a ``ValueError``):

- bytes that are not UTF-8 (a UTF-16 body, a byte-order mark): RFC 8259 section 8.1;
- an object with the same key twice (RFC 8259 section 4 leaves its meaning open: the standard
  library keeps the last, others the first, so a reader and an auditor could disagree);
- ``NaN``, ``Infinity``; an integer of more digits than :data:`MAX_DIGITS`;
- nesting deeper than :data:`MAX_DEPTH` (the standard library's parser recurses: a 1,000-deep
  array raised ``RecursionError`` and lost every later line);
- with ``printable=True``, a string (key or value) holding a control character: C0 and C1
  controls (NUL, ``\\r``, the ESC of an ANSI sequence), DEL, Unicode format characters (the
  bidirectional overrides) and line or paragraph separators. Such text, once stored, would
  rewrite a terminal or a report that shows it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

#: Deeper than any request or line this project reads (a rules profile is three levels).
MAX_DEPTH = 32
#: An integer of more digits is no amount, count or version this project keeps (2^63 has 19).
MAX_DIGITS = 40

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # unrolled: C loops per run
_NUMBER_TOO_LONG = re.compile(r"\d{" + str(MAX_DIGITS + 1) + ",}")
_REFUSED_CATEGORIES = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"))
_PLAIN = re.compile(r"[ -~]*")  # printable ASCII: most strings, checked without a loop
_PLAIN_TEXT = re.compile(r"[\t\n\r -\[\]-~]*")  # the same and JSON's whitespace, no backslash


class StrictJsonError(ValueError):
    """Input that is not strict JSON; the message says why in one line."""


def unprintable(text: str) -> str | None:
    """The first character of ``text`` refused in stored text (see the module), or ``None``."""
    if _PLAIN.fullmatch(text):
        return None
    for char in text:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            return char
    return None


def _depth_ok(plain: str) -> bool:
    """No bracket of ``plain`` (the text with its strings emptied) nests deeper than
    :data:`MAX_DEPTH`."""
    depth = 0
    for char in plain:
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return False
        elif char in "]}":
            depth -= 1
    return True


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) == len(pairs):
        return found
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise StrictJsonError(f"the key {key!r} appears twice in one object")
        seen.add(key)
    return found  # not reached: a shorter dict means a key came twice


def _constant(name: str) -> Any:
    raise StrictJsonError(f"{name} is not a JSON number")


def _check_strings(value: Any) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            bad = unprintable(item)
            if bad is not None:
                raise StrictJsonError(
                    f"a string holds the control character U+{ord(bad):04X}: text must be printable"
                )
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def loads(data: bytes | str, *, printable: bool = False) -> Any:
    """The value of ``data`` read strictly (see the module); :class:`StrictJsonError` otherwise."""
    if isinstance(data, bytes):
        if data.startswith(b"\xef\xbb\xbf"):
            raise StrictJsonError("the body starts with a byte-order mark: send UTF-8 without one")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise StrictJsonError("not UTF-8: JSON is sent as UTF-8 (RFC 8259)") from None
    else:
        text = data
    plain = _STRING.sub('""', text)  # every string emptied: what is left is structure
    if not _depth_ok(plain):
        raise StrictJsonError(f"nested deeper than {MAX_DEPTH} levels")
    if _NUMBER_TOO_LONG.search(plain):
        raise StrictJsonError(f"a number of more than {MAX_DIGITS} digits")
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant)
    except json.JSONDecodeError as error:
        raise StrictJsonError(f"not JSON: {error.msg} at column {error.colno}") from None
    except (RecursionError, ValueError) as error:  # StrictJsonError is a ValueError
        if isinstance(error, StrictJsonError):
            raise
        raise StrictJsonError(f"not JSON this reader accepts: {error}") from None
    if printable and not _PLAIN_TEXT.fullmatch(text):
        # Printable ASCII and JSON's whitespace with no escape holds no refused character in any
        # string (a raw control character is not JSON): only other texts are walked.
        _check_strings(value)
    return value
