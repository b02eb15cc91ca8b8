"""The physical wall: 144 tile ids in 4 sides × 18 墩 × 2, opened where the dice say.

Tile ids and their kinds: `table_service.rules.tiles` (docs/protocol.md §4.1). The
wall keeps every tile's place, so a test can compare what the far end believes with
where each tile really was.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass

from table_service.rules.table import SEATS, WALL_STACKS, drawable


@dataclass(frozen=True, slots=True)
class Place:
    """Where a tile sat when the wall was built: the side (seat), stack from its right, level."""

    side: int
    stack: int
    level: int  # 0 top, 1 bottom


class Wall:
    """A shuffled, built wall; `open` fixes the draw order from the 開門位."""

    def __init__(self, rng: random.Random) -> None:
        ids = list(range(144))
        rng.shuffle(ids)
        self.sides = [
            [(ids[s * 36 + 2 * i], ids[s * 36 + 2 * i + 1]) for i in range(WALL_STACKS)]
            for s in range(SEATS)
        ]
        self.places = {
            tile: Place(side, stack, level)
            for side, stacks in enumerate(self.sides)
            for stack, pair in enumerate(stacks)
            for level, tile in enumerate(pair)
        }
        self._stacks: deque[list[int]] = deque()

    def open(self, opening_seat: int, total: int) -> None:
        """Open after stack `total` of the 開門位's side (counted from its right end).

        Dealing proceeds clockwise, i.e. on to the side of each seat's 上家; the stack
        just right of the break is the 槓尾 (back end).
        """
        order: list[tuple[int, int]] = []
        order += [(opening_seat, i) for i in range(total, WALL_STACKS)]
        for k in (1, 2, 3):
            side = (opening_seat - k) % SEATS
            order += [(side, i) for i in range(WALL_STACKS)]
        order += [(opening_seat, i) for i in range(total)]
        self._stacks = deque([list(self.sides[side][i]) for side, i in order])

    @property
    def tiles_left(self) -> int:
        return sum(len(s) for s in self._stacks)

    @property
    def drawable(self) -> int:
        return drawable(self.tiles_left)

    def draw_front(self) -> int:
        stack = self._stacks[0]
        tile = stack.pop(0)
        if not stack:
            self._stacks.popleft()
        return tile

    def draw_back(self) -> int:
        """A replacement from the 槓尾: the top of the last stack first."""
        stack = self._stacks[-1]
        tile = stack.pop(0)
        if not stack:
            self._stacks.pop()
        return tile

    def bring_to_front(self, tile: int) -> None:
        """Rig the wall: `tile` (still in it) changes places with the next front tile, as if
        the shuffle had laid them so; `places` follow, so the truth stays physical."""
        front = self._stacks[0]
        for stack in self._stacks:
            if tile in stack:
                i, j = stack.index(tile), 0
                stack[i], front[j] = front[j], stack[i]
                a, b = tile, stack[i]
                self.places[a], self.places[b] = self.places[b], self.places[a]
                return
        raise ValueError(f"tile {tile} is not in the wall")

    def front_tiles(self, n: int) -> list[int]:
        """The next `n` tiles from the front (the drawable ones, when `n` is `drawable`)."""
        return [t for stack in self._stacks for t in stack][:n]

    def remaining(self) -> list[int]:
        """The tiles still in the wall, front first."""
        return [t for stack in self._stacks for t in stack]
