"""One hand at a simulated table: shuffle, wall, dice, deal, 補花, play, and its result.

Four bots play legal Taiwanese 16-tile mahjong (taiwan16.md §2–§3) and every sensor
reading the controller would report is emitted as a protocol event. The result and
every tile's place are kept as ground truth.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from firmware_bridge.protocol.catalogue import (
    NO_SEAT,
    Button,
    DiceRoll,
    DiceRolled,
    End,
    FlowerRevealed,
    HandRevealed,
    MeldExposed,
    MeldKind,
    Message,
    SeatButton,
    ShuffleFinished,
    ShuffleStarted,
    TileDiscarded,
    TileDrawn,
    TilesLeft,
    WallBuilt,
)
from hil_tests.simulator.faults import FaultDice, TableFaults
from hil_tests.simulator.players import MeldRecord, Player
from hil_tests.simulator.wall import Place, Wall
from table_service.rules import HandOutcome, Profile, Stakes, parse_hand, score, settle
from table_service.rules.settlement import Payment, net
from table_service.rules.table import (
    DEAL_ROUNDS,
    NO_CLAIM_DRAWABLE,
    SEATS,
    WALL_STACKS,
    Deal,
    claim_order,
    counted_seat,
    forbidden_after_chow,
    seat_position,
)
from table_service.rules.tiles import (
    flower_code,
    is_flower_tile,
    kind_code,
    tile_flower,
    tile_kind,
    wind_code,
)

Emit = Callable[[Message], None]


class HandOver(Exception):
    """Raised inside the play loop when the hand ends (a win or 荒局)."""


@dataclass
class HandResult:
    """Ground truth of one hand."""

    deal: Deal
    dice: tuple[int, int, int]
    opening_seat: int
    end: str  # "win" or "draw"
    winner: int | None = None
    payer: int | None = None
    settle_kind: str | None = None
    declaration: dict[str, Any] | None = None
    score: dict[str, Any] | None = None
    payments: tuple[Payment, ...] = ()
    net: list[int] = field(default_factory=lambda: [0] * SEATS)
    events: int = 0
    hands: list[list[int]] = field(default_factory=list)
    melds: list[list[list[int]]] = field(default_factory=list)
    flowers: list[list[int]] = field(default_factory=list)
    discards: list[list[int]] = field(default_factory=list)
    wall_left: list[int] = field(default_factory=list)
    places: dict[int, Place] = field(default_factory=dict)  # where each tile sat in the wall
    injected: list[dict[str, int]] = field(default_factory=list)  # table faults, in order

    @property
    def dealer_won(self) -> bool:
        return self.winner == self.deal.dealer

    def to_json(self) -> dict[str, Any]:
        return {
            "dealer": self.deal.dealer,
            "streak": self.deal.streak,
            "round_wind": wind_code(self.deal.round_wind),
            "dice": list(self.dice),
            "opening_seat": self.opening_seat,
            "end": self.end,
            "winner": self.winner,
            "payer": self.payer,
            "settle_kind": self.settle_kind,
            "tai": None if self.score is None else self.score["tai"],
            "net": self.net,
            "events": self.events,
        }


class HandSim:
    """Plays one hand; `emit` receives every event in the order the sensors see it."""

    def __init__(
        self,
        rng: random.Random,
        deal: Deal,
        emit: Emit,
        profile: Profile | None = None,
        faults: TableFaults | None = None,
        dice: FaultDice | None = None,
    ) -> None:
        self.rng = rng
        self.faults = faults or TableFaults()
        self.fault_dice = dice or FaultDice(0)
        self.injected: list[dict[str, int]] = []
        self.deal = deal
        self._emit = emit
        self.profile = profile or Profile()
        self.players = [Player(seat) for seat in range(SEATS)]
        self.wall = Wall(rng)
        self.events = 0
        self.opening_seat = 0
        self.dice = (1, 1, 1)
        self.claims_made = False  # any 吃/碰/槓 from a discard: the first go-round is broken
        self.first_discard_done = [False] * SEATS
        self.round_discards: list[list[int]] = [[] for _ in range(SEATS)]  # kinds per go-round
        self.result: HandResult | None = None

    # --- plumbing ---------------------------------------------------------------

    def emit(self, message: Message) -> None:
        self.events += 1
        self._emit(message)

    def _draw(self, player: Player, end: End) -> int:
        tile = self.wall.draw_front() if end == End.FRONT else self.wall.draw_back()
        self._inject_wrong_draw(player, tile, end)
        reported = tile
        if self.fault_dice.roll(self.faults.misread, "misread"):
            reported = (tile + 1 + self.fault_dice.rng.randrange(143)) % 144
            self.injected.append({"misread": tile, "reported": reported, "seat": player.seat})
        self.emit(TileDrawn(player.seat, reported, end))
        self.emit(TilesLeft(self.wall.tiles_left))
        return tile

    def _inject_wrong_draw(self, player: Player, tile: int, end: End) -> None:
        """A player takes the tile out of turn or from the 槓尾; the referee puts it back."""
        if end != End.FRONT:
            return
        if self.fault_dice.roll(self.faults.out_of_turn, "out_of_turn"):
            wrong = (player.seat + 1 + self.fault_dice.rng.randrange(3)) % SEATS
            self.emit(TileDrawn(wrong, tile, End.FRONT))
            self.injected.append({"out_of_turn": wrong, "tile": tile})
        elif self.fault_dice.roll(self.faults.wrong_end, "wrong_end"):
            self.emit(TileDrawn(player.seat, tile, End.BACK))
            self.injected.append({"wrong_end": player.seat, "tile": tile})

    # --- the hand ------------------------------------------------------------------

    def play(self) -> HandResult:
        self.emit(ShuffleStarted())
        self.emit(ShuffleFinished())
        self.emit(WallBuilt(*([WALL_STACKS] * SEATS)))
        dice = tuple(self.rng.randint(1, 6) for _ in range(3))
        self.dice = (dice[0], dice[1], dice[2])
        self.emit(DiceRolled(DiceRoll.DEAL, *self.dice))
        total = sum(self.dice)
        self.opening_seat = counted_seat(self.deal.dealer, total)
        self.wall.open(self.opening_seat, total)
        try:
            self._deal_tiles()
            self._replace_dealt_flowers()
            self._declare_heavenly_ready()
            self._play_turns()
        except HandOver:
            pass
        assert self.result is not None
        self._record_truth(self.result)
        return self.result

    def _deal_tiles(self) -> None:
        order = [(self.deal.dealer + k) % SEATS for k in range(SEATS)]
        for _ in range(DEAL_ROUNDS):
            for seat in order:
                for _ in range(4):
                    self.players[seat].hand.append(self._draw(self.players[seat], End.FRONT))
        dealer = self.players[self.deal.dealer]
        dealer.hand.append(self._draw(dealer, End.FRONT))

    def _replace_dealt_flowers(self) -> None:
        """補花: in turn order from the dealer, pass after pass until no flower is left."""
        order = [(self.deal.dealer + k) % SEATS for k in range(SEATS)]
        while any(is_flower_tile(t) for p in self.players for t in p.hand):
            for seat in order:
                player = self.players[seat]
                flowers = [t for t in player.hand if is_flower_tile(t)]
                for tile in flowers:
                    player.hand.remove(tile)
                    self._reveal_flower(player, tile)
                for _ in flowers:
                    if self.wall.drawable == 0:
                        self._draw_game()
                    player.hand.append(self._draw(player, End.BACK))

    def _reveal_flower(self, player: Player, tile: int) -> None:
        player.flowers.append(tile)
        self.emit(FlowerRevealed(player.seat, tile))

    def _declare_heavenly_ready(self) -> None:
        for seat in range(SEATS):
            player = self.players[seat]
            if seat != self.deal.dealer and player.waits():
                player.declared = "heavenly_ready"
                self.emit(SeatButton(seat, Button.READY))

    def _play_turns(self) -> None:
        """Turn after turn. `mode` says how a turn begins: the dealer's first turn has no
        draw, a normal turn draws, a chow or pong discards at once, a 碰槓 draws its
        replacement (禁制 2: it cannot win by self-draw; 禁制 3: no further kong)."""
        turn = self.deal.dealer
        dealer = self.players[turn]
        drawn: int | None = dealer.hand[-1]
        if dealer.is_complete():
            self._win(dealer, tile_kind(dealer.hand[-1]), "self_draw", timing="heavenly_win")
        mode = "first"
        while True:
            player = self.players[turn]
            if mode == "draw":
                drawn, replaced = self._draw_for_turn(player, End.FRONT)
                self._offer_self_draw(player, drawn, replaced)
                drawn = self._kongs(player, drawn)
            elif mode == "first":
                drawn = self._kongs(player, drawn)
            elif mode == "claimed_kong":
                drawn, replaced = self._draw_for_turn(player, End.BACK)
                self._offer_self_draw(player, drawn, replaced, barred=True)
            else:
                drawn = None
            turn, mode = self._claims(player, self._discard(player, drawn))

    # --- drawing and self-drawn wins -------------------------------------------------

    def _draw_for_turn(self, player: Player, end: End) -> tuple[int, bool]:
        """Draw, replacing flowers from the 槓尾; (tile kept, was it a replacement).

        A revealed flower may end the hand in a flower win (§5): 八仙過海 with all eight,
        七搶一 (1) when another seat holds the other seven, 七搶一 (2) when this seat now
        holds seven and another holds the eighth. Each is declared once the replacement
        is drawn (D8).
        """
        if self.wall.drawable == 0:
            self._draw_game()
        tile = self._draw(player, end)
        replaced = end == End.BACK
        while is_flower_tile(tile):
            self._reveal_flower(player, tile)
            robber = next(
                (p for p in self.players if p is not player and len(p.flowers) == 7), None
            )
            if robber is not None:
                robber.flowers.append(player.flowers.pop())
                self._flower_win(robber, "seven_rob_one", payer=player.seat, robbed=None)
            if len(player.flowers) == 8:
                self._flower_win(player, "eight_immortals", payer=None, robbed=None)
            holder = next(
                (p for p in self.players if p is not player and len(p.flowers) == 1), None
            )
            if len(player.flowers) == 7 and holder is not None:
                robbed = holder.flowers.pop()
                player.flowers.append(robbed)
                self._flower_win(player, "seven_rob_one", payer=holder.seat, robbed=robbed)
            if self.wall.drawable == 0:
                self._draw_game()  # D4: no replacement for the last drawable tile
            tile = self._draw(player, End.BACK)
            replaced = True
        player.hand.append(tile)
        return tile, replaced

    def _offer_self_draw(
        self, player: Player, drawn: int, replaced: bool, barred: bool = False
    ) -> None:
        """Win on one's own draw when the hand is complete and no rule bars it."""
        if not player.is_complete():
            return
        if barred or player.passed_win:
            self._pass_win(player)
            return
        timing = None
        if player.declared == "heavenly_ready" and not self.first_discard_done[player.seat]:
            timing = None if self.claims_made else "earthly_win"
        elif player.declared == "earthly_ready" and self._within_declaration_round(player):
            timing = "human_win"
        self._win(player, tile_kind(drawn), "self_draw", replacement=replaced, timing=timing)

    def _pass_win(self, player: Player) -> None:
        """D1: a win not taken sets 過水; D7: it also voids a declaration's 台."""
        player.passed_win = True
        if player.declared:
            player.declaration_void = True

    def _within_declaration_round(self, player: Player) -> bool:
        return not player.declaration_void and len(player.discards) == player.declared_at + 1

    # --- kongs -------------------------------------------------------------------------

    def _kongs(self, player: Player, drawn: int | None) -> int | None:
        """暗槓 and 加槓 while the bot wants them and a replacement exists (D4)."""
        if player.declared:
            return drawn  # a declared hand is kept as it is
        while self.wall.drawable > 0:
            kind = player.concealed_kong_kind()
            if kind is not None:
                tiles = player.take(kind, 4)
                player.melds.append(MeldRecord(MeldKind.KONG_CONCEALED, tiles, NO_SEAT))
                self.emit(SeatButton(player.seat, Button.KONG))
                self.emit(MeldExposed(player.seat, MeldKind.KONG_CONCEALED, NO_SEAT, tuple(tiles)))
                # 禁制 5: no replacement win on a kind discarded in this go-round; an 暗槓
                # does not clear 過水 either.
                waits = set(player.waits())
                barred = bool(waits & set(self.round_discards[player.seat]))
                drawn, _ = self._draw_for_turn(player, End.BACK)
                self._offer_self_draw(player, drawn, True, barred=barred)
                continue
            tile = player.added_kong_tile()
            if tile is None:
                break
            meld = next(
                m for m in player.melds
                if m.kind == MeldKind.PUNG and tile_kind(m.tiles[0]) == tile_kind(tile)
            )  # fmt: skip
            player.hand.remove(tile)
            meld.kind = MeldKind.KONG_ADDED
            meld.tiles.append(tile)
            self.emit(SeatButton(player.seat, Button.KONG))
            self.emit(MeldExposed(player.seat, MeldKind.KONG_ADDED, NO_SEAT, tuple(meld.tiles)))
            self._robbing_kong(player, meld, tile)
            if player.passed_win and tile_kind(tile) not in player.waits():
                player.passed_win = False  # D1: a 加槓 of a non-winning tile clears 過水
            drawn, _ = self._draw_for_turn(player, End.BACK)
            self._offer_self_draw(player, drawn, True)
        return drawn

    def _robbing_kong(self, adder: Player, meld: MeldRecord, tile: int) -> None:
        """搶槓: the first seat after the adder that wins on the added tile takes it."""
        for seat in claim_order(adder.seat):
            other = self.players[seat]
            if not other.can_win_with(tile_kind(tile)):
                continue
            if other.passed_win:
                self._pass_win(other)
                continue
            meld.tiles.remove(tile)
            meld.kind = MeldKind.PUNG
            other.hand.append(tile)
            self._win(other, tile_kind(tile), "robbing_kong", payer=adder.seat)

    # --- discards and claims ---------------------------------------------------------

    def _discard(self, player: Player, drawn: int | None) -> int:
        tile = player.choose_discard(drawn)
        player.hand.remove(tile)
        waits = player.waits()
        first = not self.first_discard_done[player.seat]
        if first and not player.declared and waits and not player.exposed:
            player.declared = "earthly_ready"  # 地聽: ready with the first discard
            player.declared_at = len(player.discards)
            self.emit(SeatButton(player.seat, Button.READY))
        self.emit(TileDiscarded(player.seat, tile))
        player.discards.append(tile)
        player.no_discard = frozenset()
        player.last_discard_kind = tile_kind(tile)
        player.passed_pongs.clear()
        if player.passed_win and tile_kind(tile) not in waits:
            player.passed_win = False  # D1
        self.first_discard_done[player.seat] = True
        self.round_discards[player.seat] = []
        for other in range(SEATS):
            if other != player.seat:
                self.round_discards[other].append(tile_kind(tile))
        return tile

    def _claims(self, discarder: Player, tile: int) -> tuple[int, str]:
        """Resolve claims on a discard (胡 over 碰/槓 over 吃): (next seat, how its turn begins)."""
        kind = tile_kind(tile)
        first_discard = len(discarder.discards) == 1
        for seat in claim_order(discarder.seat):
            player = self.players[seat]
            if not player.can_win_with(kind):
                continue
            if player.passed_win:
                self._pass_win(player)
                continue
            timing = None
            if player.declared == "earthly_ready":
                timing = "human_win" if self._within_declaration_round(player) else None
            elif (
                seat != self.deal.dealer and not self.first_discard_done[seat]
                and first_discard and not self.claims_made
            ):  # fmt: skip
                timing = "earthly_win"
            discarder.discards.pop()
            player.hand.append(tile)
            self._win(player, kind, "discard", payer=discarder.seat, timing=timing)
        next_seat = (discarder.seat + 1) % SEATS
        if self.wall.drawable <= NO_CLAIM_DRAWABLE:
            return next_seat, "draw"  # 禁制 7
        for seat in claim_order(discarder.seat):
            player = self.players[seat]
            if self.wall.drawable > 0 and player.wants_kong_from_discard(kind):
                self._expose(player, discarder, tile, MeldKind.KONG_EXPOSED, player.take(kind, 3))
                return seat, "claimed_kong"
            if player.wants_pong(kind):
                self._expose(player, discarder, tile, MeldKind.PUNG, player.take(kind, 2))
                player.no_discard = frozenset({kind})  # 禁制 6
                return seat, "claimed"
            if player.counts()[kind] >= 2:
                player.passed_pongs.add(kind)  # D2 過碰
        lower = self.players[next_seat]
        low = lower.chow_choice(kind)
        if low is not None:
            own = [lower.take(k)[0] for k in (low, low + 1, low + 2) if k != kind]
            self._expose(lower, discarder, tile, MeldKind.CHOW, own)
            lower.no_discard = forbidden_after_chow(kind, low)  # 禁制 6
            return next_seat, "claimed"
        return next_seat, "draw"

    def _expose(
        self, player: Player, discarder: Player, tile: int, kind: MeldKind, own: list[int]
    ) -> None:
        self.claims_made = True
        discarder.discards.pop()
        button = {MeldKind.CHOW: Button.CHOW, MeldKind.PUNG: Button.PUNG}.get(kind, Button.KONG)
        self.emit(SeatButton(player.seat, button))
        tiles = sorted([*own, tile])
        player.melds.append(MeldRecord(kind, tiles, discarder.seat))
        self.emit(MeldExposed(player.seat, kind, discarder.seat, tuple(tiles)))

    # --- the end -------------------------------------------------------------------

    def _draw_game(self) -> None:
        """荒局: no drawable tile and no win."""
        self.result = HandResult(self.deal, self.dice, self.opening_seat, "draw")
        raise HandOver

    def _declaration(self, player: Player, winning_kind: int, win: str) -> dict[str, Any]:
        concealed = [tile_kind(t) for t in player.hand]
        concealed.remove(winning_kind)
        position = seat_position(
            player.seat, self.opening_seat, self.deal.dealer, self.profile.seat_order
        )
        return {
            "concealed": [kind_code(k) for k in concealed],
            "melds": [m.to_json() for m in player.melds],
            "flowers": [f"h{n}" for n in sorted(player.flower_numbers())],
            "winning_tile": kind_code(winning_kind),
            "win": win,
            "seat_wind": wind_code(position - 1),
            "round_wind": wind_code(self.deal.round_wind),
            "dealer": player.seat == self.deal.dealer,
            "streak": self.deal.streak,
            "last_tile": win == "self_draw" and self.wall.drawable == 0,
        }

    def _win(
        self,
        player: Player,
        winning_kind: int,
        win: str,
        payer: int | None = None,
        replacement: bool = False,
        timing: str | None = None,
    ) -> None:
        declaration = self._declaration(player, winning_kind, win)
        declaration["replacement"] = replacement
        declaration["timing"] = timing
        if player.declared and not player.declaration_void:
            declaration["declared"] = player.declared
        elif timing in ("human_win", "earthly_win") and declaration["win"] == "self_draw":
            declaration["timing"] = None  # its declaration did not stand (D7)
        self.emit(SeatButton(player.seat, Button.WIN))
        self.emit(HandRevealed(player.seat, tuple(player.hand)))
        result = score(parse_hand(declaration), self.profile)
        assert result.valid, (declaration, result.reason)
        kind = {"self_draw": "self_draw", "discard": "discard", "robbing_kong": "robbing_kong"}[win]
        self._finish(player, payer, kind, declaration, result.to_json())

    def _flower_win(
        self, player: Player, flower_win: str, payer: int | None, robbed: int | None
    ) -> None:
        """花胡: declared once the replacement is drawn (D8); a hand it completes adds its 台."""
        if self.wall.drawable == 0:
            self._draw_game()  # D4: no replacement, no flower win
        tile = self._draw(player, End.BACK)
        player.hand.append(tile)
        self.emit(SeatButton(player.seat, Button.WIN))
        declaration: dict[str, Any] = {
            "flower_win": flower_win,
            "flowers": [f"h{n}" for n in sorted(player.flower_numbers())],
            "dealer": player.seat == self.deal.dealer,
            "streak": self.deal.streak,
        }
        if robbed is not None:
            declaration["robbed_flower"] = flower_code(tile_flower(robbed))
        settle_kind = flower_win
        if player.is_complete():
            declaration.update(self._declaration(player, tile_kind(tile), "self_draw"))
            declaration["replacement"] = True
            self.emit(HandRevealed(player.seat, tuple(player.hand)))
            if robbed is not None:
                settle_kind = "seven_rob_one_self_draw"  # case (2), completed: all three pay
        result = score(parse_hand(declaration), self.profile)
        self._finish(player, payer, settle_kind, declaration, result.to_json())

    def _finish(
        self,
        player: Player,
        payer: int | None,
        settle_kind: str,
        declaration: dict[str, Any],
        result: dict[str, Any],
    ) -> None:
        outcome = HandOutcome(
            kind=settle_kind,  # type: ignore[arg-type]
            winner=player.seat,
            tai=int(result["tai"]),
            dealer=self.deal.dealer,
            streak=self.deal.streak,
            payer=payer,
            stakes=Stakes(self.profile.base, self.profile.per_tai),
        )
        payments = settle(outcome)
        self.result = HandResult(
            self.deal, self.dice, self.opening_seat, "win", player.seat, payer, settle_kind,
            declaration, result, payments, net(payments),
        )  # fmt: skip
        raise HandOver

    def _record_truth(self, result: HandResult) -> None:
        result.events = self.events
        result.hands = [list(p.hand) for p in self.players]
        result.melds = [[list(m.tiles) for m in p.melds] for p in self.players]
        result.flowers = [list(p.flowers) for p in self.players]
        result.discards = [list(p.discards) for p in self.players]
        result.wall_left = self.wall.remaining()
        result.places = self.wall.places
        result.injected = list(self.injected)
