// @ts-check
// session.html?id=<id>: standings, each hand with its payments, the running score chart
// (uPlot, vendored), and a finished hand stepped through event by event (GET
// /api/hands/{id}/events; a service without that route answers 404 and the stepper is
// hidden); &hand=<hand no>&at=<boot_id>.<seq> opens that hand's stepper at that event.
// Without an id: the list of sessions.

import { ApiError, getAll, getJSON, LiveSocket, reloader } from "./api.js";
import { dealerLabel, playerName, renderBoard } from "./board.js";
import { $, fill, h, param } from "./dom.js";
import { dateTime, lang, money, t, tileName, windName } from "./i18n.js";
import { foldHand } from "./replay.js";
import { codeOfId, tile } from "./tiles.js";
import { ConnectionView, setupPage } from "./ui.js";
import { choiceName, faultRule, itemName, switchName, violationRule } from "./vocabulary.js";

const SEAT_COLOURS = ["#ffd24a", "#3ee6ff", "#ff7aa8", "#52e58f"];
const PLAY_MS = 700;

const id = param("id");
let data = null; // {session, standings, ledger, hands, violations, faults}
let head = null; // {session, standings}: shown while the rest of the first load comes
let failure = null;
let eventsRoute = "unknown"; // "unknown" | "yes" | "no"
let chart = null;
let stepper = null; // {hand, steps, index, timer}

// --- loading ---------------------------------------------------------------------------

async function allHands(table, sessionId) {
  const hands = [];
  let before = null;
  for (;;) {
    const query = new URLSearchParams({ session_id: String(sessionId), limit: "1000" });
    if (before) query.set("before", String(before));
    const page = await getJSON(`/api/tables/${encodeURIComponent(table)}/hands?${query}`);
    hands.push(...page);
    if (page.length < 1000) break;
    before = page[page.length - 1].id;
  }
  return hands.reverse(); // oldest first
}

async function load() {
  try {
    const detail = await getJSON(`/api/sessions/${encodeURIComponent(id)}`);
    const session = detail.session;
    if (!data) {
      head = { session, standings: detail.standings };
      render(); // the players, the rules and the standings now; the chart and hands below
    }
    const [ledger, hands, violations, faults, rulings, live] = await Promise.all([
      getJSON(`/api/sessions/${encodeURIComponent(id)}/ledger`),
      allHands(session.table, session.id),
      getAll(`/api/violations?session_id=${encodeURIComponent(id)}`),
      getAll(`/api/faults?session_id=${encodeURIComponent(id)}`),
      getAll(`/api/rulings?session_id=${encodeURIComponent(id)}`),
      getJSON(`/api/tables/${encodeURIComponent(session.table)}`).catch(() => null),
    ]);
    data = { session, standings: detail.standings, ledger, hands, violations, faults, rulings, firstDealer: firstDealer(session, hands, live) };
    failure = null;
    if (eventsRoute === "unknown" && hands.length) probeEvents(hands[0].id);
  } catch (exc) {
    failure = exc;
  }
  render();
}

/** The round's first dealer (起莊位), which numbers the hands of a round (第N局): the live
 *  table's while this session plays, else the 定莊 of a session started at its defaults
 *  (its first hand's dealer), else the session's own. */
function firstDealer(session, hands, live) {
  if (live && live.session_id === session.id && Number.isInteger(live.start_seat)) return live.start_seat;
  const fresh = session.streak === 0 && session.round_wind === "E" && session.dealer === session.start_seat;
  return fresh && hands.length ? hands[0].dealer : session.start_seat;
}

async function probeEvents(handId) {
  try {
    await getJSON(`/api/hands/${handId}/events`);
    eventsRoute = "yes";
  } catch (exc) {
    eventsRoute = exc instanceof ApiError && (exc.status === 404 || exc.status === 405) ? "no" : "unknown";
  }
  if (data && !failure) renderHands();
  else render();
}

