"""The cells of `mjtable bench`'s table, shared by the benchmarks that make its rows
(each bench/<name>.py exports its own `summary_rows(figures)`; a rows' function of the
command itself only for the soak, which is no bench script)."""

from __future__ import annotations

Row = tuple[str, str, str, str]  # figure, value, unit, ratio or aim


def rate(value: float) -> str:
    return f"{value:,.0f}"


def msec(value: float | None) -> str:
    if value is None:
        return "—"
    if value == float("inf"):
        return "∞"
    return f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def times(ratio: float) -> str:
    return f"{ratio:.2f}×" if ratio < 10 else f"{ratio:.0f}×"


def verdict(ok: bool) -> str:
    return "ok" if ok else "FAIL"
