"""A casino's own House Way on a table (issue 32): installing its file, and which way sets a hand.

Installing records the file's exact text (``house_way_installed``) and, in the same command, a
rules change that names it: the new profile's ``hand.house_way`` is the file's name and
``hand.house_way_digest`` its SHA-256, so every round records (through its rules version) exactly
which text set its hands, and the audit re-derives each hand from the log alone. The service
certifies the file before it asks (the core cannot afford 154 million hands a command); the core
checks what it can: the floor asks, a reason is given, the text is a valid House Way file and
``digest`` is its SHA-256 (a text edited after the fact no longer matches the digest it was
installed under, and the audit names the event).
"""

from __future__ import annotations

import contextlib

from table_core.commands import InstallHouseWay
from table_core.errors import ConfigurationError, DomainError
from table_core.events import Event, HouseWayInstalled, RulesChanged
from table_core.house_ways import HouseWay, digest_of, get_house_way
from table_core.rules import HouseRules, TableRules
from table_core.table.guards import envelope, opened, require
from table_core.table.state import TableState

#: SHA-256 of a House Way file's UTF-8 bytes: the name its text goes by in the log.
text_digest = digest_of


def installed_way(text: str, digest: str | None = None) -> HouseWay:
    """The House Way a file's text defines (the file format's interpreter, cached by digest;
    ``digest``: the text's, when known, so a hand set by it does not hash the text again)."""
    from table_core.house_ways.spec import house_way_from_text

    return house_way_from_text(text, digest)


def house_way_of(state: TableState, hand: HouseRules) -> HouseWay | str:
    """The House Way ``hand`` names on this table: an installed file's way, or a built-in's name
    (R-HW-1)."""
    digest = hand.house_way_digest
    if digest is None:
        return hand.house_way
    installed = state.house_ways.get(digest)
    if installed is None:
        raise ConfigurationError(
            f"House Way {hand.house_way} ({digest[:12]}…) is not installed on this table",
            rule="R-HW-1",
        )
    return installed_way(installed.text, digest)


def house_way_status(state: TableState) -> dict[str, str | None]:
    """What the floor shows of the table's House Way: its name, and for an installed file its
    SHA-256 and its certificate's (a file is installed only once it certifies)."""
    if state.rules is None:
        return {"name": None, "digest": None, "certificate_digest": None, "kind": None}
    hand = state.rules.hand
    installed = state.house_ways.get(hand.house_way_digest or "")
    return {
        "name": hand.house_way,
        "digest": hand.house_way_digest,
        "certificate_digest": None if installed is None else installed.certificate_digest,
        "kind": "built-in" if installed is None else "certified file",
    }


def clause_words(state: TableState, rule: str | None) -> str | None:
    """A clause's words as written: the table's House Way's, else an installed file's or a
    built-in's with that id (a round played under an earlier way), else ``None``."""
    if not rule:
        return None
    ways: list[HouseWay | str] = []
    if state.rules is not None:
        with contextlib.suppress(ConfigurationError):
            ways.append(house_way_of(state, state.rules.hand))
    installed = reversed(list(state.house_ways.items()))
    ways += [installed_way(each.text, digest) for digest, each in installed]
    ways.append(rule.split(".")[0])
    for way in ways:
        try:
            clauses = (get_house_way(way) if isinstance(way, str) else way).clauses
        except ConfigurationError:
            continue
        if rule in clauses:
            return clauses[rule]
    return None


def check_house_way(state: TableState, rules: TableRules) -> None:
    """A profile's House Way is one the table can play: a built-in, or a file installed on it
    under that name (a rules change may go back to a file installed earlier)."""
    way = house_way_of(state, rules.hand)
    if isinstance(way, str):
        get_house_way(way)  # raises ConfigurationError (R-HW-1)
    elif way.name != rules.hand.house_way:
        raise ConfigurationError(
            f"the House Way installed as {rules.hand.house_way_digest} is {way.name}, "
            f"not {rules.hand.house_way}",
            rule="R-HW-1",
        )


def install_house_way(state: TableState, cmd: InstallHouseWay) -> list[Event]:
    rules = opened(state, "install a House Way")
    require(cmd.actor, frozenset({"floor"}), "install a House Way")
    if not cmd.reason.strip():
        raise DomainError("a rules change states its reason")
    digest = text_digest(cmd.text)
    if digest != cmd.digest:
        raise DomainError(
            f"the House Way text's SHA-256 is {digest}, not {cmd.digest} as installed",
            rule="R-HW-1",
        )
    way = installed_way(cmd.text)  # raises HouseWayFileError: the file's lines at fault
    hand = rules.hand.model_copy(update={"house_way": way.name, "house_way_digest": digest})
    new_rules = rules.model_copy(update={"version": rules.version + 1, "hand": hand})
    env = envelope(state, cmd) | {"round": None}
    return [
        HouseWayInstalled(
            **env,
            name=way.name,
            text=cmd.text,
            digest=digest,
            certificate_digest=cmd.certificate_digest,
        ),
        RulesChanged(
            **env, rules=new_rules, reason=cmd.reason, applies_from_round=state.last_round + 1
        ),
    ]
