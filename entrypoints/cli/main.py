"""The ``paigow`` command: one entry point, one module per subcommand in
``entrypoints.cli.commands``.

Every module of that package is a subcommand: it has ``register(subparsers)``, which adds its
parser and sets ``handler`` to a function ``(args) -> int`` (the exit status); adding a module adds
a command. Domain and store errors (a database that cannot be reached, does not exist or is not
at the schema head) become one clear line on standard error and exit status 2, and so does a bad
option (``paigow settle: --commission: invalid choice 'bogus' (choose from …); see --help``);
anything unexpected is one line and exit status 1. Nothing prints a stack trace at a dealer:
``paigow --verbose COMMAND …`` (or a command's own ``--verbose``) adds the traceback.
"""

from __future__ import annotations

import argparse
import os
import pkgutil
import re
import sys
import time
import traceback
from importlib import import_module
from typing import TYPE_CHECKING, Any, NoReturn

from entrypoints.cli import commands
from table_core.errors import DomainError
from table_core.ports import StoreError

if TYPE_CHECKING:
    from adapters.settings import Settings


def command_modules() -> list[str]:
    """The subcommand modules, by name (sorted: the help lists them in a stable order)."""
    return sorted(
        m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_")
    )


class OneLineParser(argparse.ArgumentParser):
    """argparse with docs/cli.md's promise: a bad option is ONE line on standard error
    (``paigow settle: --commission: invalid choice 'bogus' (choose from percent, flat,
    flat_always); see --help``) and exit status 2, not the usage block. Subcommands' parsers
    are of this class too (``add_subparsers`` makes them with the parent's class)."""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is not None and value not in action.choices:
            choices = ", ".join(str(choice) for choice in action.choices)
            raise argparse.ArgumentError(
                action, f"invalid choice {value!r} (choose from {choices})"
            )

    def format_help(self) -> str:
        """The help as plain text: a description taken from a module's docstring loses its
        reStructuredText marks (````paigow simulate```` -> ``paigow simulate``, ``:func:`x``` ->
        ``x``), which a terminal would print as they are."""
        return plain(super().format_help())

    def error(self, message: str) -> NoReturn:
        message = re.sub(r"^argument ([^:]+): ", r"\1: ", message)
        self.exit(2, f"{self.prog}: {message}; see --help\n")


def plain(text: str) -> str:
    """``text`` without reStructuredText's inline marks: roles (``:func:`x```) and literals
    (````x````), each replaced by its text. A command quoted in single backquotes stays quoted."""
    text = re.sub(r":[a-z]+(?::[a-z]+)?:`~?([^`]+)`", r"\1", text)
    return re.sub(r"``([^`]+)``", r"\1", text)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; given the arguments, only the one they name (when the
    first one is a subcommand's name), so that ``paigow evaluate`` does not import the store,
    the HTTP server and the simulator first (scripts call it once per hand)."""
    parser = OneLineParser(
        prog="paigow", description="Pai Gow Poker table backend: rules, table, store and audit."
    )
    parser.add_argument(
        "--verbose",
        dest="traceback",
        action="store_true",
        help="on an error, print the traceback after its one line",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    names = command_modules()
    words = [word for word in argv or [] if not word.startswith("-")]
    first = words[0].replace("-", "_") if words else None
    for name in [first] if first in names else names:
        import_module(f"entrypoints.cli.commands.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None, *, started: float | None = None) -> int:
    """Run the command ``argv`` names (default: the process's arguments). ``started``: when the
    process began (``time.perf_counter()``; the console script's launcher, ``launch.py``, passes
    it), else now: commands that print their time (``audit verify``) count from there."""
    started = time.perf_counter() if started is None else started
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    args.started = started
    try:
        status: int = args.handler(args)
    except (DomainError, StoreError) as error:
        return _one_line(args, str(error), 2)
    except KeyboardInterrupt:
        print("paigow: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`paigow report | head`): not an error of ours. Point stdout at
        # devnull so that the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as error:
        return _unexpected(args, error)
    return status


def settings_of(args: argparse.Namespace) -> Settings:
    """The settings (adapters/settings.py) of the command ``args`` runs: read from the
    environment at the first call, the same object after. Read here, where the arguments are
    parsed, and passed on from the command down; a command that needs none never reads them
    (``paigow evaluate`` does not import pydantic-settings, and a bad setting does not stop it)."""
    found: Settings | None = getattr(args, "settings", None)
    if found is None:
        from adapters.settings import load_settings

        found = args.settings = load_settings()
    return found


def db_of(args: argparse.Namespace) -> str:
    """The database URL of the command: ``--db``, else the ``db`` setting."""
    return getattr(args, "db", None) or settings_of(args).db


def _one_line(args: argparse.Namespace, message: str, status: int) -> int:
    """``paigow: MESSAGE`` on one line (the traceback only under ``--verbose``)."""
    if args.traceback or getattr(args, "verbose", False) is True:
        traceback.print_exc()
    print(f"paigow: {' '.join(message.split())}", file=sys.stderr)
    return status


def _unexpected(args: argparse.Namespace, error: Exception) -> int:
    """A database error no command turned into a sentence (the connection dropped mid-command):
    exit 2, as for any database problem; anything else is a fault of ours: exit 1. One line
    either way, naming what to rerun for the traceback."""
    from sqlalchemy.exc import SQLAlchemyError

    from adapters.store.outage import describe, is_outage

    cause = getattr(error, "orig", None) or error
    reason = str(cause).split("\n")[0] or type(cause).__name__
    if is_outage(error):  # stopped, cut off, a full disk, a read-only file (the driver's own too)
        return _one_line(args, f"the event store is unavailable: {describe(error)}", 2)
    if isinstance(error, SQLAlchemyError):
        return _one_line(args, f"the database failed: {reason}", 2)
    hint = "" if args.traceback else " (`paigow --verbose …` prints the traceback)"
    return _one_line(args, f"unexpected {type(error).__name__}: {reason}{hint}", 1)


if __name__ == "__main__":  # `python -m entrypoints.cli.launch` caches bytecode as well
    sys.exit(main())
