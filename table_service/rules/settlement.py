"""Settlement (taiwan16.md §6, score-format.md's `mjtable settle`): who pays whom.

Money is integers; each hand's payments sum to zero by construction (every
payment is one seat's loss and another's gain).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final, Literal, cast

SEATS: Final = 4

SettleKind = Literal[
    "discard",
    "self_draw",
    "robbing_kong",
    "eight_immortals",
    "seven_rob_one",
    "seven_rob_one_self_draw",
    "false_win",
    "penalty",
]
SETTLE_KINDS: Final = (
    "discard",
    "self_draw",
    "robbing_kong",
    "eight_immortals",
    "seven_rob_one",
    "seven_rob_one_self_draw",
    "false_win",
    "penalty",
)
_ONE_PAYER: Final = frozenset(
    {"discard", "robbing_kong", "seven_rob_one", "seven_rob_one_self_draw"}
)
SEVEN_ROB_ONE_TAI: Final = 8
DEFAULT_BASE: Final = 100
DEFAULT_PER_TAI: Final = 20


class SettleInputError(ValueError):
    """A settlement request that is malformed; `field` names where."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


@dataclass(frozen=True, slots=True)
class Stakes:
    """The money per hand and the 台 values settlement itself adds (a profile's, §7)."""

    base: int = DEFAULT_BASE  # 底
    per_tai: int = DEFAULT_PER_TAI  # 台錢
    dealer_tai: int = 1  # 作莊
    streak_tai: int = 2  # 連N拉N, per N
    seven_rob_one_tai: int = SEVEN_ROB_ONE_TAI  # 七搶一, inside a seven_rob_one_self_draw


@dataclass(frozen=True, slots=True, kw_only=True)
class HandOutcome:
    """One hand's result in the table's context. Seats 0–3 in turn order."""

    kind: SettleKind
    winner: int  # the winner; for false_win / penalty, the offender
    tai: int
    dealer: int
    streak: int = 0
    payer: int | None = None
    stakes: Stakes = Stakes()


@dataclass(frozen=True, slots=True)
class Payment:
    payer: int
    payee: int
    amount: int
    tai: int
    dealer_tai: int

    def to_json(self) -> dict[str, int]:
        return {
            "from": self.payer,
            "to": self.payee,
            "amount": self.amount,
            "tai": self.tai,
            "dealer_tai": self.dealer_tai,
        }


def settle(outcome: HandOutcome) -> tuple[Payment, ...]:
    """The payments of one hand; dealer 台 only on payments the dealer is party to."""
    o = outcome
    dealer_tai = o.stakes.dealer_tai + o.stakes.streak_tai * o.streak

    def pay(payer: int, payee: int, tai: int) -> Payment:
        d = dealer_tai if o.dealer in (payer, payee) else 0
        amount = o.stakes.base + (tai + d) * o.stakes.per_tai
        return Payment(payer, payee, amount, tai, d)

    others = [s for s in range(SEATS) if s != o.winner]
    if o.kind in ("false_win", "penalty"):
        return tuple(pay(o.winner, s, o.tai) for s in others)
    if o.kind in ("discard", "robbing_kong", "seven_rob_one"):
        assert o.payer is not None
        return (pay(o.payer, o.winner, o.tai),)
    if o.kind == "seven_rob_one_self_draw":
        # The robbed seat pays the 七搶一 8 on top of the hand's own 台; the others pay the hand.
        own = o.tai - o.stakes.seven_rob_one_tai
        return tuple(pay(s, o.winner, o.tai if s == o.payer else own) for s in others)
    return tuple(pay(s, o.winner, o.tai) for s in others)


def net(payments: Iterable[Payment]) -> list[int]:
    """Each seat's gain (positive) or loss; always sums to zero."""
    totals = [0] * SEATS
    for p in payments:
        totals[p.payer] -= p.amount
        totals[p.payee] += p.amount
    return totals


def settle_json(data: object, defaults: Stakes = Stakes()) -> dict[str, object]:
    """score-format.md's `mjtable settle` object in, payments and nets out.

    `defaults` (a profile's `stakes()`) gives the stakes a request leaves out and the
    dealer and 七搶一 台.
    """
    payments = settle(parse_outcome(data, defaults))
    return {"payments": [p.to_json() for p in payments], "net": net(payments)}


def parse_outcome(data: object, defaults: Stakes = Stakes()) -> HandOutcome:
    """Validate a settle request; raise SettleInputError naming the field."""
    if not isinstance(data, Mapping):
        raise SettleInputError("input", "expected a JSON object")
    known = {"stakes", "dealer", "streak", "kind", "winner", "payer", "tai"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise SettleInputError(unknown[0], "unknown key")
    kind = data.get("kind")
    if kind not in SETTLE_KINDS:
        raise SettleInputError("kind", f"expected one of {', '.join(SETTLE_KINDS)}, got {kind!r}")
    winner = _seat(data, "winner")
    dealer = _seat(data, "dealer")
    payer = None
    if kind in _ONE_PAYER:
        payer = _seat(data, "payer")
        if payer == winner:
            raise SettleInputError("payer", "the payer cannot be the winner")
    elif data.get("payer") is not None:
        raise SettleInputError("payer", f"a {kind} settlement has no single payer")
    tai = _whole(data, "tai")
    if kind == "seven_rob_one_self_draw" and tai < defaults.seven_rob_one_tai:
        raise SettleInputError(
            "tai", f"seven_rob_one_self_draw includes the {defaults.seven_rob_one_tai} of 七搶一"
        )
    stakes = data.get("stakes", {})
    if not isinstance(stakes, Mapping):
        raise SettleInputError("stakes", "expected an object with base and per_tai")
    extra = sorted(set(stakes) - {"base", "per_tai"})
    if extra:
        raise SettleInputError(f"stakes.{extra[0]}", "unknown key")
    return HandOutcome(
        kind=cast(SettleKind, kind),
        winner=winner,
        tai=tai,
        dealer=dealer,
        streak=_whole(data, "streak", 0),
        payer=payer,
        stakes=replace(
            defaults,
            base=_whole(stakes, "base", defaults.base, "stakes."),
            per_tai=_whole(stakes, "per_tai", defaults.per_tai, "stakes."),
        ),
    )


def _seat(data: Mapping[str, object], key: str) -> int:
    if key not in data or data[key] is None:
        raise SettleInputError(key, "missing")
    value = data[key]
    if type(value) is not int or not 0 <= value < SEATS:
        raise SettleInputError(key, f"expected a seat 0–3, got {value!r}")
    return value


def _whole(
    data: Mapping[str, object], key: str, default: int | None = None, prefix: str = ""
) -> int:
    value = data.get(key, default)
    if value is None:
        raise SettleInputError(prefix + key, "missing")
    if type(value) is not int or value < 0:
        raise SettleInputError(prefix + key, f"expected a whole number ≥ 0, got {value!r}")
    return value


def session_totals(hands: Sequence[Sequence[Payment]]) -> list[int]:
    """A 將's running tally: the sum of every hand's nets (sums to zero)."""
    totals = [0] * SEATS
    for payments in hands:
        for seat, amount in enumerate(net(payments)):
            totals[seat] += amount
    return totals
