// referee.html: the referee's desk. A token (kept in sessionStorage, this tab only), the open
// violations to confirm or dismiss, corrections (the next deal, a penalty, a note), and the
// recent corrections and sensor faults. New violations appear live (/api/ws).

import { ApiError, getAll, getJSON, LiveSocket, postJSON } from "./api.js";
import { $, fill, h } from "./dom.js";
import { dateTime, t, windName } from "./i18n.js";
import { ConnectionView, setupPage } from "./ui.js";
import { faultRule, violationRule } from "./vocabulary.js";

const TOKEN_KEY = "mjtable.token";
const WINDS = ["E", "S", "W", "N"];

let violations = [];
let faults = [];
let corrections = [];
let tables = []; // live states, for the table list and players
let sessions = new Map(); // id -> SessionRow
let kind = "deal";
let message = null; // {ok, text}

function token() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? "";
  } catch {
    return "";
  }
}

function setToken(value) {
  try {
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage disabled: nothing kept
  }
}

function errorText(exc) {
  if (exc instanceof ApiError && (exc.status === 401 || exc.status === 403)) return t(`ref.err.${exc.status}`);
  return t("ref.err", { error: exc.message });
}

function say(ok, text) {
  message = { ok, text };
  renderMessage();
}

function renderMessage() {
  for (const el of document.querySelectorAll(".message")) {
    el.className = "message";
    el.replaceChildren();
  }
  if (!message) return;
  const el = $(message.where ?? "#message");
  if (!el) return;
  el.className = `message ${message.ok ? "message--ok" : "message--error"}`;
  el.textContent = message.text;
}

function playersOf(table, sessionId) {
  const session = sessionId ? sessions.get(sessionId) : null;
  if (session) return session.players;
  return tables.find((s) => s.table === table)?.players ?? ["0", "1", "2", "3"];
}

function when(at) {
  return at > 0 ? dateTime(at) : "—";
}

// --- loading ---------------------------------------------------------------------------

async function loadAll() {
  try {
    const [v, f, c, tb, ss] = await Promise.all([
      // With the token: a void declaration shows at once, not when its hand ends.
      getAll("/api/violations?status=open", { token: token() || undefined }),
      getJSON("/api/faults?limit=20"), // the newest, newest first
      getJSON("/api/rulings?limit=20"),
      getJSON("/api/tables"),
      getAll("/api/sessions"),
    ]);
    violations = v;
    faults = f;
    corrections = c;
    tables = tb;
    sessions = new Map(ss.map((s) => [s.id, s]));
  } catch (exc) {
    say(false, t("load.error", { error: exc.message }));
  }
  render();
}

let reloadTimer = null;
function reloadSoon() {
  clearTimeout(reloadTimer);
  reloadTimer = setTimeout(loadAll, 400);
}

// --- actions ---------------------------------------------------------------------------

async function decide(violation, decision, note) {
  if (!token()) {
    say(false, t("ref.need_token"));
    return;
  }
  try {
    await postJSON(`/api/violations/${violation.id}/decision`, { decision, note }, { token: token() });
    say(true, t("ref.decided", { id: violation.id, decision: t(`ref.decision.${decision}`) }));
    violations = violations.filter((v) => v.id !== violation.id);
    render();
  } catch (exc) {
    say(false, errorText(exc));
  }
}

function formBody(form) {
  const value = (name) => form.elements.namedItem(name)?.value ?? "";
  if (kind === "deal") {
    return {
      kind: "deal", dealer: Number(value("dealer")), streak: Number(value("streak")),
      round_wind: Number(value("round_wind")), note: value("note"),
    };
  }
  if (kind === "penalty") {
    return { kind: "penalty", seat: Number(value("seat")), tai: Number(value("tai")), reason: value("reason") };
  }
  return { kind: "note", note: value("note") };
}

