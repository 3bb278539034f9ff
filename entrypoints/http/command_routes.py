"""One endpoint per table command (issue 10), each a POST under ``/tables/{table_id}``.

Every command needs the ``Idempotency-Key`` header (it is the command id: a retry with the same
key answers the first result and writes nothing) and may carry ``expected_version`` in its body.
The actor recorded in the events is the API key's actor, in the key's role. A slip (a fill, a
credit, a gaming day's opening or closing) is signed by several keys: the request's, and one per
other signer in the body's ``signatures`` (``books.py``, ``service_layer/operators/signers.py``).

``ROUTES`` describes each command once (``route_spec.CommandRoute``): its path, operationId, body
model and how the body becomes a core command. The command door (``command_door.py``) answers
every POST to a command's path from it, refusals included, and runs and answers the command
through ``route_spec.py``; the FastAPI routes built from it here are documentation only (the
OpenAPI document, and 405 for another method): their endpoints never run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Header, Path, Request
from starlette.concurrency import run_in_threadpool

from entrypoints.http import auth, books
from entrypoints.http.auth import record_failure
from entrypoints.http.custody_routes import CUSTODY_ROUTES
from entrypoints.http.errors import NO_KEY, ApiProblem, ErrorBody, refused
from entrypoints.http.models import (
    TABLE_ID_PATTERN,
    AcceptBankBody,
    BetBody,
    BuyInBody,
    ChangeRulesBody,
    ChipsBody,
    CloseGamingDayBody,
    CommandResponse,
    CorrectRatingBody,
    CountBody,
    OpenGamingDayBody,
    OpenTableBody,
    PlayerBody,
    ReportDealBody,
    ReportDiceBody,
    SeatBody,
    SetHandBody,
    SideBetBody,
    SlipBody,
    VoidBody,
)
from entrypoints.http.route_spec import CommandRoute
from entrypoints.http.route_spec import electronic as _electronic
from entrypoints.http.route_spec import route as _route
from entrypoints.http.route_spec import signed_route as _signed
from entrypoints.http.route_spec import simple as _simple
from service_layer.operators.keys import ApiKey, KeyStore
from service_layer.operators.signers import SignersRefused, signers
from table_core import commands as c
from table_core.events import Actor

router = APIRouter(prefix="/tables/{table_id}", tags=["commands"])

TableId = Annotated[str, Path(pattern=TABLE_ID_PATTERN, examples=["PG-1"])]
IDEMPOTENCY_KEY_PATTERN = r"^[\x21-\x7e]{1,200}$"
IdempotencyKey = Annotated[
    str,
    Header(
        alias="Idempotency-Key",
        pattern=IDEMPOTENCY_KEY_PATTERN,
        description="The command id: printable ASCII, 1..200 characters, new for each command. "
        "A retry with the same key answers the first result and writes nothing.",
    ),
]
#: Error answers a command may give, for the OpenAPI document.
ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": NO_KEY},
    403: {"model": ErrorBody, "description": "this key's role may not give this command"},
    409: {"model": ErrorBody, "description": "stale expected_version (with current_version)"},
    422: {
        "model": ErrorBody,
        "description": "a rule refused the command (with its rule), the body is not strict "
        "JSON of the schema, or the Idempotency-Key was used for another request",
    },
    503: {
        "model": ErrorBody,
        "description": "the store failed verification, or cannot be reached or cannot write "
        "(with Retry-After)",
    },
}

ROUTE_LIST: tuple[CommandRoute, ...] = (
    # --- the table
    _route(
        "/open",
        "open_table",
        "Open the table under a rules profile (floor)",
        OpenTableBody,
        lambda t, b, a, at: c.OpenTable(table_id=t, rules=b.rules, actor=a, at=at),
    ),
    _route(
        "/rules",
        "change_rules",
        "Change the rules profile, with a reason (floor)",
        ChangeRulesBody,
        c.ChangeRules,
    ),
    _route(
        "/seat",
        "seat_player",
        "Seat a player (seats 1..6, R-DEAL-1)",
        SeatBody,
        c.SeatPlayer,
    ),
    _route(
        "/leave",
        "leave_seat",
        "A player leaves (remaining chips are cashed out first)",
        PlayerBody,
        c.LeaveSeat,
    ),
    _route(
        "/buy-in",
        "buy_in",
        "Sell chips to a seated player (cage), for cash, a marker, chips or promotional chips",
        BuyInBody,
        c.BuyIn,
    ),
    _route(
        "/cash-out",
        "cash_out",
        "Cash a player's free chips out (cage)",
        ChipsBody,
        c.CashOut,
    ),
    # --- the books (issue 18, R16): the gaming day, the tray, the count, ratings
    _signed(
        "/gaming-day/open",
        "open_gaming_day",
        "Open a gaming day with the opener, counted with the dealer (floor; the dealer signs)",
        OpenGamingDayBody,
        books.OPEN_DAY,
    ),
    _signed(
        "/gaming-day/close",
        "close_gaming_day",
        "Close the gaming day with the closer, counted with the dealer (floor; the dealer signs)",
        CloseGamingDayBody,
        books.CLOSE_DAY,
    ),
    _signed(
        "/fill",
        "fill_tray",
        "A fill slip: chips from the cage to the tray, between rounds (floor, cage, dealer sign)",
        SlipBody,
        books.slip(c.FillTray),
    ),
    _signed(
        "/credit",
        "credit_tray",
        "A credit slip: chips from the tray to the cage, between rounds (floor, cage, dealer sign)",
        SlipBody,
        books.slip(c.CreditTray),
    ),
    _route(
        "/count",
        "count_drop",
        "The count team's count of a closed gaming day's drop box (count)",
        CountBody,
        c.CountDrop,
    ),
    _route(
        "/ratings/correct",
        "correct_rating",
        "Correct a player's rating (average bet, time) with a reason (floor)",
        CorrectRatingBody,
        c.CorrectRating,
    ),
    # --- the round
    _simple(
        "/round/start",
        "start_round",
        "Start a round (with a rotating bank, the bank is offered first, R-BANK-1)",
        c.StartRound,
    ),
    _route(
        "/round/bank/accept",
        "accept_bank",
        "The offered player takes the bank (R-BANK-1)",
        AcceptBankBody,
        c.AcceptBank,
    ),
    _route(
        "/round/bank/decline",
        "decline_bank",
        "The offered player declines the bank (R-BANK-1)",
        PlayerBody,
        c.DeclineBank,
    ),
    _route(
        "/round/bet",
        "place_bet",
        "Place a player's main wager",
        BetBody,
        c.PlaceBet,
    ),
    _route(
        "/round/side-bet",
        "place_side_bet",
        "Place a side bet (R-VAR-2..6)",
        SideBetBody,
        c.PlaceSideBet,
    ),
    _simple("/round/close-bets", "close_bets", "No more bets", c.CloseBets),
    _electronic(
        "/round/deal",
        "deal_electronic",
        "Deal from the table's secure deck (R-DEAL-2, R-DEAL-4)",
        "deal",
        """An electronic table's deal: the server draws the deck. A deal already recorded for the
    round is never drawn again: a retry answers the recorded one.""",
    ),
    _route(
        "/round/deal/report",
        "report_deal",
        "Report a live deal: deck order or seven hands",
        ReportDealBody,
        lambda t, b, a, at: c.DealCards(
            deck=b.deck, hands=b.hands, source="live", deck_id=b.deck_id, actor=a, at=at
        ),
    ),
    _electronic(
        "/round/dice", "roll_dice_electronic", "Roll the table's secure dice (R-DEAL-3)", "dice"
    ),
    _route(
        "/round/dice/report",
        "report_dice",
        "Report the three dice a live table rolled",
        ReportDiceBody,
        lambda t, b, a, at: c.RollDice(faces=tuple(b.faces), actor=a, at=at),
    ),
    _route(
        "/round/hand",
        "set_hand",
        "Set a player's hand, or ask the House Way (R-SET-1, R-HW-1)",
        SetHandBody,
        c.SetHand,
        """``back`` (five cards) and ``front`` (two) as the player split them; leave both out to ask
    for the House Way. A fouled split is reset or forfeited as the table's rules say (R-SET-2).""",
    ),
    _simple(
        "/round/banker-hand",
        "set_banker_hand",
        "Set the banker's hand by the House Way (R-HW-1)",
        c.SetBankerHand,
    ),
    _simple("/round/settle", "settle", "Settle every wager (R-PAY, R-VAR)", c.Settle),
    _simple("/round/close", "close_round", "Close the settled round", c.CloseRound),
    _route(
        "/round/void",
        "void_round",
        "Void the round, returning every wager (floor)",
        VoidBody,
        c.VoidRound,
    ),
    *CUSTODY_ROUTES,
)
#: The routes by path under ``/tables/{table_id}``.
ROUTES: dict[str, CommandRoute] = {route.path: route for route in ROUTE_LIST}


