"""The far end's checks fire: each comparison the soak and the HIL suite rely on reports
the very fault it exists for when it is shown one (a check that never fires proves
nothing when it stays quiet)."""

from __future__ import annotations

import dataclasses
from typing import Any

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.catalogue import Message
from table_service.store import HandRow
from table_sim.recorder import Received, compare
from table_sim.recording import RecordedHand, event_of, record_game
from table_sim.service_end import stored_mismatches
from table_sim.table import Sent
from table_sim.truth import FarEnd
from table_sim.violations import Violations

SENT: list[Message] = [c.ShuffleStarted(), c.ShuffleFinished(), c.TilesLeft(56), c.TilesLeft(55)]


def sent() -> Sent:
    out = Sent()
    for message in SENT:
        out.add(7, message)
    return out


def received(arrivals: list[tuple[int, Message]]) -> Received:
    got = Received()
    for seq, message in arrivals:
        got.add(event_of(message, "t", 7, seq))
    return got


def test_compare_is_quiet_on_an_exact_copy() -> None:
    result = compare(sent(), received(list(enumerate(SENT, 1))))
    assert (result.lost, result.duplicates, result.mismatched, result.late) == (0, 0, 0, 0)
    assert result.exact


def test_compare_counts_a_lost_event() -> None:
    result = compare(sent(), received([(1, SENT[0]), (2, SENT[1]), (3, SENT[2])]))
    assert (result.lost, result.mismatched) == (1, 0) and not result.exact


def test_compare_counts_an_event_never_sent() -> None:
    extra = [*enumerate(SENT, 1), (5, c.TilesLeft(54))]
    result = compare(sent(), received(extra))
    assert result.duplicates == 1 and result.mismatched == 1 and not result.exact


def test_compare_counts_a_changed_event() -> None:
    changed = [(1, SENT[0]), (2, SENT[1]), (3, c.TilesLeft(57)), (4, SENT[3])]
    result = compare(sent(), received(changed))
    assert (result.lost, result.mismatched) == (0, 1) and not result.exact


def test_compare_counts_a_late_event_apart_from_order() -> None:
    late = [(1, SENT[0]), (3, SENT[2]), (2, SENT[1]), (4, SENT[3])]
    result = compare(sent(), received(late))
    assert result.late == 1 and result.exact  # a replay filled the hole: not a loss


def redelivered() -> Received:
    got = received(list(enumerate(SENT, 1)))
    got.add(event_of(SENT[1], "t", 7, 2))
    return got


def test_a_redelivery_is_dropped_and_counted() -> None:
    got = redelivered()
    assert got.redeliveries == 1 and compare(sent(), got).exact


# --- the mirror against the ground truth (FarEnd.tally) ----------------------------------


def judged(hands: list[RecordedHand], truths: list[Any] | None = None) -> FarEnd:
    truth = truths or [h.truth for h in hands]
    far = FarEnd(lambda _, n: truth[n] if 0 <= n < len(truth) else None)
    for hand in hands:
        for event in hand.events:
            far.apply(event)
    far.finish()
    return far


def game() -> list[RecordedHand]:
    return record_game(13, 3, table="sim", violations=Violations(0.05))


def test_the_tally_is_quiet_when_the_mirror_agrees_with_the_truth() -> None:
    hands = game()
    breaches = [b for h in hands for b in h.breaches]
    tally = judged(hands).tally({"sim": ([h.truth for h in hands], breaches)})
    assert (tally.mirror_mismatches, tally.violations_missed, tally.violations_false) == (0, 0, 0)
    assert tally.violations_injected == len(breaches) > 0


def test_the_tally_reports_a_hand_whose_money_differs() -> None:
    hands = game()
    truths = [h.truth for h in hands]
    wrong = dataclasses.replace(
        truths[1], net=[n + d for n, d in zip(truths[1].net, (10, -10, 0, 0), strict=True)]
    )
    truths[1] = wrong
    breaches = [b for h in hands for b in h.breaches]
    tally = judged(hands).tally({"sim": (truths, breaches)})
    assert tally.mirror_mismatches == 1
    assert any("sim #2" in note and "net" in note for note in tally.notes)


def test_the_tally_reports_a_missed_and_a_false_violation() -> None:
    hands = game()
    breaches = [b for h in hands for b in h.breaches]
    first = breaches[0]
    invented = (first[0], first[1], (first[2] + 1) % 4, "out_of_turn")  # never flagged
    tally = judged(hands).tally({"sim": ([h.truth for h in hands], [*breaches[1:], invented])})
    assert tally.violations_missed == 1  # the invented one
    assert tally.violations_false == 1  # the real one, no longer in the truth


def test_the_tally_reports_a_hand_too_many() -> None:
    hands = game()
    truths = [h.truth for h in hands][:-1]
    tally = judged(hands, truths).tally({"sim": (truths, [b for h in hands for b in h.breaches])})
    assert tally.mirror_mismatches >= 1
    assert any("3 hands judged, 2 played" in note for note in tally.notes)


# --- the stored records against the ground truth (stored_mismatches) --------------------


def row(truth: Any, **changes: Any) -> HandRow:
    values = {
        "id": 1, "table": "sim", "session_id": 1, "log_id": 1, "boot_id": 1, "seq": 1, "at": 0.0,
        "hand_no": 1, "round_wind": "E", "dealer": truth.deal.dealer,
        "streak": truth.deal.streak, "result": truth.end if truth.end != "draw" else "drawn",
        "kind": None, "seat": truth.winner, "payer": truth.payer, "tai": truth.tai or 0,
        "dealer_tai": 0, "items": [], "codes": [], "net": list(truth.net), "payments": [],
        "next": None,
    }  # fmt: skip
    return HandRow.model_validate({**values, **changes})


def test_stored_hands_are_compared_field_by_field() -> None:
    truths = [h.truth for h in game() if not h.truth.injected and h.truth.end == "win"][:1]
    assert truths, "the seed plays a win"
    (truth,) = truths
    assert stored_mismatches([row(truth)], [truth]) == []
    assert stored_mismatches([row(truth, tai=(truth.tai or 0) + 1)], [truth]) != []
    assert stored_mismatches([row(truth, net=[0, 0, 0, 0])], [truth]) != []
    assert stored_mismatches([row(truth, dealer=(truth.deal.dealer + 1) % 4)], [truth]) != []
    assert stored_mismatches([], [truth]) == ["0 hands stored, 1 played"]
