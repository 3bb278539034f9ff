"""Which exceptions mean "the database cannot be reached or cannot write" (issue 17): a server
that stopped or a cut connection (psycopg, SQLAlchemy's pool), a full disk or a read-only file
(SQLite). The HTTP API answers them 503 ``store_unavailable`` with ``Retry-After`` and one log
line; the CLI prints one line and exits 2. Recognised by class name and module, so that the CLI
does not import a driver to tell (``paigow evaluate`` starts once a hand in scripts).
"""

from __future__ import annotations

#: (module, class name) of the outage exceptions of each driver and of SQLAlchemy's wrappers.
OUTAGE_CLASSES = frozenset(
    {
        ("sqlite3", "OperationalError"),
        ("psycopg", "OperationalError"),
        ("psycopg", "InterfaceError"),
        ("sqlalchemy.exc", "OperationalError"),
        ("sqlalchemy.exc", "InterfaceError"),
        ("sqlalchemy.exc", "TimeoutError"),
        ("sqlalchemy.exc", "DisconnectionError"),
    }
)

#: Seconds a client waits before trying again (the ``Retry-After`` header).
RETRY_AFTER_S = 1


def is_outage(error: BaseException) -> bool:
    return any((cls.__module__, cls.__name__) in OUTAGE_CLASSES for cls in type(error).__mro__)


def describe(error: BaseException) -> str:
    """One line saying what failed, without SQL, parameters or a traceback."""
    cause = getattr(error, "orig", None) or error  # SQLAlchemy keeps the driver's error there
    text = str(cause).strip().splitlines()
    return text[0] if text else type(cause).__name__
