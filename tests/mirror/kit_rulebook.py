"""The rulebook suite's machinery: one table of worked scenarios, each run two ways.

Every row of the suite is a rule of taiwan16.md §2–§3 (a violation code, a priority rule, a
decision D1–D12) or a fault of replay-format.md. A row has scenarios that break the rule and
twins (the same situation with the breach removed). A `Case` is one scenario with the exact
records the rule's text gives it:

- `violations`: the whole list, in order, as (mark, seat, code); the mark names the event
  that broke the rule (`Scene.mark` before it is sent, `Scene.marked` after), "a|b" allows
  either event, None leaves the seq open;
- `faults`: the whole list as (mark, code), code "a|b" allowing either code;
- `hands`: the hand records in order, each as the fields it must have (see `_hand_matches`).

`run_case` plays the scenario on a `Scene` (a `Script` that keeps marks), which feeds its own
`TableMirror` directly ("mirror"), or writes its events as JSON lines after a session line
and runs them through the `mjtable replay` command in process ("replay"), which must give the
same records and satisfy the same expectations. A case the mirror gets wrong today carries
`xfail`: the reason says what the mirror does instead, and both ways are strict xfails
(MJTABLE_RULEBOOK_NO_XFAIL=1 runs them as plain tests, to see the failures or a fix).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from mjtable.cli import main as mjtable_main
from table_service.mirror.records import Record
from table_service.rules.shapes import wait_kinds
from table_service.rules.tiles import N_KINDS, kind_code, parse_kind, tile_code
from tests.mirror.kit_script import Script, quiet

Json = dict[str, Any]
SHOW_XFAIL = "MJTABLE_RULEBOOK_NO_XFAIL"  # set: run the xfail cases as plain tests

# --- hands used across the rows ------------------------------------------------------
# Seats: dealer 0; the default dice make seat 0 the 開門位, so seats 0–3 sit 東南西北.
# Stakes: 底 100, 台 20. Quiet seats hold four quads each (script.QUIET).

# seat 2: 234m 678m 234s 666p 78s WW, waits 6s 9s; a win on a discard is 門清 1 台.
READY_69S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"
# seat 3: waits 6s alone (5s 7s 中洞); on 6s: 門清 1 + 獨聽 1.
ALSO_6S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 3p 3p 3p 5s 7s C C"
# seat 2: waits 8s alone (單釣); self-drawn: 門清 1 + 不求自摸 2 + 獨聽 1 = 4 台.
READY_8S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 3p 3p 3p 8s"
# seat 1: 234m 678m 222p 234s 78p EE, waits 6p 9p; on a discard 門清 1 台, self-drawn 3.
READY_69P = "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p E E"
# seat 2: a 搭子 3m 4m, waits 2m 5m; on a discard 門清 1 台 (the W pair bars 平胡).
READY_25M = "3m 4m 6m 7m 8m 2s 3s 4s 6s 7s 8s 2p 3p 4p W W"
# a dealer that leaves every 5m free (the quiet dealer holds all four); 6p is its 門牌.
DEALER_NO_5M = "P P P P 5p 5p 5p 5p 5s 5s 5s 5s 7p 7p 7p 7p 6p"
# seat 2: waits 2m or 6p (對碰).
SHANPON_2M_6P = "2m 2m 6p 6p 2s 3s 4s 6s 7s 8s 6m 7m 8m 2p 3p 4p"
# seat 2: a pair of 3m among quads (a pong to make, nothing to win).
PAIR_3M = "W W W W N N N N 1s 1s 1s 1s 9s 9s 3m 3m"


class Scene(Script):
    """A `Script` that names events: `mark` the next one, `marked` the last one sent."""

    def __init__(self, hands: Mapping[int, str] | None = None, **kw: Any) -> None:
        self.marks: dict[str, int] = {}
        super().__init__(hands, **kw)

    def mark(self, name: str) -> None:
        self.marks[name] = self.seq + 1

    def marked(self, name: str) -> None:
        self.marks[name] = self.seq

    def keep(self, code: str) -> int:
        """Set a copy of `code` aside now (a long `burn` would use them all) for `cycle_kept`."""
        return self.alloc(code)

    def cycle_kept(self, seat: int, tile: int) -> None:
        """One quick turn with a tile set aside by `keep`: drawn and thrown."""
        self.draw(seat, tile=tile)
        self.discard(seat, tile_code(tile))


def started(hands: Mapping[int, str] | None = None, extra: str = "2m", **kw: Any) -> Scene:
    """A dealt table (dealer 0, quiet seats but `hands`) after the dealer's first discard."""
    t = Scene(quiet(hands, extra=extra), **kw)
    assert t.records == [], t.records
    t.discard(0, extra)
    return t


