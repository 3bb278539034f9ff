"""One endpoint per table command (issue 10), each a POST under ``/tables/{table_id}``.

Every command needs the ``Idempotency-Key`` header (it is the command id: a retry with the same
key answers the first result and writes nothing) and may carry ``expected_version`` in its body.
The actor recorded in the events is the API key's actor, in the key's role.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Header, Path, Request, Response
from starlette.concurrency import run_in_threadpool

from adapters.http.auth import require
from adapters.http.errors import ApiProblem, ErrorBody
from adapters.http.keys import ApiKey
from adapters.http.models import (
    TABLE_ID_PATTERN,
    AcceptBankBody,
    BetBody,
    ChangeRulesBody,
    ChipsBody,
    CommandBody,
    CommandResponse,
    OpenTableBody,
    PlayerBody,
    ReportDealBody,
    ReportDiceBody,
    SeatBody,
    SetHandBody,
    SideBetBody,
    VoidBody,
)
from adapters.http.runner import Build, CommandRunner
from adapters.http.views import command_body
from adapters.system_events import SYSTEM_STREAM
from table_core import commands as c
from table_core.events import Actor

router = APIRouter(prefix="/tables/{table_id}", tags=["commands"])
F = TypeVar("F", bound=Callable[..., Any])

TableId = Annotated[str, Path(pattern=TABLE_ID_PATTERN, examples=["PG-1"])]
IdempotencyKey = Annotated[
    str,
    Header(
        alias="Idempotency-Key",
        pattern=r"^[\x21-\x7e]{1,200}$",
        description="The command id: printable ASCII, 1..200 characters, new for each command. "
        "A retry with the same key answers the first result and writes nothing.",
    ),
]
#: Error answers a command may give, for the OpenAPI document.
ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "no API key, or an unknown one"},
    403: {"model": ErrorBody, "description": "this key's role may not give this command"},
    409: {"model": ErrorBody, "description": "stale expected_version (with current_version)"},
    422: {"model": ErrorBody, "description": "a rule refused the command (with its rule)"},
    503: {"model": ErrorBody, "description": "the store failed verification"},
}


def _runner(request: Request) -> CommandRunner:
    runner: CommandRunner = request.app.state.runner
    return runner


def _actor(key: ApiKey) -> Actor:
    return Actor(id=key.actor_id, role=key.role)


async def _command(
    request: Request,
    table_id: str,
    idempotency_key: str,
    expected: int | None,
    build: Build | None = None,
    electronic: str | None = None,
) -> Any:
    # The route's own dependency (``auth.require``) checked the key and left it here: an endpoint
    # parameter for it would make FastAPI solve the key's dependencies a second time.
    key: ApiKey = request.state.api_key
    if table_id == SYSTEM_STREAM:
        raise ApiProblem(422, "invalid_request", f"{SYSTEM_STREAM!r} is not a table id")
    if idempotency_key.startswith(f"{SYSTEM_STREAM}:"):  # the service's own command ids
        raise ApiProblem(422, "invalid_request", "an Idempotency-Key may not begin with 'system:'")
    # The endpoints are ``async`` and hand the blocking part (decide, append) to ONE worker
    # thread here: a plain ``def`` endpoint with a response model costs FastAPI two hand-offs
    # (the call, then the response's validation).
    records, replayed = await run_in_threadpool(
        _runner(request).run,
        table_id,
        idempotency_key,
        expected,
        build,
        actor=_actor(key),
        electronic=electronic,
    )
    # A Response returned as is: FastAPI neither validates nor serialises it again (the route's
    # ``response_model`` still documents it).
    return Response(
        command_body(table_id, idempotency_key, records),
        media_type="application/json",
        headers={"Idempotent-Replayed": "true" if replayed else "false"},
    )


def _route(path: str, operation: str, summary: str) -> Callable[[F], F]:
    decorate: Callable[[F], F] = router.post(
        path,
        operation_id=operation,
        summary=summary,
        response_model=CommandResponse,
        responses=ERRORS,
        dependencies=[Depends(require(operation))],
    )
    return decorate


# --- the table ------------------------------------------------------------------------------------


@_route("/open", "open_table", "Open the table under a rules profile (floor)")
async def open_table(
    request: Request,
    table_id: TableId,
    body: OpenTableBody,
    idempotency_key: IdempotencyKey,
) -> Any:
    def build(actor: Actor, at: Any) -> c.Command:
        return c.OpenTable(table_id=table_id, rules=body.rules, actor=actor, at=at)

    return await _command(request, table_id, idempotency_key, body.expected_version, build)


@_route("/rules", "change_rules", "Change the rules profile, with a reason (floor)")
async def change_rules(
    request: Request,
    table_id: TableId,
    body: ChangeRulesBody,
    idempotency_key: IdempotencyKey,
) -> Any:
    def build(actor: Actor, at: Any) -> c.Command:
        return c.ChangeRules(rules=body.rules, reason=body.reason, actor=actor, at=at)

    return await _command(request, table_id, idempotency_key, body.expected_version, build)


@_route("/seat", "seat_player", "Seat a player (seats 1..6, R-DEAL-1)")
async def seat_player(
    request: Request,
    table_id: TableId,
    body: SeatBody,
    idempotency_key: IdempotencyKey,
) -> Any:
    def build(actor: Actor, at: Any) -> c.Command:
        return c.SeatPlayer(seat=body.seat, player_id=body.player_id, actor=actor, at=at)

    return await _command(request, table_id, idempotency_key, body.expected_version, build)


@_route("/leave", "leave_seat", "A player leaves (remaining chips are cashed out first)")
async def leave_seat(
    request: Request,
    table_id: TableId,
    body: PlayerBody,
    idempotency_key: IdempotencyKey,
) -> Any:
    def build(actor: Actor, at: Any) -> c.Command:
        return c.LeaveSeat(player_id=body.player_id, actor=actor, at=at)

    return await _command(request, table_id, idempotency_key, body.expected_version, build)


@_route("/buy-in", "buy_in", "Sell chips to a seated player (cage)")
async def buy_in(
    request: Request,
    table_id: TableId,
    body: ChipsBody,
    idempotency_key: IdempotencyKey,
) -> Any:
    def build(actor: Actor, at: Any) -> c.Command:
        return c.BuyIn(player_id=body.player_id, amount=body.amount, actor=actor, at=at)

    return await _command(request, table_id, idempotency_key, body.expected_version, build)


@_route("/cash-out", "cash_out", "Cash a player's free chips out (cage)")
async def cash_out(
    request: Request,
    table_id: TableId,
    body: ChipsBody,
    idempotency_key: IdempotencyKey,
) -> Any:
    def build(actor: Actor, at: Any) -> c.Command:
        return c.CashOut(player_id=body.player_id, amount=body.amount, actor=actor, at=at)

    return await _command(request, table_id, idempotency_key, body.expected_version, build)


# --- the round ------------------------------------------------------------------------------------


def _simple(operation: str, path: str, summary: str, make: type[c.Command], doc: str = "") -> None:
    """An endpoint for a command with no field but its actor and time."""

    async def endpoint(
        request: Request,
        table_id: TableId,
        idempotency_key: IdempotencyKey,
        body: CommandBody | None = None,
    ) -> Any:
        def build(actor: Actor, at: Any) -> c.Command:
            return make(actor=actor, at=at)

        expected = None if body is None else body.expected_version
        return await _command(request, table_id, idempotency_key, expected, build)

    endpoint.__name__ = operation
    endpoint.__doc__ = doc or None
    _route(path, operation, summary)(endpoint)


_simple(
    "start_round",
    "/round/start",
    "Start a round (with a rotating bank, the bank is offered first, R-BANK-1)",
    c.StartRound,
)


@_route("/round/bank/accept", "accept_bank", "The offered player takes the bank (R-BANK-1)")
async def accept_bank(
    request: Request,
    table_id: TableId,
    body: AcceptBankBody,
    idempotency_key: IdempotencyKey,
) -> Any:
    def build(actor: Actor, at: Any) -> c.Command:
        return c.AcceptBank(player_id=body.player_id, co_bank=body.co_bank, actor=actor, at=at)

    return await _command(request, table_id, idempotency_key, body.expected_version, build)


@_route("/round/bank/decline", "decline_bank", "The offered player declines the bank (R-BANK-1)")
async def decline_bank(
    request: Request,
    table_id: TableId,
    body: PlayerBody,
    idempotency_key: IdempotencyKey,
) -> Any:
    def build(actor: Actor, at: Any) -> c.Command:
        return c.DeclineBank(player_id=body.player_id, actor=actor, at=at)

    return await _command(request, table_id, idempotency_key, body.expected_version, build)


@_route("/round/bet", "place_bet", "Place a player's main wager")
async def place_bet(
    request: Request,
    table_id: TableId,
    body: BetBody,
    idempotency_key: IdempotencyKey,
) -> Any:
    def build(actor: Actor, at: Any) -> c.Command:
        return c.PlaceBet(player_id=body.player_id, amount=body.amount, actor=actor, at=at)

    return await _command(request, table_id, idempotency_key, body.expected_version, build)


@_route("/round/side-bet", "place_side_bet", "Place a side bet (R-VAR-2..6)")
async def place_side_bet(
    request: Request,
    table_id: TableId,
    body: SideBetBody,
    idempotency_key: IdempotencyKey,
) -> Any:
    def build(actor: Actor, at: Any) -> c.Command:
        return c.PlaceSideBet(
            player_id=body.player_id, bet=body.bet, amount=body.amount, actor=actor, at=at
        )

    return await _command(request, table_id, idempotency_key, body.expected_version, build)


_simple("close_bets", "/round/close-bets", "No more bets", c.CloseBets)


@_route("/round/deal", "deal_electronic", "Deal from the table's secure deck (R-DEAL-2, R-DEAL-4)")
async def deal_electronic(
    request: Request,
    table_id: TableId,
    idempotency_key: IdempotencyKey,
    body: CommandBody | None = None,
) -> Any:
    """An electronic table's deal: the server draws the deck. A deal already recorded for the
    round is never drawn again: a retry answers the recorded one."""
    expected = None if body is None else body.expected_version
    return await _command(request, table_id, idempotency_key, expected, electronic="deal")


@_route("/round/deal/report", "report_deal", "Report a live deal: deck order or seven hands")
async def report_deal(
    request: Request,
    table_id: TableId,
    body: ReportDealBody,
    idempotency_key: IdempotencyKey,
) -> Any:
    def build(actor: Actor, at: Any) -> c.Command:
        return c.DealCards(
            deck=body.deck,
            hands=body.hands,
            source="live",
            actor=actor,
            at=at,
        )

    return await _command(request, table_id, idempotency_key, body.expected_version, build)


@_route("/round/dice", "roll_dice_electronic", "Roll the table's secure dice (R-DEAL-3)")
async def roll_dice_electronic(
    request: Request,
    table_id: TableId,
    idempotency_key: IdempotencyKey,
    body: CommandBody | None = None,
) -> Any:
    expected = None if body is None else body.expected_version
    return await _command(request, table_id, idempotency_key, expected, electronic="dice")


@_route("/round/dice/report", "report_dice", "Report the three dice a live table rolled")
async def report_dice(
    request: Request,
    table_id: TableId,
    body: ReportDiceBody,
    idempotency_key: IdempotencyKey,
) -> Any:
    def build(actor: Actor, at: Any) -> c.Command:
        return c.RollDice(faces=tuple(body.faces), actor=actor, at=at)

    return await _command(request, table_id, idempotency_key, body.expected_version, build)


@_route("/round/hand", "set_hand", "Set a player's hand, or ask the House Way (R-SET-1, R-HW-1)")
async def set_hand(
    request: Request,
    table_id: TableId,
    body: SetHandBody,
    idempotency_key: IdempotencyKey,
) -> Any:
    """``back`` (five cards) and ``front`` (two) as the player split them; leave both out to ask
    for the House Way. A fouled split is reset or forfeited as the table's rules say (R-SET-2)."""

    def build(actor: Actor, at: Any) -> c.Command:
        return c.SetHand(
            player_id=body.player_id, back=body.back, front=body.front, actor=actor, at=at
        )

    return await _command(request, table_id, idempotency_key, body.expected_version, build)


_simple(
    "set_banker_hand",
    "/round/banker-hand",
    "Set the banker's hand by the House Way (R-HW-1)",
    c.SetBankerHand,
)
_simple("settle", "/round/settle", "Settle every wager (R-PAY, R-VAR)", c.Settle)
_simple("close_round", "/round/close", "Close the settled round", c.CloseRound)


@_route("/round/void", "void_round", "Void the round, returning every wager (floor)")
async def void_round(
    request: Request,
    table_id: TableId,
    body: VoidBody,
    idempotency_key: IdempotencyKey,
) -> Any:
    def build(actor: Actor, at: Any) -> c.Command:
        return c.VoidRound(reason=body.reason, actor=actor, at=at)

    return await _command(request, table_id, idempotency_key, body.expected_version, build)
