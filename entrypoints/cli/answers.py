"""What a command that acts on the store says: its record as one JSON line, or its refusal as
one line on standard error (exit status 2), the store closed either way."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any


def json_record(
    command: str,
    store: Any,
    act: Callable[[Any], dict[str, Any]],
    refused: type[Exception] | tuple[type[Exception], ...],
) -> int:
    """``act`` on the open ``store``, closed after: the record it returns as one JSON line
    (keys sorted), exit status 0; an error of ``refused`` as ``paigow COMMAND: error`` on
    standard error, exit status 2, nothing printed on standard output."""
    try:
        record = act(store)
    except refused as error:
        print(f"paigow {command}: {error}", file=sys.stderr)
        return 2
    finally:
        store.close()
    print(json.dumps(record, sort_keys=True))
    return 0
