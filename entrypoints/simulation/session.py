"""A simulated session at one table, played through the real application service and store.

A round is: top-ups at the cage, the round's start, the bank offers and answers (``--banking
rotating``), main wagers, Fortune bets, closing bets, the electronic deal and dice (the service
draws them from its source when their turn comes, R-DEAL-4), every player's setting, the banker's
hand by the House Way (R-HW-1), settlement with commission (R-PAY-2, R-BANK-4), the side bets and
Envy (R-VAR-2..3), and the round's close. A session is a whole gaming day (issue 18): the table
opens with an opener, players buy in for cash and markers, the tray is filled and credited
between rounds (``entrypoints/simulation/books.py``), and ``close_day`` has the players leave,
counts the closer and records the count. ``play_rounds`` sends K whole rounds as ONE batch
(``TableService.execute_batch``): one transaction and one fsync for the K rounds (group commit),
still one signed checkpoint at each round's end; every event keeps its own command's id.

What a player does depends on what the layout shows (the bank offered to them, who banks, their
seven cards), so those commands are :class:`service_layer.batches.Deferred`: built from the table's
state when their turn comes inside the batch. So are the top-ups of a batch's later rounds: of
the state a batch starts from, a later round reads only its number, so K rounds in one batch
record exactly the events of K batches of one round.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Literal

from entrypoints.simulation import books
from entrypoints.simulation.books import CAGE, COUNT, DEALER, FLOOR, TrayLevels
from service_layer.batches import BatchItem, Deferred, ElectronicDeal, ElectronicDice
from service_layer.service import TableService
from table_core import commands as c
from table_core.events import Actor
from table_core.hands import tables_for
from table_core.house_ways import BUILT_IN, get_house_way, set_by_house_way
from table_core.ports import RecordedEvent
from table_core.rules import HouseRules, TableLimits, TableRules
from table_core.side_bets import SideBetRules
from table_core.table import TableState, TrayShort

Banking = Literal["dealer", "rotating"]
__all__ = ["CAGE", "DEALER", "FLOOR", "STRATEGIES", "Session", "SessionSettings"]
NAMES = ("ana", "ben", "chloe", "dev", "emma", "farid")

#: Player strategies: ``house_way`` asks the dealer for the table's House Way (R-SET-2's
#: "player asked"); ``dealer`` leaves the hand unset, so the dealer sets it by the House Way when
#: setting the banker's (R-SET-2: "a player who does not set a hand gets the House Way"); a House
#: Way's name (``fr``, ``es``, ``trump_plaza``, ``foxwoods``) splits the seven cards by that House
#: Way and sends the split as the player's own (R-SET-1: never fouled, R-HW-5).
STRATEGIES = ("house_way", "dealer", *BUILT_IN)


@dataclass(frozen=True)
class SessionSettings:
    """What ``paigow simulate`` plays. Money in minor units.

    ``bankroll`` is each player's buy-in, bought again whenever a balance cannot cover the next
    round's wagers; ``side_wager`` is the Fortune bet with ``fortune`` (default the Envy
    qualifying bet, R-VAR-3); ``bank_accept`` is how often a player offered the bank takes it
    (R-BANK-1), drawn from the strategy's own generator."""

    rounds: int = 100
    players: int = 6
    house_way: str = "fr"
    banking: Banking = "dealer"
    fortune: bool = False
    seed: int | None = None
    wager: int = 1_000
    side_wager: int = 500
    bankroll: int | None = None
    player_strategy: str = "house_way"
    bank_accept: float = 0.5

    def __post_init__(self) -> None:
        if not 1 <= self.players <= 6:
            raise ValueError(f"a table seats 1 to 6 players, not {self.players}")
        if self.rounds < 0:
            raise ValueError("rounds is 0 or more")
        get_house_way(self.house_way)  # raises ConfigurationError naming the known ways
        if self.player_strategy not in STRATEGIES:
            raise ValueError(
                f"unknown player strategy {self.player_strategy} ({', '.join(STRATEGIES)})"
            )

    @property
    def buy_in(self) -> int:
        # A player-banker must cover every other wager (R-BANK-1): 100 rounds of them by default.
        return self.bankroll or 100 * (self.wager + self.side_wager) * max(self.players, 2)

    def rules(self) -> TableRules:
        """The table's profile: the House Way, dealer or rotating bank, Fortune with Envy; its
        limits take in the wagers it plays."""
        limits = TableLimits(min_bet=min(1_000, self.wager), max_bet=max(100_000, self.wager))
        side_bets = SideBetRules(offered=frozenset({"fortune"})) if self.fortune else SideBetRules()
        side_limits = TableLimits(
            min_bet=min(100, self.side_wager), max_bet=max(10_000, self.side_wager)
        )
        return TableRules(
            hand=HouseRules(house_way=self.house_way),
            banking=self.banking,
            limits=limits,
            side_bets=side_bets,
            side_bet_limits=side_limits,
            denominations=books.DENOMINATIONS,
        )


