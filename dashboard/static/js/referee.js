// @ts-check
// referee.html: the referee's desk. A token (kept in sessionStorage, this tab only), the
// violations (open and decided, each with its ruling), corrections (the next deal, a
// penalty, a note), and the recent rulings and sensor faults. The page reloads on the
// club socket's news (/api/ws), but it never moves a row under the referee's hand:
//
// - a violation is known by its stable key (table, boot_id, seq, seat, code): a ruling
//   re-derives the records and the rows get new ids, the key stays;
// - rows keep their place; violations that arrive after the list was drawn are announced
//   ("3 new — show") and join the list only when the referee asks;
// - a row the referee is typing in is not drawn again until the typing is done (the
//   change waits for the input to lose focus);
// - a note typed into a row is kept by the violation's key (sessionStorage), across
//   re-renders, reloads and rulings, until it is used as a ruling's reason.
//
// A verdict is a ruling (POST /api/tables/{table}/rulings, kind "verdict", named by the
// key), so several rows can be ruled at once without chasing ids; a decided violation
// shows its ruling (who, when, why) and can be undone (kind "undo", naming the ruling).

import { ApiError, LiveSocket, getAll, getJSON, postJSON, reloader, tokenStore, WINDS } from "./api.js";
import { $, fill, h } from "./dom.js";
import { dateTime, lang, t, windName } from "./i18n.js";
import { ConnectionView, setupPage } from "./ui.js";
import { faultRule, violationRule, vocabulary } from "./vocabulary.js";

const TOKEN_KEY = "mjtable.token";
const NOTES_KEY = "mjtable.referee.notes";
const SEATS = 4;

let violations = new Map(); // key -> ViolationRow (the latest load)
let order = []; // the keys shown, in their places (newest first when first drawn)
let pending = []; // keys come since: announced, not shown until asked
let loaded = false; // the first load is in (it shows everything it finds)
let handsOf = new Map(); // table -> its HandRows, oldest first
let diceOf = new Map(); // `${table}|${hand log_id}` -> the 開門 dice total (for the seat winds)
let faults = [];
let corrections = [];
let tables = []; // live states, for the table list, players and the hand in play
let sessions = new Map(); // id -> SessionRow
let kind = "deal";
let message = null; // {ok, text, where}
const notes = loadNotes(); // key -> the note typed in its row
const selected = new Set(); // keys ticked for a ruling at once
const filters = { table: "", hand: "", code: "", status: "" };
const rows = new Map(); // key -> {tr, sig}
let busy = false; // a ruling is being sent

// --- the token, the notes --------------------------------------------------------------

const tokens = tokenStore(TOKEN_KEY);
const token = () => tokens.get();
const setToken = (value) => tokens.set(value);

function loadNotes() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(NOTES_KEY) ?? "{}");
    return new Map(Object.entries(saved).filter(([, v]) => typeof v === "string"));
  } catch {
    return new Map();
  }
}

function setNote(key, value) {
  if (value) notes.set(key, value);
  else notes.delete(key);
  try {
    sessionStorage.setItem(NOTES_KEY, JSON.stringify(Object.fromEntries(notes)));
  } catch {
    // storage disabled: kept in this page only
  }
}

/** A violation's stable name: its event, seat and code (what a ruling stores; a re-derived row keeps its id too). */
export function keyOf(v) {
  return `${v.table}|${v.boot_id}|${v.seq}|${v.seat}|${v.code}`;
}

// --- messages ----------------------------------------------------------------------------

function errorText(exc) {
  if (exc instanceof ApiError && (exc.status === 401 || exc.status === 403)) return t(`ref.err.${exc.status}`);
  return t("ref.err", { error: exc.message });
}

/** A message by the list or the form; `text` may be a function, to follow the language. */
function say(ok, text, where = "#message") {
  message = { ok, text, where };
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
  el.textContent = typeof message.text === "function" ? message.text() : message.text;
}

function when(at) {
  return at > 0 ? dateTime(at) : "—";
}

// --- who, which hand ---------------------------------------------------------------------

function playersOf(table, sessionId) {
  const session = sessionId ? sessions.get(sessionId) : null;
  if (session) return session.players;
  return tables.find((s) => s.table === table)?.players ?? [];
}

