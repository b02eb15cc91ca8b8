// @ts-check
// admin.html: the admin's session form. A token (kept in sessionStorage, this tab only,
// like the referee's), the tables the service follows (their live state over /api/ws),
// and for the table chosen: the session it plays (a link to it) or none, a form to start
// one (POST /api/tables/{table}/session) and a button to end it (…/session/end), asked
// twice.
//
// - The dealer, streak, round wind and start seat are the table's own unless the admin
//   ticks "override": the form shows the table's current ones as what will be used, and
//   sends them only when overridden (the service takes the table's when they are left out).
// - A name typed that is a player of the club's list (offered as the admin types) seats
//   that player (`player_ids`); any other name is a guest's.
// - The rules: a preset by name, and under it every choice of §7 (the seat winds, each
//   switch, each 台 value) starting from the preset's values (GET /api/profiles); what the
//   admin changes is sent as `{"preset": …, "rules": {…}, "tai": {…}}`, only the changes.
// - The page is live, but only the list and the chosen table's status are drawn again on
//   news; the form is drawn once per table (and language) and keeps what was typed.
// - The service is the judge of a body: its error ({"error": "…"}) is shown by the form,
//   word for word. Names are text (dom.js), never HTML.

import { ApiError, LiveSocket, getJSON, postJSON, putJSON, tokenStore, WINDS } from "./api.js";
import { playerName } from "./board.js";
import { $, fill, h, param } from "./dom.js";
import { lang, t, windName } from "./i18n.js";
import { ConnectionView, setupPage } from "./ui.js";
import { choiceName, itemName, switchName, vocabulary } from "./vocabulary.js";

const TOKEN_KEY = "mjtable.admin.token";
const SEATS = [0, 1, 2, 3];
const DEFAULT_PRESETS = ["mjonline"];

const tables = new Map(); // table -> its live state
let chosen = param("t") ?? "";
let presets = DEFAULT_PRESETS;
const presetValues = new Map(); // preset name -> its values written out (GET /api/profiles)
let listed = []; // the club's players (GET /api/players): a name typed that is one of them seats them
let defaults = { base: 100, per_tai: 20, profile: "mjonline" };
let message = null; // {ok, text: () => string, session: id | null}
let confirming = false; // the end of the chosen table's session is being asked about
let busy = false;
let formSig = null; // what the form was drawn for
let listSig = null;
let currentSig = null;

// --- the token ---------------------------------------------------------------------------

const tokens = tokenStore(TOKEN_KEY);
const token = () => tokens.get();
const setToken = (value) => tokens.set(value);

// --- messages ----------------------------------------------------------------------------

function errorText(exc) {
  if (exc instanceof ApiError && (exc.status === 401 || exc.status === 403)) return t(`ref.err.${exc.status}`);
  return t("adm.err", { error: exc.message });
}

function say(ok, text, session = null) {
  message = { ok, text, session };
  renderMessage();
}

function renderMessage() {
  const el = $("#message");
  el.className = "message";
  el.replaceChildren();
  if (!message) return;
  el.className = `message ${message.ok ? "message--ok" : "message--error"}`;
  el.append(message.text());
  if (message.session) {
    el.append(" ", h("a", { href: `session.html?id=${message.session}` }, t("adm.session.link", { id: message.session })));
  }
}

// --- what a table shows ------------------------------------------------------------------

function stateOf(table) {
  return tables.get(table) ?? null;
}

function seatName(state, seat) {
  if (!state?.session_id) return t("seat", { n: seat });
  return t("seat.player", { name: playerName(state, seat), n: seat });
}

function inPlay(state) {
  const phase = state?.hand?.phase;
  return Boolean(state?.hand) && phase !== "over" && phase !== "idle";
}

function dealText(state) {
  return [t("round", { wind: windName(state.round_wind) }), seatName(state, state.dealer), t("adm.streak.n", { n: state.streak ?? 0 })]
    .join(t("list.sep"));
}

function sessionLink(id) {
  return h("a", { class: "session-link", href: `session.html?id=${id}` }, t("adm.session.link", { id }));
}

// --- the list of tables --------------------------------------------------------------------