// --- the running score -----------------------------------------------------------------

/** Each seat's running total after every hand and correction, from the ledger. */
export function scoreSeries(ledger, hands) {
  const handNo = new Map(hands.map((row) => [row.id, row.hand_no]));
  const groups = [];
  const index = new Map();
  let totals = [0, 0, 0, 0];
  for (const line of ledger) {
    const key = line.hand_id !== null ? `h${line.hand_id}` : `c${line.correction_id ?? line.log_id}`;
    let group = index.get(key);
    if (!group) {
      group = { key, hand_id: line.hand_id, totals: [...totals] };
      index.set(key, group);
      groups.push(group);
    }
    group.totals[line.seat] = line.total;
    totals = group.totals;
  }
  const labels = [t("session.start"), ...groups.map((g) => (g.hand_id !== null ? `${handNo.get(g.hand_id) ?? "?"}` : t("session.correction")))];
  const xs = labels.map((_, i) => i);
  const ys = [0, 1, 2, 3].map((seat) => [0, ...groups.map((g) => g.totals[seat])]);
  const byHand = new Map(groups.filter((g) => g.hand_id !== null).map((g, i) => [g.hand_id, g.totals]));
  return { labels, xs, ys, groups, byHand };
}

function drawChart(container, series, session) {
  if (chart) {
    chart.destroy();
    chart = null;
  }
  const uPlot = /** @type {any} */ (window).uPlot; // vendored, a plain script
  if (!uPlot) return;
  const width = Math.max(280, container.clientWidth);
  const opts = {
    width,
    height: Math.round(Math.min(380, Math.max(220, width * 0.32))),
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: false } },
    axes: [
      {
        stroke: "#b4c4bb",
        grid: { stroke: "rgba(255,255,255,0.08)" },
        ticks: { stroke: "rgba(255,255,255,0.15)" },
        values: (_, splits) => splits.map((v) => (Number.isInteger(v) ? series.labels[v] ?? "" : "")),
        font: "13px 'Noto Sans TC UI', 'Noto Sans TC', sans-serif",
      },
      {
        stroke: "#b4c4bb",
        grid: { stroke: "rgba(255,255,255,0.08)" },
        ticks: { stroke: "rgba(255,255,255,0.15)" },
        values: (_, splits) => splits.map((v) => money(v)),
        size: 70,
        font: "13px 'Noto Sans TC UI', 'Noto Sans TC', sans-serif",
      },
    ],
    series: [
      { label: t("session.col.hand"), value: (_, v) => (v === null ? "" : series.labels[v] ?? "") },
      ...[0, 1, 2, 3].map((seat) => ({
        label: playerName(session, seat),
        stroke: SEAT_COLOURS[seat],
        width: 3,
        points: { show: series.xs.length < 60, size: 7, fill: SEAT_COLOURS[seat] },
        value: (_, v) => (v === null ? "" : money(v)),
      })),
    ],
  };
  chart = new uPlot(opts, [series.xs, ...series.ys], container);
}

// --- rendering -------------------------------------------------------------------------

function resultText(hand, session) {
  const who = (seat) => playerName(session, seat);
  switch (hand.result) {
    case "drawn":
      return t("hand.drawn");
    case "false_win":
      return `${t("hand.false_win")} · ${who(hand.seat)}`;
    case "flower_win":
      return `${t("hand.flower_win")} · ${who(hand.seat)}`;
    default:
      if (hand.kind === "self_draw") return `${t("hand.self_draw")} · ${who(hand.seat)}`;
      return `${t("hand.win")} · ${who(hand.seat)}${hand.payer !== null ? ` ← ${who(hand.payer)}` : ""}`;
  }
}

