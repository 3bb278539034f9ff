"""structlog set-up: JSON lines in production, readable console lines in development.

``PAIGOW_LOG_FORMAT`` = ``json`` | ``console`` (default: console on a terminal, JSON otherwise);
``PAIGOW_LOG_LEVEL`` = ``debug`` | ``info`` (default) | ``warning`` | ``error``. Below the level a
call costs almost nothing (a filtering bound logger), so logging every command stays cheap. Logs
never replace events: they say what the service did, the events say what happened at the table.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import Any, TextIO

import structlog

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


class LineLogger:
    """structlog's ``PrintLogger``, but each line goes out in ONE write call. ``print`` writes the
    text and its newline separately, and Python's stderr is unbuffered when it is a file or a pipe:
    the lines of several processes sharing it (``paigow serve --workers N``) came out interleaved,
    two JSON objects on one line. One write of a whole line is not split between processes."""

    def __init__(self, file: TextIO, lock: threading.Lock) -> None:
        self._file = file
        self._lock = lock

    def msg(self, message: str) -> None:
        with self._lock:
            self._file.write(message + "\n")
            self._file.flush()

    log = debug = info = warn = warning = err = error = critical = exception = msg
    fatal = failure = msg


def configure_logging(level: str | None = None, fmt: str | None = None) -> None:
    level_name = (level or os.environ.get("PAIGOW_LOG_LEVEL") or "info").lower()
    if level_name not in _LEVELS:
        level_name = "info"
    chosen = (fmt or os.environ.get("PAIGOW_LOG_FORMAT") or "").lower()
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
        logger_factory=_line_loggers(sys.stderr),
        cache_logger_on_first_use=False,
    )


def _line_loggers(file: TextIO) -> Any:
    lock = threading.Lock()  # one for the stream: every logger writes through it

    def factory(*_args: Any) -> LineLogger:
        return LineLogger(file, lock)

    return factory


def get_logger(**bound: Any) -> Any:
    return structlog.get_logger("paigow").bind(**bound)
