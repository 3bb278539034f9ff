"""Which software wrote or checked a log: the installed distribution's version."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def software_version() -> str:
    try:
        return version("paigow-table")
    except PackageNotFoundError:  # running from a source tree that was not installed
        return "unknown"
