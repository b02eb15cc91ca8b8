from __future__ import annotations

import argparse
import math
from typing import Any

from bench.service.config import CLUB_RATE, OTHER_NOTE, P99_AIM_MS, SLOPE_SHARE
from bench.service.probe import Probe
from mjtable.commands import bench_cells as cells
from table_service.service.loop_watch import CAUSES

# --- figures ------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile of a sorted list (inf stands for never seen)."""
    if not values:
        return math.nan
    return values[min(len(values) - 1, max(0, math.ceil(q * len(values)) - 1))]


def slope(points: list[tuple[float, float]]) -> float:
    if len(points) < 3:
        return 0.0
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0


def ms(value: float) -> float | None:
    return None if math.isnan(value) or math.isinf(value) else round(value * 1000, 1)


def ruled(head: str) -> None:
    """A table's head line, underlined."""
    print(head)
    print("-" * len(head))


def fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def causes(by_cause: dict[str, int] | None) -> str:
    """The pauses over 10 ms by cause, in the loop watch's order (a service from before
    'thread' was told apart counts it in blocked)."""
    if not by_cause:
        return "-"
    return "/".join(str(by_cause.get(c, 0)) for c in CAUSES)


def show_ms(value: float | None, raw: float) -> str:
    if value is not None:
        return f"{value:.1f}"
    return "never" if math.isinf(raw) else "-"


