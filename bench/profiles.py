"""Scoring speed under a non-default rule profile, beside the default's (aim: within 10 %).

Run: .venv/bin/python bench/profiles.py [--seconds S] [--rounds R] [--seed N] [--pool P]

The same pool of distinct random winning hands (bench/scoring.py's generator) is
scored with `score(hand, profile)` under the default profile and under a club
profile that changes values and every switch the 台 rows read (the costliest
`ping_hu_wait` mode included). The two are timed in alternating rounds and each
figure is the median of its rounds, so a neighbour's load on a shared machine
falls on both. The last line printed is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scoring import rate, tw_hands, tw_winning_pool
from table_service.rules import DEFAULT_PROFILE, Profile, score
from table_service.rules.profile import profile_from_mapping

CLUB: Profile = profile_from_mapping(
    {
        "preset": "seed001",
        "tai": {"full_flush": 8, "all_honors": 10, "flower_kong": 1, "heavenly_win": 12},
        "rules": {
            "lik_gu": True,
            "ping_hu_wait": "two_sided_tile",
            "ping_hu_honour_pair": True,
            "ping_hu_flowers": True,
            "ping_hu_with_concealed": False,
            "half_melded": False,
            "all_melded_single_wait": False,
            "five_concealed_exclusive": False,
            "all_honors_overlap": False,
            "all_honors_with_all_pongs": True,
            "flower_kong_keeps_seat_flower": True,
            "special_wins_need_declaration": False,
            "kong_bloom_with_heavenly_win": True,
        },
    },
    "bench-club",
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="per round and profile")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pool", type=int, default=3000)
    args = parser.parse_args(argv)

    pool, _ = tw_winning_pool(random.Random(args.seed), args.pool)
    hands = tw_hands(pool)
    changed = sum(score(h, CLUB).tai != score(h).tai for h in hands)
    default_args = [(h, DEFAULT_PROFILE) for h in hands]
    club_args = [(h, CLUB) for h in hands]
    default_rates, club_rates = [], []
    for _ in range(args.rounds):
        default_rates.append(rate(score, default_args, args.seconds))
        club_rates.append(rate(score, club_args, args.seconds))
    default = statistics.median(default_rates)
    club = statistics.median(club_rates)
    ratio = club / default
    print(f"pool: {len(hands)} hands; the club profile changes the 台 of {changed}")
    print(f"default profile (mjonline): {default:10,.0f} hands/s")
    print(f"club profile (bench-club):  {club:10,.0f} hands/s")
    print(f"ratio club/default: {ratio:.3f} (aim ≥ 0.90)")
    figures = {
        "pool": len(hands),
        "changed": changed,
        "default_per_s": round(default),
        "club_per_s": round(club),
        "ratio": round(ratio, 3),
        "rounds": args.rounds,
        "seconds": args.seconds,
    }
    print(json.dumps(figures))
    return 0 if ratio >= 0.9 else 1


if __name__ == "__main__":
    raise SystemExit(main())
