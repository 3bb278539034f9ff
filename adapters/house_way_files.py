"""House Way files on disk (issue 32): the built-ins shipped as package data, and a casino's file.

Reading is I/O, so it lives here; validation and the interpreter are pure (``table_core.house_ways
.spec``). An error names the file: ``FILE:LINE: message``, one line per problem.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from table_core.errors import ConfigurationError
from table_core.house_ways import BUILT_IN
from table_core.house_ways.spec import HouseWayFileError, HouseWaySpec, parse_house_way


def built_in_text(name: str) -> str:
    """The text of a built-in House Way's file (``table_core/house_ways/<name>.toml``)."""
    if name not in BUILT_IN:
        known = ", ".join(BUILT_IN)
        raise ConfigurationError(f"no built-in House Way file {name!r} (built-in: {known})")
    return (resources.files("table_core.house_ways") / f"{name}.toml").read_text(encoding="utf-8")


def read_house_way_file(path: str | Path) -> HouseWaySpec:
    """Read and validate a House Way file; every problem as ``FILE:LINE: message``."""
    shown = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise HouseWayFileError(((None, f"cannot read: {reason}"),), source=shown) from None
    try:
        return parse_house_way(text)
    except HouseWayFileError as error:
        raise HouseWayFileError(error.problems, source=shown) from None
