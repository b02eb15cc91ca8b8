// @ts-check
// sit.html?table=<t>&seat=<n>&code=<c>: a player's phone, opened from the QR code the
// table's page shows for a seat before the session's first shuffle. The player finds
// their name in the club's list (or types a guest's name) and takes the seat; the code is
// the only credential, and it works once (taking the seat again takes a new scan).

import { getJSON, postJSON, TABLE_PATTERN } from "./api.js";
import { $, fill, h, param } from "./dom.js";
import { t } from "./i18n.js";
import { setupPage } from "./ui.js";

const table = param("table");
const seat = Number(param("seat"));
const code = param("code");
const valid = TABLE_PATTERN.test(table ?? "") && [0, 1, 2, 3].includes(seat) && /^[A-Za-z0-9_-]{8,32}$/.test(code ?? "");

let players = null; // the club's list
let seating = null; // GET /api/tables/{t}/seats
let search = "";
let done = null; // the seat as taken
let problem = null; // the last refusal, in the service's words
let busy = false;

async function load() {
  try {
    [players, seating] = await Promise.all([
      getJSON("/api/players"),
      getJSON(`/api/tables/${encodeURIComponent(table)}/seats`),
    ]);
  } catch (exc) {
    problem = exc.message;
  }
  render();
}

async function take(body) {
  if (busy) return;
  busy = true;
  problem = null;
  render();
  try {
    done = await postJSON(`/api/tables/${encodeURIComponent(table)}/seats/${seat}/claim`, { ...body, code });
  } catch (exc) {
    problem = exc.status === 403 ? t("sit.rescan") : exc.message;
  }
  busy = false;
  render();
}

function holder() {
  const held = seating?.seats?.[seat];
  return held ? h("p", null, t("sit.now", { name: held.name })) : null;
}

function playerList() {
  const wanted = search.trim().toLowerCase();
  const shown = (players ?? []).filter((p) =>
    !wanted || p.name.toLowerCase().includes(wanted) || (p.nickname ?? "").toLowerCase().includes(wanted));
  return h("ul", { class: "sit-list" }, shown.map((p) =>
    h("li", null, h("button", { type: "button", class: "sit-player", disabled: busy, on: { click: () => take({ player_id: p.id }) } },
      p.name, p.nickname ? h("span", { class: "muted" }, ` (${p.nickname})`) : null))));
}

function guestForm() {
  const form = h("form", { class: "admin-row sit-guest" },
    h("label", { class: "field" }, h("span", null, t("sit.guest")),
      h("input", { name: "name", maxlength: 64, autocomplete: "nickname", required: true })),
    h("button", { type: "submit", disabled: busy }, t("sit.take")));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = form.elements.namedItem("name").value.trim();
    if (name) take({ name });
  });
  return form;
}

function render() {
  document.title = `${t("sit.title")} · ${t("app.name")}`;
  const status = $("#status");
  const who = $("#who");
  if (!valid) {
    fill($("#where"), t("sit.title"));
    fill(status, t("sit.bad_link"));
    fill(who);
    return;
  }
  fill($("#where"), t("sit.at", { t: table, seat: t("seat", { n: seat }) }));
  if (done) {
    fill(status, t("sit.done", { name: done.name, seat: t("seat", { n: seat }) }));
    fill(who, h("p", null, h("a", { href: `table.html?t=${encodeURIComponent(table)}` }, t("sit.to_table"))));
    return;
  }
  if (seating && !seating.open) {
    fill(status, t("sit.closed"));
    fill(who);
    return;
  }
  fill(status, problem ? t("sit.error", { error: problem }) : busy ? t("loading") : players ? "" : t("loading"));
  const input = h("input", { type: "search", value: search, "aria-label": t("sit.search"), placeholder: t("sit.search"), autocomplete: "off" });
  input.addEventListener("input", () => {
    search = input.value;
    fill($("#sit-players"), playerList());
  });
  fill(who, holder(),
    h("h3", null, t("sit.pick")),
    input,
    h("div", { id: "sit-players" }, playerList()),
    guestForm());
}

setupPage(render);
if (valid) load();
