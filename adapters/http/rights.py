"""Who may call what: one row per endpoint (its OpenAPI ``operationId``), the roles allowed.

Issue 10's split of duties: a dealer runs the round, the floor supervisor changes rules (with a
reason), voids rounds and handles the bank's rotation, the cage sells and cashes chips, and an
auditor only reads and verifies. Where the issue is silent (docs/http.md, "Decisions"):

- Opening a table is the floor's (the core itself only lets a floor supervisor open one).
- Seating a player and a player leaving are the dealer's (the floor may also do it).
- Accepting or declining the bank: the dealer relays the player's answer at the table, and the
  floor handles the rotation; both may.
- The books (issue 18): the floor opens and closes a gaming day and corrects ratings; a fill or
  credit slip is recorded by any of its three signers (floor, cage, dealer); the count team
  (``count``, its own role: independent of the cage that issues fills) records the count.
- Reading the table, its events and a round's recall: every role (a dealer terminal shows the
  table; the cage checks balances). Reports: floor, cage, auditor. Verifying the chain: auditor and
  floor.

The core checks roles again (table_core.table); this layer is the stricter one.
"""

from __future__ import annotations

from adapters.http.keys import ROLES, Role

_ALL: frozenset[Role] = frozenset(ROLES)
_DEALER: frozenset[Role] = frozenset({"dealer"})
_FLOOR: frozenset[Role] = frozenset({"floor"})
_CAGE: frozenset[Role] = frozenset({"cage"})
_TABLE_SIDE: frozenset[Role] = frozenset({"dealer", "floor"})

RIGHTS: dict[str, frozenset[Role]] = {
    # --- commands
    "open_table": _FLOOR,
    "change_rules": _FLOOR,
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
    # --- the books (issue 18): fills and credits are recorded by any of their three signers
    "open_gaming_day": _FLOOR,
    "close_gaming_day": _FLOOR,
    "fill_tray": frozenset({"floor", "cage", "dealer"}),
    "credit_tray": frozenset({"floor", "cage", "dealer"}),
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
    # --- disputes (R17): the floor and the auditor only
    "dispute_open": frozenset({"auditor", "floor"}),
    "dispute_list": frozenset({"auditor", "floor"}),
    "dispute_show": frozenset({"auditor", "floor"}),
    "dispute_close": frozenset({"auditor", "floor"}),
    "dispute_export": frozenset({"auditor", "floor"}),
    # --- software change control (R5/R19): the floor, as for a rules change
    "software_version_authorise": _FLOOR,
}


def allowed(operation: str, role: str) -> bool:
    return role in RIGHTS[operation]