async def slip_signers(
    request: Request, route: CommandRoute, key: ApiKey, body: Any
) -> dict[str, Actor]:
    """R19: a slip's signers, each authenticated by their own key: the request's, and those of
    ``signatures``. An unknown or revoked one is 401 (recorded as a failed authentication), a
    key of a role that does not sign this slip 403, a signer missing, twice or one person for two
    422. No token is ever part of an answer or a log line: a signature is named by its place."""
    assert route.signed is not None
    keys: KeyStore = request.app.state.keys
    others = []
    for place, signature in enumerate(body.signatures):
        other = await run_in_threadpool(keys.lookup, signature.token)
        if other is None:
            await record_failure(request, signature.token)
            raise ApiProblem(
                401, "unauthorized", f"signatures[{place}]: this API key is unknown or revoked"
            )
        others.append(other)
    what, named, fields = route.signed.names(body)
    try:
        return signers(route.operation, what, [key, *others], named, fields)
    except SignersRefused as error:
        raise refused(error.status, str(error)) from None


def _not_here(operation: str) -> Any:
    """What a documented endpoint does if it ever runs: it cannot, since the command door
    (command_door.py) answers every POST to a command's path before FastAPI routes it."""
    raise AssertionError(f"{operation} is answered by the command door, never by FastAPI")


