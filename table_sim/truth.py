"""The mirror against the simulator's ground truth: what the far end concluded, hand by hand.

After every hand the mirror's picture must equal the simulator's: each seat's tiles,
melds, flowers and discards, the result, the 台 items, the money, the deal; every
violation the mirror flags must be one the simulator committed on purpose; and, where
the caller gives the sensor faults it injected for the mirror to see through, every fault
it records must be one of them. Used by the soak run, the HIL suite and the property
tests alike.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from firmware_bridge.messages import Event
from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import Fault, HandRecord, Record, Violation
from table_service.mirror.state import HandState
from table_service.rules.tiles import wind_code
from table_sim.hand import HandResult
from table_sim.session import hand_end

Key = tuple[int, int]  # (boot_id, seq) of an event


class Breach(NamedTuple):
    """An injected violation by its event (or a sensor fault, `code` the fault's); `also`
    the seq (same boot) of an earlier event of the same act, where a flag stands for it."""

    boot_id: int
    seq: int
    seat: int
    code: str
    also: int = 0


AnyBreach = tuple[int, int, int, str] | tuple[int, int, int, str, int]  # a Breach, or its first 4


FLOWER_KINDS = ("eight_immortals", "seven_rob_one", "seven_rob_one_self_draw")


def expected_result(truth: HandResult) -> str:
    """The hand record's `result` the ground truth calls for."""
    if truth.end == "draw":
        return "drawn"
    if truth.end == "false_win":
        return "false_win"
    return "flower_win" if truth.settle_kind in FLOWER_KINDS else "win"


def hand_mismatches(record: HandRecord, seen: HandState, truth: HandResult) -> list[str]:
    """Every way the mirror's record and final picture of a hand differ from the truth."""
    found: list[str] = []

    def check(what: str, got: Any, want: Any) -> None:
        if got != want:
            found.append(f"{what}: mirror {got!r}, truth {want!r}")

    check("result", record.result, expected_result(truth))
    check("dealer", record.dealer, truth.deal.dealer)
    check("streak", record.streak, truth.deal.streak)
    check("round wind", record.round_wind, wind_code(truth.deal.round_wind))
    check("net", record.net, list(truth.net))
    if truth.end != "draw":
        check("seat", record.seat, truth.winner)
        check("kind", record.kind, truth.settle_kind)
    if truth.score is not None:
        check("tai", record.tai, truth.score["tai"])
        check(
            "items",
            sorted((i.id, i.tai) for i in record.items),
            sorted((i["id"], i["tai"]) for i in truth.score["items"]),
        )
    for s, seat in enumerate(seen.seats):
        check(f"seat {s} concealed", sorted(seat.concealed), sorted(truth.hands[s]))
        check(
            f"seat {s} melds",
            sorted(sorted(m.tiles) for m in seat.melds),
            sorted(sorted(m) for m in truth.melds[s]),
        )
        check(f"seat {s} flowers", sorted(seat.flowers), sorted(truth.flowers[s]))
        check(f"seat {s} discards", seat.river, list(truth.discards[s]))
    return found


@dataclass
class Tally:
    """What the far end's judgement of many hands came to (the soak summary's fields)."""

    hands_judged: int = 0
    mirror_mismatches: int = 0
    violations_injected: int = 0
    violations_flagged: int = 0
    violations_missed: int = 0
    violations_false: int = 0
    faults_expected: int = 0  # sensor faults injected for the mirror to record and see through
    faults_missed: int = 0
    faults_false: int = 0  # faults recorded in a hand compared that none injected explains
    classes: dict[str, dict[str, int]] = field(default_factory=dict)  # by injected class
    notes: list[str] = field(default_factory=list)

    def add_hand(self, problems: list[str], label: str) -> None:
        self.hands_judged += 1
        if problems:
            self.mirror_mismatches += 1
            if len(self.notes) < 20:
                self.notes.append(f"{label}: " + "; ".join(problems[:4]))

    def add_violations(
        self, injected: Iterable[AnyBreach], flagged: Sequence[Violation], label: str
    ) -> set[Key]:
        """Match by (boot, seq, seat): the event and the offender. The codes must name the
        injected one; more codes on the same event and seat (one act breaking two rules,
        e.g. a chow from the wrong seat with three tiles left) are not false flags. The
        events of the breaches missed and of the false flags."""
        want: dict[tuple[int, int, int], str] = {}
        alias: dict[tuple[int, int, int], tuple[int, int, int]] = {}
        for breach in injected:
            boot_id, seq, seat, code = breach[:4]
            want[(boot_id, seq, seat)] = code
            also = breach[4] if len(breach) > 4 else 0
            if also:
                alias[(boot_id, also, seat)] = (boot_id, seq, seat)
        got: dict[tuple[int, int, int], set[str]] = {}
        for v in flagged:
            key = (v.boot_id, v.seq, v.seat)
            if key in alias and v.code == want[alias[key]]:
                key = alias[key]  # the same act flagged at its other event
            got.setdefault(key, set()).add(v.code)
        self.violations_injected += len(want)
        self.violations_flagged += len(flagged)
        wrong: set[Key] = set()
        for key, code in want.items():
            if code not in got.get(key, set()):
                self.violations_missed += 1
                wrong.add(key[:2])
                self._note(f"{label}: missed {code} by seat {key[2]} at seq {key[1]}")
        for key, codes in got.items():
            if key not in want:
                self.violations_false += len(codes)
                wrong.add(key[:2])
                self._note(f"{label}: flagged {sorted(codes)} of seat {key[2]} at seq {key[1]}")
        return wrong

    def add_faults(
        self, injected: Iterable[AnyBreach], found: Sequence[Fault], label: str
    ) -> set[Key]:
        """Match by (boot, seq): an injected sensor fault needs a fault recorded at its event
        (its code or a kindred one: the mirror names what it saw); any other fault recorded
        is false (a count the misread left wrong, say). The events of both kinds of error."""
        want = {(f[0], f[1]): f[3] for f in injected}
        got: dict[Key, list[str]] = {}
        for f in found:
            got.setdefault((f.boot_id, f.seq), []).append(f.code)
        self.faults_expected += len(want)
        wrong: set[Key] = set()
        for key, code in want.items():
            if key not in got:
                self.faults_missed += 1
                wrong.add(key)
                self._note(f"{label}: no fault at seq {key[1]} (a {code} was injected)")
        for key, codes in got.items():
            extra = codes[1:] if key in want else codes
            if extra:
                self.faults_false += len(extra)
                wrong.add(key)
                self._note(f"{label}: fault {sorted(extra)} at seq {key[1]}")
        return wrong

    def add_classes(self, names: Iterable[str], wrong: bool) -> None:
        """One hand into the figures by class: each class injected in it, and whether the
        mirror judged that hand wrong (a mismatch, a missed or false violation or fault)."""
        counted = Counter(names)
        for name, n in counted.items():
            figures = self.classes.setdefault(name, {"injected": 0, "hands": 0, "hands_wrong": 0})
            figures["injected"] += n
            figures["hands"] += 1
            figures["hands_wrong"] += int(wrong)

    def _note(self, text: str) -> None:
        if len(self.notes) < 20:
            self.notes.append(text)

    def to_json(self) -> dict[str, Any]:
        return {
            "hands_judged": self.hands_judged,
            "mirror_mismatches": self.mirror_mismatches,
            "violations_injected": self.violations_injected,
            "violations_flagged": self.violations_flagged,
            "violations_missed": self.violations_missed,
            "violations_false": self.violations_false,
            "faults_expected": self.faults_expected,
            "faults_missed": self.faults_missed,
            "faults_false": self.faults_false,
            "classes": {name: dict(f) for name, f in sorted(self.classes.items())},
        }


def deal_correction(last: HandResult | None, misjudged: bool = False) -> dict[str, Any] | None:
    """The referee's correction after a hand the sensors misread (or, `misjudged`, one the
    mirror judged wrong): the deal the truth says follows it (a `deal` correction body, as
    the service's API takes), else None."""
    if last is None or not (last.injected or misjudged):
        return None
    following = last.deal.next(hand_end(last))
    if following is None:
        return None
    note = "sensor misread" if last.injected else "a verdict the referee overturned"
    return {
        "kind": "deal",
        "dealer": following.dealer,
        "streak": following.streak,
        "round_wind": following.round_wind,
        "note": f"{note}: the referee's deal",
    }


@dataclass
class Judged:
    """One hand as the mirror closed it: its record and a copy of its final picture."""

    record: HandRecord
    seen: HandState
    violations: list[Violation]
    faults: list[Fault]
    keys: set[tuple[int, int]]  # the (boot_id, seq) of every event of the hand


class FarEnd:
    """The game mirror at the far end of the loop, one per table, keeping what it concluded.

    `truth(table, n)` (optional) gives the simulator's n-th hand (from 0) once played: after
    a hand the sensors misread, the far end plays the referee and corrects the next deal,
    as a club's referee would, so one misread does not mislead every later hand.
    """

    def __init__(self, truth: Callable[[str, int], HandResult | None] | None = None) -> None:
        self.truth = truth
        self.corrected: int = 0
        self.mirrors: dict[str, TableMirror] = {}
        self.judged: dict[str, list[Judged]] = {}
        self._open: dict[str, tuple[list[Violation], list[Fault]]] = {}
        self._keys: dict[str, set[tuple[int, int]]] = {}
        self.applied: dict[str, int] = {}  # events given to each table's mirror
        self.shuffled: dict[str, list[set[Key]]] = {}  # each hand's events, shuffle to shuffle

    def apply(self, event: Event) -> list[Record]:
        """Feed one event (in order, as the consumer delivers it)."""
        self.applied[event.table] = self.applied.get(event.table, 0) + 1
        mirror = self.mirrors.get(event.table)
        if mirror is None:
            mirror = self.mirrors[event.table] = TableMirror(event.table)
        self._keys.setdefault(event.table, set()).add((event.boot_id, event.seq))
        hands = self.shuffled.setdefault(event.table, [])
        shuffle = event.body.kind == "shuffle_started"
        if shuffle:
            hands.append(set())
        if hands:
            hands[-1].add((event.boot_id, event.seq))
        records = self._keep(mirror, mirror.apply(event))
        if shuffle:  # after the event: a hand the mirror closes only at the next shuffle counts
            self._referee(mirror)
        return records

    async def caught_up(self, want: dict[str, int], timeout: float) -> bool:
        """Whether each table's mirror has been given `want[table]` events within `timeout`:
        delivery waits on holes and on the order of boots, so it can trail the arrivals."""
        deadline = time.monotonic() + timeout
        while not all(self.applied.get(table, 0) >= n for table, n in want.items()):
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.05)
        return True

    def _referee(self, mirror: TableMirror) -> None:
        """Correct the deal after a hand whose sensors were wrong (a misread), or that the
        mirror judged wrong (counted as a mismatch all the same): one wrong verdict is not
        let to mislead every later hand, so each class's figures stay its own."""
        judged = self.judged.get(mirror.table, [])
        last = self.truth(mirror.table, len(judged) - 1) if self.truth and judged else None
        misjudged = last is not None and bool(
            hand_mismatches(judged[-1].record, judged[-1].seen, last)
        )
        correction = deal_correction(last, misjudged)
        if correction is not None:
            mirror.correct_deal(
                correction["dealer"], correction["streak"], correction["round_wind"]
            )
            self.corrected += 1

    def finish(self) -> None:
        for mirror in self.mirrors.values():
            self._keep(mirror, mirror.finish())

    def _keep(self, mirror: TableMirror, records: list[Record]) -> list[Record]:
        violations, faults = self._open.setdefault(mirror.table, ([], []))
        for record in records:
            if isinstance(record, Violation):
                violations.append(record)
            elif isinstance(record, Fault):
                faults.append(record)
            else:
                assert mirror.last_hand is not None
                seen = mirror.last_hand  # still followed until the next shuffle: read it last
                keys = self._keys.pop(mirror.table, set())
                judged = Judged(record, seen, list(violations), list(faults), keys)
                self.judged.setdefault(mirror.table, []).append(judged)
                violations.clear()
                faults.clear()
        return records

    def tally(
        self,
        truths: Mapping[str, tuple[Sequence[HandResult], Sequence[AnyBreach]]],
        faults: Mapping[str, Sequence[AnyBreach]] | None = None,
    ) -> Tally:
        """Compare each table's hands, in order, with the simulator's; a hand the sensors
        misread (an injected table fault) is counted but not compared, up to the next
        shuffle (what the mirror records after its hand record too). `faults`: the sensor
        faults each table's simulator injected for the mirror to record and see through
        (`reread`), keyed like breaches by their event; given, the faults the mirror
        recorded in the hands compared are judged too (none given: not judged)."""
        tally = Tally()
        for table, (results, breaches) in truths.items():
            judged = self.judged.get(table, [])
            if len(judged) != len(results):
                tally.mirror_mismatches += abs(len(judged) - len(results))
                tally.notes.append(f"{table}: {len(judged)} hands judged, {len(results)} played")
            flagged: list[Violation] = list(self._open.get(table, ([], []))[0])
            recorded: list[Fault] = []
            skipped: set[Key] = set()
            compared: list[tuple[set[Key], HandResult, bool]] = []
            shuffled = self.shuffled.get(table, [])
            for n, (hand, truth) in enumerate(zip(judged, results, strict=False), 1):
                keys = hand.keys | (shuffled[n - 1] if n <= len(shuffled) else set())
                if truth.injected:  # a sensor misread: the mirror cannot know the truth
                    skipped |= keys
                    tally.hands_judged += 1
                    continue
                problems = hand_mismatches(hand.record, hand.seen, truth)
                tally.add_hand(problems, f"{table} #{n}")
                compared.append((keys, truth, bool(problems)))
                flagged += hand.violations
                recorded += hand.faults
            wanted = [b for b in breaches if (b[0], b[1]) not in skipped]
            flagged = [v for v in flagged if (v.boot_id, v.seq) not in skipped]
            wrong = tally.add_violations(wanted, flagged, table)
            if faults is not None:
                owed = [f for f in faults.get(table, []) if (f[0], f[1]) not in skipped]
                recorded = [f for f in recorded if (f.boot_id, f.seq) not in skipped]
                wrong |= tally.add_faults(owed, recorded, table)
            for keys, truth, mismatched in compared:
                tally.add_classes(injected_classes(truth), mismatched or bool(wrong & keys))
        return tally


def injected_classes(truth: HandResult) -> list[str]:
    """The classes injected in a hand, once per injection: breaches and situations."""
    return [v.name for v in truth.violations] + [s.kind for s in truth.situations]
