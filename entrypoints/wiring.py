"""What the composition root (entrypoints/bootstrap.py) hands the entry points: the opened store
and the service over it (:class:`Wiring`), and how a server runs them (:class:`Serving`). Data
only, so that the HTTP server takes them without importing the root that builds it."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import URL

from adapters.store import InMemoryEventStore, SqlEventStore
from service_layer.service import TableService


@dataclass(frozen=True)
class Wiring:
    """An open store, the service over it, and the database URL they were opened at."""

    store: SqlEventStore | InMemoryEventStore
    service: TableService
    url: URL

    @property
    def shown(self) -> str:
        """The URL for people and logs: the password hidden."""
        return self.url.render_as_string(hide_password=True)


@dataclass(frozen=True)
class Serving:
    """How ``paigow serve`` runs the service (one process, or one of its ``--workers``).

    ``verify``: the service verifies the store at start (every hash, link and signature) and
    refuses commands while it fails. ``shared``: other processes write the store too (the other
    workers); each log line then says which process wrote it, and reads catch up with their
    writes. ``read_only``: the service refuses every command and writes nothing (a store that
    cannot sign is served all the same); otherwise such a store is refused at start."""

    verify: bool = True
    shared: bool = False
    read_only: bool = False