function nameOf(table, sessionId, seat) {
  const name = playersOf(table, sessionId)[seat];
  return name === undefined || name === null || name === "" ? t("seat", { n: seat }) : String(name);
}

/** The hand a violation belongs to: the first of its table's hands to end at or after
 *  the log entry that flagged it; null while that hand is still in play. */
function handOf(v) {
  const hands = handsOf.get(v.table) ?? [];
  return hands.find((hand) => hand.log_id >= v.log_id) ?? null;
}

function handKey(hand) {
  return hand ? `${hand.session_id ?? "-"}:${hand.hand_no}` : "live";
}

/** The offender's seat wind in the violation's hand, as the table's rules seat them. */
function windOf(v, hand) {
  if (!hand) {
    const state = tables.find((s) => s.table === v.table);
    return state?.hand?.seats?.[v.seat]?.wind ?? null;
  }
  const rules = sessions.get(hand.session_id)?.rules;
  let first = hand.dealer;
  if (rules?.seat_order !== "dealer") {
    const total = diceOf.get(`${hand.table}|${hand.log_id}`);
    if (total === undefined || total === null) return null;
    first = (hand.dealer + total - 1) % SEATS; // the 開門位
  }
  return WINDS[(((v.seat - first) % SEATS) + SEATS) % SEATS];
}

function offender(v, hand) {
  const name = nameOf(v.table, v.session_id, v.seat);
  const wind = windOf(v, hand);
  return wind ? t("violation.by", { name, wind: windName(wind) }) : name;
}

/** The service's sentence for the referee, with each "seat N" named as its player. */
function detailText(v, hand) {
  return v.detail.replace(/\bseat (\d)\b/g, (_, n) => offender({ ...v, seat: Number(n) }, hand));
}

function handLabel(hand) {
  if (!hand) return t("ref.hand.live");
  return hand.session_id ? t("ref.hand.of", { s: hand.session_id, n: hand.hand_no }) : t("hand.no", { n: hand.hand_no });
}

/** The hand stepper at the violation's event (session.html opens it there). */
function stepperLink(v, hand) {
  if (!hand || !hand.session_id) return `table.html?t=${encodeURIComponent(v.table)}`;
  const q = new URLSearchParams({ id: String(hand.session_id), hand: String(hand.hand_no), at: `${v.boot_id}.${v.seq}` });
  return `session.html?${q}`;
}

// --- loading -------------------------------------------------------------------------------

const HANDS_PAGE = 200;
const DECIDED_SHOWN = 500; // the newest violations read whatever their status (all open ones too)

/** The table's hands back to the one that holds the log entry `since` (newest first
 *  from the service, a page at a time), oldest first. */
async function handsFor(table, since) {
  const hands = [];
  let before = null;
  try {
    for (;;) {
      const query = new URLSearchParams({ limit: String(HANDS_PAGE) });
      if (before !== null) query.set("before", String(before));
      const page = await getJSON(`/api/tables/${encodeURIComponent(table)}/hands?${query}`);
      hands.push(...page);
      if (page.length < HANDS_PAGE || page[page.length - 1].log_id < since) break;
      before = page[page.length - 1].id;
    }
  } catch (exc) {
    if (exc instanceof ApiError && exc.status === 404) return [];
    throw exc;
  }
  return hands.sort((a, b) => a.log_id - b.log_id);
}

/** Every open violation, and the newest decided ones (a decision stays in view). */
async function readViolations() {
  const options = { token: token() || undefined }; // with it: void declarations at once
  const [open, newest] = await Promise.all([
    getAll("/api/violations?status=open", options),
    getJSON(`/api/violations?limit=${DECIDED_SHOWN}`, options),
  ]);
  const byKey = new Map(newest.map((v) => [keyOf(v), v]));
  for (const v of open) byKey.set(keyOf(v), v);
  return [...byKey.values()];
}