async function submitCorrection(event) {
  event.preventDefault();
  const form = event.target;
  message = null;
  if (!token()) {
    message = { ok: false, text: t("ref.need_token"), where: "#correction-message" };
    renderMessage();
    return;
  }
  const table = form.elements.namedItem("table").value;
  try {
    const created = await postJSON(`/api/tables/${encodeURIComponent(table)}/rulings`, formBody(form), { token: token() });
    message = { ok: true, text: t("ref.sent", { id: created.id }), where: "#correction-message" };
    reloadSoon();
  } catch (exc) {
    message = { ok: false, text: errorText(exc), where: "#correction-message" };
  }
  renderMessage();
}

// --- rendering -------------------------------------------------------------------------

function renderToken() {
  const has = Boolean(token());
  const input = h("input", { type: "password", name: "token", autocomplete: "off", spellcheck: "false", placeholder: t("ref.token.hint") });
  const form = h("form", { class: "token-form", on: { submit: (e) => {
    e.preventDefault();
    const value = input.value.trim();
    if (value) {
      setToken(value);
      input.value = "";
      render();
    }
  } } },
  h("label", { class: "field field--wide" }, t("ref.token"), input),
  h("button", { class: "btn btn--primary", type: "submit" }, t("ref.token.save")),
  has ? h("button", { class: "btn", type: "button", on: { click: () => { setToken(""); render(); } } }, t("ref.token.forget")) : null,
  h("span", { class: `token-state token-state--${has ? "set" : "missing"}` }, t(has ? "ref.token.set" : "ref.token.missing")));
  fill($("#token"), form);
}

function renderViolations() {
  const root = $("#violations");
  if (!violations.length) {
    fill(root, h("p", { class: "muted" }, t("ref.open.none")));
    return;
  }
  const rows = [...violations].reverse().map((v) => {
    const players = playersOf(v.table, v.session_id);
    const [rule, words] = violationRule(v.code);
    const note = h("input", { class: "note-input", type: "text", maxlength: 500, placeholder: t("ref.note"), "aria-label": t("ref.note") });
    return h("tr", null,
      h("td", { class: "muted" }, `#${v.id}`, h("div", null, when(v.at))),
      h("td", null, h("a", { href: `table.html?t=${encodeURIComponent(v.table)}` }, v.table)),
      h("td", { class: "who" }, players[v.seat] ?? t("seat", { n: v.seat }), h("div", { class: "muted" }, t("seat", { n: v.seat }))),
      h("td", { class: "rule" }, h("strong", null, rule), words),
      h("td", { class: "detail" }, v.detail),
      h("td", null, h("div", { class: "decide" }, note,
        h("button", { class: "btn btn--danger", type: "button", on: { click: () => decide(v, "confirmed", note.value) } }, t("ref.confirm")),
        h("button", { class: "btn", type: "button", on: { click: () => decide(v, "dismissed", note.value) } }, t("ref.dismiss")))));
  });
  fill(root, h("div", { class: "scroll-x" }, h("table", { class: "grid-table violations-table" },
    h("thead", null, h("tr", null, ["", "ref.col.table", "ref.col.who", "ref.col.rule", "ref.col.detail", "ref.col.action"].map((k) => h("th", null, k ? t(k) : "")))),
    h("tbody", null, rows))));
}

function seatOptions(table) {
  const players = playersOf(table, tables.find((s) => s.table === table)?.session_id ?? null);
  return [0, 1, 2, 3].map((s) => h("option", { value: s }, `${s} · ${players[s]}`));
}

