// @ts-check
// index.html: every table at a glance (50 on one screen), live over /api/ws.

import { getAll, getJSON, LiveSocket } from "./api.js";
import { dealerLabel, playerName, roundLabel } from "./board.js";
import { $, fill, h } from "./dom.js";
import { money, t } from "./i18n.js";
import { ConnectionView, setupPage } from "./ui.js";

const REFRESH_VIOLATIONS_MS = 30_000;
const CARD_RATIO = 1.3; // a card's width to its height
const tables = new Map(); // table -> state
const openViolations = new Map(); // table -> count
const recent = new Map(); // table -> {kind, until}: a card lights up after a hand or a breach
let frame = 0;

const grid = $("#grid");
const summary = $("#summary");
const connection = new ConnectionView();

function status(state) {
  if (state.online === false) return "offline";
  const phase = state.hand?.phase;
  if (state.hand && phase !== "over" && phase !== "idle") return "playing";
  return "idle";
}

function leader(state) {
  const totals = state.totals ?? [];
  let best = -1;
  totals.forEach((n, seat) => {
    if (n > 0 && (best < 0 || n > totals[best])) best = seat;
  });
  return best;
}

function card(state) {
  const st = status(state);
  const hand = state.hand;
  const lead = leader(state);
  const violations = openViolations.get(state.table) ?? 0;
  const flash = recent.get(state.table);
  const drawable = hand && st === "playing" ? hand.drawable ?? 0 : null;
  const bar = drawable === null ? null : h("div", { class: "card-bar" }, h("span", { class: "card-bar-fill" }));
  if (bar) bar.firstChild.style.width = `${Math.max(0, Math.min(100, (drawable / 112) * 100)).toFixed(0)}%`;
  return h("a", {
    class: ["club-card", `club-card--${st}`, flash && Date.now() < flash.until && `club-card--${flash.kind}`],
    href: `table.html?t=${encodeURIComponent(state.table)}`,
  }, h("div", { class: "card-inner" },
  h("div", { class: "card-head" },
    h("span", { class: "card-name" }, state.table),
    h("span", { class: `card-status card-status--${st}` }, t(`club.state.${st}`))),
  h("div", { class: "card-round" }, roundLabel(state)),
  h("div", { class: "card-line" },
    h("span", { class: "card-label" }, t("club.dealer")),
    h("span", { class: "card-value" }, playerName(state, state.dealer)),
    state.streak > 0 ? h("span", { class: "card-badge" }, dealerLabel(state.streak)) : null),
  h("div", { class: "card-line" },
    h("span", { class: "card-label" }, t("club.leader")),
    lead >= 0
      ? [h("span", { class: "card-value" }, playerName(state, lead)), h("span", { class: "card-money" }, money(state.totals[lead]))]
      : h("span", { class: "card-value card-value--none" }, "—")),
  h("div", { class: "card-foot" },
    drawable !== null ? h("span", { class: "card-left" }, t("tiles.drawable", { n: drawable })) : h("span", { class: "card-left" }, t("hands.played", { n: state.hands ?? 0 })),
    violations ? h("span", { class: "card-violations" }, t("club.violations", { n: violations })) : null),
  bar));
}

function layout(count) {
  // As many cards as there are tables, filling the screen whether 1 table or 50 (no
  // scrolling on a TV): the number of columns that makes the cards largest at about
  // CARD_RATIO, the rows sharing the whole height; a card's text scales with its size.
  if (window.matchMedia("(max-width: 760px)").matches || count === 0) {
    grid.style.gridTemplateColumns = "";
    grid.style.gridTemplateRows = "";
    return;
  }
  const box = grid.getBoundingClientRect();
  const height = Math.max(200, window.innerHeight - box.top - 8);
  let best = { cols: 1, size: 0 };
  for (let cols = 1; cols <= count; cols += 1) {
    const size = Math.min(box.width / cols, (height / Math.ceil(count / cols)) * CARD_RATIO);
    if (size > best.size + 0.5) best = { cols, size };
  }
  grid.style.gridTemplateColumns = `repeat(${best.cols}, minmax(0, 1fr))`;
  grid.style.gridTemplateRows = `repeat(${Math.ceil(count / best.cols)}, minmax(0, 1fr))`;
}

function render() {
  frame = 0;
  document.title = `${t("club.title")} · ${t("app.name")}`;
  const states = [...tables.values()].sort((a, b) => a.table.localeCompare(b.table, "en", { numeric: true }));
  const counts = { playing: 0, idle: 0, offline: 0 };
  for (const s of states) counts[status(s)] += 1;
  const totalOpen = [...openViolations.values()].reduce((a, b) => a + b, 0);
  fill(summary,
    h("span", { class: "sum sum--all" }, t("club.tables", { n: states.length })),
    h("span", { class: "sum sum--playing" }, t("club.playing", { n: counts.playing })),
    h("span", { class: "sum sum--idle" }, t("club.idle", { n: counts.idle })),
    h("span", { class: "sum sum--offline" }, t("club.offline", { n: counts.offline })),
    h("a", { class: ["sum", "sum--violations", totalOpen && "sum--alert"], href: "referee.html" }, t("club.open_violations", { n: totalOpen })));
  if (!states.length) {
    fill(grid, h("div", { class: "notice" }, t("club.empty")));
  } else {
    fill(grid, states.map(card));
  }
  layout(states.length);
}

function scheduleRender() {
  if (!frame) frame = requestAnimationFrame(render);
}

async function refreshViolations() {
  try {
    const rows = await getAll("/api/violations?status=open");
    openViolations.clear();
    for (const row of rows) openViolations.set(row.table, (openViolations.get(row.table) ?? 0) + 1);
    scheduleRender();
  } catch {
    // keep the counts we have; the next refresh tries again
  }
}

function light(table, kind, seconds) {
  recent.set(table, { kind, until: Date.now() + seconds * 1000 });
  setTimeout(scheduleRender, seconds * 1000 + 50);
}

function onMessage(message) {
  switch (message.type) {
    case "snapshot":
      tables.clear();
      for (const state of message.tables ?? []) tables.set(state.table, state);
      refreshViolations();
      break;
    case "state":
      if (message.state) tables.set(message.table, message.state);
      break;
    case "violation":
      openViolations.set(message.table, (openViolations.get(message.table) ?? 0) + 1);
      light(message.table, "violation", 8);
      break;
    case "hand":
      light(message.table, "hand", 10);
      break;
    case "fault":
      light(message.table, "fault", 8);
      break;
    case "ruling": // a verdict may close or reopen a violation: count them again
      refreshViolations();
      break;
    case "resync":
      getJSON("/api/tables").then((states) => {
        tables.clear();
        for (const state of states) tables.set(state.table, state);
        scheduleRender();
      }).catch(() => {});
      break;
    default:
      return;
  }
  scheduleRender();
}

setupPage(render);
window.addEventListener("resize", scheduleRender);
setInterval(refreshViolations, REFRESH_VIOLATIONS_MS);
new LiveSocket("/api/ws", { onMessage, onStatus: (status, info) => connection.set(status, info) });