function choose(table) {
  if (table === chosen) return;
  chosen = table;
  confirming = false;
  const url = new URL(location.href);
  url.searchParams.set("t", table);
  history.replaceState(null, "", url);
  renderAll();
}

function renderTables() {
  const states = [...tables.values()].sort((a, b) => a.table.localeCompare(b.table));
  const sig = JSON.stringify([lang(), chosen, states.map((s) => [s.table, s.session_id, s.session_id ? s.players : null,
    s.dealer, s.streak, s.round_wind, inPlay(s), s.online])]);
  if (sig === listSig) return;
  listSig = sig;
  if (!states.length) {
    fill($("#tables"), h("p", { class: "muted" }, t("adm.tables.none")));
    return;
  }
  const head = h("tr", null, ["adm.col.table", "adm.col.session", "adm.col.players", "adm.col.deal", "adm.col.hand"]
    .map((k) => h("th", null, t(k))), h("th", null, h("span", { class: "sr-only" }, t("adm.col.choose"))));
  const rows = states.map((s) => {
    const mine = s.table === chosen;
    const hand = s.online === false ? t("adm.offline") : t(inPlay(s) ? "adm.hand.playing" : "adm.hand.idle");
    return h("tr", { class: ["admin-table", mine && "is-chosen"], dataset: { table: s.table } },
      h("td", { class: "admin-table-name" }, s.table),
      h("td", { class: "admin-session" }, s.session_id ? sessionLink(s.session_id) : h("span", { class: "muted no-session" }, t("adm.session.none"))),
      h("td", { class: "admin-players" }, s.session_id ? SEATS.map((n) => playerName(s, n)).join(t("list.sep")) : "—"),
      h("td", null, dealText(s)),
      h("td", { class: inPlay(s) ? "admin-hand--playing" : "muted" }, hand),
      h("td", null, h("button", {
        type: "button", class: ["btn", "btn--choose", mine && "btn--primary"], "aria-pressed": mine ? "true" : "false",
        on: { click: () => choose(s.table) },
      }, t(mine ? "adm.chosen" : "adm.choose"))));
  });
  fill($("#tables"), h("table", { class: "grid-table admin-tables" }, h("thead", null, head), h("tbody", null, rows)));
}

// --- the chosen table's session --------------------------------------------------------------

async function endSession() {
  const state = stateOf(chosen);
  if (!token() || !state) return;
  busy = true;
  renderCurrent();
  try {
    const table = chosen;
    const got = await postJSON(`/api/tables/${encodeURIComponent(table)}/session/end`, undefined, { token: token() });
    say(true, () => t("adm.ended", { id: got.id }));
  } catch (exc) {
    say(false, () => errorText(exc));
  } finally {
    busy = false;
    confirming = false;
    await reloadTables();
  }
}

function renderCurrent() {
  const state = stateOf(chosen);
  const has = Boolean(token());
  const sig = JSON.stringify([lang(), chosen, Boolean(state), state?.session_id, state?.next_session_id, confirming, busy, has, inPlay(state), state?.seating, listed.length]);
  if (sig === currentSig) return;
  currentSig = sig;
  const root = $("#current");
  if (!state) {
    fill(root, chosen ? null : h("p", { class: "muted" }, t("adm.pick")));
    return;
  }
  const id = state.session_id;
  let status;
  if (id) {
    const end = confirming
      ? h("div", { class: "confirm-end", role: "alert" },
        h("span", null, t("adm.end.confirm", { t: chosen, id })),
        h("button", { type: "button", class: "btn btn--danger btn--end-yes", disabled: busy, on: { click: endSession } }, t("adm.end.yes")),
        h("button", { type: "button", class: "btn btn--end-no", disabled: busy, on: { click: () => { confirming = false; renderCurrent(); } } }, t("adm.end.no")))
      : h("button", { type: "button", class: "btn btn--end", disabled: !has || busy, on: { click: () => { confirming = true; renderCurrent(); } } }, t("adm.end"));
    status = h("div", { class: "session-status session-status--runs" },
      h("span", null, t("adm.session.runs", { t: chosen }), " ", sessionLink(id)), end);
  } else {
    status = h("div", { class: "session-status session-status--none" }, t("adm.session.none.long", { t: chosen }));
  }
  const next = state.next_session_id;
  fill(root, h("div", { class: "admin-current", dataset: { table: chosen } }, status,
    next ? h("p", { class: "session-next" }, t("adm.session.next", { t: chosen }), " ", sessionLink(next)) : null,
    inPlay(state) && !next ? h("p", { class: "mid-hand mid-hand--now" }, t("adm.mid_hand.now", { t: chosen })) : null,
    state.seating ? seatingBlock(state.seating, has) : null));
}