def figures(
    args: argparse.Namespace,
    rates: list[float],
    steps: list[tuple[float, float, float]],
    offset: float,
    samples: list[tuple[float, float, float, int]],
    cpu_at: list[dict[str, float]],
    probe: Probe,
    done: list[dict[str, Any]],
    sent_total: int,
    stored_total: int,
    drained: float | None,
    rss: int,
    notes: list[str],
    mqtt: str,
    db_url: str,
    service_log: str,
    loops_at: list[dict[str, Any] | None],
) -> dict[str, Any]:
    settle = min(5.0, args.step_seconds / 5)
    unseen = probe.unseen()
    bridges: dict[str, int] = {}
    for d in done:
        for k, v in d["bridges"].items():
            bridges[k] = bridges.get(k, 0) + v
    out_steps: list[dict[str, Any]] = []
    for i, ((start, end, speed), rate) in enumerate(zip(steps, rates, strict=True)):
        inside = [s for s in samples if start <= s[0] <= end]
        if len(inside) < 2:
            continue
        first, last = inside[0], inside[-1]
        span = last[0] - first[0]
        offered = (last[1] - first[1]) / span
        published = (last[3] - first[3]) / span
        held = (last[2] - first[2]) / span
        backlog = [(t, sent - kept) for t, sent, kept, _ in inside if t >= start + settle]
        growth = slope(backlog)
        backlog_end = inside[-1][1] - inside[-1][2]
        backlog_mean = sum(b for _, b in backlog) / len(backlog) if backlog else 0.0
        kept_up = growth <= SLOPE_SHARE * offered and backlog_end <= max(0.5 * offered, 50)
        lo, hi = start + offset + settle, end + offset
        lat = sorted(
            [d for ts, d in probe.ws if lo <= ts < hi]
            + [math.inf for ts in unseen if lo <= ts < hi]
        )
        pub = sorted(d for ts, d in probe.pub if lo <= ts < hi)
        rec = sorted(d for ts, d in probe.records if lo <= ts < hi)
        rec_mqtt = sorted(d for ts, d in probe.records_mqtt if lo <= ts < hi)
        p50, p99 = percentile(lat, 0.5), percentile(lat, 0.99)
        cpu: dict[str, int] = {}
        per_commit = None
        if i + 1 < len(cpu_at):
            cpu = cpu_share(cpu_at[i], cpu_at[i + 1])
            xacts = cpu_at[i + 1]["transactions"] - cpu_at[i]["transactions"]
            if xacts:
                per_commit = round((cpu_at[i + 1]["stored"] - cpu_at[i]["stored"]) / xacts, 2)
        pub_p50, pub_p99 = percentile(pub, 0.5), percentile(pub, 0.99)
        loop_over, loop_gc, loop_max, full_gcs, gc_mean, gc_max = (None,) * 6
        collecting: float | None = None
        if i + 1 < len(loops_at) and loops_at[i] and loops_at[i + 1]:
            a, b = loops_at[i], loops_at[i + 1]
            assert a is not None and b is not None
            loop_over = b["over_ms"]["10"] - a["over_ms"]["10"]
            loop_gc = {c: n - a["causes"].get(c, 0) for c, n in b["causes"].items()}
            loop_max = b["last_minute_max_ms"]  # the step's, and up to a minute before it
            full_gcs = b["gc"]["2"]["count"] - a["gc"]["2"]["count"]
            if full_gcs:
                gc_mean = round((b["gc"]["2"]["total_ms"] - a["gc"]["2"]["total_ms"]) / full_gcs, 1)
            gc_max = b["gc"]["2"]["max_ms"]  # since the service started
            # every generation's collections together, ms a second of the step
            collected = sum(b["gc"][g]["total_ms"] - a["gc"][g]["total_ms"] for g in b["gc"])
            collecting = round(collected / (end - start), 2)
        out_steps.append(
            {
                "target": rate,
                "speed": round(speed, 3),
                "offered": round(offered, 1),
                "published": round(published, 1),
                "held": round(held, 1),
                "backlog_end": round(backlog_end),
                "backlog_slope": round(growth, 1),
                "backlog_mean": round(backlog_mean),
                # Little's law: the mean time from a controller's send to the service's commit
                "store_delay_ms": round(1000 * backlog_mean / offered) if offered else None,
                "kept_up": kept_up,
                "ws_p50_ms": ms(p50),
                "ws_p99_ms": ms(p99),
                "ws_max_ms": ms(lat[-1]) if lat else None,
                "ws_samples": len(lat),
                "ws_never": sum(1 for v in lat if math.isinf(v)),
                "ws_p99_raw": p99,
                "pub_p50_ms": ms(pub_p50),
                "pub_p99_ms": ms(pub_p99),
                # the service's own share: what the WebSocket adds to the link's own arrival
                "service_p50_ms": ms(p50 - pub_p50) if lat and pub else None,
                "service_p99_ms": ms(p99 - pub_p99) if lat and pub else None,
                "held_ratio": round(held / offered, 3) if offered else None,
                # what the service held of what reached the broker: the bridges' own lag apart
                "held_of_published": round(held / published, 3) if published else None,
                "loop_pauses_over_10ms": loop_over,
                "loop_pauses_over_10ms_by_cause": loop_gc,
                "loop_pause_max_ms": loop_max,
                "full_collections": full_gcs,
                "full_collection_mean_ms": gc_mean,
                "full_collection_max_ms": gc_max,
                "collector_ms_a_second": collecting,
                "hand_p50_ms": ms(percentile(rec, 0.5)),
                "hand_p99_ms": ms(percentile(rec, 0.99)),
                "hands": len(rec),
                "hand_mqtt_p50_ms": ms(percentile(rec_mqtt, 0.5)),
                "hand_mqtt_p99_ms": ms(percentile(rec_mqtt, 0.99)),
                "events_per_commit": per_commit,
                "cpu": cpu,
            }
        )
    drain: dict[str, Any] = {"seconds": None if drained is None else round(drained, 2)}
    if len(cpu_at) >= len(steps) + 2 and samples:
        a, b = cpu_at[len(steps)], cpu_at[len(steps) + 1]
        left = samples[-1][1] - samples[-1][2]
        drain["backlog_at_ramp_end"] = round(left)
        if left > 1000 and b["t"] > a["t"]:  # long enough to be a rate
            drain["events_per_s"] = round((b["stored"] - a["stored"]) / (b["t"] - a["t"]), 1)
            drain["cpu"] = cpu_share(a, b)
    disturbed = [f"{s['target']:.0f}" for s in out_steps if s["cpu"].get("other", 0) >= OTHER_NOTE]
    if disturbed:
        notes.append(
            "other programs on the machine took more than"
            f" {OTHER_NOTE}% of a core during the steps at {', '.join(disturbed)} events/s:"
            " their figures are the service's on a busier machine"
        )
    sustained = [
        s for s in out_steps
        if s["kept_up"] and s["ws_p99_ms"] is not None and s["ws_p99_ms"] < P99_AIM_MS
    ]  # fmt: skip
    best = max(out_steps, key=lambda s: s["held"]) if out_steps else None
    with open(service_log, "rb") as f:
        log_lines = f.read().decode(errors="replace").splitlines()
    warnings = [line for line in log_lines if " WARNING " in line or " ERROR " in line]
    return {
        "tables": args.tables,
        "step_seconds": args.step_seconds,
        "settle_seconds": settle,
        "broker": "private mosquitto" if args.mqtt == "private" else mqtt,
        "db": db_url.split("?")[0] if args.db != "sqlite" else "sqlite",
        "load_procs": args.load_procs,
        "ws_deflate": args.ws_deflate,
        "load_nice": args.load_nice,
        "probe_nice": args.probe_nice,
        "steps": out_steps,
        "max_sustained": max((s["offered"] for s in sustained), default=0.0),
        "max_sustained_target": max((s["target"] for s in sustained), default=0.0),
        "max_held": best["held"] if best else 0.0,
        "max_held_at_offered": best["offered"] if best else 0.0,
        "sent": sent_total,
        "stored": stored_total,
        "drain": drain,
        "service_rss_mb": round(rss / 2**20),
        "service_collector": next(
            (at.get("collector") for at in reversed(loops_at) if at is not None), None
        ),
        "probe": {
            "published": probe.published,
            "ws_messages": probe.ws_messages,
            "visible_events_seen": len(probe.ws),
            "invisible_events": probe.invisible,
            "never_seen": len(unseen),
            "repeated_states": probe.repeats,
            "unmatched_states": probe.unmatched,
            "snapshots": probe.snapshots,
            "mqtt_holes": probe.holes,
            "tables_given_up": probe.broken,
            "mqtt_duplicates": probe.duplicates,
        },
        "load": {
            "behind": sum(d["behind"] for d in done),
            "exhausted": sum(d["exhausted"] for d in done),
            "idle_at_end": all(d["idle"] for d in done),
            "bridges": {k: v for k, v in bridges.items() if v},
        },
        "service_warnings": len(warnings),
        "service_warning_sample": warnings[:5],
        "notes": notes,
    }


