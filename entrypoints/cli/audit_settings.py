"""What the audit's commands take from the settings: the database and its key files. The audit
itself reads no environment (``audit/``); these are the command line's."""

from __future__ import annotations

import argparse
from typing import Any


def audit_database(args: argparse.Namespace) -> tuple[Any, str | None]:
    """The database to audit (``--db``, else ``$PAIGOW_DB``) and the signing key file configured
    for it."""
    from adapters.store import database_url
    from entrypoints.cli.main import db_of, settings_of

    return database_url(db_of(args)), settings_of(args).signing_key


def public_key_setting(args: argparse.Namespace) -> str | None:
    """``$PAIGOW_PUBLIC_KEY``: the public key file the casino configured, if any."""
    from entrypoints.cli.main import settings_of

    return settings_of(args).public_key