/** Before the session's first shuffle: who sits where (players take seats with the TV's
 *  codes), and any seat given by hand: a name of the club's list seats that player, any
 *  other name a guest. */
function seatingBlock(names, has) {
  const row = (name, seat) => {
    const form = h("form", { class: "admin-row seat-row", dataset: { seat } },
      h("span", { class: "seat-now" }, t("seat", { n: seat }), " ", h("strong", null, name)),
      h("input", { name: "name", list: "listed-players", maxlength: 64, autocomplete: "off", "aria-label": t("adm.seat.name", { seat: t("seat", { n: seat }) }) }),
      h("button", { type: "submit", class: "btn", disabled: !has || busy }, t("adm.seat.set")));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      seatByHand(seat, form.elements.namedItem("name").value.trim());
    });
    return form;
  };
  return h("div", { class: "admin-seating" }, h("h3", null, t("adm.seating")),
    h("p", { class: "muted" }, t("adm.seating.sub")), names.map(row));
}

async function seatByHand(seat, name) {
  if (!name || !token() || busy) return;
  const player = listed.find((p) => p.name === name);
  busy = true;
  try {
    const got = await putJSON(`/api/tables/${encodeURIComponent(chosen)}/seats/${seat}`,
      player ? { player_id: player.id } : { name }, { token: token() });
    say(true, () => t("adm.seat.done", { name: got.name, seat: t("seat", { n: seat }) }));
  } catch (exc) {
    say(false, () => errorText(exc));
  } finally {
    busy = false;
    await reloadTables();
  }
}

// --- the form ------------------------------------------------------------------------------

/** The rule fields (name, value) of the form: `seat_order`, `rules.<switch>`, `tai.<item>`. */
function ruleFields(form) {
  return [...form.elements].filter((e) => e.name === "seat_order" || e.name?.startsWith("rules.") || e.name?.startsWith("tai."));
}

function fieldValue(el) {
  if (el.type === "checkbox") return el.checked;
  if (el.type === "number") return numberOrRaw(el.value);
  return el.value;
}

/** A preset's value of a rule field's name. */
function presetValue(preset, name) {
  const [group, key] = name.includes(".") ? name.split(".") : [null, name];
  return group ? preset?.[group]?.[key] : preset?.[name];
}

/** The rule fields that differ from the chosen preset's values. */
function ruleChanges(form) {
  const preset = presetValues.get(form.elements.namedItem("profile").value);
  if (!preset) return [];
  return ruleFields(form).filter((el) => fieldValue(el) !== presetValue(preset, el.name));
}

/** The profile the form says: the preset's name, or the preset with what was changed. */
function profileBody(form) {
  const name = form.elements.namedItem("profile").value;
  const changed = ruleChanges(form);
  if (!changed.length) return name;
  const body = { preset: name };
  for (const el of changed) {
    if (el.name === "seat_order") body.seat_order = fieldValue(el);
    else {
      const [group, key] = el.name.split(".");
      (body[group] ??= {})[key] = fieldValue(el);
    }
  }
  return body;
}

/** The rule fields set to the chosen preset's values (a new preset chosen: its own). */
function applyPreset(form) {
  const preset = presetValues.get(form.elements.namedItem("profile").value);
  for (const el of ruleFields(form)) {
    const value = presetValue(preset, el.name);
    if (value === undefined) continue;
    if (el.type === "checkbox") el.checked = value;
    else el.value = String(value);
  }
  markChanges(form);
}

