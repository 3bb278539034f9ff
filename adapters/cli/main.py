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


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; given the arguments, only the one they name (when the
    first one is a subcommand's name), so that ``paigow evaluate`` does not import the store,
    the HTTP server and the simulator first (scripts call it once per hand)."""
    parser = argparse.ArgumentParser(
        prog="paigow", description="Pai Gow Poker table backend: rules, table, store and audit."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    names = command_modules()
    first = argv[0].replace("-", "_") if argv else None
    for name in [first] if first in names else names:
        import_module(f"adapters.cli.commands.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
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
    except Exception as error:  # the database stopped, cut off, full or read-only
        from adapters.store.outage import describe, is_outage

        if not is_outage(error):
            raise
        print(f"paigow: the event store is unavailable: {describe(error)}", file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":
    sys.exit(main())