@dataclass
class Session:
    """One simulated table: ``open()`` seats and buys in, ``play_rounds()`` plays K rounds a batch.

    Command ids are ``<table>:<round>:<what>``, so a batch retried after a crash is answered by
    the store instead of being played twice. ``gaming_day`` is the day the opener names (default:
    the UTC date of the service's clock, less a 06:00 cut-off); ``drop`` sums the cash and marker
    buy-ins recorded, which the count finds in the drop box."""

    service: TableService
    table_id: str
    settings: SessionSettings
    decide_bank: Callable[[], bool] = field(default=lambda: True)
    players: list[tuple[int, str, Actor]] = field(default_factory=list)
    gaming_day: date | None = None
    drop: dict[str, int] = field(default_factory=lambda: {"cash": 0, "marker": 0})

    def __post_init__(self) -> None:
        names = [
            f"{NAMES[seat - 1]}-{self.table_id}" for seat in range(1, self.settings.players + 1)
        ]
        self.players = [
            (seat, name, Actor(id=name, role="player")) for seat, name in enumerate(names, start=1)
        ]
        strategy = random.Random(self.settings.seed)
        accept = self.settings.bank_accept
        self.decide_bank = lambda: strategy.random() < accept
        self._tables = tables_for("second")
        settings = self.settings
        self.levels = TrayLevels.of(
            settings.players,
            settings.wager,
            settings.side_wager,
            settings.buy_in,
            settings.fortune,
        )

    # --- opening ---------------------------------------------------------------------------------

    def open(self) -> TableState:
        return self.open_recorded()[0]

    def open_recorded(self) -> tuple[TableState, list[RecordedEvent]]:
        """Open the gaming day with the opener, seat the carded players and buy them in (odd
        seats for cash, even seats for a marker; a fill first when the tray runs short): one
        batch."""
        at = self.service.now
        day = self.gaming_day or (at() - timedelta(hours=6)).date()
        opened = c.OpenGamingDay(
            gaming_day=day,
            opener=self.levels.opener(),
            dealer=DEALER,
            table_id=self.table_id,
            rules=self.settings.rules(),
            actor=FLOOR,
            at=at(),
        )
        items: list[BatchItem] = [(opened, f"{self.table_id}:open"), *self._deck_in_use()]
        amount = self.settings.buy_in
        # Every command after the opener is stamped when its turn comes: a fill (deferred) and the
        # commands around it keep their times in order (R4: a batch's times never go back).
        for seat, player, actor in self.players:
            card = f"CARD-{player}"
            seated = self._stamped(
                _at_turn(c.SeatPlayer, seat=seat, player_id=player, card=card, actor=actor)
            )
            items.append((seated, f"{self.table_id}:seat:{seat}"))
            fill = books.fill_for(self.levels, f"F-0-{seat}", 1, amount, player, at)
            items.append((Deferred(fill), f"{self.table_id}:fill:{player}:0"))
            marker = f"M-{self.table_id}-{seat}" if seat % 2 == 0 else None
            bought = self._stamped(
                _at_turn(books.buy_in, player=player, amount=amount, marker=marker)
            )
            items.append((bought, f"{self.table_id}:buy-in:{player}:0"))
        results = self.service.execute_batch(self.table_id, items)
        events = [e for r in results for e in r.events]
        self._count_drop(events)
        return results[-1].state, events

    def _deck_in_use(self) -> list[BatchItem]:
        """The day's deck into custody (R20): received with its seal, inspected (53 cards), taken
        by the shuffler and put in use, so every round names the deck it was dealt from."""
        deck = f"{self.table_id}-DECK-1"
        steps: list[tuple[str, Callable[[datetime], c.Command]]] = [
            ("receive", _at_turn(c.ReceiveDeck, deck_id=deck, seal=f"SEAL-{deck}", actor=FLOOR)),
            (
                "inspect",
                _at_turn(
                    c.InspectDeck, deck_id=deck, card_count=53, inspector=FLOOR.id, actor=FLOOR
                ),
            ),
            (
                "load",
                lambda at: c.LoadShuffler(
                    deck_id=deck, shuffler_serial="SHUFFLER-1", received_at=at, actor=FLOOR, at=at
                ),
            ),
            ("use", _at_turn(c.PutDeckInUse, deck_id=deck, actor=FLOOR)),
        ]
        return [(self._stamped(make), f"{self.table_id}:deck:{step}") for step, make in steps]

    def close_day(self, state: TableState) -> tuple[TableState, list[RecordedEvent]]:
        """The players leave (their chips cashed out), the closer is counted from the tray, and
        the count team records the drop box: one batch."""
        now = self.service.now
        key = f"{self.table_id}:close"
        items: list[BatchItem] = []
        for _, player, actor in self.players:
            if player in state.balances:
                leave = self._stamped(_at_turn(c.LeaveSeat, player_id=player, actor=actor))
                items.append((leave, f"{key}:leave:{player}"))
        items.append((Deferred(books.closer(now)), f"{key}:closer"))
        day = self.gaming_day or (now() - timedelta(hours=6)).date()
        cash, markers = self.drop["cash"], self.drop["marker"]
        count = self._stamped(
            lambda at: c.CountDrop(gaming_day=day, cash=cash, markers=markers, actor=COUNT, at=at)
        )
        items.append((count, f"{key}:count"))
        results = self.service.execute_batch(self.table_id, items)
        return results[-1].state, [e for r in results for e in r.events]

    def _count_drop(self, events: Iterable[RecordedEvent]) -> None:
        for event in events:
            if event.type == "chips_bought_in":
                medium, amount = event.payload.get("medium"), event.payload["amount"]
                if isinstance(medium, str) and medium in self.drop and isinstance(amount, int):
                    self.drop[medium] += amount

    # --- a round ---------------------------------------------------------------------------------

    def round_items(self, state: TableState, later: int = 0) -> list[BatchItem]:
        """Every command of a round, for a batch: the next one after ``state``, or the
        ``later``-th after it (the rounds before it in the same batch). A later round reads
        only its number from ``state``: its top-ups too are decided when their turn comes. Each
        command is stamped when its turn comes, so the round's times follow its order."""
        settings = self.settings
        number = state.last_round + 1 + later
        key = f"{self.table_id}:{number}"
        now = self.service.now
        need = settings.wager + (settings.side_wager if settings.fortune else 0)
        buy_in = settings.buy_in
        # Between rounds the tray is kept between its marks (a fill or a credit, issue 18),
        # counting the chips the round's top-ups will take from it.
        names = [player for _, player, _ in self.players]

        def top_ups(state: TableState) -> int:
            return buy_in * sum(1 for p in names if state.balances.get(p, 0) < need)

        keeper = books.keeper(self.levels, number, now, top_ups)
        items: list[BatchItem] = [(Deferred(keeper), f"{key}:tray")]
        for player in names:
            # A player who cannot cover the round buys in again at its turn (the rounds before
            # it in the batch move the balances).
            items.append((Deferred(self._top_up(player, need, buy_in)), f"{key}:buy-in:{player}"))
        items.append((self._stamped(lambda at: c.StartRound(actor=DEALER, at=at)), f"{key}:start"))
        if settings.banking == "rotating":
            # Offers pass down the table (R-BANK-1): at most one answer per seat.
            for turn in range(len(self.players)):
                items.append((Deferred(self._answer_bank), f"{key}:bank:{turn}"))
        for seat, player, actor in self.players:
            items.append((Deferred(self._bet(seat, player, actor)), f"{key}:bet:{seat}"))
            if settings.fortune:
                side = self._side_bet(seat, player, actor)
                items.append((Deferred(side), f"{key}:fortune:{seat}"))
        close_bets = self._stamped(lambda at: c.CloseBets(actor=DEALER, at=at))
        items.append((close_bets, f"{key}:close-bets"))
        items.append((Deferred(_while_live(lambda: ElectronicDeal(DEALER))), f"{key}:deal"))
        items.append((Deferred(_while_live(lambda: ElectronicDice(DEALER))), f"{key}:dice"))
        if settings.player_strategy != "dealer":
            for seat, player, actor in self.players:
                items.append((Deferred(self._set_hand(seat, player, actor)), f"{key}:hand:{seat}"))
        for make, what in (
            (lambda: c.SetBankerHand(actor=DEALER, at=now()), "banker-hand"),
            (lambda: c.Settle(actor=DEALER, at=now()), "settle"),
            (lambda: c.CloseRound(actor=DEALER, at=now()), "close"),
        ):
            items.append((Deferred(_while_live(make)), f"{key}:{what}"))
        return items

    def _stamped(self, make: Callable[[datetime], c.Command]) -> Deferred:
        """A command built, and stamped by the service's clock, when its turn comes."""
        now = self.service.now
        return Deferred(lambda state: make(now()))

    def play(self, state: TableState) -> tuple[TableState, list[RecordedEvent]]:
        """Play one round; the new state and the round's recorded events, in order."""
        return self.play_rounds(state, 1)

    def play_rounds(self, state: TableState, rounds: int) -> tuple[TableState, list[RecordedEvent]]:
        """Play ``rounds`` rounds as ONE batch (one transaction, a signed checkpoint at each
        round's end): the new state and the rounds' recorded events, in order. A refused command
        refuses the batch: none of its rounds is written."""
        if rounds < 1:
            raise ValueError("a batch plays 1 round or more")
        items = self.round_items(state)
        for later in range(1, rounds):
            items += self.round_items(state, later)
        try:
            results = self.service.execute_batch(self.table_id, items)
        except TrayShort as short:
            # A round would pay more than the tray holds (the core refuses it: a fill must come
            # first). Nothing of the batch was written: fill, then play the rounds again.
            # The tray's target rises to what that round needs, so no credit takes it back.
            number = state.last_round + 1
            self.levels = self.levels.raised(short.needs)
            amount = self.levels.target - short.holds
            filled = books.fill(f"F-{number}-short", amount, self.service.now())
            refill = self.service.execute(self.table_id, filled, f"{self.table_id}:{number}:short")
            state, events = self.play_rounds(refill.state, rounds)
            return state, [*refill.events, *events]
        events = [e for r in results for e in r.events]
        self._count_drop(events)
        return results[-1].state, events

    # --- what the players do ------------------------------------------------------------------

    def _top_up(
        self, player: str, need: int, amount: int
    ) -> Callable[[TableState], c.Command | None]:
        now = self.service.now

        def build(state: TableState) -> c.Command | None:
            if state.balances.get(player, 0) >= need:
                return None
            return books.buy_in(player, amount, now())  # back to the cage: for cash

        return build

    def _answer_bank(self, state: TableState) -> c.Command | None:
        r = state.round
        if r is None or r.phase != "offering_bank" or r.offered_seat is None:
            return None
        player = state.seats[r.offered_seat]
        actor = self.players[r.offered_seat - 1][2]
        if self.decide_bank():
            return c.AcceptBank(player_id=player, actor=actor, at=self.service.now())
        return c.DeclineBank(player_id=player, actor=actor, at=self.service.now())

    def _bet(
        self, seat: int, player: str, actor: Actor
    ) -> Callable[[TableState], c.Command | None]:
        def build(state: TableState) -> c.Command | None:
            r = state.round
            if r is None or r.phase != "open_for_bets" or r.banker_place == seat:
                return None  # the player-banker does not wager (R-BANK-2)
            return c.PlaceBet(
                player_id=player, amount=self.settings.wager, actor=actor, at=self.service.now()
            )

        return build

    def _side_bet(
        self, seat: int, player: str, actor: Actor
    ) -> Callable[[TableState], c.Command | None]:
        def build(state: TableState) -> c.Command | None:
            r = state.round
            if r is None or r.phase != "open_for_bets":
                return None
            if seat not in r.wagers and seat != r.banker_place:
                return None  # no hand in action, no side bet (R-VAR-2)
            if state.balances.get(player, 0) < self.settings.side_wager:
                return None
            return c.PlaceSideBet(
                player_id=player,
                bet="fortune",
                amount=self.settings.side_wager,
                actor=actor,
                at=self.service.now(),
            )

        return build

    def _set_hand(
        self, seat: int, player: str, actor: Actor
    ) -> Callable[[TableState], c.Command | None]:
        strategy = self.settings.player_strategy

        def build(state: TableState) -> c.Command | None:
            r = state.round
            if r is None or r.phase != "dice_rolled" or seat not in r.player_places():
                return None  # the bank, a returned wager (R-BANK-3) or a voided round
            at = self.service.now()
            if strategy == "house_way":
                return c.SetHand(player_id=player, actor=actor, at=at)
            split = set_by_house_way(r.hands[seat], strategy, self._tables)
            return c.SetHand(
                player_id=player, back=split.back, front=split.front, actor=actor, at=at
            )

        return build


def _at_turn(make: Callable[..., c.Command], **fields: object) -> Callable[[datetime], c.Command]:
    """``make(**fields, at=…)`` at the time its turn comes in a batch."""

    def build(at: datetime) -> c.Command:
        return make(at=at, **fields)

    return build


def _while_live(
    make: Callable[[], c.Command | ElectronicDeal | ElectronicDice],
) -> Callable[[TableState], c.Command | ElectronicDeal | ElectronicDice | None]:
    """The command, built now, unless the round was voided as bets closed: the player-banker
    covered no wager (R-BANK-3)."""

    def build(state: TableState) -> c.Command | ElectronicDeal | ElectronicDice | None:
        return make() if state.round is not None and state.round.phase != "voided" else None

    return build
