"""A use case's refusals that are not the core's: each with the status, code and message every way
in answers with (``entrypoints/http/errors.py`` renders them as ``{"error": code, "message":
text, ...}``; the command line prints the message)."""

from __future__ import annotations

from typing import Any


class ApiProblem(Exception):
    """A refusal decided outside the core and the store: its HTTP status, code and message."""

    def __init__(self, status: int, error: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message
        self.extra = extra


class StaleVersion(ApiProblem):
    """The caller's ``expected_version`` is not the table's (409 ``stale_version``)."""

    def __init__(self, expected: int, current: int) -> None:
        super().__init__(
            409,
            "stale_version",
            f"the table is at version {current}, not {expected}: reload it and decide again",
            current_version=current,
            expected_version=expected,
        )
