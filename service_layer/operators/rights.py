"""Who may do what (R19, separation of duties): one matrix for both ways in, HTTP and the CLI.

``RIGHTS`` has one row per operation: an HTTP endpoint's OpenAPI ``operationId``, or a writing
command of the CLI that has no endpoint (``purge``, the keys'). ``CLI_COMMANDS`` names the
operation each writing CLI command performs, so ``paigow table fill`` is checked against exactly
the row ``POST /tables/{id}/fill`` is. ``SIGNERS``: the operations a slip records, with the roles
that sign it, one authenticated key each. docs/regulatory.md (R19) prints this matrix, and
``tests/integration/http/test_rights_matrix.py`` proves it on both paths.

The split of duties: a dealer runs the round; the floor supervisor changes rules (with a reason),
voids rounds, handles the bank's rotation, opens and closes a gaming day (the dealer co-signs),
corrects ratings, keeps the decks' custody, authorises software and purges; the cage sells and
cashes chips; a fill or a credit is signed by the floor, the cage and the dealer (any of them
submits it); the count team (``count``, independent of the cage that issues fills) records the
count; an auditor only reads, verifies and handles disputes (with the floor). ``security``, the
key officer, creates, revokes and re-roles API keys, rotates the signing key and adopts events no
append tag covers (``paigow db adopt``), and may do nothing at a table: whoever mints keys must
not also sign slips with them.

Where the issues were silent (docs/http.md, "Decisions"): seating a player and a player leaving
are the dealer's (the floor may too); accepting or declining the bank: the dealer relays the
player's answer and the floor handles the rotation, both may. Reading the table, its events and a
round's recall: every role. Reports: floor, cage, auditor. Verifying the chain: auditor and floor.
The event feed (docs/feed.md): the floor and the auditor, every stream; a dealer, the tables'
streams (a key names no table); named subscriptions: the floor makes and deletes them, the floor
and the auditor read and acknowledge them (a subscription's consumer is a system of the casino's,
given a key of either role).

The core checks roles again (table_core.table); this layer is the stricter one.
"""

from __future__ import annotations

from typing import Literal, get_args

Role = Literal["dealer", "floor", "cage", "auditor", "count", "security"]
ROLES: tuple[Role, ...] = get_args(Role)

_ALL: frozenset[Role] = frozenset(ROLES)
_DEALER: frozenset[Role] = frozenset({"dealer"})
_FLOOR: frozenset[Role] = frozenset({"floor"})
_CAGE: frozenset[Role] = frozenset({"cage"})
_TABLE_SIDE: frozenset[Role] = frozenset({"dealer", "floor"})
_SLIP: frozenset[Role] = frozenset({"floor", "cage", "dealer"})
_DISPUTES: frozenset[Role] = frozenset({"auditor", "floor"})
_SECURITY: frozenset[Role] = frozenset({"security"})
_FEED: frozenset[Role] = frozenset({"dealer", "floor", "auditor"})

