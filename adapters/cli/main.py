"""The ``paigow`` command: one entry point, one module per subcommand in ``adapters.cli.commands``.

Every module of that package is a subcommand: it has ``register(subparsers)``, which adds its
parser and sets ``handler`` to a function ``(args) -> int`` (the exit status); adding a module adds
a command. Domain and store errors become one clear line on standard error and exit status 2;
nothing prints a stack trace at a dealer.
"""

from __future__ import annotations

import argparse
import os
import pkgutil
import sys
from importlib import import_module

from adapters.cli import commands
from table_core.errors import DomainError
from table_core.ports import StoreError


def command_modules() -> list[str]:
    """The subcommand modules, by name (sorted: the help lists them in a stable order)."""
    return sorted(
        m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_")
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paigow", description="Pai Gow Poker table backend: rules, table, store and audit."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in command_modules():
        import_module(f"adapters.cli.commands.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.handler(args)
    except (DomainError, StoreError) as error:
        print(f"paigow: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("paigow: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`paigow report | head`): not an error of ours. Point stdout at
        # devnull so that the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
