"""``paigow house-way install FILE --table T --reason …``: a certified House Way file on a table.

The floor's key (``--key-file`` or ``$PAIGOW_API_KEY``); the file is certified first (a file that
does not certify is refused, nothing written), then ``house_way_installed`` and the
``rules_changed`` that makes it the table's House Way are recorded together. Prints one JSON
object: the table, the command id, the version, the events, the file's and the certificate's
digests.
"""

from __future__ import annotations

import argparse
import json
import secrets
from typing import Any

from entrypoints.cli.operator import add_key_options, command_answer

_DB_HELP = "database URL (default: $PAIGOW_DB, else sqlite:///paigow.db)"


def register_install(verbs: Any, positive: Any) -> None:
    install = verbs.add_parser(
        "install", help="install a certified House Way file on a table (floor; a rules change)"
    )
    install.add_argument("file", metavar="FILE", help="a House Way file, or a built-in's name")
    install.add_argument("--table", metavar="ID", required=True)
    install.add_argument("--reason", required=True, help="why the table's House Way changes")
    install.add_argument("--jobs", type=positive, default=1, help="certification's processes")
    install.add_argument("--db", metavar="URL", help=_DB_HELP)
    install.add_argument("--command-id", metavar="ID", help="default: a new random id")
    add_key_options(install)
    install.set_defaults(handler=run_install)


def run_install(args: argparse.Namespace) -> int:
    from adapters.logging import configure_logging
    from entrypoints.bootstrap import wire
    from entrypoints.cli.house_way_checks import source_for
    from entrypoints.cli.main import settings_of
    from entrypoints.cli.operator import authenticate
    from service_layer.house_way_install import install_command
    from table_core.events import Actor

    settings = settings_of(args)
    # The service's log lines go to standard error, never into the JSON.
    configure_logging(settings.log_level, settings.log_format)
    wired = wire(settings, args.db)
    try:
        key = authenticate(wired.store, args, "house-way install", {})
        source = source_for(args.file)
        text = source.text
        assert text is not None, "a House Way file is read with its text"
        actor = Actor(id=key.actor_id, role=key.role)
        command = install_command(text, args.reason, actor, wired.service.now(), args.jobs)
        command_id = args.command_id or f"cli-{secrets.token_hex(8)}"
        result = wired.service.execute(args.table, command, command_id)
    finally:
        wired.store.close()
    answer = command_answer(args.table, command_id, result)
    answer["house_way"] = source.name
    answer["file_sha256"] = command.digest
    answer["certificate_sha256"] = command.certificate_digest
    print(json.dumps(answer))
    return 0
