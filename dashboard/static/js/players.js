// @ts-check
// players.html: the club's leaderboard (a figure over a span, with a minimum of hands)
// and the list of players, each a link to their page. Public reads, no token.

import { getJSON } from "./api.js";
import { $, fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { RANKED, figureName, figureText } from "./figures.js";
import { setupPage } from "./ui.js";

const SPANS = { all: null, day: 86400, month: 30 * 86400 };
let figure = "net";
let span = "all";
let minHands = 0;
let board = null;
let players = null;
let failed = false;

function since() {
  const seconds = SPANS[span];
  // to the minute: the service keeps the figures of a span it counted (until a hand or a
  // ruling changes them), and a span that moved by a second would be counted again
  return seconds ? Math.floor(Date.now() / 60_000) * 60 - seconds : null;
}

async function load() {
  const query = new URLSearchParams({ figure, min_hands: String(minHands) });
  if (since() !== null) query.set("since", String(since()));
  try {
    [board, players] = await Promise.all([getJSON(`/api/leaderboard?${query}`), getJSON("/api/players")]);
    failed = false;
  } catch {
    failed = true;
  }
  render();
}

const playerLink = (p) => h("a", { href: `player.html?id=${p.id}` }, p.name);

function renderForm() {
  const form = $("#board-form");
  if (form.childElementCount) return; // drawn once: its fields keep what was chosen
  const changed = () => {
    figure = form.elements.namedItem("figure").value;
    span = form.elements.namedItem("span").value;
    minHands = Math.max(0, Number(form.elements.namedItem("min_hands").value) || 0);
    load();
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault(); // Enter in a field: the board again, not a page load
    changed();
  });
  fill(form,
    h("label", { class: "field" }, h("span", { "data-i18n": "pl.figure" }, t("pl.figure")),
      h("select", { name: "figure", on: { change: changed } }, RANKED.map((k) => h("option", { value: k, "data-fig": k }, figureName(k))))),
    h("label", { class: "field" }, h("span", { "data-i18n": "pl.span" }, t("pl.span")),
      h("select", { name: "span", on: { change: changed } }, Object.keys(SPANS).map((k) => h("option", { value: k, "data-span": k }, t(`pl.span.${k}`))))),
    h("label", { class: "field" }, h("span", { "data-i18n": "pl.min_hands" }, t("pl.min_hands")),
      h("input", { name: "min_hands", type: "number", min: 0, step: 1, inputmode: "numeric", value: 0, on: { change: changed } })));
}

function render() {
  document.title = `${t("pl.title")} · ${t("app.name")}`;
  renderForm();
  for (const option of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-fig]"))) option.textContent = figureName(option.dataset.fig);
  for (const option of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-span]"))) option.textContent = t(`pl.span.${option.dataset.span}`);
  if (failed) {
    fill($("#board"), h("p", { class: "muted" }, t("pl.unreachable")));
    return;
  }
  const csv = new URLSearchParams();
  if (since() !== null) csv.set("since", String(since()));
  $("#csv").href = `/api/players.csv${csv.size ? `?${csv}` : ""}`; // the span chosen
  if (!board) return;
  fill($("#board"), board.length
    ? h("table", { class: "grid-table leaderboard" },
      h("thead", null, h("tr", null, h("th", null, "#"), h("th", null, t("pl.player")), h("th", null, figureName(figure)), h("th", null, figureName("hands")))),
      h("tbody", null, board.map((s) => h("tr", null,
        h("td", null, String(s.rank)), h("td", null, playerLink(s.player)),
        h("td", { class: "num" }, figureText(figure, s.value)), h("td", { class: "num" }, String(s.hands))))))
    : h("p", { class: "muted" }, t("pl.board.empty")));
  fill($("#list"), players?.length
    ? h("ul", { class: "player-list" }, players.map((p) => h("li", null, playerLink(p),
      p.nickname ? h("span", { class: "muted" }, ` ${p.nickname}`) : null,
      p.member_no ? h("span", { class: "muted" }, ` #${p.member_no}`) : null)))
    : h("p", { class: "muted" }, t("pl.list.empty")));
}

$("#conn").hidden = true; // the figures are read, not followed live
setupPage(render);
load();
