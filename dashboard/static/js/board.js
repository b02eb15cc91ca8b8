// @ts-check
// The table as the players sit: seat 0 at the bottom, then counter-clockwise (seat s+1 is
// the 下家 of seat s): right, top, left. Each seat: wind, name, running score, the dealer's
// 連N拉N badge, status, melds (an 暗槓 face down), concealed tiles as backs (never their
// faces during play: the API does not send them, nor an 暗槓's), flowers and discards. In
// the middle: round and hand, tiles left and the reserve, the dice, whose move and the
// discard that may be claimed.
//
// renderBoard(state) builds it from GET /api/tables/{t} (or a stepper's picture, which may
// add `concealed` codes per seat for a finished hand). Who may claim what is the state's
// word (`hand.claimable.claims`, by the service's rules): the board knows no rule itself.

import { h } from "./dom.js";
import { money, t, windName } from "./i18n.js";
import { back, tile, tileOrder } from "./tiles.js";
import { claimName } from "./vocabulary.js";

export const POSITIONS = ["bottom", "right", "top", "left"];
const SEATS = [0, 1, 2, 3];

export function playerName(state, seat) {
  const name = state?.players?.[seat];
  return name === undefined || name === null || name === "" ? t("seat", { n: seat }) : String(name);
}

/** 莊 when N = 0, else 連N拉N (the dealer's streak marker). */
export function dealerLabel(streak) {
  return streak > 0 ? t("dealer.streak", { n: streak }) : t("dealer");
}

export function roundLabel(state) {
  return t("round.deal", { wind: windName(state.round_wind), n: state.deal_in_round ?? 1 });
}

/** Whom the seat winds count from (§2, the profile's `seat_order`): said once on the board,
 *  since the dealer often sits 南 or 北 under 開門序. */
export function windsRule(seatOrder) {
  return t(seatOrder === "dealer" ? "winds.dealer" : "winds.opening");
}

function scoreClass(n) {
  if (n > 0) return "score score--up";
  if (n < 0) return "score score--down";
  return "score";
}

/** The claims each seat may still make on the open discard, as the state says (the
 *  service's rules, from public facts: the state carries no concealed tiles, so who *can*
 *  claim is not known here). A picture without them (the stepper's) lists none. */
function claimsOf(state, seat) {
  const hand = state.hand;
  if (!hand || hand.phase !== "play" || !hand.claimable) return [];
  const claims = hand.claimable.claims?.[seat];
  return Array.isArray(claims) ? claims : [];
}

/** Seats that may claim the open discard. */
export function claimers(state) {
  return SEATS.filter((s) => claimsOf(state, s).length > 0);
}

/** A meld. An 暗槓 in play comes with its kind alone (the public state says only that
 *  the seat holds one): four backs, never a face. With its tiles (the hand is over, or a
 *  stepper's picture) its middle two are turned up. */
export function meldView(meld) {
  const codes = Array.isArray(meld.tiles) ? meld.tiles : [];
  const hidden = meld.kind === "kong_concealed" && codes.length !== 4;
  let tiles;
  if (hidden) tiles = [0, 1, 2, 3].map(() => back("tile--meld"));
  else if (meld.kind === "kong_concealed") {
    tiles = codes.map((code, i) => (i === 0 || i === 3 ? back("tile--meld") : tile(code, "tile--meld")));
  } else tiles = codes.map((code) => tile(code, "tile--meld"));
  return h("span", { class: ["meld", `meld--${meld.kind}`, hidden && "meld--face-down"], title: t(`meld.${meld.kind}`) }, tiles);
}

function statusChips(state, seat, seatData, claim) {
  const hand = state.hand;
  const chips = [];
  if (hand && hand.phase === "play" && hand.turn === seat) {
    chips.push(h("span", { class: "chip chip--turn" },
      `${t("turn")} · ${t(hand.step === "discard" ? "turn.discard" : "turn.draw")}`));
  }
  if (claim) {
    const claims = claimsOf(state, seat).map(claimName).join(t("claim.sep"));
    chips.push(h("span", { class: "chip chip--claim" }, t("claim.may", { claims })));
  }
  if (seatData?.dead_hand) chips.push(h("span", { class: "chip chip--dead" }, t("status.dead")));
  if (seatData?.passed_win) chips.push(h("span", { class: "chip chip--warn" }, t("status.passed")));
  if (seatData?.declared) chips.push(h("span", { class: "chip chip--ready" }, t(`status.${seatData.declared}`)));
  if (seatData?.owed_replacements > 0) {
    chips.push(h("span", { class: "chip" }, t("status.owed", { n: seatData.owed_replacements })));
  }
  return chips;
}