def _documented(route: CommandRoute) -> Callable[..., Any]:
    """The endpoint FastAPI documents for ``route`` (its parameters make the OpenAPI entry) and
    never calls (``_not_here``)."""
    if route.body_required:

        async def endpoint(
            request: Request, table_id: TableId, body: Any, idempotency_key: IdempotencyKey
        ) -> Any:
            return _not_here(route.operation)

        body_type: Any = route.body
    else:

        async def endpoint(  # type: ignore[misc]
            request: Request, table_id: TableId, idempotency_key: IdempotencyKey, body: Any = None
        ) -> Any:
            return _not_here(route.operation)

        body_type = route.body | None
    # The body's model is the route's: FastAPI reads it from the signature.
    endpoint.__annotations__ = {**endpoint.__annotations__, "body": body_type}
    endpoint.__name__ = route.operation
    endpoint.__doc__ = route.doc
    return endpoint


# Documentation only: the routes give the OpenAPI document its command paths (``require``: the
# key and the roles) and give every other method on a command's path its 405; a POST is the
# command door's.
for _each in ROUTE_LIST:
    auth.endpoint(
        router.post,
        _each.path,
        _each.operation,
        _each.summary,
        response_model=CommandResponse,
        responses=ERRORS,
    )(_documented(_each))
