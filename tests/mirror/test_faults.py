"""Faults: an impossible event stream is recorded as a fault and nobody is blamed
(replay-format.md); duplicates change nothing."""

from __future__ import annotations

import json

import pytest

from firmware_bridge.protocol.catalogue import Frame, from_frame
from firmware_bridge.protocol.errors import PayloadError
from table_service.mirror.replay import replay_lines
from tests.mirror.kit_script import TABLE, Script, quiet


def test_tile_twice() -> None:
    """Seat 1 draws a tile the mirror knows is in seat 3's hand."""
    t = Script(quiet())
    t.discard(0, "2m")
    held = t.concealed[3][0]
    seq = t.seq + 1
    t.draw(1, tile=held)
    assert t.faults() == [(seq, "tile_twice")]
    assert t.violations() == []


def test_gap() -> None:
    """Events missing mid-hand: the hand is no longer seen whole, so it is followed without
    judging until the next shuffle (one fault says so); the next hand is judged again."""
    t = Script(quiet())
    t.skip(3)
    seq = t.seq + 1
    t.discard(0, "2m")
    assert t.faults() == [(seq, "gap"), (seq, "hand_unseen")]
    assert t.mirror.gaps == 1
    t.draw(2, "3m")  # out of turn, were the hand judged
    t.discard(2, "3m")
    t.button(3, "win")  # a 胡 on nothing
    assert t.violations() == []
    assert t.hands() == []
    assert [code for _, code in t.faults()] == ["gap", "hand_unseen"]
    assert t.mirror.snapshot()["hand"]["seats"][2]["discards"] == ["3m"]  # still followed
    t.new_hand(quiet())
    t.draw(2, "3m")
    assert [code for _, _, code in t.violations()] == ["out_of_turn"]


def test_gap_between_hands_loses_the_next_hands_start() -> None:
    """The hole swallowed the next hand's shuffle, wall and deal: what follows is not
    judged; the hand after it is, dealt by the seat that takes its first tiles."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(0)
    t.finish()
    assert t.hand().result == "drawn"
    t.skip(80)
    seq = t.seq + 1
    t.emit({"kind": "tile_discarded", "seat": 2, "tile": t.alloc("7p")})
    assert t.faults()[-2:] == [(seq, "gap"), (seq, "hand_unseen")]
    assert len(t.hands()) == 1
    t.new_hand(quiet(dealer=1), dealer=1)  # the table's dealer, not the mirror's 0
    assert t.violations() == []
    assert t.mirror.hand is not None and t.mirror.hand.dealer == 1
    assert t.mirror.deal.streak == 0  # the deal passed: 連0


def test_a_deal_ruled_during_an_unseen_hand_that_ran_dry_is_the_deal() -> None:
    """The referee tells the deal while a hand the mirror does not judge is played out to
    荒局: once that hand is over, the ruling is the deal (dealer 3, 連2, 南); the seat that
    then deals is not read again as a 連莊 of its own (連3)."""
    t = Script(quiet())
    t.skip(2)
    t.discard(0, "2m")  # the gap: this hand is not judged
    t.mirror.correct_deal(3, 2, 1)
    t.burn(0, seat=1)
    t.finish()
    assert t.mirror.hand is not None and t.mirror.hand.phase == "over"
    assert t.hands() == []
    t.new_hand(quiet(dealer=3), dealer=3)
    assert (t.mirror.deal.dealer, t.mirror.deal.streak, t.mirror.deal.round_wind) == (3, 2, 1)
    assert t.violations() == []


def test_after_an_unseen_hand_the_same_dealer_is_a_continued_deal() -> None:
    """The dealer deals again after a hand the mirror did not judge: it won or the hand
    was drawn, so the streak grows (連莊)."""
    t = Script(quiet())
    t.skip(2)
    t.discard(0, "2m")  # the gap: this hand is not judged
    t.new_hand(quiet())
    assert t.mirror.hand is not None and t.mirror.hand.dealer == 0
    assert (t.mirror.deal.dealer, t.mirror.deal.streak) == (0, 1)
    assert t.violations() == []


def test_a_count_after_a_gap_between_hands_is_not_checked() -> None:
    """The first event past the hole is the next hand's count: it belongs to a hand the
    mirror has not seen, so it is not compared with the last one's."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(0)
    t.finish()
    t.skip(30)
    t.emit({"kind": "tiles_left", "count": 100})
    t.emit({"kind": "tile_discarded", "seat": 1, "tile": t.alloc("7p")})
    assert [code for _, code in t.faults()] == ["gap", "hand_unseen"]