function standingsView(standings, session) {
  const rows = [...standings].sort((a, b) => b.total - a.total);
  return h("table", { class: "grid-table standings" },
    h("thead", null, h("tr", null,
      h("th", null, "#"),
      ["player", "total", "hands", "wins", "self_draws", "dealt_in", "false_wins"].map((c) =>
        h("th", { class: c === "player" ? "" : "num" }, t(`session.col.${c}`))))),
    h("tbody", null, rows.map((row, i) => h("tr", null,
      h("td", { class: "rank" }, String(i + 1)),
      h("td", { class: "player" }, h("span", { class: "swatch", dataset: { seat: row.seat } }), row.player || playerName(session, row.seat)),
      h("td", { class: ["num", row.total > 0 ? "up" : row.total < 0 ? "down" : ""] }, money(row.total)),
      h("td", { class: "num" }, String(row.hands)),
      h("td", { class: "num" }, String(row.wins)),
      h("td", { class: "num" }, String(row.self_draws)),
      h("td", { class: "num" }, String(row.dealt_in)),
      h("td", { class: "num" }, String(row.false_wins))))));
}

/** The rulings in force (not withdrawn) that revised each hand of this session, by hand
 *  number: a hand a referee's ruling re-derived is marked, with the rulings' ids. */
function revisedHands(rulings, session) {
  const revised = new Map();
  for (const ruling of rulings ?? []) {
    if (ruling.withdrawn_by != null || ruling.kind === "undo") continue;
    for (const [sid, no] of ruling.effect?.revised_hands ?? []) {
      if (sid !== session.id) continue;
      revised.set(no, [...(revised.get(no) ?? []), ruling.id]);
    }
  }
  return revised;
}

/** Each ruling in this session, oldest first: what it was, why, when and by whom, and
 *  what it changed (the hands revised, each seat's money before → after). */
function rulingsView(rulings, session) {
  const rows = [...(rulings ?? [])].sort((a, b) => a.id - b.id);
  if (!rows.length) return null;
  return h("section", { class: "panel" },
    h("h2", null, t("session.rulings")),
    h("table", { class: "grid-table rulings" },
      h("thead", null, h("tr", null, ["id", "kind", "reason", "when", "change"].map((c) =>
        h("th", null, t(`session.ruling.${c}`))))),
      h("tbody", null, rows.map((r) => {
        const money = (r.effect?.money ?? []).find((m) => m.session_id === session.id);
        const hands = (r.effect?.revised_hands ?? []).filter(([sid]) => sid === session.id).map(([, no]) => `#${no}`);
        return h("tr", { class: r.withdrawn_by != null ? "withdrawn" : "" },
          h("td", { class: "num" }, `#${r.id}`),
          h("td", null, t(`session.ruling.kind.${r.kind}`),
            r.withdrawn_by != null ? h("span", { class: "mini-badge" }, t("session.ruling.withdrawn", { id: r.withdrawn_by })) : null),
          h("td", null, String(r.body?.reason ?? r.body?.note ?? "")),
          h("td", null, dateTime(r.at), r.token_id != null ? h("span", { class: "muted" }, ` · ${t("session.ruling.token", { id: r.token_id })}`) : null),
          h("td", null,
            hands.length ? h("span", null, t("session.ruling.hands", { hands: hands.join(" ") })) : null,
            money ? h("ul", { class: "pay-list" }, [0, 1, 2, 3].filter((s) => money.before[s] !== money.after[s]).map((s) =>
              h("li", null, h("span", null, playerName(session, s)),
                h("strong", null, `${money.before[s].toLocaleString("en-US")} → ${money.after[s].toLocaleString("en-US")}`))))
              : null,
            r.kind === "penalty" && r.body?.ledger ? h("ul", { class: "pay-list" }, r.body.ledger.map(([s, amount]) =>
              h("li", null, h("span", null, playerName(session, s)),
                h("strong", null, `${amount > 0 ? "+" : ""}${amount.toLocaleString("en-US")}`))))
              : null));
      }))));
}

const FOLDED_HANDS = 10; // a long session shows its latest hands; the rest on request
let showAllHands = false;

