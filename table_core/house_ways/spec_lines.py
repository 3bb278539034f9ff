"""Line numbers of a House Way file's tables and keys, for its error lines (issue 32).

``tomllib`` gives values without positions, so a light scan of the text finds where each
``[[family]]`` clause starts and on which line each key first appears inside it (keys of inline
tables included). A problem found in the values is then reported at the line of its key, or else
of its clause, or else of the top-level key it belongs to. Lines inside multi-line strings are
skipped, so a clause text that happens to look like a header moves nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_ARRAY_HEADER = re.compile(r"^\s*\[\[\s*([A-Za-z0-9_\-]+)\s*\]\]")
_TABLE_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_\-]+)(?:\.[A-Za-z0-9_.\-]+)?\s*\]")
_KEY = re.compile(r"(?:^|[{,])\s*([A-Za-z0-9_\-]+)\s*=")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')


class Lines:
    """Where things are in one file's text (1-based line numbers)."""

    def __init__(self, text: str) -> None:
        #: family -> the line of each of its ``[[family]]`` headers, in order
        self.clauses: dict[str, list[int]] = {}
        #: (family, index) -> key -> first line inside that clause
        self.clause_keys: dict[tuple[str, int], dict[str, int]] = {}
        #: top-level key or table -> its first line
        self.top: dict[str, int] = {}
        current: tuple[str, int] | None = None
        in_string: str | None = None
        for number, line in enumerate(text.splitlines(), start=1):
            if in_string is not None:
                if line.count(in_string) % 2:
                    in_string = None
                continue
            for quote in ('"""', "'''"):
                if line.count(quote) % 2:
                    in_string = quote
            header = _ARRAY_HEADER.match(line)
            if header:
                family = header[1]
                starts = self.clauses.setdefault(family, [])
                starts.append(number)
                current = (family, len(starts) - 1)
                self.clause_keys[current] = {}
                self.top.setdefault(family, number)
                continue
            table = _TABLE_HEADER.match(line)
            if table:
                if current is None or table[1] != current[0]:
                    current = None
                    self.top.setdefault(table[1], number)
                continue
            bare = _STRING.sub('""', line).split("#", 1)[0]
            for key in _KEY.findall(bare):
                if current is None:
                    self.top.setdefault(key, number)
                else:
                    self.clause_keys[current].setdefault(key, number)

    def line(self, where: Sequence[str | int]) -> int | None:
        """The line of a value at ``where`` (``("two_pairs", 2, "when", "high_pair")``)."""
        if not where:
            return None
        first = str(where[0])
        starts = self.clauses.get(first, [])
        if len(where) >= 2 and isinstance(where[1], int) and where[1] < len(starts):
            keys = self.clause_keys[(first, where[1])]
            for part in reversed(where[2:]):
                if isinstance(part, str) and part in keys:
                    return keys[part]
            return starts[where[1]]
        return self.top.get(first)