def test_gap_twin_the_hand_seen_whole_is_judged() -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(2, "3m")
    assert [code for _, _, code in t.violations()] == ["out_of_turn"]
    assert t.faults() == []


def test_count_mismatch() -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(1, "3m", count=False)
    t.emit({"kind": "tiles_left", "count": t.wall + 1})
    assert t.faults() == [(t.seq, "count_mismatch")]
    assert t.violations() == []


def test_counts_agree_through_a_whole_hand() -> None:
    """Deal, 補花, kongs and their replacements: every tiles_left agrees with the mirror."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 9p h2"}))
    t.flower(1, "h2")
    t.replacement(1)
    t.kong(0, "P", "concealed")
    t.replacement(0)
    t.discard(0, "2m")
    t.draw(1)
    t.kong(1, "E", "concealed")
    t.replacement(1)
    t.discard(1, "9p")
    t.burn(0)
    assert t.faults() == []
    assert t.violations() == []
    assert t.hand().result == "drawn"


def test_a_discard_before_any_hand_seen_is_a_hand_joined_midway() -> None:
    """The mirror's first event is a discard: the hand began before it was watched. One
    fault says so; its tiles are followed, nobody is judged, until the next shuffle."""
    t = Script(quiet(), deal=False)
    t.emit({"kind": "tile_discarded", "seat": 0, "tile": 5})
    t.emit({"kind": "tile_drawn", "seat": 3, "tile": 9, "end": "front"})
    t.emit({"kind": "tile_discarded", "seat": 3, "tile": 9})
    assert t.faults() == [(1, "hand_unseen")]
    assert t.violations() == []
    assert t.mirror.snapshot()["hand"]["seats"][3]["discards"] == ["3m"]


def test_unknown_tile_in_replay() -> None:
    """A line whose body names tile 200: its envelope is sound, so it is a fault at its seq."""
    t = Script(quiet())
    lines = [json.dumps({"session": {"table": TABLE}})]
    lines += [e.model_dump_json() for e in t.events]
    bad = {
        "schema_version": 1,
        "table": TABLE,
        "boot_id": 1,
        "seq": t.seq + 1,
        "ts": 0.0,
        "body": {"kind": "tile_discarded", "seat": 0, "tile": 200},
    }
    lines.append(json.dumps(bad))
    out = [json.loads(line) for line in replay_lines(lines)]
    faults = [(r["seq"], r["code"]) for r in out if r["type"] == "fault"]
    assert faults == [(t.seq + 1, "unknown_tile")]
    assert [r for r in out if r["type"] == "violation"] == []
    summary = out[-1]
    assert (summary["type"], summary["faults"], summary["events"]) == ("summary", 1, t.seq + 1)


def test_duplicates_change_nothing() -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(1, "3m")
    before = t.mirror.snapshot(concealed=True)
    for index in (-1, -2, 0, 5):
        assert t.resend(index) == []
    assert t.mirror.snapshot(concealed=True) == before
    assert t.mirror.duplicates == 4
    t.discard(1, "3m")
    assert t.records == []


def test_duplicates_in_a_replay() -> None:
    """The same stream with every tenth line repeated: the same records, duplicates counted."""
    t = Script(quiet({2: "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"}, extra="6s"))
    t.discard(0, "6s")
    t.win(2)
    events = [e.model_dump_json() for e in t.events]
    clean = list(replay_lines(events))
    doubled = []
    for n, line in enumerate(events):
        doubled.append(line)
        if n % 10 == 0:
            doubled.append(line)
    again = list(replay_lines(doubled))
    assert again[:-1] == clean[:-1]
    assert json.loads(again[-1])["duplicates"] == len(range(0, len(events), 10))
    assert json.loads(clean[-1])["duplicates"] == 0


def refusal(frame_type: int, payload: bytes) -> str:
    """The bridge's own text for a frame the catalogue refuses (what an `invalid` body carries)."""
    with pytest.raises(PayloadError) as info:
        from_frame(Frame(type=frame_type, seq=1, ack=0, payload=payload))
    return str(info.value)


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (bytes([1, 200, 0]), "unknown_tile"),  # tile_drawn: tile: 200 out of range
        (bytes([9, 5, 0]), "impossible"),  # tile_drawn: seat: 9 out of range (not a tile's fault)
        (bytes([1, 5]), "impossible"),  # tile_drawn: length: 2 payload bytes
    ],
)
def test_a_refused_frame_is_a_fault_named_by_the_field_at_fault(payload: bytes, code: str) -> None:
    """replay-format.md: unknown_tile is a tile id that does not exist; any other unreadable
    body is impossible, even in an event whose kind has "tile" in its name."""
    error = refusal(0x14, payload)
    t = Script(quiet())
    seq = t.seq + 1
    t.emit({"kind": "invalid", "type": 0x14, "payload_hex": payload.hex(), "error": error})
    assert t.faults() == [(seq, code)]
    (fault,) = [r for r in t.records if r.seq == seq]
    assert fault.detail == f"the controller sent a frame the catalogue refused: {error}"