/** The hands table: a session of more than FOLDED_HANDS hands shows its latest, and a
 *  button unfolds the earlier ones (a phone would otherwise scroll metres). */
function handsView(allHands, session) {
  if (!allHands.length) return h("p", { class: "muted" }, t("session.none"));
  const folded = !showAllHands && allHands.length > FOLDED_HANDS;
  const hands = folded ? allHands.slice(-FOLDED_HANDS) : allHands;
  const unfold = folded
    ? h("button", { class: "btn btn--unfold", type: "button", on: { click: () => { showAllHands = true; render(); } } },
      t("session.hands.all", { n: allHands.length, hidden: allHands.length - hands.length }))
    : null;
  return [unfold, h("div", { class: "table-scroll" }, handsTable(hands, session))];
}

function handsTable(hands, session) {
  const revised = revisedHands(data?.rulings, session);
  const canStep = eventsRoute === "yes";
  return h("table", { class: "grid-table hands" },
    h("thead", null, h("tr", null,
      ["hand", "round", "result", "tile", "tai", "payments"].map((c) => h("th", { class: c === "tai" ? "num" : "" }, t(`session.col.${c}`))),
      canStep ? h("th", null, h("span", { class: "sr-only" }, t("session.col.step"))) : null)),
    h("tbody", null, hands.map((hand) => h("tr", { class: `result-row result-row--${hand.result}` },
      h("td", { class: "num" }, String(hand.hand_no),
        revised.has(hand.hand_no)
          ? h("span", { class: "mini-badge revised", title: t("session.revised.title", { ids: revised.get(hand.hand_no).map((i) => `#${i}`).join(" ") }) }, t("session.revised"))
          : null),
      h("td", null, windName(hand.round_wind), " · ", playerName(session, hand.dealer), " ",
        h("span", { class: "mini-badge" }, dealerLabel(hand.streak))),
      h("td", null, resultText(hand, session)),
      h("td", null, hand.winning_tile ? tile(hand.winning_tile, "tile--row") : ""),
      h("td", { class: "num" }, hand.result === "drawn" ? "" : String(hand.tai),
        hand.dealer_tai ? h("span", { class: "muted" }, ` +${hand.dealer_tai}`) : null),
      h("td", null, hand.payments.length
        ? h("ul", { class: "pay-list" }, hand.payments.map((p) => h("li", null,
          h("span", null, `${playerName(session, p.from)} → ${playerName(session, p.to)}`),
          h("strong", null, p.amount.toLocaleString("en-US")))))
        : h("span", { class: "muted" }, "—")),
      canStep ? h("td", null, h("button", { class: "btn", type: "button", on: { click: () => openStepper(hand) } }, t("session.replay"))) : null))));
}

function render() {
  if (!id) return renderList();
  document.title = `${t("session.title", { id })} · ${t("app.name")}`;
  fill($("#title"), t("session.title", { id }));
  const info = $("#info");
  const sections = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".doc-section"));
  if (failure) {
    const message = failure.status === 404 ? t("session.not_found", { id }) : t("load.error", { error: failure.message });
    fill(info, h("p", { class: "notice-inline" }, message));
    for (const el of sections) el.hidden = true;
    return;
  }
  if (!data && !head) {
    fill(info, h("p", { class: "muted" }, t("loading")));
    return;
  }
  const { session, standings } = data ?? head;
  // The sections show only once they have their contents, the chart and the hands (below
  // the rest) last: nothing on screen moves as the session arrives (layout shift).
  const later = [$("#chart").closest("section"), $("#hands").closest("section")];
  for (const el of sections) el.hidden = !data && later.includes(el);
  fill($("#meta"), h("a", { href: `table.html?t=${encodeURIComponent(session.table)}` }, t("session.table", { t: session.table })));
  fill(info,
    h("div", { class: "session-players" }, [0, 1, 2, 3].map((seat) =>
      h("span", { class: "player-chip" }, h("span", { class: "swatch", dataset: { seat } }), playerName(session, seat)))),
    h("div", { class: "session-facts" },
      h("span", null, t("session.stakes", { base: session.base, per_tai: session.per_tai })),
      h("span", null, t("session.profile", { p: session.profile_label })),
      h("span", null, t("session.started", { at: dateTime(session.started_at) })),
      h("span", null, session.ended_at ? t("session.ended", { at: dateTime(session.ended_at) }) : t("session.open")),
      h("a", { href: `/api/sessions/${encodeURIComponent(session.id)}/export?format=csv`, download: true }, t("session.csv"))));
  fill($("#rules"), rulesView(session.rules));
  fill($("#standings"), h("div", { class: "table-scroll" }, standingsView(standings, session)));
  if (!data) return;
  const series = scoreSeries(data.ledger, data.hands);
  drawChart($("#chart"), series, session);
  renderHands();
}