/** How many rule fields differ from the preset, said on the editor's summary; each
 * changed field marked. */
function markChanges(form) {
  const changed = new Set(ruleChanges(form).map((el) => el.name));
  for (const el of ruleFields(form)) el.closest(".field, .check")?.classList.toggle("is-changed", changed.has(el.name));
  const count = form.querySelector(".rules-changed");
  if (count) count.textContent = changed.size ? t("adm.rules.changed", { n: changed.size }) : t("adm.rules.same");
}

/** The editor of the rules: every §7 choice and 台 value, named from the vocabulary. */
function rulesEditor() {
  const words = vocabulary();
  if (!words || !presetValues.size) return null;
  const choice = (key, name) => {
    const row = words.switches.get(key);
    if (row?.choices) {
      return h("label", { class: "field" }, switchName(key),
        h("select", { name }, row.choices.map((c) => h("option", { value: c.id }, choiceName(key, c.id)))));
    }
    return h("label", { class: "check" }, h("input", { name, type: "checkbox" }), switchName(key));
  };
  const items = [...words.items.values()].filter((i) => !i.dealer_tai);
  const names = items.map((i) => itemName({ id: i.id }));
  // two items of one name (風字坎: the seat's and the round's) told apart by their ids
  const label = (i, n) => (names.indexOf(names[n]) !== names.lastIndexOf(names[n]) ? `${names[n]} (${i.id})` : names[n]);
  return h("details", { class: "admin-rules" },
    h("summary", null, h("strong", null, t("adm.rules.edit")), " ", h("span", { class: "rules-changed muted" })),
    h("div", { class: "admin-switches" },
      choice("seat_order", "seat_order"),
      [...words.switches.keys()].filter((k) => k !== "seat_order").map((k) => choice(k, `rules.${k}`))),
    h("p", { class: "muted" }, t("adm.rules.tai")),
    h("div", { class: "admin-tai" },
      items.map((i, n) => h("label", { class: "field field--tai", title: i.id }, label(i, n),
        h("input", { name: `tai.${i.id}`, type: "number", step: 1, inputmode: "numeric" })))));
}

function numberOrRaw(value) {
  const text = String(value).trim();
  if (text === "") return null; // the service says what it wants there
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
}

/** The body the form says: the deal only when overridden. */
function formBody(form) {
  const el = form.elements;
  const names = SEATS.map((n) => el.namedItem(`player${n}`).value.trim());
  const body = {
    players: names,
    base: numberOrRaw(el.namedItem("base").value),
    per_tai: numberOrRaw(el.namedItem("per_tai").value),
    profile: profileBody(form),
  };
  const ids = names.map((name) => listed.find((p) => p.name === name)?.id ?? null);
  if (ids.some((id) => id !== null)) body.player_ids = ids; // the others are guests
  if (el.namedItem("override").checked) {
    body.dealer = Number(el.namedItem("dealer").value);
    body.streak = numberOrRaw(el.namedItem("streak").value);
    body.round_wind = el.namedItem("round_wind").value;
    body.start_seat = Number(el.namedItem("start_seat").value);
  }
  return body;
}

async function submit(event) {
  event.preventDefault();
  const form = event.currentTarget;
  if (!token() || busy || !chosen) return;
  busy = true;
  form.querySelector("button[type=submit]").disabled = true;
  try {
    const got = await postJSON(`/api/tables/${encodeURIComponent(chosen)}/session`, formBody(form), { token: token() });
    await reloadTables();
    const waits = stateOf(chosen)?.next_session_id === got.id; // a hand was under way
    say(true, () => t(waits ? "adm.started.next" : "adm.started"), got.id);
    const override = form.elements.namedItem("override");
    override.checked = false;
    updateDeal();
  } catch (exc) {
    say(false, () => errorText(exc));
  } finally {
    busy = false;
    form.querySelector("button[type=submit]").disabled = false;
    await reloadTables();
  }
}

function seatOptions() {
  return SEATS.map((n) => h("option", { value: n }, t("seat", { n })));
}