def test_a_replayed_body_with_a_bad_seat_is_impossible_not_an_unknown_tile() -> None:
    t = Script(quiet())
    lines = [json.dumps({"session": {"table": TABLE}})]
    lines += [e.model_dump_json() for e in t.events]
    body = {"kind": "tile_discarded", "seat": 7, "tile": 5}
    envelope = {"schema_version": 1, "table": TABLE, "boot_id": 1, "seq": t.seq + 1, "ts": 0.0}
    lines.append(json.dumps({**envelope, "body": body}))
    out = [json.loads(line) for line in replay_lines(lines)]
    assert [(r["seq"], r["code"]) for r in out if r["type"] == "fault"] == [
        (t.seq + 1, "impossible")
    ]


def _misread(t: Script, seat: int, tile: int) -> int:
    """The table reports a draw with the id of a tile the mirror knows is elsewhere, and its
    count of the tile physically taken; the re-read of the same draw follows."""
    seq = t.seq + 1
    t.emit({"kind": "tile_drawn", "seat": seat, "tile": tile, "end": "front"})
    t.emit({"kind": "tiles_left", "count": t.wall - 1})
    return seq


@pytest.mark.parametrize("where", ["hand", "discards", "meld", "flowers"])
def test_a_misread_draw_blames_nobody_and_its_reread_is_the_draw(where: str) -> None:
    """replay-format.md: a draw of a tile the mirror knows is elsewhere is a fault and
    changes nothing, so the re-read draw is judged as that draw: no out_of_turn, no
    count_mismatch, the tile stays where it was."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 2s h2"}))
    t.flower(1, "h2")
    t.replacement(1, "3s")
    t.discard(0, "2m")
    t.draw(1, "4s")
    t.discard(1, "4s")
    t.draw(2, "6m")
    t.discard(2, "6m")
    t.draw(3, "7m")
    t.discard(3, "7m")
    t.draw(0, "8m")
    t.discard(0, "8m")
    t.draw(1, "2s")
    t.kong(1, "1p", "concealed")
    t.replacement(1, "6s")
    t.discard(1, "6s")
    thrown = [e.body.tile for e in t.events if e.body.kind == "tile_discarded"]
    elsewhere = {
        "hand": t.concealed[3][0],
        "discards": thrown[0],  # seat 0's 2m, still lying
        "meld": t.melds[1][0][1][0],
        "flowers": 137,  # h2, revealed by seat 1
    }[where]
    before = t.mirror.snapshot(concealed=True)["hand"]
    seq = _misread(t, 2, elsewhere)
    assert t.mirror.snapshot(concealed=True)["hand"] == before
    t.draw(2, "7s")
    t.discard(2, "7s")
    t.draw(3, "8s")
    assert t.faults() == [(seq, "tile_twice")]
    assert t.violations() == []
    hand = t.mirror.snapshot(concealed=True)["hand"]
    assert hand["tiles_left"] == t.wall
    assert "7s" in hand["seats"][2]["discards"]


def test_a_misread_during_the_deal_is_read_again() -> None:
    """A dealt tile misread as one already dealt: a fault; the deal goes on with the re-read."""
    t = Script(quiet(), deal=False)
    t.open_hand()
    dealt = {s: [t.alloc(c) for c in quiet()[s].split()] for s in range(4)}
    t.draw(0, tile=dealt[0][0])
    seq = _misread(t, 0, dealt[0][0])
    for i in range(1, 4):
        t.draw(0, tile=dealt[0][i])
    assert t.faults() == [(seq, "tile_twice")]
    assert t.violations() == []
    assert t.mirror.hand is not None and t.mirror.hand.deal_draws == 4


# --- a faulted event changes nothing in the mirror's picture (replay-format.md) --------


def test_a_discard_during_the_deal_changes_nothing() -> None:
    """A discard read while the deal is under way cannot happen: a fault, the tile stays in
    the seat's hand, nobody is charged (no hand_size), and the deal goes on."""
    t = Script(quiet(), deal=False)
    t.open_hand()
    dealt = [t.alloc(c) for c in quiet()[0].split()[:4]]
    for tile in dealt:
        t.draw(0, tile=tile)
    before = t.mirror.snapshot(concealed=True)["hand"]
    seq = t.seq + 1
    t.emit({"kind": "tile_discarded", "seat": 0, "tile": dealt[0]})
    assert t.faults() == [(seq, "impossible")]
    assert t.violations() == []
    assert t.mirror.snapshot(concealed=True)["hand"] == before


