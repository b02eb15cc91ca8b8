"""Scoring and wait-set throughput of the rules engine, beside the `mahjong` library.

Run: .venv/bin/python bench/scoring.py [--seconds S] [--seed N] [--pool P] [--cli-hands N]

Figures, all measured in this one run on this machine:

- 17-tile Taiwanese winning hands scored per second: `score(hand)` on pre-parsed
  `Hand` objects, `score_json(dict)` (parse + score + result JSON), and the CLI
  `mjtable score --jsonl FILE > /dev/null` as a whole subprocess (startup included;
  startup is also timed alone on an empty file).
- 16-tile wait sets per second: `wait_kinds(counts, held)` on ready hands, on
  non-ready hands, and on a 50/50 mix.
- The same for `mahjong` (Riichi, 14 tiles): `HandCalculator().estimate_hand_value`
  on winning hands with a yaku, and 34 x `Agari.is_agari` on 13-tile hands.

Every figure cycles over a fixed pool of distinct random hands (the pool size is
printed): the engine's per-suit caches are part of its design, and a pool of
thousands of hands keeps them honest. The generators assert that every hand is
what it claims to be (a winning hand scores `valid`, a ready hand waits on the
tile it lost), so a generator bug fails loudly instead of flattering a figure.
The last line printed is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mahjong.agari import Agari
from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_config import HandConfig
from mahjong.meld import Meld as MjMeld
from mahjong.tile import TilesConverter

from mjtable.commands import bench_cells as cells
from table_service.rules import Hand, is_complete, parse_hand, score, score_json, wait_kinds
from table_service.rules.tiles import FIRST_HONOUR, N_KINDS, WIND_CODES, kind_code

REPO = Path(__file__).resolve().parent.parent
MJTABLE = Path(sys.executable).with_name("mjtable")
CHUNK = 50  # calls between clock reads

SUITED = tuple(range(FIRST_HONOUR))
HONOURS = tuple(range(FIRST_HONOUR, N_KINDS))
SEQ_STARTS = tuple(k for k in SUITED if k % 9 <= 6)

# Shapes of generated hands: (style, weight). "mixed" is anything; "flush" one suit
# (half of them with honours); "honours" honour triplets first; "all_seq" sequences
# and a suited pair only (平胡-like); "pongs" triplets only.
STYLES = (("mixed", 40), ("flush", 15), ("honours", 15), ("all_seq", 20), ("pongs", 10))


class GenerationError(RuntimeError):
    """A draw that ran into the four-copies limit; the caller draws again."""


# --------------------------------------------------------------------------- sets


class SetDrawer:
    """Draws sets and a pair for one hand, never a fifth copy of a kind."""

    def __init__(self, rng: random.Random, style: str) -> None:
        self.rng = rng
        self.style = style
        self.counts = [0] * N_KINDS
        suit = rng.randrange(3)
        self.suited = tuple(range(9 * suit, 9 * suit + 9)) if style == "flush" else SUITED
        self.seq_starts = tuple(k for k in self.suited if k % 9 <= 6)
        self.honours_ok = style in ("mixed", "honours", "pongs") or (
            style == "flush" and rng.random() < 0.5
        )

    def _seq_prob(self) -> float:
        return {"mixed": 0.6, "flush": 0.6, "honours": 0.2, "all_seq": 1.0, "pongs": 0.0}[
            self.style
        ]

    def _triplet_pool(self) -> tuple[int, ...]:
        if not self.honours_ok:
            return self.suited
        if self.style == "honours" and self.rng.random() < 0.75:
            return HONOURS
        return self.suited + HONOURS

    def sequence(self) -> int:
        for _ in range(30):
            k = self.rng.choice(self.seq_starts)
            if all(self.counts[k + i] < 4 for i in range(3)):
                for i in range(3):
                    self.counts[k + i] += 1
                return k
        raise GenerationError("no room for a sequence")

    def same(self, size: int) -> int:
        """A triplet (3) or kong (4) kind."""
        for _ in range(30):
            k = self.rng.choice(self._triplet_pool())
            if self.counts[k] + size <= 4:
                self.counts[k] += size
                return k
        raise GenerationError(f"no room for {size} of a kind")

    def pair(self) -> int:
        pool = self.suited + (HONOURS if self.honours_ok and self.style != "all_seq" else ())
        for _ in range(30):
            k = self.rng.choice(pool)
            if self.counts[k] <= 2:
                self.counts[k] += 2
                return k
        raise GenerationError("no room for a pair")

    def concealed_set(self) -> tuple[str, int]:
        if self.rng.random() < self._seq_prob():
            return "seq", self.sequence()
        return "trip", self.same(3)


def _retry(make: Callable[[], Any]) -> Any:
    for _ in range(1000):
        try:
            return make()
        except GenerationError:
            continue
    raise RuntimeError("generator cannot place a hand in 1000 draws: a bug")


def _style(rng: random.Random) -> str:
    return rng.choices([s for s, _ in STYLES], [w for _, w in STYLES])[0]


# ------------------------------------------------------------- Taiwanese 16-tile


def _tw_hand(rng: random.Random, n_melds: int | None = None) -> tuple[dict[str, Any], str]:
    """One legal 17-tile winning declaration as a score-format.md dict, and its style."""
    style = _style(rng)
    draw = SetDrawer(rng, style)
    if n_melds is None:
        n_melds = rng.choices((0, 1, 2, 3), (35, 25, 20, 20))[0]
    melds: list[dict[str, Any]] = []
    concealed: list[int] = []
    for _ in range(n_melds):
        kind, first = draw.concealed_set()
        if kind == "seq":
            melds.append({"kind": "chi", "tiles": [kind_code(first + i) for i in range(3)]})
        elif rng.random() < 0.25 and draw.counts[first] == 3:
            draw.counts[first] += 1
            meld = {"kind": "kong", "tiles": [kind_code(first)] * 4}
            meld["concealed"] = rng.random() < 0.5
            melds.append(meld)
        else:
            melds.append({"kind": "pong", "tiles": [kind_code(first)] * 3})
    for _ in range(5 - n_melds):
        kind, first = draw.concealed_set()
        concealed += [first, first + 1, first + 2] if kind == "seq" else [first] * 3
    concealed += [draw.pair()] * 2
    rng.shuffle(concealed)
    winning = concealed.pop(rng.randrange(len(concealed)))
    win = "self_draw" if rng.random() < 0.4 else "discard"
    extra = rng.random()
    n_flowers = rng.choice((0, 0, 0, 1, 1, 2, 2, 3, 4))
    hand: dict[str, Any] = {
        "concealed": [kind_code(k) for k in concealed],
        "melds": melds,
        "flowers": [f"h{f}" for f in sorted(rng.sample(range(1, 9), n_flowers))],
        "winning_tile": kind_code(winning),
        "win": win,
        "seat_wind": rng.choice(WIND_CODES),
        "round_wind": rng.choice(WIND_CODES),
        "dealer": rng.random() < 0.25,
        "streak": 0,
        "replacement": win == "self_draw" and extra < 0.1,
        "last_tile": win == "self_draw" and 0.1 <= extra < 0.15,
        "declared": None,
        "timing": None,
    }
    if hand["dealer"]:
        hand["streak"] = rng.choice((0, 0, 1, 2, 3))
    return hand, style


def tw_winning_pool(rng: random.Random, size: int) -> tuple[list[dict[str, Any]], Counter[str]]:
    """`size` distinct winning declarations, each checked to score valid."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    styles: Counter[str] = Counter()
    while len(out) < size:
        data, style = _retry(lambda: _tw_hand(rng))
        key = json.dumps(data, sort_keys=True)
        if key in seen:
            continue
        result = score(parse_hand(data))
        if not result.valid:
            raise AssertionError(f"generated hand does not score valid: {data}: {result.reason}")
        seen.add(key)
        out.append(data)
        styles[style] += 1
    return out, styles