/** The deal fields: the table's own while not overridden (kept in step with the table). */
function updateDeal() {
  const form = $("#form form");
  if (!form) return;
  const state = stateOf(chosen);
  const el = form.elements;
  const override = el.namedItem("override").checked;
  const line = form.querySelector(".deal-table");
  line.textContent = state
    ? t("adm.deal.table", {
      dealer: seatName(state, state.dealer), streak: t("adm.streak.n", { n: state.streak ?? 0 }),
      round: t("round", { wind: windName(state.round_wind) }), start: t("seat", { n: state.start_seat ?? 0 }),
    })
    : t("adm.deal.unknown");
  line.classList.toggle("is-overridden", override);
  for (const name of ["dealer", "streak", "round_wind", "start_seat"]) {
    const input = el.namedItem(name);
    input.disabled = !override;
    if (!override && state) {
      input.value = String(state[name] ?? (name === "round_wind" ? "E" : 0));
    }
  }
}

function renderForm() {
  const root = $("#form");
  const has = Boolean(token());
  const sig = JSON.stringify([lang(), chosen, has, presets, presetValues.size, listed.length, Boolean(vocabulary()), Boolean(stateOf(chosen))]);
  if (sig === formSig) return;
  formSig = sig;
  // What was typed stays (a redraw is for the language, the table, the token).
  const old = root.querySelector("form");
  const typed = old ? new Map([...old.elements].filter((e) => e.name).map((e) => [e.name, e.type === "checkbox" ? e.checked : e.value])) : new Map();
  const active = /** @type {HTMLInputElement | null} */ (document.activeElement);
  const focused = active?.form === old ? active?.name : null;
  $("#form-title").textContent = chosen ? t("adm.start.at", { t: chosen }) : t("adm.start");
  if (!chosen) {
    fill(root);
    return;
  }
  const number = (name, value) => h("input", { name, type: "number", min: 0, step: 1, inputmode: "numeric", value });
  const form = h("form", { class: "admin-form", novalidate: true, on: { submit, input: (e) => markChanges(e.currentTarget) } },
    h("fieldset", { class: "admin-fieldset", disabled: !has },
      h("div", { class: "admin-players-fields" }, SEATS.map((n) => h("label", { class: "field" }, t("adm.player", { n }),
        h("input", { name: `player${n}`, type: "text", maxlength: 64, autocomplete: "off", spellcheck: "false", placeholder: t("adm.player.hint"), list: "listed-players" })))),
      h("datalist", { id: "listed-players" }, listed.map((p) => h("option", { value: p.name }, p.nickname ?? ""))),
      h("div", { class: "admin-row" },
        h("label", { class: "field" }, t("adm.base"), number("base", defaults.base)),
        h("label", { class: "field" }, t("adm.per_tai"), number("per_tai", defaults.per_tai)),
        h("label", { class: "field" }, t("adm.profile"), h("select", { name: "profile", on: { change: (e) => applyPreset(e.currentTarget.form) } },
          presets.map((p) => h("option", { value: p, selected: p === defaults.profile }, p))))),
      rulesEditor(),
      h("div", { class: "admin-deal" },
        h("div", { class: "admin-deal-head" }, h("strong", null, t("adm.deal")), h("span", { class: "deal-table" })),
        h("label", { class: "check" }, h("input", { name: "override", type: "checkbox", on: { change: updateDeal } }), t("adm.deal.override")),
        h("div", { class: "admin-row" },
          h("label", { class: "field" }, t("adm.dealer"), h("select", { name: "dealer" }, seatOptions())),
          h("label", { class: "field" }, t("adm.streak"), h("input", { name: "streak", type: "number", min: 0, step: 1, inputmode: "numeric", value: 0 })),
          h("label", { class: "field" }, t("adm.round_wind"), h("select", { name: "round_wind" }, WINDS.map((w) => h("option", { value: w }, windName(w))))),
          h("label", { class: "field" }, t("adm.start_seat"), h("select", { name: "start_seat" }, seatOptions())))),
      h("p", { class: "mid-hand muted" }, t("adm.mid_hand")),
      h("div", { class: "admin-row" }, h("button", { class: "btn btn--primary", type: "submit" }, t("adm.submit")))));
  for (const el of form.elements) {
    if (!el.name || !typed.has(el.name)) continue;
    if (el.type === "checkbox") el.checked = typed.get(el.name);
    else el.value = typed.get(el.name);
  }
  fill(root, form);
  if (!typed.has("seat_order")) applyPreset(form); // drawn first: the preset's values
  markChanges(form);
  updateDeal();
  if (focused) form.elements.namedItem(focused)?.focus?.();
}