def test_a_meld_with_no_discard_to_claim_changes_nothing() -> None:
    """Seat 2 exposes a pong when no discard lies open: a fault, and its tiles stay in its
    hand; the turn is still seat 0's, whose discard is judged as that discard."""
    t = Script(quiet({2: "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"}))
    t.discard(0, "2m")
    t.cycle(1)
    t.cycle(2)
    t.cycle(3)
    t.draw(0)
    drawn = t.concealed[0][-1]
    before = t.mirror.snapshot(concealed=True)["hand"]
    seq = t.seq + 1
    tiles = [*t.ids(2, "W W"), t.alloc("W")]
    t.emit({"kind": "meld_exposed", "seat": 2, "meld": "pong", "from_seat": 0, "tiles": tiles})
    assert t.faults() == [(seq, "impossible")]
    assert t.mirror.snapshot(concealed=True)["hand"] == before
    t.emit({"kind": "tile_discarded", "seat": 0, "tile": drawn})
    t.concealed[0].remove(drawn)
    t.cycle(1)
    t.cycle(2)
    assert t.violations() == []
    assert t.seat_state(2)["melds"] == []


def test_a_meld_that_is_not_its_shape_changes_nothing() -> None:
    """A 碰 read as three tiles of two kinds: a fault, no meld, and no violation charged for
    a claim that the table never saw made; the re-read pong is the claim."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 7p 7p"}, extra="7p"))
    t.discard(0, "7p")
    before = t.mirror.snapshot(concealed=True)["hand"]
    seq = t.seq + 1
    wrong = [t.offered, *t.ids(1, "7p 9p")]
    t.emit({"kind": "meld_exposed", "seat": 1, "meld": "pong", "from_seat": 0, "tiles": wrong})
    assert t.faults() == [(seq, "impossible")]
    assert t.mirror.snapshot(concealed=True)["hand"] == before
    t.pong(1, 0, press=False)
    t.discard(1, "9p")
    assert t.violations() == []
    assert [m["kind"] for m in t.seat_state(1)["melds"]] == ["pong"]


READY_8S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 9s W W"  # seat 2: waits 8s alone


def _self_draw_with_misread_reveal(t: Script) -> int:
    """Seat 2 draws its 8s and presses 胡; the reveal names a 3m where it holds its 2m."""
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "8s")
    tiles = list(t.concealed[2])
    tiles[tiles.index(t.ids(2, "2m")[0])] = t.alloc("3m")
    t.button(2, "win")
    seq = t.seq + 1
    t.emit({"kind": "hand_revealed", "seat": 2, "tiles": tiles})
    return seq


def test_a_misread_reveal_is_a_fault_and_its_reread_is_judged() -> None:
    """A reveal unlike the hand the mirror saw: a fault that changes nothing, the claim
    still waits for its reveal, and the re-read is judged: the win it is."""
    t = Script(quiet({2: READY_8S}))
    seq = _self_draw_with_misread_reveal(t)
    assert t.faults() == [(seq, "impossible")]
    assert t.hands() == []
    t.reveal(2)
    t.finish()
    assert (t.hand().result, t.hand().kind, t.hand().seat) == ("win", "self_draw", 2)
    assert t.violations() == []
    assert t.faults() == [(seq, "impossible")]


def test_a_misread_reveal_never_read_again_is_judged_on_the_mirrors_tiles() -> None:
    """No re-read follows the misread reveal: the 胡 is judged on the hand the mirror saw
    (a win), not on the misread tiles (which would make it a 詐胡)."""
    t = Script(quiet({2: READY_8S}))
    _self_draw_with_misread_reveal(t)
    t.finish()
    assert (t.hand().result, t.hand().seat) == ("win", 2)
    assert t.violations() == []


def test_tiles_shown_with_a_tile_not_in_the_hand_changes_nothing() -> None:
    """A `tiles_shown` naming a tile the seat does not hold is a misread: a fault, and none
    of its tiles binds the seat (禁制 8), so its pong of the other one stands."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 7p 7p"}, extra="7p"))
    elsewhere = t.concealed[3][0]
    seq = t.seq + 1
    t.emit({"kind": "tiles_shown", "seat": 1, "tiles": [*t.ids(1, "7p"), elsewhere]})
    assert t.faults() == [(seq, "impossible")]
    t.discard(0, "7p")
    t.pong(1, 0)
    t.discard(1, "9p")
    assert t.violations() == []


def test_a_deal_ruling_after_an_unseen_hand_is_the_deal() -> None:
    """The referee tells the deal after a hand the mirror did not judge: the next hand is
    dealt as ruled (dealer 3, 連2, 南), not learnt again from who deals (which would read
    seat 3 keeping a deal it never had as a 連莊)."""
    for during in (True, False):
        t = Script(quiet())
        t.skip(2)
        t.discard(0, "2m")  # the gap: this hand is not judged
        if during:
            t.mirror.correct_deal(3, 2, 1)
        t.emit({"kind": "shuffle_started"})
        if not during:
            t.mirror.correct_deal(3, 2, 1)
        assert (t.mirror.deal.dealer, t.mirror.deal.streak, t.mirror.deal.round_wind) == (3, 2, 1)
        t.new_hand(quiet(dealer=3), dealer=3)
        assert (t.mirror.deal.dealer, t.mirror.deal.streak, t.mirror.deal.round_wind) == (3, 2, 1)