/** The 開門 dice of the hands whose winds are needed (seat order "opening"), once each. */
async function loadDice(list) {
  const wanted = new Map();
  for (const v of list) {
    const hand = handOf(v);
    if (!hand) continue;
    const key = `${hand.table}|${hand.log_id}`;
    if (diceOf.has(key) || wanted.has(key)) continue;
    if (sessions.get(hand.session_id)?.rules?.seat_order === "dealer") continue;
    wanted.set(key, hand);
  }
  await Promise.all([...wanted].map(async ([key, hand]) => {
    try {
      const entries = await getJSON(`/api/hands/${hand.id}/events`);
      const dice = entries.filter((e) => e.kind === "event" && e.body?.kind === "dice_rolled" && e.body.roll === "deal").pop();
      diceOf.set(key, dice ? dice.body.die_1 + dice.body.die_2 + dice.body.die_3 : null);
    } catch {
      // no winds for that hand this time
    }
  }));
}

let loading = null;
let again = false;

async function loadAll() {
  if (loading) {
    again = true; // one more after this one: news came while it read
    return loading;
  }
  loading = (async () => {
    try {
      const [v, f, c, tb, ss] = await Promise.all([
        readViolations(),
        getJSON("/api/faults?limit=20"), // the newest, newest first
        getJSON("/api/rulings?limit=20"),
        getJSON("/api/tables"),
        getAll("/api/sessions"),
      ]);
      const since = new Map();
      for (const row of v) since.set(row.table, Math.min(since.get(row.table) ?? Infinity, row.log_id));
      const names = [...since.keys()];
      const hands = await Promise.all(names.map((name) => handsFor(name, since.get(name))));
      handsOf = new Map(names.map((name, i) => [name, hands[i]]));
      faults = f;
      corrections = c;
      tables = tb;
      sessions = new Map(ss.map((s) => [s.id, s]));
      await loadDice(v);
      take(v);
    } catch (exc) {
      if (exc instanceof ApiError && exc.status === 401 && token()) say(false, t("ref.err.401"));
      else say(false, t("load.error", { error: exc.message }));
    }
    refresh();
  })();
  try {
    await loading;
  } finally {
    loading = null;
  }
  if (again) {
    again = false;
    await loadAll();
  }
}

/** The rows just read: those known keep their places, new ones wait to be shown. */
function take(list) {
  const newest = [...list].sort((a, b) => b.log_id - a.log_id || b.seq - a.seq || a.seat - b.seat);
  violations = new Map(newest.map((v) => [keyOf(v), v]));
  const known = new Set([...order, ...pending]);
  const fresh = newest.map(keyOf).filter((k) => !known.has(k));
  if (!loaded) {
    order = fresh;
    loaded = true;
  } else {
    pending = [...fresh, ...pending];
  }
  pending = pending.filter((k) => violations.has(k));
  for (const k of [...selected]) if (!violations.has(k)) selected.delete(k);
}

const reloadSoon = reloader(loadAll, 400);

function showPending() {
  order = [...pending, ...order];
  pending = [];
  renderViolations();
}

// --- rulings -------------------------------------------------------------------------------

async function rule(table, body) {
  return postJSON(`/api/tables/${encodeURIComponent(table)}/rulings`, body, { token: token() });
}

/** Confirm (uphold) or dismiss (overturn) the violations of `keys`, one ruling each. */
async function decide(keys, decision, note) {
  if (!token()) {
    say(false, t("ref.need_token"));
    return;
  }
  if (busy) return;
  busy = true;
  updateBulk();
  let done = 0;
  try {
    for (const key of keys) {
      const v = violations.get(key);
      if (!v) continue;
      const reason = (note || notes.get(key) || "").trim() || `${decision} by the referee`;
      await rule(v.table, {
        kind: "verdict", boot_id: v.boot_id, seq: v.seq, seat: v.seat, code: v.code,
        decision: decision === "confirmed" ? "uphold" : "overturn", reason,
      });
      done += 1;
      setNote(key, "");
      selected.delete(key);
    }
    say(true, () => t("ref.decided.n", { n: done, decision: t(`ref.decision.${decision}`) }));
  } catch (exc) {
    say(false, errorText(exc));
  } finally {
    busy = false;
    await loadAll();
  }
}

