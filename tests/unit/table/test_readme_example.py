"""The README's "one round through the core" example runs and prints what it says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

from eventlog.mapper import event_to_dict, parse_event
from table_core.table import fold

EXAMPLE = Path(__file__).parents[3] / "README.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", EXAMPLE.read_text(), flags=re.S)


def test_the_readme_example_prints_its_documented_output() -> None:
    (code,) = _blocks("python")
    (expected,) = _blocks("text")
    scope: dict[str, object] = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(EXAMPLE), "exec"), scope)
    assert out.getvalue() == expected
    log = scope["log"]
    assert isinstance(log, list)
    assert fold(parse_event(event_to_dict(e)) for e in log) == scope["state"]
