// @ts-check
// table.html?t=<table>: one table's scoreboard, live over /api/tables/{t}/ws.

import { announce, setupSpeakButton } from "./announce.js";
import { getJSON, LiveSocket, TABLE_PATTERN } from "./api.js";
import { Banners } from "./banners.js";
import { renderBoard } from "./board.js";
import { $, fill, h, morph, param } from "./dom.js";
import { t } from "./i18n.js";
import { ConnectionView, setupPage } from "./ui.js";

const FLASH_MS = 6000;

const table = param("t");
let state = null;
let known = false; // a snapshot has been received (state may still be null: no such table yet)
const flash = new Map(); // seat -> timer
let frame = 0;

const boardWrap = $("#board-wrap");
const banners = new Banners($("#hand-banner"), $("#toasts"), () => state);
const connection = new ConnectionView();

function scheduleRender() {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    render();
  });
}

function render() {
  document.title = table ? `${table} · ${t("app.name")}` : t("app.name");
  fill($("#title"), table ? `${t("nav.table")} ${table}` : t("nav.table"));
  const meta = $("#meta");
  if (!table || !TABLE_PATTERN.test(table)) {
    fill(boardWrap, h("div", { class: "notice" }, t("no_table.param")));
    fill(meta);
    return;
  }
  if (!state) {
    fill(boardWrap, h("div", { class: "notice" }, known ? t("no_table", { t: table }) : t("loading"),
      known ? h("div", { class: "notice-sub" }, t("table.waiting")) : null));
    fill(meta);
    return;
  }
  fill(meta,
    h("span", null, t("hands.played", { n: state.hands ?? 0 })),
    state.session_id ? h("a", { href: `session.html?id=${encodeURIComponent(state.session_id)}` }, t("table.session")) : null);
  const offline = state.online === false;
  document.body.classList.toggle("is-offline", offline);
  const label = $("#offline-label");
  label.hidden = !offline;
  fill(label, h("strong", null, t("conn.offline")), h("span", null, t("conn.offline.detail")));
  renderSeating();
  const board = renderBoard(state, { flash: new Set(flash.keys()) });
  const shown = boardWrap.firstElementChild;
  if (shown?.classList.contains("board") && boardWrap.childElementCount === 1) morph(shown, board);
  else fill(boardWrap, board);
}

let seatingShown = ""; // the names the QR codes were drawn for ("": none drawn)

/** Before the session's first shuffle: a QR code per seat, which a player scans to take it
 *  on their phone (sit.html). Each code works once, so the codes are drawn anew whenever
 *  they change (`seating_key`: a code used, the service restarted), and the panel goes at
 *  the first shuffle. */
function renderSeating() {
  const panel = $("#seating");
  const names = state?.seating;
  const idle = !state?.hand || state.hand.phase === "over";
  if (!names || !idle) {
    panel.hidden = true;
    if (seatingShown) fill(panel);
    seatingShown = "";
    return;
  }
  panel.hidden = false;
  const key = `${state.seating_key}:${names.join("\u0000")}:${document.documentElement.lang}`;
  if (key === seatingShown) return;
  seatingShown = key;
  const base = `/api/tables/${encodeURIComponent(table)}/seats`;
  fill(panel,
    h("h2", { id: "seating-title" }, t("seating.title")),
    h("p", { class: "seating-sub" }, t("seating.sub")),
    h("ol", { class: "seating-seats" }, names.map((name, seat) =>
      h("li", { class: "seating-seat" },
        h("img", { src: `${base}/${seat}/qr.svg`, alt: t("seating.qr", { seat: t("seat", { n: seat }) }), width: 200, height: 200 }),
        h("span", { class: "seating-label" }, t("seat", { n: seat })),
        h("strong", { class: "seating-name" }, name)))));
}

function flashSeat(seat) {
  clearTimeout(flash.get(seat));
  flash.set(seat, setTimeout(() => {
    flash.delete(seat);
    scheduleRender();
  }, FLASH_MS));
}

async function refetch() {
  try {
    state = await getJSON(`/api/tables/${encodeURIComponent(table)}`);
  } catch (exc) {
    if (exc.status === 404) state = null;
    else return;
  }
  known = true;
  scheduleRender();
}

/** A page opened (or reconnected) after a hand ended: show that hand's result again. */
async function showLastHand() {
  if (banners.hand || state?.hand?.phase !== "over") return;
  try {
    const [last] = await getJSON(`/api/tables/${encodeURIComponent(table)}/hands?limit=1`);
    if (last && !banners.hand && state?.hand?.phase === "over") banners.showHand({ ...last, hand: last.hand_no });
  } catch {
    // no banner then
  }
}

function onMessage(message) {
  switch (message.type) {
    case "snapshot":
      state = message.state ?? null;
      known = true;
      banners.onState(state);
      showLastHand();
      break;
    case "state":
      state = message.state;
      known = true;
      banners.onState(state);
      break;
    case "hand":
      banners.showHand(message.record);
      announce(message.record, state);
      break;
    case "violation":
      banners.toast("violation", message.record);
      flashSeat(message.record.seat);
      break;
    case "fault":
      banners.toast("fault", message.record);
      break;
    case "resync":
    case "ruling": // a referee's ruling re-derived the records: read them anew
      refetch();
      break;
    default:
      return;
  }
  scheduleRender();
}

setupPage(() => {
  render();
  banners.refresh();
});
setupSpeakButton($("#speak"));

if (table && TABLE_PATTERN.test(table)) {
  new LiveSocket(`/api/tables/${encodeURIComponent(table)}/ws`, {
    onMessage,
    onStatus: (status, info) => connection.set(status, info),
  });
} else {
  connection.set("live");
}