def second_go_round(hands: Mapping[int, str] | None = None, extra: str = "2m", **kw: Any) -> Scene:
    """`started`, then seats 1–3 each draw a safe tile and throw it: the first go-round is
    over (no 地胡/人胡 timing left) and the dealer is to draw."""
    t = started(hands, extra, **kw)
    for seat in (1, 2, 3):
        t.cycle(seat)
    assert t.records == [], t.records
    return t


def misread(t: Script, seat: int, tile: int, *, end: str = "front") -> None:
    """The table reports a draw with the id of a tile the mirror knows is elsewhere, and its
    count of the tile physically taken (one fewer); the re-read of the draw comes next."""
    t.emit({"kind": "tile_drawn", "seat": seat, "tile": tile, "end": end})
    t.emit({"kind": "tiles_left", "count": t.wall - 1})


def hand_waits(text: str) -> set[str]:
    """The codes a hand given as text waits on (a scenario's premise, checked by the rules
    engine's shapes, not by the mirror)."""
    counts = [0] * N_KINDS
    for code in text.split():
        counts[parse_kind(code)] += 1
    return {kind_code(k) for k in wait_kinds(counts)}


def each_pays(tai: int, *, dealer_tai: int = 0) -> int:
    """One payment at the default stakes: 底 100 + 台 × 20 (+ the dealer 台 × 20)."""
    return 100 + 20 * (tai + dealer_tai)


# --- the cases -----------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    row: str  # the rule: a violation code, "D1"…"D12", "priority", "fault", …
    name: str
    play: Callable[[], Scene]
    violations: Sequence[tuple[str | None, int, str]] = ()
    faults: Sequence[tuple[str | None, str]] = ()
    hands: Sequence[Mapping[str, Any]] = ()
    twin: bool = False
    xfail: str | None = None
    check: Callable[[Outcome], None] | None = None
    faults_unordered: bool = False  # faults made by one event, in an order the text leaves open
    violations_unordered: bool = False  # the same for violations (each needs a mark)
    notes: str = ""


@dataclass
class Outcome:
    """The judgement records of one run (JSON, as `mjtable replay` prints them)."""

    records: list[Json]
    marks: dict[str, int] = field(default_factory=dict)

    def of(self, kind: str) -> list[Json]:
        return [r for r in self.records if r["type"] == kind]

    @property
    def violations(self) -> list[tuple[int, int, str]]:
        return [(r["seq"], r["seat"], r["code"]) for r in self.of("violation")]

    @property
    def faults(self) -> list[tuple[int, str]]:
        return [(r["seq"], r["code"]) for r in self.of("fault")]

    @property
    def hands(self) -> list[Json]:
        return self.of("hand")


Play = Callable[[], Scene]


def registrar(cases: list[Case]) -> Callable[..., Callable[[Play], Play]]:
    """A decorator `case(row, name, **Case fields)` adding the scenario it decorates to
    `cases`."""

    def case(row: str, name: str, **kw: Any) -> Callable[[Play], Play]:
        def register(play: Play) -> Play:
            cases.append(Case(row, name, play, **kw))
            return play

        return register

    return case


def params(cases: Sequence[Case]) -> list[Any]:
    """Each case twice, through the mirror and through `mjtable replay`."""
    names = [f"{c.row}:{c.name}" for c in cases]
    assert len(set(names)) == len(names), "two cases share a name"
    out = []
    for case, name in zip(cases, names, strict=True):
        xfail = case.xfail and not os.environ.get(SHOW_XFAIL)
        marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if xfail else []
        for way in ("mirror", "replay"):
            out.append(pytest.param(case, way, id=f"{name}:{way}", marks=marks))
    return out


