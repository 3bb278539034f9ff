"""structlog set-up: JSON lines in production, readable console lines in development.

``PAIGOW_LOG_FORMAT`` = ``json`` | ``console`` (default: console on a terminal, JSON otherwise);
``PAIGOW_LOG_LEVEL`` = ``debug`` | ``info`` (default) | ``warning`` | ``error`` (both read through
adapters/settings.py and passed in by the entry points). Below the level a call costs almost
nothing (a filtering bound logger), so logging every command stays cheap. Logs never replace
events: they say what the service did, the events say what happened at the table.

Lines go out through structlog's ``WriteLoggerFactory``: its ``WriteLogger`` writes each line and
its newline in ONE ``write`` call under a lock per file, then flushes. Python's stderr is
unbuffered when it is a file or a pipe, and one write of a whole line is not split between the
processes sharing it (``paigow serve --workers N``): no two lines interleave.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


def configure_logging(level: str = "info", fmt: str | None = None) -> None:
    """Log at ``level`` in ``fmt`` (callers pass the ``log_level`` and ``log_format`` settings
    unless a command decides); no ``fmt``: console lines on a terminal, JSON lines otherwise."""
    level_name = level.lower()
    chosen = (fmt or "").lower()
    if chosen not in ("json", "console"):
        chosen = "console" if sys.stderr.isatty() else "json"
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if chosen == "json"
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS[level_name]),
        logger_factory=structlog.WriteLoggerFactory(sys.stderr),
        cache_logger_on_first_use=False,
    )


def get_logger(**bound: Any) -> Any:
    return structlog.get_logger("paigow").bind(**bound)