def cpu_share(a: dict[str, float], b: dict[str, float]) -> dict[str, int]:
    """CPU between two samples, in % of one core; `other`: the machine's rest."""
    dt = b["t"] - a["t"]
    keys = ("service", "service_loop", "load", "probe", "mosquitto", "postgres", "machine")
    out = {k: round(100 * (b[k] - a[k]) / dt) for k in keys}
    ours = sum(out[k] for k in ("service", "load", "probe", "mosquitto", "postgres"))
    out["other"] = max(0, out["machine"] - ours)
    return out


def limit_of(step: dict[str, Any]) -> str:
    """What ran out in a step, from the CPU figures."""
    cpu = step["cpu"]
    if not cpu:
        return "?"
    hot = [k for k in ("service", "load", "probe", "mosquitto", "postgres") if cpu.get(k, 0) >= 85]
    parts = [f"{k} CPU {cpu[k]}%" for k in hot]
    if cpu.get("machine", 0) >= 180:
        parts.append(f"both cores busy ({cpu['machine']}%)")
    if cpu.get("other", 0) >= OTHER_NOTE:
        parts.append(f"other programs on the machine took {cpu['other']}%")
    return "; ".join(parts) or "none"


def report(result: dict[str, Any]) -> None:
    print(
        f"\n{result['tables']} tables, steps of {result['step_seconds']:.0f} s (latencies after"
        f" the first {result['settle_seconds']:.0f} s), broker {result['broker']},"
        f" db {result['db']}, load in {result['load_procs']} process(es)"
        f" at nice {result['load_nice']}, the probe at nice {result['probe_nice']}"
        f"{' (its latencies include its own waits)' if result['probe_nice'] else ''},"
        f" WebSocket deflate"
        f" {'on' if result['ws_deflate'] else 'off'}"
    )
    head = (
        f"{'target':>6} {'speed':>6} {'offered':>8} {'publ.':>7} {'held':>7} {'backlog':>8}"
        f" {'mean':>6} {'slope':>6} {'kept':>4} | {'ws p50':>7} {'p99':>7} {'max':>7} {'n':>6} |"
        f" {'pub p50':>7} {'p99':>6} | {'hand p50':>8} {'p99':>7} {'n':>3} |"
        f" {'mqtt p50':>8} {'p99':>7}"
    )
    ruled(head)
    for s in result["steps"]:
        print(
            f"{s['target']:>6.0f} {s['speed']:>6.2f} {s['offered']:>8.1f} {s['published']:>7.1f}"
            f" {s['held']:>7.1f} {s['backlog_end']:>8} {s['backlog_mean']:>6}"
            f" {s['backlog_slope']:>6.1f}"
            f" {'yes' if s['kept_up'] else 'NO':>4} |"
            f" {show_ms(s['ws_p50_ms'], math.inf):>7} {show_ms(s['ws_p99_ms'], s['ws_p99_raw']):>7}"
            f" {show_ms(s['ws_max_ms'], math.inf):>7} {s['ws_samples']:>6} |"
            f" {show_ms(s['pub_p50_ms'], 0):>7} {show_ms(s['pub_p99_ms'], 0):>6} |"
            f" {show_ms(s['hand_p50_ms'], 0):>8} {show_ms(s['hand_p99_ms'], 0):>7}"
            f" {s['hands']:>3} |"
            f" {show_ms(s['hand_mqtt_p50_ms'], 0):>8} {show_ms(s['hand_mqtt_p99_ms'], 0):>7}"
        )
    print(
        "events/s: offered = sent by the simulated controllers, publ. = published by the"
        " bridges, held = stored by the service; backlog = offered - stored at the step's end"
        " (events), mean = its mean over the step, slope = its growth (events/s); latencies"
        " in ms from the event's ts (the bridge's receive): ws = the first WebSocket state"
        " showing it, pub = its arrival on the probe's own MQTT subscription, hand = hand"
        " records (exact key) on the WebSocket, mqtt = the same records on MQTT"
        " (…/service/hand), n = samples"
    )
    print("\nThe service's own share (the aim: <= 5 ms at p50, <= 10 ms at p99)")
    head = (
        f"{'target':>6} {'held/offered':>12} {'held/publ.':>10} | {'ws - pub p50':>12} {'p99':>7} |"
        f" {'loop pauses > 10 ms':>19} {'/'.join(CAUSES):>34}"
        f" {'longest (last minute)':>21} |"
        f" {'full GCs':>8} {'mean':>6} {'longest (all run)':>17} {'all GCs ms/s':>12}"
    )
    ruled(head)
    for s in result["steps"]:
        print(
            f"{s['target']:>6.0f} {fmt(s['held_ratio'], '.3f'):>12}"
            f" {fmt(s['held_of_published'], '.3f'):>10} |"
            f" {fmt(s['service_p50_ms'], '.1f'):>12} {fmt(s['service_p99_ms'], '.1f'):>7} |"
            f" {fmt(s['loop_pauses_over_10ms'], 'd'):>19}"
            f" {causes(s['loop_pauses_over_10ms_by_cause']):>34}"
            f" {fmt(s['loop_pause_max_ms'], '.1f'):>21} |"
            f" {fmt(s['full_collections'], 'd'):>8} {fmt(s['full_collection_mean_ms'], '.1f'):>6}"
            f" {fmt(s['full_collection_max_ms'], '.1f'):>17}"
            f" {fmt(s['collector_ms_a_second'], '.2f'):>12}"
        )
    head = (
        f"{'target':>6} | {'service':>7} {'(loop':>5} {'threads)':>8} {'load':>5} {'probe':>5}"
        f" {'mosq.':>5} {'pg':>4} {'other':>5} {'all':>4} | {'events/commit':>13} | limit"
    )
    print("\nCPU, % of one core (all = the machine: 200 is both cores busy)")
    ruled(head)
    rows = [(f"{s['target']:>6.0f}", s["cpu"], s["events_per_commit"], limit_of(s))
            for s in result["steps"]]  # fmt: skip
    drain = result["drain"]
    if "cpu" in drain:
        rows.append(("drain", drain["cpu"], None, limit_of(drain)))
    for label, c, per_commit, limit in rows:
        if not c:
            continue
        print(
            f"{label:>6} | {c['service']:>7} {c['service_loop']:>5}"
            f" {c['service'] - c['service_loop']:>8} {c['load']:>5} {c['probe']:>5}"
            f" {c['mosquitto']:>5} {c['postgres']:>4} {c['other']:>5} {c['machine']:>4} |"
            f" {'-' if per_commit is None else per_commit:>13} | {limit}"
        )
    print(
        "service = the serve process: loop = its event-loop thread (mirror, JSON, MQTT,"
        " WebSockets), threads = its worker threads (the database calls); events/commit ="
        " events per database transaction (PostgreSQL: distinct xmin of the stored rows)"
    )
    for s in result["steps"]:
        if s["ws_never"]:
            print(f"  at {s['target']:.0f}/s: {s['ws_never']} events never shown on the WebSocket")
    p = result["probe"]
    load = result["load"]
    print(
        f"\nmax sustained (kept up, ws p99 < {P99_AIM_MS:.0f} ms): {result['max_sustained']:,.0f}"
        f" events/s (step {result['max_sustained_target']:.0f}); highest held:"
        f" {result['max_held']:,.0f} events/s (offered {result['max_held_at_offered']:,.0f})"
    )
    line = f"sent {result['sent']:,}, stored {result['stored']:,}"
    if drain["seconds"] is None:
        line += ", NOT drained in time"
    else:
        line += f", all stored {drain['seconds']} s after the ramp"
    if "events_per_s" in drain:
        line += (
            f" (the backlog of {drain['backlog_at_ramp_end']:,} at the ramp's end was stored at"
            f" {drain['events_per_s']:,.0f} events/s with the load stopped)"
        )
    collector = result["service_collector"]
    if collector:
        line += f"; objects kept out of full collections {collector['objects']:,}"
    print(
        line + f"; service RSS {result['service_rss_mb']} MB; service log warnings"
        f" {result['service_warnings']}"
    )
    print(
        f"probe: {p['visible_events_seen']:,} visible events timed, {p['invisible_events']:,}"
        f" invisible, {p['never_seen']} never seen; {p['ws_messages']:,} WebSocket messages"
        f" ({p['repeated_states']:,} repeated states, {p['unmatched_states']} unmatched,"
        f" {p['snapshots']} snapshots); MQTT holes {p['mqtt_holes']} (tables given up"
        f" {p['tables_given_up']}), duplicates"
        f" {p['mqtt_duplicates']}; load lagged {load['behind']} times, games exhausted"
        f" {load['exhausted']}; bridges: {load['bridges']}"
    )
    for line in result["service_warning_sample"]:
        print(f"  service: {line[:200]}")
    for note in result["notes"]:
        print(f"  note: {note}")