def run_case(case: Case, way: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = case.play()
    t.finish()
    direct = [as_json(r) for r in t.records]
    if way == "mirror":
        judge(case, Outcome(direct, t.marks))
        return
    replayed, summary = replay_command(t, tmp_path, capsys)
    judge(case, Outcome(replayed, t.marks))
    assert replayed == direct, "mjtable replay and the mirror disagree"
    counts = {k: len([r for r in replayed if r["type"] == k]) for k in ("violation", "fault")}
    assert (summary["violations"], summary["faults"]) == (counts["violation"], counts["fault"])
    assert summary["hands"] == len([r for r in replayed if r["type"] == "hand"])


def as_json(record: Record) -> Json:
    data: Json = json.loads(record.model_dump_json(by_alias=True))
    return data


def replay_command(
    t: Script, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[list[Json], Json]:
    """The scene's events (after its session line) through `mjtable replay FILE`, in process:
    the records it prints, and its summary."""
    path = tmp_path / "events.jsonl"
    lines = [json.dumps({"session": t.session.model_dump(mode="json")}, ensure_ascii=False)]
    lines += [e.model_dump_json() for e in t.events]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    capsys.readouterr()
    status = mjtable_main(["replay", str(path)])
    out = capsys.readouterr()
    assert status == 0, out.err
    printed = [json.loads(line) for line in out.out.splitlines()]
    assert printed and printed[-1]["type"] == "summary", printed[-1:]
    return printed[:-1], printed[-1]


# --- judging -------------------------------------------------------------------------


def judge(case: Case, got: Outcome) -> None:
    want_v = [(_seqs(got, m), seat, code) for m, seat, code in case.violations]
    have_v = got.violations
    if case.violations_unordered:
        have_v = sorted(have_v, key=lambda v: (v[0], v[2]))
        want_v = sorted(want_v, key=lambda v: (min(v[0] or {0}), v[2]))
    assert _match_list(have_v, want_v), _explain("violations", have_v, case.violations, got)
    want_f = [(_seqs(got, m), set(code.split("|"))) for m, code in case.faults]
    have_f = got.faults
    if case.faults_unordered:
        have_f = sorted(have_f, key=lambda f: f[1])
        want_f = sorted(want_f, key=lambda f: sorted(f[1]))
    ok = len(have_f) == len(want_f) and all(
        (seqs is None or seq in seqs) and code in codes
        for (seq, code), (seqs, codes) in zip(have_f, want_f, strict=True)
    )
    assert ok, _explain("faults", have_f, case.faults, got)
    hands = got.hands
    assert len(hands) == len(case.hands), _explain(
        "hand records", [_brief(h) for h in hands], case.hands, got
    )
    for have, want in zip(hands, case.hands, strict=True):
        _hand_matches(have, want)
    if case.check is not None:
        case.check(got)


def _seqs(got: Outcome, mark: str | None) -> set[int] | None:
    if mark is None:
        return None
    return {got.marks[m] for m in mark.split("|")}


def _match_list(
    have: list[tuple[int, int, str]], want: list[tuple[set[int] | None, int, str]]
) -> bool:
    return len(have) == len(want) and all(
        (seqs is None or seq in seqs) and seat == w_seat and code == w_code
        for (seq, seat, code), (seqs, w_seat, w_code) in zip(have, want, strict=True)
    )


def _explain(what: str, have: Any, want: Any, got: Outcome) -> str:
    return f"{what}: got {have}, want {list(want)} (marks {got.marks})"


def _brief(hand: Json) -> Json:
    keys = ("result", "kind", "seat", "payer", "tai", "codes", "net")
    return {k: hand[k] for k in keys}


def _hand_matches(have: Json, want: Mapping[str, Any]) -> None:
    """Fields compared exactly, and: `items_has` (ids all present), `items_not` (ids all
    absent), `next` as (dealer, streak), `codes_among` (codes non-empty, all from the set).
    Every hand record's net sums to 0."""
    assert sum(have["net"]) == 0, have["net"]
    ids = {i["id"] for i in have["items"]}
    for key, value in want.items():
        if key == "items_has":
            assert set(value) <= ids, f"items {sorted(ids)} lack {sorted(set(value) - ids)}"
        elif key == "items_not":
            assert not set(value) & ids, f"items {sorted(ids)} have {sorted(set(value) & ids)}"
        elif key == "next":
            nxt = have["next"]
            assert (nxt["dealer"], nxt["streak"]) == value, f"next {nxt}, want {value}"
        elif key == "codes_among":
            assert have["codes"] and set(have["codes"]) <= set(value), have["codes"]
        else:
            assert have[key] == value, (
                f"hand {key}: got {have[key]!r}, want {value!r}; {_brief(have)}"
            )


def covered(cases: Sequence[Case], row: str) -> tuple[bool, bool]:
    """(a breaking scenario, a twin) exist for the row."""
    mine = [c for c in cases if c.row == row]
    return any(not c.twin for c in mine), any(c.twin for c in mine)
