// @ts-check
// What the scoreboard announces: a hand's result (winner, the hand laid down and its winning
// tile, the 台 breakdown with the dealer 台 apart, the settlement), a 荒局, a 詐胡, a
// violation and a fault. They stand in the page's rail, beside the board, never over a seat:
// a hand's result stays there until the next one (on a narrow screen, where the rail is above
// the board, until the next hand is dealt); violations and faults go by themselves.

import { h, fill } from "./dom.js";
import { lang, money, t, windName } from "./i18n.js";
import { dealerLabel, meldView, playerName } from "./board.js";
import { tile, tileOrder } from "./tiles.js";
import { faultRule, itemName, violationRule } from "./vocabulary.js";

export const TOAST_SECONDS = { violation: 15, fault: 12 };
const MAX_TOASTS = 4;
const HAND_MIN_SECONDS = 8; // on a narrow screen, a hand's banner stays at least this long
// Where the rail stands beside the board (dashboard.css): there a result covers nothing.
const WIDE = "(min-aspect-ratio: 1001/1000) and (min-width: 761px)";

function name(state, seat) {
  return seat === null || seat === undefined ? "" : playerName(state, seat);
}

function seatWho(state, seat) {
  const wind = state?.hand?.seats?.[seat]?.wind;
  const who = name(state, seat);
  return wind ? t("violation.by", { name: who, wind: windName(wind, true) }) : t("seat.player", { name: who, n: seat });
}

function title(record, state) {
  const payer = name(state, record.payer);
  switch (record.result) {
    case "drawn":
      return [t("hand.drawn"), t("hand.drawn.detail", { dealer: name(state, record.dealer) })];
    case "false_win":
      return [t("hand.false_win"), t("hand.false_win.detail", { name: name(state, record.seat) })];
    case "flower_win":
      return [t("hand.flower_win"), t(`hand.${record.kind}`, { payer })];
    default:
      if (record.kind === "self_draw") return [t("hand.self_draw"), ""];
      if (record.kind === "robbing_kong") return [t("hand.win"), t("hand.robbing_kong", { payer })];
      if (record.kind === "discard") return [t("hand.win"), t("hand.discard", { payer })];
      return [t("hand.win"), record.kind ? t(`hand.${record.kind}`, { payer }) : ""];
  }
}

function itemsView(record) {
  const rows = record.items.map((item) =>
    h("tr", null, h("td", { class: "item-name" }, itemName(item)), h("td", { class: "item-tai" }, t("hand.tai_n", { n: item.tai }))));
  if (!rows.length && record.result === "win") {
    rows.push(h("tr", null, h("td", { class: "item-name", colspan: 2 }, t("hand.no_items"))));
  }
  const total = h("tr", { class: "item-total" },
    h("td", null, record.result === "false_win" ? t("hand.face") : t("hand.total")),
    h("td", { class: "item-tai" }, t("hand.tai_n", { n: record.tai })));
  const body = [rows, total];
  if (record.dealer_tai > 0) {
    const parts = [`${t("hand.dealer_tai.dealer")} ${t("hand.tai_n", { n: 1 })}`];
    if (record.streak > 0) {
      parts.push(`${t("hand.dealer_tai.streak", { n: record.streak })} ${t("hand.tai_n", { n: 2 * record.streak })}`);
    }
    body.push(h("tr", { class: "item-dealer" },
      h("td", null, t("hand.dealer_tai"), h("div", { class: "item-sub" }, parts.join(" + "))),
      h("td", { class: "item-tai" }, t("hand.tai_n", { n: record.dealer_tai }))));
  }
  return h("table", { class: "items" }, h("tbody", null, body));
}