/** Withdraw a violation's verdict (an undo ruling naming it); the violation is open again. */
async function undo(key) {
  const v = violations.get(key);
  if (!v?.decision) return;
  if (!token()) {
    say(false, t("ref.need_token"));
    return;
  }
  if (busy) return;
  busy = true;
  try {
    const reason = (notes.get(key) ?? "").trim() || "undone by the referee";
    await rule(v.table, { kind: "undo", ruling: v.decision.id, reason });
    setNote(key, "");
    const id = v.decision.id;
    say(true, () => t("ref.undone", { id }));
  } catch (exc) {
    say(false, errorText(exc));
  } finally {
    busy = false;
    await loadAll();
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
  if (!token()) {
    say(false, t("ref.need_token"), "#correction-message");
    return;
  }
  const table = form.elements.namedItem("table").value;
  try {
    const created = await rule(table, formBody(form));
    say(true, () => t("ref.sent", { id: created.id }), "#correction-message");
    reloadSoon();
  } catch (exc) {
    say(false, errorText(exc), "#correction-message");
  }
}

// --- the violations ------------------------------------------------------------------------

function matches(key) {
  const v = violations.get(key);
  if (!v) return false;
  if (filters.table && v.table !== filters.table) return false;
  if (filters.code && v.code !== filters.code) return false;
  if (filters.status && v.status !== filters.status) return false;
  if (filters.hand && handKey(handOf(v)) !== filters.hand) return false;
  return true;
}

function typingIn(el) {
  const active = /** @type {HTMLInputElement | null} */ (document.activeElement);
  return Boolean(active && el.contains(active) && (active.tagName === "TEXTAREA" || (active.tagName === "INPUT" && active.type === "text")));
}

function rowSig(v, hand) {
  return JSON.stringify([v.status, v.decision, v.detail, v.session_id, handKey(hand), handLabel(hand), offender(v, hand),
    lang(), Boolean(vocabulary()), Boolean(token()), busy, [...playersOf(v.table, v.session_id)]]);
}

function rulingView(v) {
  const d = v.decision;
  if (!d) return h("span", { class: "ruling ruling--open" }, t("ref.status.open"));
  return h("div", { class: `ruling ruling--${d.decision}` },
    h("strong", { class: "ruling-status" }, t(`ref.status.${d.decision}`)),
    h("div", { class: "ruling-who muted" }, t("ref.ruled", { token: d.token_id ?? "—", at: when(d.at), id: d.id })),
    d.note ? h("div", { class: "ruling-reason" }, d.note) : null);
}

function renderRow(key) {
  const v = violations.get(key);
  const hand = handOf(v);
  const has = Boolean(token());
  const [rule, words] = violationRule(v.code);
  const note = h("input", {
    class: "note-input", type: "text", maxlength: 500,
    placeholder: t(v.decision ? "ref.undo.reason" : "ref.note"), "aria-label": t(v.decision ? "ref.undo.reason" : "ref.note"),
    on: { input: (e) => setNote(key, e.target.value) },
  });
  note.value = notes.get(key) ?? "";
  const tick = h("input", {
    type: "checkbox", class: "row-tick", "aria-label": t("ref.select"), checked: selected.has(key), disabled: !has || Boolean(v.decision),
    on: { change: (e) => { if (e.target.checked) selected.add(key); else selected.delete(key); updateBulk(); } },
  });
  let actions;
  if (!has) actions = h("span", { class: "muted" }, t("ref.read_only"));
  else if (v.decision) {
    actions = h("div", { class: "decide" }, note,
      h("button", { class: "btn btn--undo", type: "button", disabled: busy, on: { click: () => undo(key) } }, t("ref.undo")));
  } else {
    actions = h("div", { class: "decide" }, note,
      h("button", { class: "btn btn--danger btn--confirm", type: "button", disabled: busy, on: { click: () => decide([key], "confirmed") } }, t("ref.confirm")),
      h("button", { class: "btn btn--dismiss", type: "button", disabled: busy, on: { click: () => decide([key], "dismissed") } }, t("ref.dismiss")));
  }
  return h("tr", { class: `violation-row violation-row--${v.status}`, dataset: { key, status: v.status, id: v.id } },
    h("td", { class: "tick" }, tick),
    h("td", { class: "when" },
      h("a", { class: "step-link", href: stepperLink(v, hand), title: t("ref.step") }, handLabel(hand)),
      h("div", { class: "muted" }, when(v.at))),
    h("td", null, h("a", { href: `table.html?t=${encodeURIComponent(v.table)}` }, v.table)),
    h("td", { class: "who" }, offender(v, hand)),
    // The service's own sentence is English: shown in English, a tooltip in Chinese.
    h("td", { class: "rule", title: lang() === "en" ? null : detailText(v, hand) }, h("strong", null, rule), words,
      lang() === "en" ? h("div", { class: "detail" }, detailText(v, hand)) : null),
    h("td", { class: "status" }, rulingView(v)),
    h("td", { class: "action" }, actions));
}

/** Draw the rows in place: a known row is drawn again only when what it shows changed and
 *  the referee is not typing in it; rows keep their order; none is moved to make room. */
function renderRows(tbody) {
  const want = order.filter(matches);
  for (const [key, row] of rows) {
    if (!want.includes(key) && !typingIn(row.tr)) {
      row.tr.remove();
      rows.delete(key);
    }
  }
  want.forEach((key, i) => {
    const v = violations.get(key);
    const sig = rowSig(v, handOf(v));
    let row = rows.get(key);
    if (!row) {
      row = { tr: renderRow(key), sig };
      rows.set(key, row);
    } else if (row.sig !== sig && !typingIn(row.tr)) {
      const tr = renderRow(key);
      row.tr.replaceWith(tr);
      row.tr = tr;
      row.sig = sig;
    }
    const at = tbody.children[i];
    if (at !== row.tr) tbody.insertBefore(row.tr, at ?? null);
  });
}

let tableEl = null;
let tbodyEl = null;

function renderViolations() {
  const root = $("#violations");
  updateToolbar();
  const shown = order.filter(matches);
  if (!tableEl || !root.contains(tableEl)) {
    tbodyEl = h("tbody");
    tableEl = h("table", { class: "grid-table violations-table" }, h("thead"), tbodyEl);
    rows.clear();
    fill(root, h("div", { class: "scroll-x" }, tableEl), h("p", { class: "muted violations-none" }));
  }
  fill(tableEl.querySelector("thead"), h("tr", null,
    h("th", { class: "tick" }, h("input", {
      type: "checkbox", class: "tick-all", "aria-label": t("ref.select.all"), disabled: !token(),
      checked: shown.some((k) => selected.has(k)) && shown.filter((k) => !violations.get(k).decision).every((k) => selected.has(k)),
      on: { change: (e) => {
        for (const k of shown) {
          if (violations.get(k).decision) continue;
          if (e.target.checked) selected.add(k);
          else selected.delete(k);
        }
        renderViolations();
      } },
    })),
    ["ref.col.hand", "ref.col.table", "ref.col.who", "ref.col.rule", "ref.col.status", "ref.col.action"].map((k) => h("th", null, t(k)))));
  renderRows(tbodyEl);
  for (const k of shown) {
    const tick = rows.get(k)?.tr.querySelector(".row-tick");
    if (tick) tick.checked = selected.has(k);
  }
  tableEl.hidden = !shown.length;
  const none = root.querySelector(".violations-none");
  none.hidden = shown.length > 0;
  none.textContent = violations.size ? t("ref.filtered.none") : t("ref.none");
  updateBulk();
}

// The toolbar (filters, the news, the ruling of several rows): made once, updated in place,
// always the same height (the news in it moves no row).
let bar = null;

function option(value, label, current) {
  return h("option", { value, selected: value === current }, label);
}

function setOptions(select, options, current) {
  const values = options.map(([value]) => value);
  if (!values.includes(current)) current = "";
  const same = select.options.length === options.length && options.every(([value, label], i) => select.options[i].value === value && select.options[i].textContent === label);
  if (!same) select.replaceChildren(...options.map(([value, label]) => option(value, label, current)));
  select.value = current;
  return current;
}

function makeToolbar() {
  const filter = (name) => h("select", { name, class: `filter-${name}`, on: { change: (e) => {
    filters[name] = e.target.value;
    if (name === "table") filters.hand = "";
    renderViolations();
  } } });
  const reason = h("input", { type: "text", name: "bulk-reason", class: "bulk-reason", maxlength: 500 });
  bar = {
    table: filter("table"), hand: filter("hand"), code: filter("code"), status: filter("status"),
    news: h("button", { type: "button", class: "btn btn--news", on: { click: showPending } }),
    count: h("span", { class: "bulk-count" }),
    reason,
    confirm: h("button", { type: "button", class: "btn btn--danger bulk-confirm", on: { click: () => decide(chosen(), "confirmed", reason.value).then(() => { reason.value = ""; }) } }),
    dismiss: h("button", { type: "button", class: "btn bulk-dismiss", on: { click: () => decide(chosen(), "dismissed", reason.value).then(() => { reason.value = ""; }) } }),
    readOnly: h("p", { class: "read-only-note" }),
    labels: [],
  };
  const label = (key, el) => {
    const text = h("span");
    bar.labels.push([text, key]);
    return h("label", { class: "field" }, text, el);
  };
  fill($("#desk-tools"),
    bar.readOnly,
    h("div", { class: "desk-filters" },
      label("ref.col.table", bar.table), label("ref.col.hand", bar.hand), label("ref.col.rule", bar.code), label("ref.col.status", bar.status),
      h("span", { class: "topbar-fill" }),
      h("div", { class: "news-slot" }, bar.news)),
    h("div", { class: "bulk" }, bar.count, label("ref.reason", bar.reason), bar.confirm, bar.dismiss));
}

function updateToolbar() {
  if (!bar) makeToolbar();
  for (const [el, key] of bar.labels) el.textContent = t(key);
  const all = [...violations.values()];
  const tableNames = [...new Set([...all.map((v) => v.table), ...tables.map((s) => s.table)])].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  filters.table = setOptions(bar.table, [["", t("ref.all")], ...tableNames.map((n) => [n, n])], filters.table);
  const hands = new Map();
  if (filters.table) {
    for (const hand of handsOf.get(filters.table) ?? []) hands.set(handKey(hand), handLabel(hand));
    if (all.some((v) => v.table === filters.table && !handOf(v))) hands.set("live", handLabel(null));
  }
  bar.hand.disabled = !filters.table;
  filters.hand = setOptions(bar.hand, [["", t(filters.table ? "ref.all" : "ref.hand.pick_table")], ...[...hands].reverse()], filters.hand);
  const codes = [...new Set(all.map((v) => v.code))].sort();
  filters.code = setOptions(bar.code, [["", t("ref.all")], ...codes.map((c) => [c, violationRule(c)[0]])], filters.code);
  filters.status = setOptions(bar.status, [["", t("ref.all")], ...["open", "confirmed", "dismissed"].map((s) => [s, t(`ref.status.${s}`)])], filters.status);
  const news = pending.filter(matches).length;
  bar.news.hidden = news === 0;
  bar.news.textContent = t("ref.news", { n: news });
  const has = Boolean(token());
  bar.readOnly.hidden = has;
  bar.readOnly.textContent = t("ref.read_only.long");
  bar.reason.placeholder = t("ref.reason.bulk");
  bar.confirm.textContent = t("ref.confirm.selected");
  bar.dismiss.textContent = t("ref.dismiss.selected");
}

/** The ticked rows a ruling of several applies to: shown (the filters) and still open. */
function chosen() {
  return order.filter((k) => selected.has(k) && matches(k) && !violations.get(k).decision);
}

function updateBulk() {
  if (!bar) return;
  const has = Boolean(token());
  const n = chosen().length;
  bar.count.textContent = t("ref.selected", { n });
  bar.confirm.disabled = bar.dismiss.disabled = !has || busy || n === 0;
  bar.reason.disabled = !has;
}

// --- the rest of the page ------------------------------------------------------------------

function renderToken() {
  const has = Boolean(token());
  const input = h("input", { type: "password", name: "token", autocomplete: "off", spellcheck: "false", placeholder: t("ref.token.hint") });
  const changed = () => {
    selected.clear();
    render();
    loadAll(); // with a token, every violation (void declarations at once)
  };
  const form = h("form", { class: "token-form", on: { submit: (e) => {
    e.preventDefault();
    const value = input.value.trim();
    if (value) {
      setToken(value);
      input.value = "";
      changed();
    }
  } } },
  h("label", { class: "field field--wide" }, t("ref.token"), input),
  h("button", { class: "btn btn--primary", type: "submit" }, t("ref.token.save")),
  has ? h("button", { class: "btn", type: "button", on: { click: () => { setToken(""); changed(); } } }, t("ref.token.forget")) : null,
  h("span", { class: `token-state token-state--${has ? "set" : "missing"}` }, t(has ? "ref.token.set" : "ref.token.missing")));
  fill($("#token"), form);
}

function seatOptions(table) {
  const players = playersOf(table, tables.find((s) => s.table === table)?.session_id ?? null);
  return [0, 1, 2, 3].map((s) => h("option", { value: s }, `${s} · ${players[s] ?? t("seat", { n: s })}`));
}

let correctionTables = null; // the tables the form was drawn with

function renderCorrection() {
  const root = $("#correction");
  // What was typed or chosen stays (a redraw is for the language, the table, the kind).
  const typed = new Map([...root.querySelectorAll("form [name]")].map((el) => [el.name, el.value]));
  const focused = /** @type {HTMLInputElement | null} */ (document.activeElement)?.name;
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
  const kept = root.querySelector("#correction-message");
  const form = h("form", { class: "correction-form", on: { submit: submitCorrection } },
    h("label", { class: "field" }, t("ref.table"), tableSelect),
    h("label", { class: "field" }, t("ref.kind"), kindSelect),
    fields,
    h("button", { class: "btn btn--primary", type: "submit", disabled: !names.length }, t("ref.submit")));
  if (typed.get("table") === current) {
    for (const el of form.querySelectorAll("[name]")) {
      if (el.name !== "table" && el.name !== "kind" && typed.has(el.name)) el.value = typed.get(el.name);
    }
  }
  fill(root, form, kept ?? h("div", { id: "correction-message", class: "message" }));
  correctionTables = names.join("\n");
  if (focused) form.elements.namedItem(focused)?.focus?.();
}

function rulingText(c) {
  const who = (seat) => nameOf(c.table, c.session_id, seat);
  const b = c.body;
  switch (c.kind) {
    case "deal":
      return `${who(b.dealer)} · ${t("ref.streak")} ${b.streak} · ${windName(WINDS[b.round_wind])}${b.note ? ` · ${b.note}` : ""}`;
    case "penalty":
      return `${who(b.seat)} · ${b.tai} · ${b.reason}`;
    case "verdict":
      return `${t(`ref.status.${b.decision === "uphold" ? "confirmed" : "dismissed"}`)} · ${violationRule(b.code)[0]} · ${who(b.seat)} · ${b.reason}`;
    case "undo":
      return `#${b.ruling} · ${b.reason}`;
    case "note":
      return b.note;
    default:
      return b.reason ?? "";
  }
}

function renderRecent() {
  fill($("#recent"), corrections.length
    ? h("table", { class: "grid-table" }, h("tbody", null, corrections.map((c) => h("tr", { class: c.withdrawn_by ? "is-withdrawn" : null },
      h("td", { class: "muted" }, `#${c.id}`), h("td", null, c.table), h("td", null, t(`ref.kind.${c.kind}`)),
      h("td", null, rulingText(c), c.withdrawn_by ? h("div", { class: "muted" }, t("ref.withdrawn", { id: c.withdrawn_by })) : null),
      h("td", { class: "muted" }, c.token_id ? t("ref.by_token", { token: c.token_id }) : ""),
      h("td", { class: "muted" }, when(c.at))))))
    : h("p", { class: "muted" }, t("none")));
  fill($("#faults"), faults.length
    ? h("table", { class: "grid-table" }, h("tbody", null, faults.map((f) => {
      const [rule, words] = faultRule(f.code);
      return h("tr", null, h("td", { class: "muted" }, `#${f.id}`), h("td", null, f.table),
        h("td", null, h("strong", null, rule), h("div", { class: "muted" }, words)),
        h("td", { class: "detail muted" }, f.detail.replace(/\bseat (\d)\b/g, (_, n) => nameOf(f.table, f.session_id, Number(n)))),
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

/** After a load: what the service said, drawn without taking anything from under the
 *  referee's hand (the correction form is drawn again only when the tables changed). */
function refresh() {
  renderViolations();
  const names = tables.map((s) => s.table).join("\n");
  if (names !== correctionTables) renderCorrection();
  renderRecent();
  renderMessage();
}

// A row whose change waited for the referee to stop typing: draw it now.
document.addEventListener("focusout", () => {
  setTimeout(() => {
    if (tbodyEl) renderRows(tbodyEl);
  }, 0);
});

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