function seatView(state, seat, opts) {
  const hand = state.hand;
  const data = hand?.seats?.[seat] ?? null;
  const dealer = (hand && hand.phase !== "over" ? hand.dealer : state.dealer) === seat;
  const claim = claimers(state).includes(seat);
  const turn = hand && hand.phase === "play" && hand.turn === seat;
  const total = state.totals?.[seat] ?? 0;
  const wind = data?.wind ?? null;
  const classes = [
    "seat", `seat--${POSITIONS[seat]}`,
    turn && "is-turn", dealer && "is-dealer", claim && "can-claim",
    data?.dead_hand && "is-dead", opts.flash?.has(seat) && "is-flagged",
  ];

  const head = h("header", { class: "seat-head" },
    h("span", { class: ["wind-disc", dealer && "wind-disc--dealer", !wind && "wind-disc--none"], title: wind ? windName(wind) : "" },
      wind ? windName(wind, true) : "·"),
    h("span", { class: "seat-name", title: playerName(state, seat) }, playerName(state, seat)),
    dealer ? h("span", { class: "dealer-badge", title: t("dealer.title") }, dealerLabel(state.streak ?? 0)) : null,
    h("span", { class: scoreClass(total) }, money(total)),
  );

  const chips = statusChips(state, seat, data, claim);
  const status = h("div", { class: "seat-status" }, chips);

  let handRow = null;
  let flowers = null;
  let river = null;
  if (data) {
    const faces = data.concealed ?? data.laid_down; // a stepper's picture, or a hand laid down
    const concealed = Array.isArray(faces)
      ? [...faces].sort((a, b) => tileOrder(a) - tileOrder(b)).map((c) => tile(c, "tile--meld"))
      : Array.from({ length: data.concealed_count ?? 0 }, () => back("tile--hand"));
    handRow = h("div", { class: "seat-hand" },
      h("span", { class: "hand-concealed", title: t("tiles.concealed", { n: data.concealed_count ?? 0 }) }, concealed),
      data.melds.map(meldView),
    );
    flowers = data.flowers.length
      ? h("div", { class: "seat-flowers", title: t("flowers") }, data.flowers.map((c) => tile(c, "tile--flower")))
      : null;
    const open = hand.claimable && hand.claimable.from_seat === seat;
    river = h("div", { class: "river", title: t("discards") },
      data.discards.map((c, i) => tile(c, open && i === data.discards.length - 1 ? "tile--river tile--open" : "tile--river")));
  }

  return h("section", { class: classes, dataset: { seat } },
    head, status, h("div", { class: "seat-tiles" }, handRow, flowers), river);
}

function dieView(n) {
  const spots = {
    1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]],
    4: [[1, 1], [3, 1], [1, 3], [3, 3]], 5: [[1, 1], [3, 1], [2, 2], [1, 3], [3, 3]],
    6: [[1, 1], [3, 1], [1, 2], [3, 2], [1, 3], [3, 3]],
  }[n] ?? [];
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 40 40");
  svg.setAttribute("class", "die");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", String(n));
  const box = document.createElementNS(NS, "rect");
  for (const [k, v] of Object.entries({ x: 2, y: 2, width: 36, height: 36, rx: 8, fill: "#fbf7ea" })) box.setAttribute(k, String(v));
  svg.append(box);
  for (const [x, y] of spots) {
    const c = document.createElementNS(NS, "circle");
    c.setAttribute("cx", String(x * 10));
    c.setAttribute("cy", String(y * 10));
    c.setAttribute("r", n === 1 ? "6" : "4.2");
    c.setAttribute("fill", n === 1 || n === 4 ? "#c8102e" : "#1b1b1b");
    svg.append(c);
  }
  return svg;
}

function centerView(state) {
  const hand = state.hand;
  const phase = hand ? hand.phase : "none";
  const parts = [
    h("div", { class: "center-round" }, roundLabel(state),
      h("span", { class: "center-rules" },
        state.profile ? h("span", { class: "center-profile" }, t("session.profile", { p: state.profile })) : null,
        state.seat_order ? h("span", { class: "center-winds" }, windsRule(state.seat_order)) : null)),
    h("div", { class: `center-phase phase--${phase}` }, t(`phase.${phase}`)),
  ];
  if (hand) {
    const reserveStacks = Math.round((hand.reserve ?? 0) / 2);
    const fraction = Math.max(0, Math.min(1, (hand.drawable ?? 0) / 112));
    const bar = h("div", { class: "wall-bar" }, h("span", { class: "wall-bar-fill" }));
    bar.firstChild.style.width = `${(fraction * 100).toFixed(1)}%`;
    parts.push(h("div", { class: "center-wall" },
      h("div", { class: "wall-count" },
        h("span", { class: "wall-number" }, String(hand.drawable ?? 0)),
        h("span", { class: "wall-label" }, t("tiles.drawable.label"))),
      bar,
      h("div", { class: "wall-reserve" }, t("tiles.reserve", { n: reserveStacks }), " · ",
        t("tiles.wall", { n: hand.tiles_left ?? 0 })),
    ));
    if (hand.dice) parts.push(h("div", { class: "center-dice" }, hand.dice.map(dieView)));
    const may = claimers(state);
    if (hand.claimable && phase === "play") {
      const from = hand.claimable.from_seat;
      parts.push(h("div", { class: "center-claim" },
        tile(hand.claimable.tile, "tile--claim"),
        h("div", { class: "claim-text" },
          h("div", { class: "claim-from" }, t("claim.open", { name: playerName(state, from) })),
          may.length ? h("div", { class: "claim-who" }, t("claim.who", { names: may.map((s) => playerName(state, s)).join(t("list.sep")) })) : null)));
    } else if (phase === "play") {
      parts.push(h("div", { class: "center-turn" },
        h("span", { class: "turn-label" }, t("turn")),
        h("strong", { class: "turn-name" }, playerName(state, hand.turn)),
        h("span", { class: "turn-step" }, t(hand.step === "discard" ? "turn.discard" : "turn.draw"))));
    }
  }
  return h("section", { class: "center" }, parts);
}

/**
 * The board for a table's state. opts.flash: a Set of seats to mark (a violation just
 * flagged).
 */
export function renderBoard(state, opts = {}) {
  const phase = state.hand ? state.hand.phase : "none";
  return h("div", { class: "board", dataset: { phase } },
    SEATS.map((s) => seatView(state, s, opts)),
    centerView(state));
}