/** The hands (and whether they can be stepped through: the events route answered). */
function renderHands() {
  const note = $("#stepper-note");
  note.hidden = eventsRoute !== "no";
  fill(note, t("step.unavailable"));
  fill($("#hands"), handsView(data.hands, data.session), rulingsView(data.rulings, data.session));
  if (stepper) renderStepper();
}

async function renderList() {
  document.title = `${t("session.list")} · ${t("app.name")}`;
  fill($("#title"), t("session.list"));
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".doc-section"))) el.hidden = true;
  let sessions;
  try {
    sessions = await getAll("/api/sessions");
  } catch (exc) {
    fill($("#info"), h("p", { class: "notice-inline" }, t("load.error", { error: exc.message })));
    return;
  }
  fill($("#info"), h("table", { class: "grid-table" },
    h("tbody", null, [...sessions].reverse().map((s) => h("tr", null,
      h("td", null, h("a", { href: `session.html?id=${s.id}` }, t("session.title", { id: s.id }))),
      h("td", null, t("session.table", { t: s.table })),
      h("td", null, s.players.join("、")),
      h("td", { class: "muted" }, dateTime(s.started_at)),
      h("td", { class: "muted" }, s.ended_at ? dateTime(s.ended_at) : t("session.open")))))));
}

// --- the stepper -----------------------------------------------------------------------

/** `?hand=<hand no>&at=<boot_id>.<seq>` (the referee desk's links): that hand's stepper,
 *  at the step of that event. Once, on the first load. */
let wanted = param("hand") ? { hand: Number(param("hand")), at: param("at") } : null;
function openWanted() {
  if (!wanted || !data) return;
  const { hand: no, at } = wanted;
  wanted = null;
  const hand = data.hands.find((row) => row.hand_no === no);
  if (!hand) return;
  const [boot, seq] = (at ?? "").split(".").map(Number);
  openStepper(hand, Number.isInteger(boot) && Number.isInteger(seq) ? { boot_id: boot, seq } : null);
}

function stepOf(steps, at) {
  const here = (entry) => entry && entry.boot_id === at.boot_id && entry.seq === at.seq;
  const i = steps.findIndex((step) => here(step.entry) || (step.quiet ?? []).some(here));
  return Math.max(0, i);
}

async function openStepper(hand, at = null) {
  let route;
  try {
    route = await getJSON(`/api/hands/${hand.id}/events`);
  } catch (exc) {
    if (exc instanceof ApiError && exc.status === 404) {
      eventsRoute = "no";
      render();
    }
    return;
  }
  const series = scoreSeries(data.ledger, data.hands);
  const index = data.hands.findIndex((row) => row.id === hand.id);
  const before = index > 0 ? series.byHand.get(data.hands[index - 1].id) ?? null : null;
  const after = series.byHand.get(hand.id) ?? null;
  const totalsBefore = after ? after.map((n, seat) => n - hand.net[seat]) : before;
  // The route answers the hand's log entries, in order (a list of LogEntry).
  const entries = Array.isArray(route) ? route : route?.entries ?? [];
  const steps = foldHand({
    hand, session: data.session, firstDealer: data.firstDealer, totalsBefore, totalsAfter: after, entries,
  });
  stepper = { hand, steps, index: at ? stepOf(steps, at) : 0, timer: null };
  $("#stepper").hidden = false;
  document.body.classList.add("has-stepper");
  renderStepper();
}

