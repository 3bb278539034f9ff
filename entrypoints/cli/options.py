"""Argument pieces many ``paigow`` commands share: the ``--db`` option that ends a command's
options, number types that refuse text out of range, and a command's record built from its
options by name."""

from __future__ import annotations

import argparse
import dataclasses
import math
from collections.abc import Callable
from typing import Any, TypeVar

from entrypoints.cli.operator import add_key_options

DB_HELP = "database URL (default: $PAIGOW_DB, else sqlite:///paigow.db)"

Number = TypeVar("Number", int, float)
Made = TypeVar("Made")


def takes_db(
    parser: argparse.ArgumentParser,
    handler: Callable[[argparse.Namespace], int],
    *,
    keyed: bool = False,
    db_help: str = DB_HELP,
) -> None:
    """The options that end a command reading a database: ``--db URL`` and, for a command that
    acts as an operator (``keyed``), the API key's (``operator.add_key_options``); then the
    function that runs it."""
    parser.add_argument("--db", metavar="URL", help=db_help)
    if keyed:
        add_key_options(parser)
    parser.set_defaults(handler=handler)


def bounded(
    convert: Callable[[str], Number],
    low: float,
    high: float,
    outside: str,
    *,
    not_a: str | None = None,
    name: str,
) -> Callable[[str], Number]:
    """An argparse type: ``convert`` the text, refusing a value outside ``low..high`` with
    ``outside`` (formatted with ``text`` and ``value``) and text ``convert`` does not read with
    ``not_a`` (formatted with ``text``). Without ``not_a``, such text gets argparse's own line,
    which says the type's ``name``: given, so that the line stays the one the command printed
    when each type was a function of its own."""

    def parse(text: str) -> Number:
        try:
            value = convert(text)
        except ValueError:
            if not_a is None:
                raise
            raise argparse.ArgumentTypeError(not_a.format(text=text)) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(outside.format(text=text, value=value))
        return value

    parse.__name__ = parse.__qualname__ = name
    return parse


#: A count of something, from 1 (``paigow analyze``, ``paigow house-way``).
positive = bounded(int, 1, math.inf, "must be a positive whole number", name="_positive")


def from_args(kind: Callable[..., Made], args: argparse.Namespace, **given: Any) -> Made:
    """A dataclass or pydantic model of ``kind`` from the options of the same names (those the
    command has), and ``given`` for the fields whose options are named otherwise."""
    fields = getattr(kind, "model_fields", None)
    names = fields if fields is not None else [f.name for f in dataclasses.fields(kind)]  # type: ignore[arg-type]
    taken = {name: getattr(args, name) for name in names if hasattr(args, name)}
    return kind(**{**taken, **given})