// --- the token form --------------------------------------------------------------------------

function renderToken() {
  const has = Boolean(token());
  const input = h("input", { type: "password", name: "token", autocomplete: "off", spellcheck: "false", placeholder: t("ref.token.hint") });
  const changed = () => {
    message = null;
    renderAll();
    checkToken();
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
  h("label", { class: "field field--wide" }, t("adm.token"), input),
  h("button", { class: "btn btn--primary", type: "submit" }, t("ref.token.save")),
  has ? h("button", { class: "btn", type: "button", on: { click: () => { setToken(""); changed(); } } }, t("ref.token.forget")) : null,
  h("span", { class: `token-state token-state--${has ? "set" : "missing"}` }, t(has ? "ref.token.set" : "ref.token.missing")));
  fill($("#token"), form, has ? null : h("p", { class: "read-only-note" }, t("adm.read_only.long")));
}

/** Whether the token pasted is an admin's (the token list is the admins' alone). */
async function checkToken() {
  if (!token()) return;
  try {
    await getJSON("/api/tokens?limit=1", { token: token() });
  } catch (exc) {
    say(false, () => errorText(exc));
  }
}

// --- loading, live -----------------------------------------------------------------------------

function take(states) {
  tables.clear();
  for (const state of states ?? []) tables.set(state.table, state);
  if (!chosen || (!tables.has(chosen) && param("t") === null && tables.size)) {
    chosen = [...tables.keys()].sort()[0] ?? "";
  }
}

async function reloadTables() {
  try {
    take(await getJSON("/api/tables"));
  } catch {
    // the socket's next news brings them
  }
  renderAll();
}

/** The presets the service knows, each written out (GET /api/profiles), and the form's
 * defaults from SessionBody's OpenAPI schema. */
async function loadPresets() {
  const [known, api, players] = await Promise.allSettled([getJSON("/api/profiles"), getJSON("/openapi.json"), getJSON("/api/players")]);
  if (players.status === "fulfilled") listed = players.value ?? [];
  if (known.status === "fulfilled" && known.value?.length) {
    presetValues.clear();
    for (const preset of known.value) presetValues.set(preset.name, preset);
    presets = [...presetValues.keys()];
  }
  const body = api.status === "fulfilled" ? api.value?.components?.schemas?.SessionBody?.properties ?? {} : {};
  defaults = {
    base: body.base?.default ?? defaults.base,
    per_tai: body.per_tai?.default ?? defaults.per_tai,
    profile: typeof body.profile?.default === "string" ? body.profile.default : defaults.profile,
  };
  renderForm();
}

let timer = null;

function renderSoon() {
  if (timer) return;
  timer = setTimeout(() => {
    timer = null;
    renderLive();
  }, 150);
}

/** After news: the list and the chosen table's status, never the form under the cursor. */
function renderLive() {
  renderTables();
  renderCurrent();
  renderForm(); // only when it was drawn for no table (its signature)
  updateDeal();
}

function renderAll() {
  renderToken();
  renderLive();
  renderMessage();
}

function render() {
  document.title = `${t("adm.title")} · ${t("app.name")}`;
  listSig = currentSig = formSig = null;
  renderAll();
}

const connection = new ConnectionView();
setupPage(render);
loadPresets();
reloadTables();
new LiveSocket("/api/ws", {
  onMessage: (m) => {
    switch (m.type) {
      case "snapshot":
        take(m.tables);
        break;
      case "state":
        if (m.state) tables.set(m.table, m.state);
        if (!chosen) take([...tables.values()]);
        break;
      case "resync":
        reloadTables();
        return;
      default:
        return;
    }
    renderSoon();
  },
  onStatus: (status, info) => connection.set(status, info),
});
