"""Line-oriented commands: one input line in, one JSON object out, bad lines reported in place.

The contract scripts rely on: output order is input order; a bad line writes
``{"line": N, "error": "..."}`` instead of a result, the other lines go on, and the exit status is 1
when any line was bad. Blank lines are skipped (they still count for line numbers).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from adapters import strict_json
from table_core.errors import DomainError


class LineError(Exception):
    """A line the command cannot read (bad JSON, a missing field): reported like a domain error."""


def run_lines(lines: Iterable[str], out: TextIO, handle: Callable[[str], dict[str, Any]]) -> int:
    status = 0
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        try:
            result = handle(text)
        except (DomainError, LineError) as error:
            result = {"line": number, "error": str(error)}
            status = 1
        out.write(json.dumps(result) + "\n")
    return status


def parse_json_object(text: str) -> dict[str, Any]:
    try:
        value = strict_json.loads(text)  # 1,000-deep or a 4,300-digit number: a bad line
    except strict_json.StrictJsonError as error:
        raise LineError(str(error)) from None
    if not isinstance(value, dict):
        raise LineError("expected a JSON object")
    return value