function paymentsView(record, state) {
  const lines = record.payments.map((p) =>
    h("li", { class: "payment" },
      h("span", { class: "pay-who" }, t("hand.pays", { from: name(state, p.from), to: name(state, p.to) })),
      h("span", { class: "pay-amount" }, p.amount.toLocaleString("en-US"))));
  const nets = record.net.map((n, seat) =>
    h("div", { class: "net" },
      h("span", { class: "net-name" }, name(state, seat)),
      h("span", { class: n > 0 ? "score score--up" : n < 0 ? "score score--down" : "score" }, money(n))));
  return h("div", { class: "settlement" },
    h("h2", null, t("hand.settlement")),
    lines.length ? h("ul", { class: "payments" }, lines) : null,
    h("div", { class: "nets" }, nets));
}

function nextView(record, state) {
  if (!record.next) return t("hand.jiang_over");
  const n = record.next;
  return t("hand.next", {
    dealer: name(state, n.dealer),
    streak: n.streak > 0 ? t("hand.next.streak", { n: n.streak }) : "",
    round: t("round", { wind: windName(n.round_wind) }),
  });
}

/** The hand the winner (or a 詐胡's seat) laid down, as the state shows it once the hand is
 *  over: its melds, its concealed tiles in order and the winning tile apart. None when the
 *  state is of another hand or shows no tiles. */
function laidDownView(record, state) {
  const seat = state?.hand?.phase === "over" && state.hands === record.hand
    ? state.hand.seats?.[record.seat] : null;
  if (!seat || !Array.isArray(seat.laid_down)) return null;
  const rest = [...seat.laid_down];
  const at = record.winning_tile ? rest.lastIndexOf(record.winning_tile) : -1;
  if (at >= 0) rest.splice(at, 1);
  rest.sort((a, b) => tileOrder(a) - tileOrder(b));
  return h("div", { class: "banner-laid", "aria-label": t("hand.laid_down", { name: name(state, record.seat) }) },
    seat.melds.map(meldView),
    h("span", { class: "laid-concealed" }, rest.map((code) => tile(code, "tile--meld"))),
    at >= 0 ? h("span", { class: "laid-win" }, tile(record.winning_tile, "tile--meld tile--winning")) : null);
}

/** The banner of a hand record (a `hand` message's `record`). */
export function handBanner(record, state, previous = false) {
  const [headline, sub] = title(record, state);
  const winner = record.result === "drawn" ? null : record.seat;
  const codes = record.result === "false_win" && record.codes?.length
    ? h("div", { class: "false-codes" }, h("h2", null, t("hand.false_win.codes")),
      h("ul", null, record.codes.map((code) => {
        const [rule, words] = violationRule(code);
        return h("li", null, h("strong", null, rule), words ? ` — ${words}` : "");
      })))
    : null;
  const showItems = record.result !== "drawn" && (record.items.length || record.result === "win" || record.tai);
  return h("div", { class: `banner banner-hand result--${record.result}`, role: "status" },
    h("div", { class: "banner-head" },
      h("div", { class: "banner-title" },
        h("span", { class: "banner-kicker" }, t("hand.no", { n: record.hand }), " · ",
          previous ? h("span", { class: "banner-previous" }, t("hand.previous"), " · ") : null,
          record.streak > 0 ? dealerLabel(record.streak) : "", record.streak > 0 ? " · " : "",
          t("round", { wind: windName(record.round_wind) })),
        h("span", { class: "banner-headline" }, headline,
          winner !== null ? h("span", { class: "banner-winner" }, name(state, winner)) : null),
        sub ? h("span", { class: "banner-sub" }, sub) : null),
      record.winning_tile ? h("div", { class: "banner-tile" },
        tile(record.winning_tile, "tile--win"), h("span", null, t("hand.winning_tile"))) : null),
    record.result === "drawn" ? null : laidDownView(record, state),
    h("div", { class: "banner-body" },
      showItems ? itemsView(record) : null,
      codes,
      record.payments.length ? paymentsView(record, state) : null),
    h("div", { class: "banner-foot" }, nextView(record, state)));
}