# --- its rows in `mjtable bench`'s table ------------------------------------------------


def at_rate(steps: list[dict[str, Any]], target: float) -> dict[str, Any] | None:
    return next((s for s in steps if s["target"] == target), None)


def summary_rows(f: dict[str, Any]) -> list[cells.Row]:
    n = f["tables"]
    tables = f"{n} table{'s' if n > 1 else ''}"
    steps = f["steps"]
    ramp = "/".join(cells.rate(s["target"]) for s in steps)
    rows: list[cells.Row] = [
        (
            f"service, {tables}: highest held (ramp {ramp}/s, {f['step_seconds']:.0f} s steps)",
            cells.rate(f["max_held"]),
            "events/s",
            f"{cells.times(f['max_held'] / CLUB_RATE)} a 50-table club ({CLUB_RATE}/s);"
            f" offered {cells.rate(f['max_held_at_offered'])}",
        ),
        (
            f"service, {tables}: highest kept up with WebSocket p99 < {P99_AIM_MS:.0f} ms",
            cells.rate(f["max_sustained"]),
            "events/s",
            "",
        ),
    ]
    busy = max((s["cpu"].get("other", 0) for s in steps if s["cpu"]), default=0)
    if busy >= OTHER_NOTE:  # the service bench's own measure of a disturbed step
        rows[0] = (*rows[0][:3], f"{rows[0][3]}; other programs took up to {busy}% of a core")
    step = at_rate(steps, CLUB_RATE)
    if step is not None:
        p99 = step["ws_p99_ms"]
        met = p99 is not None and p99 < P99_AIM_MS
        rows.append(
            (
                f"service, {tables}: bridge → WebSocket at {CLUB_RATE}/s offered, p50 / p99",
                f"{cells.msec(step['ws_p50_ms'])} / {cells.msec(p99)}",
                "ms",
                f"aim p99 < {P99_AIM_MS:.0f} ms: {'met' if met else 'missed'};"
                f" held {cells.rate(step['held'])}/s",
            )
        )
    return rows