function renderCorrection() {
  const root = $("#correction");
  const names = tables.map((s) => s.table);
  const current = root.querySelector("select[name=table]")?.value ?? names[0] ?? "";
  const tableSelect = h("select", { name: "table", required: true, on: { change: () => renderCorrection() } },
    names.map((n) => h("option", { value: n, selected: n === current }, n)));
  const kindSelect = h("select", { name: "kind", on: { change: (e) => { kind = e.target.value; renderCorrection(); } } },
    ["deal", "penalty", "note"].map((k) => h("option", { value: k, selected: k === kind }, t(`ref.kind.${k}`))));
  const state = tables.find((s) => s.table === current);
  let fields;
  if (kind === "deal") {
    fields = [
      h("label", { class: "field" }, t("ref.dealer"), h("select", { name: "dealer" }, seatOptions(current))),
      h("label", { class: "field" }, t("ref.streak"), h("input", { name: "streak", type: "number", min: 0, max: 100, value: state?.streak ?? 0 })),
      h("label", { class: "field" }, t("ref.round_wind"), h("select", { name: "round_wind" },
        WINDS.map((w, i) => h("option", { value: i, selected: state?.round_wind === w }, windName(w))))),
      h("label", { class: "field field--wide" }, t("ref.note"), h("input", { name: "note", type: "text", maxlength: 500 })),
    ];
    const dealer = fields[0].querySelector("select");
    if (state) dealer.value = String(state.dealer);
  } else if (kind === "penalty") {
    fields = [
      h("label", { class: "field" }, t("ref.offender"), h("select", { name: "seat" }, seatOptions(current))),
      h("label", { class: "field" }, t("ref.tai"), h("input", { name: "tai", type: "number", min: 0, max: 100, value: 0 })),
      h("label", { class: "field field--wide" }, t("ref.reason"), h("input", { name: "reason", type: "text", maxlength: 200, required: true })),
    ];
  } else {
    fields = [h("label", { class: "field field--wide" }, t("ref.note"), h("textarea", { name: "note", rows: 2, maxlength: 500, required: true }))];
  }
  fill(root, h("form", { class: "correction-form", on: { submit: submitCorrection } },
    h("label", { class: "field" }, t("ref.table"), tableSelect),
    h("label", { class: "field" }, t("ref.kind"), kindSelect),
    fields,
    h("button", { class: "btn btn--primary", type: "submit", disabled: !names.length }, t("ref.submit"))),
  h("div", { id: "correction-message", class: "message" }));
}

function renderRecent() {
  fill($("#recent"), corrections.length
    ? h("table", { class: "grid-table" }, h("tbody", null, corrections.map((c) => h("tr", null,
      h("td", { class: "muted" }, `#${c.id}`), h("td", null, c.table), h("td", null, t(`ref.kind.${c.kind}`)),
      h("td", null, c.kind === "deal"
        ? `${playersOf(c.table, c.session_id)[c.body.dealer] ?? c.body.dealer} · ${t("ref.streak")} ${c.body.streak} · ${windName(WINDS[c.body.round_wind])}${c.body.note ? ` · ${c.body.note}` : ""}`
        : c.kind === "penalty"
          ? `${playersOf(c.table, c.session_id)[c.body.seat] ?? c.body.seat} · ${c.body.tai} · ${c.body.reason}`
          : c.body.note),
      h("td", { class: "muted" }, when(c.at))))))
    : h("p", { class: "muted" }, t("none")));
  fill($("#faults"), faults.length
    ? h("table", { class: "grid-table" }, h("tbody", null, faults.map((f) => {
      const [rule, words] = faultRule(f.code);
      return h("tr", null, h("td", { class: "muted" }, `#${f.id}`), h("td", null, f.table),
        h("td", null, h("strong", null, rule), h("div", { class: "muted" }, words)),
        h("td", { class: "detail muted" }, f.detail),
        h("td", { class: "muted" }, when(f.at)));
    })))
    : h("p", { class: "muted" }, t("none")));
}

function render() {
  document.title = `${t("ref.title")} · ${t("app.name")}`;
  renderToken();
  renderViolations();
  renderCorrection();
  renderRecent();
  renderMessage();
}

const connection = new ConnectionView();
setupPage(render);
loadAll();
new LiveSocket("/api/ws", {
  onMessage: (m) => {
    // A hand's end too: the violations the public hears only then are the referee's now.
    const news = ["violation", "fault", "hand", "ruling", "resync", "snapshot"];
    if (news.includes(m.type)) reloadSoon();
  },
  onStatus: (status, info) => connection.set(status, info),
});
