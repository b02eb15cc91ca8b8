"""One hand at a simulated table: shuffle, wall, dice, deal, 補花, play, and its result.

Four bots play legal Taiwanese 16-tile mahjong (taiwan16.md §2–§3) and every sensor
reading the controller would report is emitted as a protocol event. The result and
every tile's place are kept as ground truth.
"""

from __future__ import annotations

import dataclasses
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
    TilesShown,
    WallBuilt,
)
from table_service.mirror.records import DEAD_HAND_CODES
from table_service.rules import HandOutcome, Profile, parse_hand, score, settle
from table_service.rules.settlement import Payment, net
from table_service.rules.shapes import is_complete, wait_kinds, wait_shape
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
from table_sim.faults import FaultDice, TableFaults
from table_sim.players import MeldRecord, Player
from table_sim.violations import Injected, InjectedViolation, Violations
from table_sim.wall import Place, Wall

Emit = Callable[[Message], None]


def _near_miss(kind: int, waits: list[int]) -> bool:
    """A tile one step off a ready hand's waits (not one of them): mistaken for a winner."""
    if kind >= 27 or kind in waits:
        return False
    return any(w // 9 == kind // 9 and abs(w - kind) == 1 for w in waits)


def _dazi_of(kind: int) -> list[tuple[int, int]]:
    """The 搭子 (kinds) that `kind` completes into a set: its pair, and for a suit tile the
    two-tile parts of each sequence it belongs to (3m 4m for 2m and 5m, 3m 5m for 4m)."""
    out = [(kind, kind)]
    if kind < 27:
        pos = kind % 9
        if pos >= 2:
            out.append((kind - 2, kind - 1))
        if 1 <= pos <= 7:
            out.append((kind - 1, kind + 1))
        if pos <= 6:
            out.append((kind + 1, kind + 2))
    return out


def _completes(dazi: list[int], kind: int) -> bool:
    """Whether `kind` makes a set with two shown tiles (kinds): a triplet, or a sequence."""
    return len(dazi) == 2 and tuple(sorted(dazi)) in _dazi_of(kind)


def _touches(shown: set[int] | list[int], kind: int) -> bool:
    """禁制 8 read broadly: `kind` is a kind shown, or makes a sequence with two kinds shown
    (shown 4p 4p and 6p 6p: 5p). The bots let such wins go, so no reading calls them wrong."""
    return kind in shown or any(
        pair[0] != pair[1] and set(pair) <= set(shown) for pair in _dazi_of(kind)
    )


@dataclass(frozen=True, slots=True)
class _Intercept:
    """攔胡 set up on the discard about to be made: the nearer and the farther claimant,
    the third seat that presses 碰/槓 between them, and the kind all this is about."""

    near: int
    far: int
    third: int
    kind: int


class HandOver(Exception):
    """Raised inside the play loop when the hand ends (a win, a 詐胡 or 荒局)."""


class _FlowerThrown(Exception):
    """A drawn flower was discarded (an injected breach): the turn passes at once."""


@dataclass
class HandResult:
    """Ground truth of one hand."""

    deal: Deal
    dice: tuple[int, int, int]
    opening_seat: int
    end: str  # "win", "draw" or "false_win" (詐胡: `winner` is the offender)
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
    # each misread draw: the message sent, the id it reported, the tile it was
    misreads: list[tuple[Any, int, int]] = field(default_factory=list)
    violations: list[InjectedViolation] = field(default_factory=list)  # breaches, in order
    codes: list[str] = field(default_factory=list)  # a false win's codes (replay-format.md)
    situations: list[Injected] = field(default_factory=list)  # no-breach cases, sensor faults
    # what only the sensors see of play (the players' statistics): each seat's go-round
    # (its own discards) whose discard first left it ready; a win's wait (the kinds it
    # waited on, its shape) and the go-round of the discard (or kong) dealt in
    ready_rounds: list[int | None] = field(default_factory=lambda: [None] * SEATS)
    win_waits: list[int] = field(default_factory=list)
    win_wait: str | None = None
    deal_in_round: int | None = None
    # each turn: (seat, the message that began it, its discard)
    turn_spans: list[tuple[int, Message, Message]] = field(default_factory=list)
    discards_made: list[int] = field(default_factory=lambda: [0] * SEATS)

    @property
    def dealer_won(self) -> bool:
        """The dealer won (for a false win: the dealer was the offender)."""
        return self.winner == self.deal.dealer

    @property
    def tai(self) -> int | None:
        """The hand's 台; a false win's 牌面 (0 for a hand that is not complete)."""
        if self.score is not None:
            return int(self.score["tai"])
        return 0 if self.end == "false_win" else None

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
            "tai": self.tai,
            "net": self.net,
            "events": self.events,
            "codes": self.codes,
            "violations": [v.to_json() for v in self.violations],
            "situations": [s.to_json() for s in self.situations],
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
        violations: Violations | None = None,
    ) -> None:
        self.rng = rng
        self.faults = faults or TableFaults()
        self.fault_dice = dice or FaultDice(0)
        self.injected: list[dict[str, int]] = []
        self.misreads: list[tuple[Any, int, int]] = []
        self.violations = violations or Violations()
        self.breaches: list[InjectedViolation] = []
        self.tempted: set[int] = set()  # seats letting wins go to win later under 過水
        self.throw_back: int | None = None  # a self-drawn winning tile a tempted seat let go
        self.abstaining: set[int] = set()  # tempted seats that let this discard's win go
        self.lying_in_wait: set[int] = set()  # seats that let a win go to self-draw under 過水
        self.intercept: _Intercept | None = None  # a 攔胡 set up by the discard being made
        self.situations: list[Injected] = []  # situations and sensor faults, with their truth
        self.deal = deal
        self._emit = emit
        self.profile = profile or Profile()
        self.players = [Player(seat) for seat in range(SEATS)]
        self.wall = Wall(rng)
        self.events = 0
        self.opening_seat = 0
        self.dice = (1, 1, 1)
        self.first_discard_done = [False] * SEATS
        self.round_discards: list[list[int]] = [[] for _ in range(SEATS)]  # kinds per go-round
        self.ready_rounds: list[int | None] = [None] * SEATS
        self.discards_made = [0] * SEATS  # (a player's `discards` lose the ones claimed)
        self.turn_began: list[Message | None] = [None] * SEATS  # the message beginning its turn
        self.turn_spans: list[tuple[int, Message, Message]] = []
        self.last_message: Message | None = None
        self.last_draw: Message | None = None  # the last TileDrawn message
        self.win_truth: tuple[list[int], str] | None = None
        self.deal_in_truth: int | None = None
        self.result: HandResult | None = None

    # --- plumbing ---------------------------------------------------------------

    def emit(self, message: Message) -> None:
        self.events += 1
        self.last_message = message
        self._emit(message)

    def _dare(self, code: str) -> bool:
        """Whether a bot breaks rule `code` at this opportunity. The fault dice decide, and
        only for a code that is on, so the game's own stream is never touched."""
        return self.violations.on(code) and self.fault_dice.roll(self.violations.chance(code), code)

    def _breach(self, code: str, player: Player, message: Message, kind: str = "") -> None:
        """Emit the message that is the breach and record it (`kind`: the class, when it is
        a variant of the code); a 相公 code kills the hand."""
        self.emit(message)
        self.breaches.append(InjectedViolation(code, player.seat, message, kind))
        if code in DEAD_HAND_CODES:
            player.dead = True

    def _draw(self, player: Player, end: End, turn: bool = False, code: str | None = None) -> int:
        """Draw a tile and report it; `code` names the breach the draw itself is, if any."""
        tile = self.wall.draw_front() if end == End.FRONT else self.wall.draw_back()
        breaches = len(self.breaches)
        if turn:
            self._wrong_draw(player, tile)
        reported = tile
        if self.fault_dice.roll(self.faults.misread, "misread"):
            reported = (tile + 1 + self.fault_dice.rng.randrange(143)) % 144
            self.injected.append({"misread": tile, "reported": reported, "seat": player.seat})
        elif code is None and len(self.breaches) == breaches:  # a draw that is only a draw
            self._reread(player, end)
        message = TileDrawn(player.seat, reported, end)
        if reported != tile:
            self.misreads.append((message, reported, tile))
        if code is None:
            self.emit(message)
        else:
            self._breach(code, player, message)
        self.last_draw = message
        self.emit(TilesLeft(self.wall.tiles_left))
        return tile

    def _reread(self, player: Player, end: End) -> None:
        """Sensor fault: the draw is first reported as a tile the mirror knows is elsewhere (in
        a hand, a meld, a river, the flowers), with the table's count of the tile taken; the
        table then reads the same draw again, right. One fault (`tile_twice`), nobody blamed,
        and the game goes on as if only the re-read happened (replay-format.md)."""
        if not self.faults.reread:
            return
        elsewhere = [
            t
            for p in self.players
            for t in (*p.hand, *p.flowers, *p.discards, *(x for m in p.melds for x in m.tiles))
        ]
        if not elsewhere or not self.fault_dice.roll(self.faults.reread, "reread"):
            return
        message = TileDrawn(player.seat, self.fault_dice.rng.choice(elsewhere), end)
        self.emit(message)
        self.emit(TilesLeft(self.wall.tiles_left))
        self.situations.append(Injected("reread", player.seat, message, fault="tile_twice"))

    def _wrong_draw(self, player: Player, tile: int) -> None:
        """A turn's tile taken by another seat, or by this one from the 槓尾 (reported as
        the same id); the referee puts it back and the right draw follows."""
        if self._dare("out_of_turn"):
            wrong = (player.seat + 1 + self.fault_dice.rng.randrange(3)) % SEATS
            self._breach("out_of_turn", self.players[wrong], TileDrawn(wrong, tile, End.FRONT))
        elif self._dare("wrong_end"):
            self._breach("wrong_end", player, TileDrawn(player.seat, tile, End.BACK))

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
        self.turn_began[dealer.seat] = self.last_draw  # its first turn: the deal's last tile

    def _replace_dealt_flowers(self) -> None:
        """補花: in turn order from the dealer, pass after pass until no flower is left."""
        order = [(self.deal.dealer + k) % SEATS for k in range(SEATS)]
        while any(is_flower_tile(t) for p in self.players for t in p.hand):
            for i, seat in enumerate(order):
                player = self.players[seat]
                flowers = [t for t in player.hand if is_flower_tile(t)]
                for tile in flowers:
                    player.hand.remove(tile)
                    self._reveal_flower(player, tile)
                for _ in flowers:
                    if self.wall.drawable == 0:
                        self._draw_game()
                    player.hand.append(self._draw(player, End.BACK))
                if flowers:
                    self._early_replacement(player, order[i + 1 :])

    def _early_replacement(self, player: Player, later: list[int]) -> None:
        """Breach (§2): a 補花 replacement that is itself a flower is revealed and replaced at
        once, while a later seat still has flowers to reveal in this pass: the replacement's
        draw is out of its pass (`replacement_order`); it belonged to the next pass."""
        if not self.violations.on("replacement_order") or self.wall.drawable == 0:
            return
        flower = next((t for t in player.hand if is_flower_tile(t)), None)
        waiting = any(is_flower_tile(t) for seat in later for t in self.players[seat].hand)
        if flower is None or not waiting or not self._dare("replacement_order"):
            return
        player.hand.remove(flower)
        reveal = self._reveal_flower(player, flower)
        player.hand.append(self._draw(player, End.BACK, code="replacement_order"))
        self.breaches[-1] = dataclasses.replace(self.breaches[-1], also=reveal)

    def _reveal_flower(self, player: Player, tile: int) -> FlowerRevealed:
        player.flowers.append(tile)
        message = FlowerRevealed(player.seat, tile)
        self.emit(message)
        return message

    def _declare_heavenly_ready(self) -> None:
        for seat in range(SEATS):
            player = self.players[seat]
            if seat == self.deal.dealer:
                continue
            if player.waits():
                player.declared = "heavenly_ready"
                self.emit(SeatButton(seat, Button.READY))
            elif self._dare("void_declaration"):  # D7: void, the bot plays on undeclared
                player.void_declared = True
                self._breach("void_declaration", player, SeatButton(seat, Button.READY))

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
                if turn in self.lying_in_wait:
                    self._rig_winning_draw(player)
                try:
                    drawn, replaced = self._draw_for_turn(player, End.FRONT)
                except _FlowerThrown:
                    turn = (turn + 1) % SEATS
                    continue
                self._offer_self_draw(player, drawn, replaced)
                self._false_self_draw(player, drawn)
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
        turn = end == End.FRONT  # a turn's own draw; replacements come from the back
        if self.wall.drawable == 0:
            if turn and self._dare("reserve_draw"):
                self._reserve_draw(player)
            self._draw_game()
        tile = self._draw(player, end, turn)
        if turn:
            self.turn_began[player.seat] = self.last_draw
        replaced = end == End.BACK
        if turn and is_flower_tile(tile) and self._dare("flower_discarded"):
            self._throw_flower(player, tile)
        while is_flower_tile(tile):
            self._reveal_flower(player, tile)
            robber = next(
                (p for p in self.players if p is not player and len(p.flowers) == 7 and not p.dead),
                None,
            )
            if robber is not None:
                robber.flowers.append(player.flowers.pop())
                self._flower_win(robber, "seven_rob_one", payer=player.seat, robbed=None)
            if len(player.flowers) == 8 and not player.dead:
                self._flower_win(player, "eight_immortals", payer=None, robbed=None)
            holder = next(
                (p for p in self.players if p is not player and len(p.flowers) == 1), None
            )
            if len(player.flowers) == 7 and holder is not None and not player.dead:
                robbed = holder.flowers.pop()
                player.flowers.append(robbed)
                self._flower_win(player, "seven_rob_one", payer=holder.seat, robbed=robbed)
            if self.wall.drawable == 0:
                self._draw_game()  # D4: no replacement for the last drawable tile
            tile = self._draw(player, End.BACK)
            replaced = True
        player.hand.append(tile)
        return tile, replaced

    def _reserve_draw(self, player: Player) -> None:
        """Breach: after the last drawable tile, the seat whose turn it is takes a reserve
        tile anyway (the hand is still 荒局; the tile stays in that hand)."""
        tile = self.wall.draw_front()
        player.hand.append(tile)
        self._breach("reserve_draw", player, TileDrawn(player.seat, tile, End.FRONT))
        self.emit(TilesLeft(self.wall.tiles_left))

    def _throw_flower(self, player: Player, flower: int) -> None:
        """Breach: a flower drawn in play is discarded, not revealed nor replaced (相公).
        Nobody may claim it; the turn passes to the 下家."""
        self._breach("flower_discarded", player, TileDiscarded(player.seat, flower))
        self._discarded(player, flower)
        raise _FlowerThrown

    def _offer_self_draw(
        self, player: Player, drawn: int, replaced: bool, barred: bool = False
    ) -> None:
        """Win on one's own draw when the hand is complete and no rule bars it."""
        if player.dead or not player.is_complete():
            return
        if barred or player.passed_win:
            if not barred and self._dare_self_draw_under_water(player):
                self._passed_self_draw(player, drawn, replaced)
            self._pass_win(player)
            return
        if self._tempted(player):
            self._pass_win(player)  # let it go (legal); throwing it back keeps 過水 (D1)
            self.throw_back = drawn
            return
        timing = self._self_draw_timing(player)
        self._win(player, tile_kind(drawn), "self_draw", replacement=replaced, timing=timing)

    def _self_draw_timing(self, player: Player) -> str | None:
        if player.declared == "heavenly_ready" and not self.first_discard_done[player.seat]:
            # 「不論他人吃碰與否」 (seeds 000–002): only the winner's own claim breaks it
            own_claim = any(m.from_seat != NO_SEAT for m in player.melds)
            return None if own_claim else "earthly_win"
        if player.declared == "earthly_ready" and self._within_declaration_round(player):
            return "human_win"
        return None

    def _dare_self_draw_under_water(self, player: Player) -> bool:
        """Whether a seat under 過水 declares its self-drawn win anyway (D1): always a seat
        lying in wait for it, another at the class's chance; never where the profile lets a
        self-draw stand under 過水 (then it is no breach)."""
        if not self.violations.on("passed_win_self_draw"):
            return False
        if self.profile.rules.pass_water_self_draw:
            return False
        return player.seat in self.lying_in_wait or self._dare("passed_win_self_draw")

    def _passed_self_draw(self, player: Player, drawn: int, replaced: bool) -> None:
        """Breach: a self-draw declared while 過水 holds (D1). 詐胡 on the 牌面 it would score."""
        timing = self._self_draw_timing(player)
        declaration = self._win_declaration(player, tile_kind(drawn), "self_draw", replaced, timing)
        win = SeatButton(player.seat, Button.WIN)
        self._breach("passed_win", player, win, "passed_win_self_draw")
        self.emit(HandRevealed(player.seat, tuple(player.hand)))
        result = score(parse_hand(declaration), self.profile)
        assert result.valid, (declaration, result.reason)
        self._settle_false_win(player, result.tai, ["passed_win"], declaration, result.to_json())

    def _winning_tiles(self, player: Player) -> list[int]:
        """The drawable tiles of the wall this seat (its hand 3n+1) would win with."""
        return [
            t
            for t in self.wall.front_tiles(self.wall.drawable)
            if not is_flower_tile(t) and player.can_win_with(tile_kind(t))
        ]

    def _rig_winning_draw(self, player: Player) -> None:
        """The wall dealt so (a seat lying in wait under 過水): its draw is a winning tile."""
        tiles = self._winning_tiles(player)
        if tiles:
            self.wall.bring_to_front(tiles[0])

    def _pass_win(self, player: Player) -> None:
        """D1: a win not taken sets 過水; D7: it also voids a declaration's 台."""
        player.passed_win = True
        if player.declared:
            player.declaration_void = True

    def _within_declaration_round(self, player: Player) -> bool:
        return not player.declaration_void and len(player.discards) == player.declared_at + 1

    def _false_self_draw(self, player: Player, drawn: int) -> None:
        """Breach: a ready seat draws a tile one step off its waits and presses 胡 (詐胡)."""
        if not self.violations.on("false_win") or not self._may_false_win(player):
            return
        if player.is_complete():
            return
        kind = tile_kind(drawn)
        counts, held = player.counts(), player.held()
        counts[kind] -= 1
        held[kind] -= 1
        if _near_miss(kind, wait_kinds(counts, held)) and self._dare("false_win"):
            self._false_win(player)

    # --- kongs -------------------------------------------------------------------------

    def _kongs(self, player: Player, drawn: int | None) -> int | None:
        """暗槓 and 加槓 while the bot wants them and a replacement exists (D4)."""
        if player.declared or player.dead or player.dazi:
            return drawn  # a declared hand is kept as it is; a 相公 only draws and discards
        while self.wall.drawable > 0:
            kind = player.concealed_kong_kind()
            if kind is not None and kind not in player.shown:  # 禁制 8: no kong of shown tiles
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
                m
                for m in player.melds
                if m.kind == MeldKind.PONG and tile_kind(m.tiles[0]) == tile_kind(tile)
            )
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
            if other.dead or not other.can_win_with(tile_kind(tile)):
                continue
            if other.passed_win:
                self._pass_win(other)
                continue
            meld.tiles.remove(tile)
            meld.kind = MeldKind.PONG
            other.hand.append(tile)
            self._win(other, tile_kind(tile), "robbing_kong", payer=adder.seat)

    # --- discards and claims ---------------------------------------------------------

    def _discard(self, player: Player, drawn: int | None) -> int:
        tile = player.choose_discard(drawn)
        thrown_back = self.throw_back is not None and self.throw_back in player.hand
        if thrown_back and self.throw_back is not None:
            tile = self.throw_back
        self.throw_back = None
        code = None
        banned = [t for t in player.hand if tile_kind(t) in player.no_discard]
        if banned and not player.dead and self._dare("restriction_6"):
            tile, code = banned[-1], "restriction_6"  # the claimed tile, its 絡, the pong's kind
        elif not thrown_back and self.violations.on("intercepted_win"):
            tile = self._set_up_intercept(player, drawn, tile)
        player.hand.remove(tile)
        waits = player.waits()
        first = not self.first_discard_done[player.seat]
        may_declare = first and not player.declared and not player.dead
        may_declare = may_declare and not player.void_declared and not player.exposed
        if may_declare and waits:
            player.declared = "earthly_ready"  # 地聽: ready with the first discard
            player.declared_at = len(player.discards)
            self.emit(SeatButton(player.seat, Button.READY))
        elif may_declare and self._dare("void_declaration"):  # D7: void, plays on undeclared
            player.void_declared = True
            self._breach("void_declaration", player, SeatButton(player.seat, Button.READY))
        message = TileDiscarded(player.seat, tile)
        if code is None:
            self.emit(message)
        else:
            self._breach(code, player, message)
        self._discarded(player, tile)
        return tile

    def _discarded(self, player: Player, tile: int) -> None:
        """A discard ends the seat's go-round: 禁制 6, 過碰 and (D1) 過水 are reset."""
        self.lying_in_wait.discard(player.seat)
        player.discards.append(tile)
        player.no_discard = frozenset()
        player.last_discard_kind = tile_kind(tile)
        player.passed_pongs.clear()
        if player.passed_win and tile_kind(tile) not in player.waits():
            player.passed_win = False  # D1
        self.first_discard_done[player.seat] = True
        self.discards_made[player.seat] += 1
        began, discard = self.turn_began[player.seat], self.last_message
        if began is not None and discard is not None:
            self.turn_spans.append((player.seat, began, discard))
            self.turn_began[player.seat] = None
        if self.ready_rounds[player.seat] is None and player.waits():
            self.ready_rounds[player.seat] = self.discards_made[player.seat]
        self._show_dazi(player)
        self._show_by_fault(player)
        self.round_discards[player.seat] = []
        for other in range(SEATS):
            if other != player.seat:
                self.round_discards[other].append(tile_kind(tile))

    def _show_by_fault(self, player: Player) -> None:
        """A seat knocks over a pair of its hand, face up (not a breach in itself, but 禁制 8
        then bars claiming that kind: the opportunity of a `restriction_8` breach)."""
        if not self.violations.on("restriction_8") or player.dead or player.declared or player.dazi:
            return
        counts = player.counts()
        kind = next((k for k, n in enumerate(counts) if n >= 2 and k not in player.shown), None)
        if kind is None or not self.fault_dice.roll(
            self.violations.chance("restriction_8"), "shown"
        ):
            return
        player.shown.add(kind)
        self.emit(
            TilesShown(player.seat, tuple(t for t in player.hand if tile_kind(t) == kind)[:2])
        )

    def _discard_timing(self, player: Player, first_discard: bool) -> str | None:
        """人胡 or 地胡 on this discard (D6), if the win is either."""
        if player.declared == "earthly_ready":
            return "human_win" if self._within_declaration_round(player) else None
        seat = player.seat
        if (
            seat != self.deal.dealer and not self.first_discard_done[seat] and first_discard
        ):  # a player's first discard, whatever was claimed before it (seeds 000–002)
            return "earthly_win"
        return None

    def _claims(self, discarder: Player, tile: int) -> tuple[int, str]:
        """Resolve claims on a discard (胡 over 碰/槓 over 吃): (next seat, how its turn begins)."""
        kind = tile_kind(tile)
        first_discard = len(discarder.discards) == 1
        self.abstaining.clear()
        if self.intercept is not None:
            self._intercepted_win(discarder, tile, first_discard)
        for seat in claim_order(discarder.seat):
            player = self.players[seat]
            if player.dead or not player.can_win_with(kind):
                continue
            if _touches(player.shown, kind):  # 禁制 8: no win on a discard its shown tiles make
                self._pass_win(player)
                continue
            timing = self._discard_timing(player, first_discard)
            if player.dazi and self._dazi_bars(player, discarder, tile, timing):
                continue
            if player.passed_win:
                if self._dare_passed_win(player):
                    self._barred_win(player, discarder, tile, timing, "passed_win")
                self._pass_win(player)
                continue
            if self._tempted(player):
                self._pass_win(player)  # let it go (legal), to win on a later discard
                self.abstaining.add(seat)  # and claim nothing of it: 過水 beyond doubt
                continue
            if self._lie_in_wait(player):
                self._pass_win(player)  # let it go (legal), to self-draw a win under 過水
                self.abstaining.add(seat)
                continue
            discarder.discards.pop()
            player.hand.append(tile)
            self._win(player, kind, "discard", payer=discarder.seat, timing=timing)
        # a seat that showed a 搭子 claims nothing more (禁制 8 however read); one lying in
        # wait claims nothing before its draw
        self.abstaining |= {p.seat for p in self.players if p.dazi} | self.lying_in_wait
        self._false_discard_win(discarder, tile)
        next_seat = (discarder.seat + 1) % SEATS
        if self.wall.drawable <= NO_CLAIM_DRAWABLE:
            return self._late_claim(discarder, tile) or (next_seat, "draw")  # 禁制 7
        for seat in claim_order(discarder.seat):
            player = self.players[seat]
            takes = seat not in self.abstaining
            legal = takes and kind not in player.shown  # 禁制 8
            if legal and self.wall.drawable > 0 and player.wants_kong_from_discard(kind):
                self._expose(player, discarder, tile, MeldKind.KONG_EXPOSED, player.take(kind, 3))
                return seat, "claimed_kong"
            if legal and player.wants_pong(kind):
                self._pong(player, discarder, tile)
                return seat, "claimed"
            if player.counts()[kind] >= 2:
                code = self._pong_breach(player, kind) if takes else None
                if code is not None:
                    self._pong(player, discarder, tile, code)
                    return seat, "claimed"
                player.passed_pongs.add(kind)  # D2 過碰
        lower = self.players[next_seat]
        shy = next_seat in self.abstaining or kind in lower.shown  # 禁制 8
        low = None if shy else lower.chow_choice(kind)
        if low is not None:
            self._chow(lower, discarder, tile, low)
            return next_seat, "claimed"
        return self._wrong_chow(discarder, tile) or (next_seat, "draw")

    def _pong(self, player: Player, discarder: Player, tile: int, code: str | None = None) -> None:
        kind = tile_kind(tile)
        self._expose(player, discarder, tile, MeldKind.PONG, player.take(kind, 2), code)
        player.no_discard = frozenset({kind})  # 禁制 6

    def _chow(
        self, player: Player, discarder: Player, tile: int, low: int, code: str | None = None
    ) -> None:
        kind = tile_kind(tile)
        own = [player.take(k)[0] for k in (low, low + 1, low + 2) if k != kind]
        self._expose(player, discarder, tile, MeldKind.CHOW, own, code)
        player.no_discard = forbidden_after_chow(kind, low)  # 禁制 6

    def _expose(
        self,
        player: Player,
        discarder: Player,
        tile: int,
        kind: MeldKind,
        own: list[int],
        code: str | None = None,
    ) -> None:
        """A claim shown: the button, then the meld; `code` names the breach it is, if any."""
        discarder.discards.pop()
        button = {MeldKind.CHOW: Button.CHOW, MeldKind.PONG: Button.PONG}.get(kind, Button.KONG)
        self.emit(SeatButton(player.seat, button))
        tiles = sorted([*own, tile])
        player.melds.append(MeldRecord(kind, tiles, discarder.seat))
        meld = MeldExposed(player.seat, kind, discarder.seat, tuple(tiles))
        if code is None:
            self.emit(meld)
        else:
            self._breach(code, player, meld)
        self.turn_began[player.seat] = self.last_message  # a claim begins its turn

    # --- injected breaches on a discard ------------------------------------------------

    def _show_dazi(self, player: Player) -> None:
        """A ready seat knocks over two tiles its wait completes, face up (a pair, or two of a
        sequence): no breach in itself, but 禁制 8 then bars a win on a discard completing
        them, the breach of a seat set on `restriction_8_win` when such a discard comes."""
        if not self.violations.on("restriction_8_win") or player.dead or player.declared:
            return
        if player.dazi or player.shown or player.passed_win or player.seat in self.lying_in_wait:
            return
        options = self._dazi_options(player)
        if not options or not self._dare("restriction_8_win"):
            return
        player.dazi = self.fault_dice.rng.choice(options)
        self.emit(TilesShown(player.seat, player.dazi))

    @staticmethod
    def _dazi_options(player: Player) -> list[tuple[int, ...]]:
        """Two hand tiles (ids) a wait of this ready seat completes into a set, in a reading
        of the winning hand where they and the winning tile are that set."""
        counts = player.counts()
        options: list[tuple[int, ...]] = []
        for wait in player.waits():
            for pair in _dazi_of(wait):
                rest = list(counts)
                rest[wait] += 1
                for k in (*pair, wait):
                    rest[k] -= 1
                if min(rest) < 0 or not is_complete(rest):
                    continue
                ids = [t for t in player.hand if tile_kind(t) == pair[0]][:1]
                ids += [t for t in player.hand if tile_kind(t) == pair[1] and t not in ids][:1]
                options.append(tuple(ids))
        return options

    def _dazi_bars(self, player: Player, discarder: Player, tile: int, timing: str | None) -> bool:
        """禁制 8 for a seat that showed a 搭子: no win on a discard that completes it (the
        breach, 詐胡, when it is not under 過水 too), nor on one that pairs a shown tile (as a
        strict referee may read the rule): the seat lets those go. True when barred."""
        kind = tile_kind(tile)
        shown = [tile_kind(t) for t in player.dazi if t in player.hand]
        if _completes(shown, kind) and not player.passed_win:
            self._barred_win(player, discarder, tile, timing, "restriction_8", "restriction_8_win")
        if _touches(shown, kind):
            self._pass_win(player)
            return True
        return False

    def _lie_in_wait(self, player: Player) -> bool:
        """A seat set on `passed_win_self_draw` lets this win go (legal: 過水, D1) and claims
        nothing before its own draw, which the wall is rigged to make a winner; it declares
        that self-draw (`_offer_self_draw`). Only when a winning tile is left to draw."""
        if not self.violations.on("passed_win_self_draw") or player.dazi:
            return False
        if self.profile.rules.pass_water_self_draw or not self._winning_tiles(player):
            return False
        if not self._dare("passed_win_self_draw"):
            return False
        self.lying_in_wait.add(player.seat)
        return True

    def _intercept_plans(self, player: Player, kinds: set[int]) -> list[_Intercept]:
        """Every 攔胡 this seat's discard of one of `kinds` would open: two other seats both
        winning on it, nothing barring either, the third seat between them pressing."""
        if self.wall.drawable <= NO_CLAIM_DRAWABLE:
            return []  # 禁制 7 would bar the 碰 pressed
        order = claim_order(player.seat)
        plans: list[_Intercept] = []
        for i, near in enumerate(order):
            for far in order[i + 1 :]:
                third = next(s for s in order if s not in (near, far))
                for kind in self._both_win(near, far):
                    if kind in kinds and kind not in player.no_discard:  # 禁制 6: a breach
                        plans.append(_Intercept(near, far, third, kind))
        return plans

    def _paired(self, plans: list[_Intercept]) -> list[_Intercept]:
        """The plans whose third seat holds a pair of the kind: its 碰 a claim that lost."""
        return [p for p in plans if self.players[p.third].counts()[p.kind] >= 2]

    def _set_up_intercept(self, player: Player, drawn: int | None, tile: int) -> int:
        """攔胡 with a press between (D3): when two other seats both win on a kind this seat
        holds, the dice willing, it discards that kind (a bot's choice, breaking no rule);
        `_claims` then plays the farther 胡, a third seat's 碰 (槓 with three) and the nearer
        胡. A third seat holding a pair is preferred (its 碰 a claim that lost); with none, its
        press is a hasty one, the button alone all the same. The tile to discard."""
        kinds = {k for k, n in enumerate(player.counts()) if n}
        if player.declared:  # a declared hand throws its drawn tile
            kinds &= {tile_kind(drawn)} if drawn is not None else set()
        plans = self._intercept_plans(player, kinds)
        if not plans or not self._dare("intercepted_win"):
            return tile
        plan = (self._paired(plans) or plans)[0]
        self.intercept = plan
        return next(t for t in reversed(player.hand) if tile_kind(t) == plan.kind)

    def _both_win(self, a: int, b: int) -> list[int]:
        """The kinds both seats would win on from a discard, with nothing barring either."""
        kinds: set[int] | None = None
        for seat in (a, b):
            p = self.players[seat]
            if p.dead or p.passed_win or seat in self.lying_in_wait or seat in self.tempted:
                return []
            shown = [tile_kind(t) for t in p.dazi if t in p.hand]
            waits = {
                k
                for k in p.waits()
                if p.can_win_with(k) and not _touches(p.shown, k) and not _touches(shown, k)
            }
            kinds = waits if kinds is None else kinds & waits
        return sorted(kinds or ())

    def _intercepted_win(self, discarder: Player, tile: int, first_discard: bool) -> None:
        """The 攔胡 set up by this discard: the farther claimant presses 胡, the third seat
        presses 碰 (or 槓), the nearer presses 胡 and reveals; only the winner reveals, the
        other presses lose on priority (the button alone, replay-format.md). No violation
        for anyone; the nearer seat wins, the discarder pays (§3)."""
        plan, self.intercept = self.intercept, None
        assert plan is not None and plan.kind == tile_kind(tile)
        near, far, third = (self.players[s] for s in (plan.near, plan.far, plan.third))
        first = SeatButton(far.seat, Button.WIN)
        self.emit(first)
        pressed = Button.KONG if third.counts()[plan.kind] >= 3 else Button.PONG
        self.emit(SeatButton(third.seat, pressed))
        self.situations.append(Injected("intercepted_win", near.seat, first))
        timing = self._discard_timing(near, first_discard)
        discarder.discards.pop()
        near.hand.append(tile)
        self._win(near, plan.kind, "discard", payer=discarder.seat, timing=timing)

    def _tempted(self, player: Player) -> bool:
        """A seat set on a `passed_win` breach lets every win go (legal) until it holds 過水
        when a winning discard comes; so set at the code's chance, on a win it could take.
        Not a seat that showed a 搭子: it is set on its own breach (`restriction_8_win`)."""
        if not self.violations.on("passed_win") or player.dazi:
            return False
        if player.seat not in self.tempted:
            if self.fault_dice.rng.random() >= self.violations.chance("passed_win"):
                return False
            self.tempted.add(player.seat)
        return True

    def _dare_passed_win(self, player: Player) -> bool:
        """A tempted seat takes its first win under 過水; another seat at the code's chance."""
        chance = 1.0 if player.seat in self.tempted else self.violations.chance("passed_win")
        return self.violations.on("passed_win") and self.fault_dice.roll(chance, "passed_win")

    def _false_discard_win(self, discarder: Player, tile: int) -> None:
        """Breach: a ready seat presses 胡 on a discard one step off its waits (詐胡). Not on
        the last discard: one nobody can win on ends the hand at once (荒局)."""
        if not self.violations.on("false_win") or self.wall.drawable == 0:
            return
        kind = tile_kind(tile)
        for seat in claim_order(discarder.seat):
            player = self.players[seat]
            if not self._may_false_win(player):
                continue
            if _near_miss(kind, player.waits()) and self._dare("false_win"):
                self._false_win(player, discarder, tile)

    @staticmethod
    def _may_false_win(player: Player) -> bool:
        """A 詐胡 breaking nothing but completeness: not by a 相公, nor under 過水."""
        return not player.dead and not player.passed_win

    def _may_claim(self, player: Player, kind: int) -> bool:
        """No other rule broken by claiming this discard: not declared, no earlier copy in
        the seat's go-round (so no 過碰 however read), a legal discard left afterwards."""
        return (
            not player.declared
            and player.seat not in self.abstaining
            and self.round_discards[player.seat].count(kind) == 1
            and len(player.hand) > player.counts()[kind]
        )

    def _pong_breach(self, player: Player, kind: int) -> str | None:
        """Which breach, if any, a seat holding a pair commits by ponging this discard."""
        if player.declared:
            return None
        if player.dead:
            code = "dead_hand_claim" if self._may_claim(player, kind) else None
        elif kind in player.passed_pongs and len(player.hand) > player.counts()[kind]:
            code = "passed_pong"
        elif kind in player.shown and self._may_claim(player, kind):
            code = "restriction_8"
        else:
            code = None
        return code if code is not None and self._dare(code) else None

    def _late_claim(self, discarder: Player, tile: int) -> tuple[int, str] | None:
        """Breach of 禁制 7: a pong, or the 下家's chow, with three drawable tiles or fewer
        (but some left: after the last discard nobody can win on, the hand is 荒局)."""
        if not self.violations.on("restriction_7") or self.wall.drawable == 0:
            return None
        kind = tile_kind(tile)
        for seat in claim_order(discarder.seat):
            player = self.players[seat]
            pair = player.counts()[kind] >= 2 and not player.dead
            if pair and self._may_claim(player, kind) and self._dare("restriction_7"):
                self._pong(player, discarder, tile, "restriction_7")
                return seat, "claimed"
        lower = self.players[(discarder.seat + 1) % SEATS]
        shy = lower.dead or lower.declared or lower.seat in self.abstaining
        low = None if shy else lower.best_chow(kind)
        ok = low is not None and self._chow_leaves_discard(lower, kind, low)
        if ok and low is not None and self._dare("restriction_7"):
            self._chow(lower, discarder, tile, low, "restriction_7")
            return lower.seat, "claimed"
        return None

    def _wrong_chow(self, discarder: Player, tile: int) -> tuple[int, str] | None:
        """Breach: a seat that is not the discarder's 下家 chows the discard it wants (相公)."""
        if not self.violations.on("chow_not_from_left"):
            return None
        kind = tile_kind(tile)
        for seat in claim_order(discarder.seat)[1:]:
            player = self.players[seat]
            low = None if seat in self.abstaining else player.chow_choice(kind)
            ok = low is not None and self._chow_leaves_discard(player, kind, low)
            if ok and low is not None and self._dare("chow_not_from_left"):
                self._chow(player, discarder, tile, low, "chow_not_from_left")
                return seat, "claimed"
        return None

    @staticmethod
    def _chow_leaves_discard(player: Player, kind: int, low: int) -> bool:
        """Whether a tile outside 禁制 6 is left to discard after this chow."""
        counts = player.counts()
        for k in (low, low + 1, low + 2):
            if k != kind:
                counts[k] -= 1
        forbidden = forbidden_after_chow(kind, low)
        return any(n and k not in forbidden for k, n in enumerate(counts))

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

    def _win_declaration(
        self, player: Player, winning_kind: int, win: str, replacement: bool, timing: str | None
    ) -> dict[str, Any]:
        declaration = self._declaration(player, winning_kind, win)
        declaration["replacement"] = replacement
        declaration["timing"] = timing
        if player.declared and not player.declaration_void:
            declaration["declared"] = player.declared
        elif timing in ("human_win", "earthly_win") and declaration["win"] == "self_draw":
            declaration["timing"] = None  # its declaration did not stand (D7)
        return declaration

    def _false_win(
        self, player: Player, discarder: Player | None = None, tile: int | None = None
    ) -> None:
        """Breach: 胡 pressed with a hand that is not complete. 詐胡 on 牌面 0; the hand ends."""
        if discarder is not None and tile is not None:
            discarder.discards.pop()
            player.hand.append(tile)
        self._breach("false_win", player, SeatButton(player.seat, Button.WIN))
        self.emit(HandRevealed(player.seat, tuple(player.hand)))
        self._settle_false_win(player, 0, ["false_win"])

    def _barred_win(
        self,
        player: Player,
        discarder: Player,
        tile: int,
        timing: str | None,
        code: str,
        kind: str = "",
    ) -> None:
        """Breach: a win on a discard a rule bars (過水 D1, 禁制 8). 詐胡 on the 牌面 it would
        score (taiwan16.md §3)."""
        discarder.discards.pop()
        player.hand.append(tile)
        declaration = self._win_declaration(player, tile_kind(tile), "discard", False, timing)
        self._breach(code, player, SeatButton(player.seat, Button.WIN), kind)
        self.emit(HandRevealed(player.seat, tuple(player.hand)))
        result = score(parse_hand(declaration), self.profile)
        assert result.valid, (declaration, result.reason)
        self._settle_false_win(player, result.tai, [code], declaration, result.to_json())

    def _settle_false_win(
        self,
        player: Player,
        tai: int,
        codes: list[str],
        declaration: dict[str, Any] | None = None,
        scored: dict[str, Any] | None = None,
    ) -> None:
        """詐胡 (§3): the offender pays each other seat 底 + 牌面, dealer 台 with the dealer."""
        outcome = HandOutcome(
            kind="false_win",
            winner=player.seat,
            tai=tai,
            dealer=self.deal.dealer,
            streak=self.deal.streak,
            stakes=self.profile.stakes(),
        )
        payments = settle(outcome)
        self.result = HandResult(
            self.deal,
            self.dice,
            self.opening_seat,
            "false_win",
            player.seat,
            None,
            "false_win",
            declaration,
            scored,
            payments,
            net(payments),
            codes=codes,
        )
        raise HandOver

    def _win(
        self,
        player: Player,
        winning_kind: int,
        win: str,
        payer: int | None = None,
        replacement: bool = False,
        timing: str | None = None,
    ) -> None:
        declaration = self._win_declaration(player, winning_kind, win, replacement, timing)
        self.emit(SeatButton(player.seat, Button.WIN))
        self.emit(HandRevealed(player.seat, tuple(player.hand)))
        result = score(parse_hand(declaration), self.profile)
        assert result.valid, (declaration, result.reason)
        kind = {"self_draw": "self_draw", "discard": "discard", "robbing_kong": "robbing_kong"}[win]
        self._wait_truth(player, winning_kind, payer, kind)
        self._finish(player, payer, kind, declaration, result.to_json())

    def _wait_truth(self, player: Player, won: int, payer: int | None, kind: str) -> None:
        """The win's wait (the hand before its winning tile) and the go-round dealt in at."""
        counts, held = player.counts(), player.held()
        counts[won] -= 1
        held[won] -= 1
        self.win_truth = (wait_kinds(counts, held), str(wait_shape(counts, won, held)))
        if payer is not None and kind in ("discard", "robbing_kong"):
            made = self.discards_made[payer]
            self.deal_in_truth = made if kind == "discard" else made + 1

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
            self._wait_truth(player, tile_kind(tile), payer, settle_kind)
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
            stakes=self.profile.stakes(),
        )
        payments = settle(outcome)
        self.result = HandResult(
            self.deal,
            self.dice,
            self.opening_seat,
            "win",
            player.seat,
            payer,
            settle_kind,
            declaration,
            result,
            payments,
            net(payments),
        )
        raise HandOver

    def _record_truth(self, result: HandResult) -> None:
        result.events = self.events
        result.ready_rounds = list(self.ready_rounds)
        result.turn_spans = list(self.turn_spans)
        result.discards_made = list(self.discards_made)
        if result.end == "win" and self.win_truth is not None:
            result.win_waits, result.win_wait = self.win_truth
            result.deal_in_round = self.deal_in_truth
        result.hands = [list(p.hand) for p in self.players]
        result.melds = [[list(m.tiles) for m in p.melds] for p in self.players]
        result.flowers = [list(p.flowers) for p in self.players]
        result.discards = [list(p.discards) for p in self.players]
        result.wall_left = self.wall.remaining()
        result.places = self.wall.places
        result.injected = list(self.injected)
        result.misreads = list(self.misreads)
        result.violations = list(self.breaches)
        result.situations = list(self.situations)