def _counts(kinds: Sequence[int]) -> list[int]:
    counts = [0] * N_KINDS
    for k in kinds:
        counts[k] += 1
    return counts


def _brute_waits(counts: list[int], held: Sequence[int]) -> list[int]:
    """Waits by trying every kind with is_complete (a different path than wait_kinds)."""
    out = []
    for k in range(N_KINDS):
        if held[k] >= 4:
            continue
        counts[k] += 1
        if is_complete(counts):
            out.append(k)
        counts[k] -= 1
    return out


def tw_ready_pool(rng: random.Random, size: int) -> list[tuple[list[int], list[int]]]:
    """Fully concealed 16-tile ready hands: a winning hand minus one concealed tile."""
    out: list[tuple[list[int], list[int]]] = []
    seen: set[tuple[int, ...]] = set()
    while len(out) < size:
        data, _ = _retry(lambda: _tw_hand(rng, n_melds=0))
        hand = parse_hand(data)
        counts = _counts(hand.concealed)
        key = tuple(counts)
        if key in seen:
            continue
        waits = wait_kinds(counts, counts)
        if hand.winning_tile not in waits:
            raise AssertionError(f"ready hand does not wait on its winning tile: {data}")
        seen.add(key)
        out.append((counts, counts))
    return out


def tw_random_pool(rng: random.Random, size: int) -> list[tuple[list[int], list[int]]]:
    """Random 16-tile concealed hands from a full wall, kept only when not ready."""
    wall = [k for k in range(N_KINDS) for _ in range(4)]
    out: list[tuple[list[int], list[int]]] = []
    while len(out) < size:
        counts = _counts(rng.sample(wall, 16))
        if not wait_kinds(counts, counts):
            out.append((counts, counts))
    return out