function violationToast(record, state) {
  const [rule, words] = violationRule(record.code);
  return [
    h("div", { class: "toast-title" }, h("span", { class: "toast-kind" }, t("violation")), rule),
    h("div", { class: "toast-who" }, seatWho(state, record.seat)),
    words ? h("div", { class: "toast-text" }, words) : null,
    lang() === "en" && record.detail ? h("div", { class: "toast-detail" }, record.detail) : null,
  ];
}

function faultToast(record) {
  const [rule, words] = faultRule(record.code);
  return [
    h("div", { class: "toast-title" }, h("span", { class: "toast-kind" }, t("fault")), rule),
    words ? h("div", { class: "toast-text" }, words) : null,
    h("div", { class: "toast-who" }, t("fault.nobody")),
    lang() === "en" && record.detail ? h("div", { class: "toast-detail" }, record.detail) : null,
  ];
}

/**
 * The banners of one board. `root` holds the hand banner, `toastRoot` the stack of
 * violations and faults (the newest first); `getState()` gives the latest state (names,
 * winds, the hand laid down).
 */
export class Banners {
  constructor(root, toastRoot, getState) {
    this.root = root;
    this.toastRoot = toastRoot;
    this.getState = getState;
    this.hand = null; // {record, shownAt}
    this.toasts = []; // {kind, record, el, timer}
    this.dismissTimer = null;
  }

  showHand(record) {
    this.hand = { record, shownAt: Date.now(), previous: false };
    clearTimeout(this.dismissTimer);
    this.dismissTimer = null;
    this.renderHand();
  }

  renderHand() {
    if (!this.hand) {
      fill(this.root);
      this.root.hidden = true;
      return;
    }
    this.root.hidden = false;
    fill(this.root, handBanner(this.hand.record, this.getState() ?? {}, this.hand.previous));
  }

  /** A new state: once the next hand is being dealt (or played) the hand banner is the
   *  previous hand's; on a wide screen it stays in the rail (it covers nothing there) until
   *  the next result, on a narrow one it goes. While the hand is over, a state may bring
   *  the hand laid down. */
  onState(state) {
    if (!this.hand) return;
    const phase = state?.hand?.phase;
    const next = phase === "dealing" || phase === "play";
    if (!next) {
      if (phase === "over") this.renderHand();
      return;
    }
    if (!this.hand.previous) {
      this.hand.previous = true;
      this.renderHand();
    }
    if (window.matchMedia(WIDE).matches) return;
    const left = HAND_MIN_SECONDS * 1000 - (Date.now() - this.hand.shownAt);
    if (left <= 0) {
      this.hand = null;
      this.renderHand();
    } else if (!this.dismissTimer) {
      this.dismissTimer = setTimeout(() => {
        this.dismissTimer = null;
        this.hand = null;
        this.renderHand();
      }, left);
    }
  }

  toast(kind, record) {
    const entry = { kind, record, el: null, timer: null };
    const close = h("button", { class: "toast-close", type: "button", "aria-label": t("dismiss"), on: { click: () => this.drop(entry) } }, "×");
    entry.el = h("div", { class: `toast toast--${kind}`, role: "alert" }, h("div", { class: "toast-content" }), close,
      h("div", { class: `toast-timer toast-timer--${kind}` }));
    this.fillToast(entry);
    this.toasts.push(entry);
    this.toastRoot.prepend(entry.el); // the newest on top
    entry.timer = setTimeout(() => this.drop(entry), TOAST_SECONDS[kind] * 1000);
    while (this.toasts.length > MAX_TOASTS) this.drop(this.toasts[0]);
  }

  fillToast(entry) {
    const state = this.getState() ?? {};
    const content = entry.el.querySelector(".toast-content");
    fill(content, entry.kind === "violation" ? violationToast(entry.record, state) : faultToast(entry.record));
  }

  drop(entry) {
    clearTimeout(entry.timer);
    entry.el.remove();
    this.toasts = this.toasts.filter((e) => e !== entry);
  }

  /** Re-render everything (the language changed). */
  refresh() {
    this.renderHand();
    for (const entry of this.toasts) this.fillToast(entry);
  }
}