function closeStepper() {
  if (!stepper) return;
  clearInterval(stepper.timer);
  stepper = null;
  $("#stepper").hidden = true;
  document.body.classList.remove("has-stepper");
}

function go(index) {
  if (!stepper) return;
  stepper.index = Math.max(0, Math.min(stepper.steps.length - 1, index));
  if (stepper.index === stepper.steps.length - 1) stop();
  renderStepper();
}

function stop() {
  if (stepper?.timer) {
    clearInterval(stepper.timer);
    stepper.timer = null;
  }
}

function togglePlay() {
  if (!stepper) return;
  if (stepper.timer) stop();
  else {
    if (stepper.index >= stepper.steps.length - 1) stepper.index = 0;
    stepper.timer = setInterval(() => go(stepper.index + 1), PLAY_MS);
  }
  renderStepper();
}

function describe(entry, state) {
  if (!entry) return [t("phase.shuffling")];
  if (entry.kind !== "event") return [t(entry.kind === "session" ? "ev.session" : entry.kind === "correction" ? "ev.correction" : "ev.other", { kind: entry.kind })];
  const b = entry.body;
  const name = b.seat !== undefined ? playerName(state, b.seat) : "";
  const withTile = (text, id) => [text, " ", tile(codeOfId(id), "tile--caption"), h("span", { class: "muted" }, ` ${tileName(codeOfId(id))}`)];
  switch (b.kind) {
    case "dice_rolled":
      return [t("ev.dice_rolled", { a: b.die_1, b: b.die_2, c: b.die_3, roll: t(`ev.dice.${b.roll}`) })];
    case "tile_drawn":
      return withTile(t(b.end === "back" ? "ev.tile_drawn.back" : "ev.tile_drawn", { name }), b.tile);
    case "tile_discarded":
      return withTile(t("ev.tile_discarded", { name }), b.tile);
    case "flower_revealed":
      return withTile(t("ev.flower_revealed", { name }), b.tile);
    case "meld_exposed":
      return [t("ev.meld_exposed", { name, meld: t(`meld.${b.meld}`) }), " ", h("span", { class: "caption-tiles" }, b.tiles.map((id) => tile(codeOfId(id), "tile--caption")))];
    case "seat_button":
      return [t("ev.seat_button", { name, button: t(`button.${b.button}`) })];
    case "hand_revealed":
      return [t("ev.hand_revealed", { name }), " ", h("span", { class: "caption-tiles" }, b.tiles.map((id) => tile(codeOfId(id), "tile--caption")))];
    case "tiles_shown":
      return [t("ev.tiles_shown", { name }), " ", h("span", { class: "caption-tiles" }, b.tiles.map((id) => tile(codeOfId(id), "tile--caption")))];
    case "tiles_left":
      return [t("ev.tiles_left", { n: b.count })];
    case "fault":
      return [t("ev.fault", { code: b.code })];
    default:
      return [t(`ev.${b.kind}`, { kind: b.kind })];
  }
}

function judgements(entry, state) {
  if (!entry || entry.kind !== "event") return [];
  const at = (row) => row.boot_id === entry.boot_id && row.seq === entry.seq;
  const out = [];
  for (const v of data.violations.filter(at)) {
    const [rule, words] = violationRule(v.code);
    out.push(h("div", { class: "caption-flag caption-flag--violation" },
      h("strong", null, `${t("violation")}: ${rule}`), ` — ${playerName(state, v.seat)}: ${words}`,
      lang() === "en" ? h("div", { class: "muted" }, v.detail) : null));
  }
  for (const f of data.faults.filter(at)) {
    const [rule, words] = faultRule(f.code);
    out.push(h("div", { class: "caption-flag caption-flag--fault" }, h("strong", null, `${t("fault")}: ${rule}`), ` — ${words}`));
  }
  return out;
}