def tw_hands(pool: list[dict[str, Any]]) -> list[Hand]:
    return [parse_hand(d) for d in pool]


# ---------------------------------------------------------------- mahjong (Riichi)


class Tiles136:
    """Hands out distinct 136-format tile ids per kind."""

    def __init__(self) -> None:
        self.used = [0] * 34

    def take(self, kind: int, n: int = 1) -> list[int]:
        ids = [kind * 4 + self.used[kind] + i for i in range(n)]
        self.used[kind] += n
        return ids


_CONFIGS: dict[tuple[bool, bool, int, int], HandConfig] = {}


def _config(tsumo: bool, riichi: bool, player_wind: int, round_wind: int) -> HandConfig:
    key = (tsumo, riichi, player_wind, round_wind)
    if key not in _CONFIGS:
        _CONFIGS[key] = HandConfig(
            is_tsumo=tsumo, is_riichi=riichi, player_wind=player_wind, round_wind=round_wind
        )
    return _CONFIGS[key]


def _mj_hand(rng: random.Random, closed_only: bool = False) -> tuple[tuple[Any, ...], list[int]]:
    """(estimate_hand_value args, concealed 34-kinds without the winning tile).

    Closed hands declare riichi (a yaku whatever the shape); open hands have one
    open meld: a dragon pon (役牌), or any meld of the flush suit (混一色/清一色).
    Some closed hands hold a concealed kan.
    """
    style = _style(rng)
    draw = SetDrawer(rng, style)
    ids = Tiles136()
    melds: list[MjMeld] = []
    concealed: list[int] = []
    opened = not closed_only and rng.random() < 0.3
    n_sets = 4
    if opened:
        if style == "flush":
            kind, first = draw.concealed_set()
        else:
            kind, first = "trip", rng.choice((31, 32, 33))
            if draw.counts[first]:
                raise GenerationError("dragon taken")
            draw.counts[first] += 3
        if kind == "seq":
            tiles = [t for i in range(3) for t in ids.take(first + i)]
            melds.append(MjMeld(MjMeld.CHI, tiles, opened=True))
        else:
            melds.append(MjMeld(MjMeld.PON, ids.take(first, 3), opened=True))
        n_sets -= 1
    elif not closed_only and rng.random() < 0.1:
        first = draw.same(4)
        melds.append(MjMeld(MjMeld.KAN, ids.take(first, 4), opened=False))
        n_sets -= 1
    for _ in range(n_sets):
        kind, first = draw.concealed_set()
        concealed += [first, first + 1, first + 2] if kind == "seq" else [first] * 3
    concealed += [draw.pair()] * 2
    rng.shuffle(concealed)
    win_kind = concealed.pop(rng.randrange(len(concealed)))
    concealed_ids = [t for k in concealed for t in ids.take(k)]
    win_id = ids.take(win_kind)[0]
    tiles = [t for m in melds for t in m.tiles] + concealed_ids + [win_id]
    dora = [rng.choice([t for t in range(136) if t not in tiles])]
    config = _config(
        tsumo=rng.random() < 0.4,
        riichi=not opened,
        player_wind=rng.choice((27, 28, 29, 30)),
        round_wind=rng.choice((27, 28)),
    )
    return (tiles, win_id, melds, dora, config), concealed