RIGHTS: dict[str, frozenset[Role]] = {
    # --- table commands
    "open_table": _FLOOR,
    "change_rules": _FLOOR,
    "install_house_way": _FLOOR,  # issue 32: a certified House Way file, a rules change
    "seat_player": _TABLE_SIDE,
    "leave_seat": _TABLE_SIDE,
    "buy_in": _CAGE,
    "cash_out": _CAGE,
    "start_round": _DEALER,
    "accept_bank": _TABLE_SIDE,
    "decline_bank": _TABLE_SIDE,
    "place_bet": _DEALER,
    "place_side_bet": _DEALER,
    "close_bets": _DEALER,
    "deal_electronic": _DEALER,
    "report_deal": _DEALER,
    "roll_dice_electronic": _DEALER,
    "report_dice": _DEALER,
    "set_hand": _DEALER,
    "set_banker_hand": _DEALER,
    "settle": _DEALER,
    "close_round": _DEALER,
    "void_round": _FLOOR,
    # --- the books (R16): who submits; SIGNERS below says who signs
    "open_gaming_day": _FLOOR,
    "close_gaming_day": _FLOOR,
    "fill_tray": _SLIP,
    "credit_tray": _SLIP,
    "count_drop": frozenset({"count"}),
    "correct_rating": _FLOOR,
    # --- the deck chain of custody (R20): the floor's
    "receive_deck": _FLOOR,
    "inspect_deck": _FLOOR,
    "load_shuffler": _FLOOR,
    "put_deck_in_use": _FLOOR,
    "retire_deck": _FLOOR,
    "hold_deck": _FLOOR,
    "release_deck": _FLOOR,
    # --- disputes (R17): the floor and the auditor only
    "dispute_open": _DISPUTES,
    "dispute_close": _DISPUTES,
    # --- software change control (R5/R19): the floor, as for a rules change
    "software_version_authorise": _FLOOR,
    # --- the CLI's own (no endpoint): purging past retention (R18), the keys (R5/R19)
    "purge": _FLOOR,
    "key_create": _SECURITY,
    "key_revoke": _SECURITY,
    "key_role": _SECURITY,
    "signing_key_rotate": _SECURITY,
    "adopt_untagged": _SECURITY,
    # --- queries
    "table_state": _ALL,
    "table_events": _ALL,
    "round_recall": _ALL,
    "round_history": _ALL,
    "tables": _ALL,
    "player_ratings": frozenset({"floor", "cage", "auditor"}),
    "table_decks": _ALL,
    "reports": frozenset({"floor", "cage", "auditor"}),
    "audit_verify": frozenset({"auditor", "floor"}),
    "dispute_list": _DISPUTES,
    "dispute_show": _DISPUTES,
    "dispute_export": _DISPUTES,
    # --- the event feed (docs/feed.md): the floor and the auditor read every stream, a dealer
    # the tables' streams; named subscriptions are the floor's to make and delete
    "feed_events": _FEED,
    "feed_checkpoints": _FEED,
    "subscription_list": _DISPUTES,
    "subscription_events": _DISPUTES,
    "subscription_ack": _DISPUTES,
    "subscription_create": _FLOOR,
    "subscription_delete": _FLOOR,
}

#: Operations that only read: everything else in ``RIGHTS`` writes to the log.
READS = frozenset(
    {
        "table_state",
        "table_events",
        "round_recall",
        "round_history",
        "tables",
        "player_ratings",
        "table_decks",
        "reports",
        "audit_verify",
        "dispute_list",
        "dispute_show",
        "dispute_export",
        "feed_events",
        "feed_checkpoints",
        "subscription_list",
        "subscription_events",
    }
)

#: Each writing CLI command (its words after ``paigow``) and the operation it performs.
CLI_COMMANDS: dict[str, str] = {
    "table open-day": "open_gaming_day",
    "table close-day": "close_gaming_day",
    "table fill": "fill_tray",
    "table credit": "credit_tray",
    "table count": "count_drop",
    "table correct-rating": "correct_rating",
    "house-way install": "install_house_way",
    "deck receive": "receive_deck",
    "deck inspect": "inspect_deck",
    "deck load": "load_shuffler",
    "deck use": "put_deck_in_use",
    "deck retire": "retire_deck",
    "deck hold": "hold_deck",
    "deck release": "release_deck",
    "dispute open": "dispute_open",
    "dispute close": "dispute_close",
    "service authorise-version": "software_version_authorise",
    "purge": "purge",
    "keys create": "key_create",
    "keys revoke": "key_revoke",
    "keys role": "key_role",
    "keys signing rotate": "signing_key_rotate",
    "db adopt": "adopt_untagged",
}

#: The slips: every role listed signs, each with a key of its own, and no person signs twice.
SIGNERS: dict[str, tuple[Role, ...]] = {
    "open_gaming_day": ("floor", "dealer"),
    "close_gaming_day": ("floor", "dealer"),
    "fill_tray": ("floor", "cage", "dealer"),
    "credit_tray": ("floor", "cage", "dealer"),
}


def allowed(operation: str, role: str) -> bool:
    return role in RIGHTS[operation]


def refusal(operation: str, role: str, what: str) -> str | None:
    """Why a key of ``role`` may not perform ``operation`` (``what``: how the caller names it),
    or ``None``."""
    roles = RIGHTS[operation]
    if role in roles:
        return None
    return f"the {role} role may not {what}: it is for {', '.join(sorted(roles))}"
