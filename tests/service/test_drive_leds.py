"""The seat LEDs follow the rules' one answer on who may claim (`open_claims`) and the
seat's own tiles: they never light for a claim the rules bar (taiwan16.md 禁制 7, D3)."""

from __future__ import annotations

from table_service.service.drive import seat_modes
from tests.mirror.kit_script import Script, quiet

PAIR_3M = "W W W W N N N N 1s 1s 1s 1s 9s 9s 3m 3m"  # seat 2 could pong a 3m


def modes(t: Script) -> list[str]:
    return seat_modes(t.mirror.hand)


def test_a_pong_lights_the_seat_that_holds_the_pair() -> None:
    t = Script(quiet({2: PAIR_3M}, extra="3m"))
    t.discard(0, "3m")
    assert modes(t) == ["off", "turn", "claim", "off"]


def test_no_claim_light_once_the_next_seat_has_drawn() -> None:
    """D3: a 碰 is late once the next player's draw is recorded."""
    t = Script(quiet({2: PAIR_3M}, extra="3m"))
    t.discard(0, "3m")
    t.draw(1)
    assert modes(t) == ["off", "turn", "off", "off"]


def test_no_claim_light_with_three_drawable_tiles_or_fewer() -> None:
    """禁制 7 (D12): a discard made with three drawable tiles left cannot be ponged."""
    t = Script(quiet({2: PAIR_3M}))
    t.discard(0, "2m")
    t.burn(4)
    if t.next_seat == 2:
        t.cycle(2)
    t.cycle(t.next_seat, "3m")
    assert t.drawable <= 3
    assert modes(t)[2] == "off"
