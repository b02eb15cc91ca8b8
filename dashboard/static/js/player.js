// @ts-check
// player.html?id=<id>: one player's figures (phone first), over all time, a month or a
// day: the records' own (GET /api/players/{id}/stats), so a referee's ruling moves them.
// The violations by code and the 台 items won most often are named from the vocabulary.

import { getJSON } from "./api.js";
import { $, fill, h, param } from "./dom.js";
import { money, t } from "./i18n.js";
import { SENSED, SHOWN, WAIT_SHAPES, figureName, figureText } from "./figures.js";
import { setupPage } from "./ui.js";
import { itemName, violationRule } from "./vocabulary.js";

const SPANS = { all: null, month: 30 * 86400, day: 86400 };
const id = Number(param("id"));
let span = "all";
let player = null;
let stats = null;
let biggest = null; // the biggest win's hand row (its session and number)
let hands = []; // the newest hands, oldest first (GET /api/players/{id}/hands)
const charts = new Map(); // container id -> uPlot
let failed = null;

async function load() {
  const query = new URLSearchParams();
  if (SPANS[span]) query.set("since", String(Math.floor(Date.now() / 1000) - SPANS[span]));
  try {
    [player, stats] = await Promise.all([getJSON(`/api/players/${id}`), getJSON(`/api/players/${id}/stats?${query}`)]);
    biggest = stats.biggest_hand ? await getJSON(`/api/hands/${stats.biggest_hand}`) : null;
    hands = await getJSON(`/api/players/${id}/hands?limit=1000`);
    failed = null;
  } catch (exc) {
    failed = exc;
  }
  render();
}

function renderForm() {
  const form = $("#span-form");
  if (!form.childElementCount) {
    form.addEventListener("submit", (e) => e.preventDefault());
    fill(form, h("label", { class: "field" }, h("span", { class: "span-label" }),
      h("select", { name: "span", on: { change: (e) => { span = e.currentTarget.value; load(); } } },
        Object.keys(SPANS).map((k) => h("option", { value: k, "data-span": k })))));
  }
  form.querySelector(".span-label").textContent = t("pl.span");
  for (const option of form.querySelectorAll("[data-span]")) option.textContent = t(`pl.span.${option.dataset.span}`);
}

function renderFigures() {
  renderForm();
  if (failed) {
    document.title = `${t("pl.one")} · ${t("app.name")}`;
    fill($("#figures"), h("p", { class: "muted" }, failed.status === 404 ? t("pl.none", { id }) : t("pl.unreachable")));
    return;
  }
  if (!player || !stats) return;
  document.title = `${player.name} · ${t("app.name")}`;
  fill($("#name"), player.name, player.nickname ? h("span", { class: "muted" }, ` ${player.nickname}`) : null);
  fill($("#figures"), SHOWN.map(figureBox));
  fill($("#sensed"), SENSED.map(figureBox));
  const waits = WAIT_SHAPES.filter((shape) => stats.wait_shapes[shape]);
  const single = ["single", "edge", "closed"].reduce((n, shape) => n + (stats.wait_shapes[shape] || 0), 0);
  const total = waits.reduce((n, shape) => n + stats.wait_shapes[shape], 0);
  fill($("#waits"),
    h("h3", null, t("pl.waits")),
    waits.length
      ? [h("p", null, t("pl.waits.single", { n: single, m: total - single - (stats.wait_shapes.other || 0) })),
        h("ul", { class: "player-waits" }, waits.map((shape) => h("li", { "data-wait": shape }, `${t(`wait.${shape}`)} × ${stats.wait_shapes[shape]}`)))]
      : h("p", { class: "muted" }, "—"));
  const codes = Object.entries(stats.violations);
  fill($("#details"),
    h("p", null, t("pl.biggest"), " ", biggest
      ? h("a", { href: `session.html?id=${biggest.session_id}&hand=${biggest.hand_no}` }, t("pl.biggest.hand", { tai: stats.biggest_tai, hand: biggest.hand_no }))
      : "—"),
    h("h3", null, t("pl.items")),
    stats.top_items.length
      ? h("ul", { class: "player-items" }, stats.top_items.map((item) => h("li", null, `${itemName({ id: item.id })} × ${item.wins}`)))
      : h("p", { class: "muted" }, "—"),
    h("h3", null, t("pl.violations")),
    codes.length
      ? h("ul", { class: "player-violations" }, codes.map(([code, n]) => h("li", { "data-code": code }, `${violationRule(code)[0]} × ${n}`)))
      : h("p", { class: "muted" }, t("pl.violations.none")));
}

function figureBox(key) {
  return h("div", { class: "figure", "data-figure": key },
    h("span", { class: "figure-name" }, figureName(key)),
    h("strong", { class: `figure-value${key === "net" ? (stats.net >= 0 ? " up" : " down") : ""}` }, figureText(key, stats[key])));
}

const AXIS = {
  stroke: "#b4c4bb",
  grid: { stroke: "rgba(255,255,255,0.08)" },
  ticks: { stroke: "rgba(255,255,255,0.15)" },
  font: "13px 'Noto Sans TC UI', 'Noto Sans TC', sans-serif",
};

/** One chart over the hands (x: the n-th hand of those shown); `value` writes a y. */
function drawChart(where, label, ys, value, points) {
  charts.get(where)?.destroy();
  charts.delete(where);
  const uPlot = /** @type {any} */ (window).uPlot; // vendored, a plain script
  const container = $(`#${where}`);
  if (!uPlot || !hands.length) {
    fill(container, hands.length ? null : h("p", { class: "muted" }, t("pl.no_hands")));
    return;
  }
  fill(container);
  const width = Math.max(280, container.clientWidth);
  const opts = {
    width,
    height: Math.round(Math.min(300, Math.max(180, width * 0.3))),
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: false } },
    axes: [
      { ...AXIS, values: (_, splits) => splits.map((v) => (Number.isInteger(v) ? String(v + 1) : "")) },
      { ...AXIS, size: 70, values: (_, splits) => splits.map((v) => (points && !Number.isInteger(v) ? "" : value(v))) },
    ],
    series: [
      { label: t("pl.hand_n"), value: (_, v) => (v === null ? "" : String(v + 1)) },
      { label, stroke: "#ffd24a", width: points ? 0 : 2, value: (_, v) => (v === null ? "" : value(v)),
        points: { show: points || hands.length < 60, size: 7, fill: "#ffd24a" } },
    ],
  };
  charts.set(where, new uPlot(opts, [hands.map((_, i) => i), ys], container));
}

function drawCharts() {
  let total = 0;
  const running = hands.map((hand) => (total += hand.net));
  drawChart("net-chart", t("pl.chart.net"), running, (v) => money(v), false);
  drawChart("tai-chart", t("pl.chart.tai"), hands.map((hand) => (hand.won ? hand.tai : null)), (v) => String(v), true);
}

function render() {
  renderFigures();
  if (player && stats && !failed) drawCharts();
}

let resizing = null;
window.addEventListener("resize", () => {
  clearTimeout(resizing);
  resizing = setTimeout(() => player && stats && !failed && drawCharts(), 150); // the charts' width
});

$("#conn").hidden = true;
setupPage(render);
load();