def mj_winning_pool(rng: random.Random, size: int) -> tuple[list[tuple[Any, ...]], int]:
    """`size` winning hands; returns them and how many score "no_yaku"."""
    calc = HandCalculator()
    out: list[tuple[Any, ...]] = []
    seen: set[tuple[Any, ...]] = set()
    no_yaku = 0
    while len(out) < size:
        args, _ = _retry(lambda: _mj_hand(rng))
        tiles, win_id, melds, _, config = args
        key = (tuple(sorted(t // 4 for t in tiles)), win_id // 4, config.is_tsumo, len(melds))
        if key in seen:
            continue
        result = calc.estimate_hand_value(*args)
        if result.error == HandCalculator.ERR_NO_YAKU:
            no_yaku += 1
        elif result.error is not None:
            raise AssertionError(f"mahjong hand rejected ({result.error}): {tiles} {win_id}")
        seen.add(key)
        out.append(args)
    return out, no_yaku


def mj_waits(tiles34: list[int]) -> list[int]:
    """The library's way to a wait set: add each of the 34 kinds and ask is_agari."""
    is_agari = Agari.is_agari
    out = []
    for k in range(34):
        tiles34[k] += 1
        if is_agari(tiles34):
            out.append(k)
        tiles34[k] -= 1
    return out


def mj_ready_pool(rng: random.Random, size: int) -> list[tuple[list[int]]]:
    """13-tile concealed tenpai hands: a closed 14-tile agari minus one tile."""
    out: list[tuple[list[int]]] = []
    seen: set[tuple[int, ...]] = set()
    while len(out) < size:
        _, concealed = _retry(lambda: _mj_hand(rng, closed_only=True))
        tiles34 = TilesConverter.to_34_array([k * 4 for k in concealed])
        assert sum(tiles34) == 13
        key = tuple(tiles34)
        if key in seen:
            continue
        if not mj_waits(tiles34):
            raise AssertionError(f"mahjong ready hand with no wait: {tiles34}")
        seen.add(key)
        out.append((tiles34,))
    return out


def mj_random_pool(rng: random.Random, size: int) -> list[tuple[list[int]]]:
    """Random 13-tile hands from a full wall, kept only when not tenpai."""
    out: list[tuple[list[int]]] = []
    while len(out) < size:
        tiles34 = TilesConverter.to_34_array(rng.sample(range(136), 13))
        if not mj_waits(tiles34):
            out.append((tiles34,))
    return out


# ------------------------------------------------------------------ measurement


def rate(call: Callable[..., object], pool: Sequence[tuple[Any, ...]], seconds: float) -> float:
    """Calls per second of `call(*args)`, cycling over `pool` for at least `seconds`."""
    chunks = [list(pool[i : i + CHUNK]) for i in range(0, len(pool), CHUNK)]
    for args in pool:  # warm-up: one full pass (fills the caches a real run would)
        call(*args)
    clock = time.perf_counter
    done = 0
    start = clock()
    deadline = start + seconds
    while True:
        for chunk in chunks:
            for args in chunk:
                call(*args)
            done += len(chunk)
            now = clock()
            if now >= deadline:
                return done / (now - start)


def interleave(a: Sequence[Any], b: Sequence[Any]) -> list[Any]:
    return [x for pair in zip(a, b, strict=False) for x in pair]


def cli_figures(pool: list[dict[str, Any]], n: int, expected: list[int]) -> dict[str, float]:
    """Time `mjtable score --jsonl FILE > /dev/null` on `n` hands, and its startup alone."""
    lines = [json.dumps(pool[i % len(pool)], ensure_ascii=False) for i in range(n)]
    with tempfile.TemporaryDirectory() as tmp:
        big, small, empty = Path(tmp, "hands.jsonl"), Path(tmp, "check.jsonl"), Path(tmp, "e")
        big.write_text("\n".join(lines) + "\n", encoding="utf-8")
        check = min(500, len(pool))
        small.write_text("\n".join(lines[:check]) + "\n", encoding="utf-8")
        empty.write_text("", encoding="utf-8")

        def run(path: Path, stdout: Any = subprocess.DEVNULL) -> tuple[float, bytes]:
            start = time.perf_counter()
            proc = subprocess.run(
                [str(MJTABLE), "score", "--jsonl", str(path)],
                stdout=stdout,
                stderr=subprocess.PIPE,
                check=False,
                cwd=REPO,
            )
            took = time.perf_counter() - start
            if proc.returncode != 0:
                raise RuntimeError(f"mjtable score failed ({proc.returncode}): {proc.stderr!r}")
            return took, proc.stdout or b""

        # Correctness first: the CLI's results match the API's on a sample.
        _, out = run(small, subprocess.PIPE)
        results = [json.loads(line) for line in out.decode("utf-8").splitlines()]
        if len(results) != check:
            raise AssertionError(f"mjtable score --jsonl gave {len(results)} lines for {check}")
        for i, res in enumerate(results):
            if not res.get("valid") or res.get("tai") != expected[i]:
                raise AssertionError(f"CLI result {i} differs from the API: {res}")
        startup = statistics.median(run(empty)[0] for _ in range(5))
        total = min(run(big)[0] for _ in range(2))  # the file was just written: cached
    return {
        "cli_hands": n,
        "cli_seconds": total,
        "cli_startup_s": startup,
        "score_cli_hands_per_s": n / total,
        "score_cli_steady_hands_per_s": n / max(total - startup, 1e-9),
    }


def machine() -> str:
    model = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.machine()}, {model}, {os.cpu_count()} CPUs".replace(
        " ,", ""
    )


# -------------------------------------------------------------------------- main


def measure(
    seconds: float = 2.0, seed: int = 1, pool: int = 5000, cli_hands: int = 50000
) -> dict[str, Any]:
    """Every figure of this benchmark, for `main` and for `mjtable bench`; `pools`
    describes the hands timed (printed by `main`, not part of its JSON line)."""
    t0 = time.perf_counter()
    rng = random.Random(seed)
    pool_n = pool

    # Pools (built and checked before any timing).
    tw_data, styles = tw_winning_pool(rng, pool_n)
    tw_parsed = tw_hands(tw_data)
    tw_ready = tw_ready_pool(rng, pool_n)
    tw_random = tw_random_pool(rng, pool_n)
    for counts, held in tw_ready[:1000] + tw_random[:1000]:
        if wait_kinds(counts, held) != _brute_waits(list(counts), held):
            raise AssertionError(f"wait_kinds disagrees with brute force on {counts}")
    mj_win, mj_no_yaku = mj_winning_pool(rng, pool_n)
    mj_ready = mj_ready_pool(rng, pool_n)
    mj_random = mj_random_pool(rng, pool_n)
    tai = [score(h).tai for h in tw_parsed]
    open_tw = sum(1 for h in tw_parsed if any(m.exposed for m in h.melds))
    built = time.perf_counter() - t0

    s = seconds
    calc = HandCalculator()
    f: dict[str, Any] = {}
    f["score_api_hands_per_s"] = rate(score, [(h,) for h in tw_parsed], s)
    f["score_json_hands_per_s"] = rate(score_json, [(d,) for d in tw_data], s)
    f.update(cli_figures(tw_data, cli_hands, tai))
    f["waits_ready_per_s"] = rate(wait_kinds, tw_ready, s)
    f["waits_nonready_per_s"] = rate(wait_kinds, tw_random, s)
    f["waits_per_s"] = rate(wait_kinds, interleave(tw_ready, tw_random), s)
    f["mahjong_score_hands_per_s"] = rate(calc.estimate_hand_value, mj_win, s)
    f["mahjong_waits_per_s"] = rate(mj_waits, mj_ready, s)
    f["mahjong_waits_nonready_per_s"] = rate(mj_waits, mj_random, s)
    f["mahjong_waits_mixed_per_s"] = rate(mj_waits, interleave(mj_ready, mj_random), s)
    f["score_ratio"] = f["score_api_hands_per_s"] / f["mahjong_score_hands_per_s"]
    f["score_json_ratio"] = f["score_json_hands_per_s"] / f["mahjong_score_hands_per_s"]
    f["waits_ratio"] = f["waits_ready_per_s"] / f["mahjong_waits_per_s"]
    f["waits_mixed_ratio"] = f["waits_per_s"] / f["mahjong_waits_mixed_per_s"]
    f["pool_size"] = pool_n
    f["seconds_per_figure"] = s
    f["seed"] = seed
    f["mahjong_no_yaku_in_pool"] = mj_no_yaku
    f["python"] = f"{platform.python_implementation()} {platform.python_version()}"
    f["machine"] = machine()
    f["total_s"] = time.perf_counter() - t0
    f["pools"] = {
        "styles": dict(styles),
        "open_tw": open_tw,
        "tai_mean": statistics.mean(tai),
        "tai_max": max(tai),
        "built_s": built,
    }
    return f


# --- its rows in `mjtable bench`'s table ------------------------------------------------


def summary_rows(f: dict[str, Any]) -> list[cells.Row]:
    mj_score, mj_waits = f["mahjong_score_hands_per_s"], f["mahjong_waits_per_s"]
    mj_mixed = f["mahjong_waits_mixed_per_s"]
    return [
        (
            "scoring: winning hands, `score(Hand)` (17 tiles)",
            cells.rate(f["score_api_hands_per_s"]),
            "hands/s",
            f"{cells.times(f['score_ratio'])} `mahjong` ({cells.rate(mj_score)}/s)",
        ),
        (
            "scoring: parse + score + JSON, `score_json`",
            cells.rate(f["score_json_hands_per_s"]),
            "hands/s",
            f"{cells.times(f['score_json_ratio'])} `mahjong`",
        ),
        (
            f"scoring: `mjtable score --jsonl`, {f['cli_hands']:,} hands, whole process",
            cells.rate(f["score_cli_hands_per_s"]),
            "hands/s",
            f"startup {f['cli_startup_s'] * 1000:,.0f} ms",
        ),
        (
            "waits: wait sets of ready hands, `wait_kinds` (16 tiles)",
            cells.rate(f["waits_ready_per_s"]),
            "hands/s",
            f"{cells.times(f['waits_ratio'])} `mahjong` 34 × is_agari ({cells.rate(mj_waits)}/s)",
        ),
        (
            "waits: half ready, half not",
            cells.rate(f["waits_per_s"]),
            "hands/s",
            f"{cells.times(f['waits_mixed_ratio'])} `mahjong` ({cells.rate(mj_mixed)}/s)",
        ),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="timing per figure (2)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (1)")
    parser.add_argument("--pool", type=int, default=5000, help="distinct hands per pool (5000)")
    parser.add_argument("--cli-hands", type=int, default=50000, help="hands for the CLI (50000)")
    args = parser.parse_args(argv)
    f = measure(args.seconds, args.seed, args.pool, args.cli_hands)
    pools = f.pop("pools")
    s, pool_n, mj_no_yaku = args.seconds, args.pool, f["mahjong_no_yaku_in_pool"]

    def row(label: str, ours: float, theirs: float | None = None, target: bool = False) -> str:
        line = f"  {label:<44}{ours:>12,.0f}/s"
        if theirs is not None:
            ratio = ours / theirs
            mark = ("  ok" if ratio >= 1.5 else "  BELOW 1.5x") if target else ""
            line += f"{theirs:>12,.0f}/s{ratio:>8.2f}x{mark}"
        return line

    style_text = ", ".join(f"{k} {v}" for k, v in sorted(pools["styles"].items()))
    print(f"mjtable scoring benchmark — {f['python']}, {f['machine']}")
    print(
        f"seed {args.seed}, {s:g} s per figure, pools of {pool_n:,} distinct hands "
        f"(built and checked in {pools['built_s']:.1f} s)"
    )
    print(
        f"Taiwanese winning hands: {style_text}; {pools['open_tw']:,} with exposed melds; "
        f"mean {pools['tai_mean']:.1f} 台, max {pools['tai_max']}"
    )
    print(f"mahjong winning hands: {mj_no_yaku} of {pool_n:,} without a yaku (timed anyway)")
    print()
    table: list[tuple[str, str, str | None, bool]] = [
        (
            "score(Hand), 17 tiles | estimate_hand_value",
            "score_api_hands_per_s",
            "mahjong_score_hands_per_s",
            True,
        ),
        (
            "score_json(dict): parse+score+JSON",
            "score_json_hands_per_s",
            "mahjong_score_hands_per_s",
            False,
        ),
        (
            f"CLI score --jsonl, {args.cli_hands:,} hands, whole run",
            "score_cli_hands_per_s",
            None,
            False,
        ),
        ("CLI score --jsonl, minus startup", "score_cli_steady_hands_per_s", None, False),
        (
            "wait_kinds, 16 ready | 34 x is_agari, 13",
            "waits_ready_per_s",
            "mahjong_waits_per_s",
            True,
        ),
        (
            "wait_kinds, 16 not ready | 13 not tenpai",
            "waits_nonready_per_s",
            "mahjong_waits_nonready_per_s",
            False,
        ),
        ("wait_kinds, 50/50 mix | 50/50 mix", "waits_per_s", "mahjong_waits_mixed_per_s", False),
    ]
    print(f"  {'figure':<44}{'mjtable':>14}{'mahjong':>14}{'ratio':>9}")
    for label, ours, theirs, target in table:
        print(row(label, f[ours], f[theirs] if theirs else None, target))
        if ours == "score_cli_steady_hands_per_s":
            startup_ms = f["cli_startup_s"] * 1000
            print(f"  {'CLI startup (empty file), median of 5':<44}{startup_ms:>11.0f} ms")
    print()
    print(f"total {f['total_s']:.1f} s")
    print(json.dumps(f, ensure_ascii=False, separators=(", ", ": ")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
