"""The ``paigow`` command: one entry point, one module per subcommand in ``adapters.cli.commands``.

A subcommand module has ``register(subparsers)``, which adds its parser and sets ``handler`` to a
function ``(args) -> int`` (the exit status). Domain errors become one clear line on standard error
and exit status 2; nothing prints a stack trace at a dealer.
"""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

from table_core.errors import DomainError

COMMANDS = (
    "evaluate",
    "settle",
    "set_hand",
    "house_way",
    "bonus",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paigow", description="Pai Gow Poker table backend: rules, table, store and audit."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        import_module(f"adapters.cli.commands.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.handler(args)
    except DomainError as error:
        print(f"paigow: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("paigow: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