function renderStepper() {
  const root = $("#stepper");
  if (!stepper) return;
  const { steps, index, hand } = stepper;
  const step = steps[index];
  const state = step.picture;
  const range = h("input", {
    type: "range", min: 0, max: steps.length - 1, value: index, class: "step-range",
    "aria-label": t("step.of", { i: index + 1, n: steps.length }),
    on: { input: (e) => go(Number(e.target.value)) },
  });
  const button = (key, action, extra = "") => h("button", { class: `btn ${extra}`, type: "button", on: { click: action } }, t(key));
  fill(root,
    h("div", { class: "stepper-bar" },
      h("h2", null, t("step.title", { n: hand.hand_no })),
      h("span", { class: "muted" }, resultText(hand, data.session)),
      h("span", { class: "topbar-fill" }),
      button("step.close", closeStepper)),
    h("div", { class: "stepper-board" }, renderBoard(state)),
    h("div", { class: "stepper-caption" },
      h("div", { class: "caption-text" }, describe(step.entry, state)),
      judgements(step.entry, state),
      (step.quiet ?? []).flatMap((e) => judgements(e, state))),
    h("div", { class: "stepper-controls" },
      button("step.first", () => go(0)),
      button("step.prev", () => go(index - 1)),
      button(stepper.timer ? "step.pause" : "step.play", togglePlay, "btn--primary"),
      button("step.next", () => go(index + 1)),
      button("step.last", () => go(steps.length - 1)),
      range,
      h("span", { class: "step-count" }, t("step.of", { i: index + 1, n: steps.length }))));
}

document.addEventListener("keydown", (event) => {
  if (!stepper) return;
  const keys = { ArrowRight: 1, ArrowLeft: -1 };
  if (event.key in keys) go(stepper.index + keys[event.key]);
  else if (event.key === "Home") go(0);
  else if (event.key === "End") go(stepper.steps.length - 1);
  else if (event.key === "Escape") closeStepper();
  else if (event.key === " ") togglePlay();
  else return;
  event.preventDefault();
});

// --- start -----------------------------------------------------------------------------

const reloadSoon = reloader(load, 300);

let resizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    if (data) drawChart($("#chart"), scoreSeries(data.ledger, data.hands), data.session);
  }, 150);
});

setupPage(render);
if (id) {
  const connection = new ConnectionView();
  connection.set("connecting");
  load().then(() => {
    openWanted();
    if (!data || data.session.ended_at) {
      $("#conn").hidden = true;
      return;
    }
    // An open session: new hands and corrections appear as they are stored.
    new LiveSocket(`/api/tables/${encodeURIComponent(data.session.table)}/ws`, {
      onMessage: (message) => {
        if (["hand", "ruling", "resync"].includes(message.type)) reloadSoon();
      },
      onStatus: (status, info) => {
        connection.set(status, info);
        if (status === "live") reloadSoon();
      },
    });
  });
} else {
  $("#conn").hidden = true;
}

/** The resolved profile the session is scored by: every 台 value and switch (§7). */
function rulesView(rules) {
  if (!rules) return null;
  const row = (key, value) => h("tr", null, h("th", null, key), h("td", null, String(value)));
  return h("details", { class: "session-rules" },
    h("summary", null, t("session.rules")),
    h("table", { class: "rules-table" },
      h("tbody", null,
        row(switchName("seat_order"), choiceName("seat_order", rules.seat_order)),
        Object.entries(rules.tai).map(([id, value]) => row(`${itemName({ id })} (${id})`, value)),
        Object.entries(rules.rules).map(([key, value]) => row(switchName(key), choiceName(key, value))))));
}
