// @ts-check
// Tiles drawn as tiles: inline SVG for every code of taiwan16.md §1 (1m–9m, 1p–9p, 1s–9s,
// E S W N, C F P, h1–h8) and a back. Built with DOM calls only (no markup strings), once
// per code, then cloned. The characters use the vendored Noto Sans TC (its UI cut first,
// fonts.css), so a machine without a CJK font still draws them.

import { tileName } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
const W = 60;
const H = 80;
const FACE = "#fbf7ea";
const EDGE = "#d6ccb0";
const INK = "#1b1b1b";
const RED = "#c8102e";
const GREEN = "#14804a";
const DARK_GREEN = "#0b5a33";
const BLUE = "#1d4f9e";
const AMBER = "#b86e00";
const PURPLE = "#7b3fa0";
const FONT = "'Noto Sans TC UI', 'Noto Sans TC', 'Noto Sans CJK TC', 'PingFang TC', 'Microsoft JhengHei', sans-serif";
const NUMERALS = "一二三四五六七八九";

function el(tag, attrs = {}, children = []) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  for (const child of children) node.append(child);
  return node;
}

function text(content, x, y, size, fill, weight = 700) {
  const node = el("text", {
    x, y, "font-size": size, "font-weight": weight, fill,
    "font-family": FONT, "text-anchor": "middle", "dominant-baseline": "central",
  });
  node.textContent = content;
  return node;
}

// --- 筒: circles --------------------------------------------------------------------------

function dot(cx, cy, r, color) {
  return el("g", {}, [
    el("circle", { cx, cy, r, fill: color }),
    el("circle", { cx, cy, r: r * 0.74, fill: FACE }),
    el("circle", { cx, cy, r: r * 0.52, fill: color }),
    el("circle", { cx, cy, r: r * 0.18, fill: FACE }),
  ]);
}

function bigDot() {
  const petals = [];
  for (let i = 0; i < 12; i += 1) {
    const a = (i * Math.PI) / 6;
    petals.push(el("circle", {
      cx: 30 + Math.cos(a) * 17.5, cy: 38 + Math.sin(a) * 17.5, r: 2.2, fill: GREEN,
    }));
  }
  return el("g", {}, [
    el("circle", { cx: 30, cy: 38, r: 22, fill: GREEN }),
    el("circle", { cx: 30, cy: 38, r: 20, fill: FACE }),
    ...petals,
    el("circle", { cx: 30, cy: 38, r: 14, fill: RED }),
    el("circle", { cx: 30, cy: 38, r: 10.5, fill: FACE }),
    el("circle", { cx: 30, cy: 38, r: 7.5, fill: BLUE }),
    el("circle", { cx: 30, cy: 38, r: 2.6, fill: FACE }),
  ]);
}

const DOTS = {
  2: [[30, 22, 11, GREEN], [30, 54, 11, BLUE]],
  3: [[16, 19, 9, BLUE], [30, 38, 9, RED], [44, 57, 9, GREEN]],
  4: [[18, 24, 10, BLUE], [42, 24, 10, GREEN], [18, 52, 10, GREEN], [42, 52, 10, BLUE]],
  5: [[17, 20, 9, BLUE], [43, 20, 9, GREEN], [30, 38, 9, RED], [17, 56, 9, GREEN], [43, 56, 9, BLUE]],
  6: [[19, 17, 8, GREEN], [41, 17, 8, GREEN], [19, 41, 8, RED], [41, 41, 8, RED],
    [19, 60, 8, RED], [41, 60, 8, RED]],
  7: [[14, 13, 6.6, GREEN], [30, 19.5, 6.6, GREEN], [46, 26, 6.6, GREEN], [19, 44, 7.2, RED],
    [41, 44, 7.2, RED], [19, 61, 7.2, RED], [41, 61, 7.2, RED]],
  8: [[19, 14, 7, BLUE], [41, 14, 7, BLUE], [19, 30, 7, BLUE], [41, 30, 7, BLUE],
    [19, 46, 7, BLUE], [41, 46, 7, BLUE], [19, 62, 7, BLUE], [41, 62, 7, BLUE]],
  9: [14, 30, 46].flatMap((x) => [[x, 17, 7, BLUE], [x, 38, 7, RED], [x, 59, 7, GREEN]]),
};

function dots(n) {
  if (n === 1) return [bigDot()];
  return DOTS[n].map(([x, y, r, c]) => dot(x, y, r, c));
}

// --- 索: bamboo sticks ---------------------------------------------------------------------

function stick(cx, cy, h, color, angle = 0) {
  const w = 7;
  const top = cy - h / 2;
  const dark = color === RED ? "#8a0b20" : color === BLUE ? "#123a78" : DARK_GREEN;
  const g = el("g", angle ? { transform: `rotate(${angle} ${cx} ${cy})` } : {}, [
    el("rect", { x: cx - w / 2, y: top, width: w, height: h, rx: 3.5, fill: color }),
    el("rect", { x: cx - w / 2 - 1, y: cy - 1.3, width: w + 2, height: 2.6, rx: 1.3, fill: dark }),
    el("rect", { x: cx - w / 2 - 0.6, y: top + 0.8, width: w + 1.2, height: 2.2, rx: 1.1, fill: dark }),
    el("rect", { x: cx - w / 2 - 0.6, y: top + h - 3, width: w + 1.2, height: 2.2, rx: 1.1, fill: dark }),
    el("line", {
      x1: cx, y1: top + 4, x2: cx, y2: top + h - 4,
      stroke: FACE, "stroke-width": 1.1, "stroke-opacity": 0.55,
    }),
  ]);
  return g;
}

const STICKS = {
  2: [[30, 22, 26, GREEN], [30, 54, 26, BLUE]],
  3: [[30, 22, 26, BLUE], [19, 54, 26, GREEN], [41, 54, 26, GREEN]],
  4: [[19, 22, 26, GREEN], [41, 22, 26, BLUE], [19, 54, 26, BLUE], [41, 54, 26, GREEN]],
  5: [[16, 22, 26, GREEN], [44, 22, 26, BLUE], [30, 38, 26, RED], [16, 54, 26, BLUE],
    [44, 54, 26, GREEN]],
  6: [16, 30, 44].flatMap((x) => [[x, 22, 26, GREEN], [x, 54, 26, BLUE]]),
  7: [[30, 16, 18, RED], ...[16, 30, 44].flatMap((x) => [[x, 40, 18, GREEN], [x, 61, 18, GREEN]])],
  8: [[12, 22, 26, GREEN], [24.5, 22, 26, GREEN, 22], [35.5, 22, 26, GREEN, -22], [48, 22, 26, GREEN],
    [12, 54, 26, BLUE], [24.5, 54, 26, BLUE, -22], [35.5, 54, 26, BLUE, 22], [48, 54, 26, BLUE]],
  9: [16, 30, 44].flatMap((x) => {
    const c = x === 30 ? RED : x === 16 ? GREEN : BLUE;
    return [[x, 16, 18, c], [x, 38, 18, c], [x, 60, 18, c]];
  }),
};

function bird() {
  // 一索: a little bird on a branch, as the tiles have it.
  return el("g", {}, [
    el("path", { d: "M10 64 Q30 58 52 66", stroke: "#7a4a1e", "stroke-width": 2.4, fill: "none", "stroke-linecap": "round" }),
    el("ellipse", { cx: 16, cy: 52, rx: 11, ry: 3.6, fill: BLUE, transform: "rotate(-35 16 52)" }),
    el("ellipse", { cx: 14, cy: 46, rx: 11, ry: 3.4, fill: RED, transform: "rotate(-15 14 46)" }),
    el("ellipse", { cx: 31, cy: 46, rx: 14, ry: 10.5, fill: GREEN }),
    el("path", { d: "M22 44 Q32 34 42 43 Q33 52 22 44 Z", fill: DARK_GREEN }),
    el("circle", { cx: 42, cy: 30, r: 8, fill: GREEN }),
    el("path", { d: "M38 23 Q41 14 46 20 Q43 20 42 23 Z", fill: RED }),
    el("path", { d: "M49 28 L56 31 L49 33 Z", fill: AMBER }),
    el("circle", { cx: 44, cy: 29, r: 2.3, fill: FACE }),
    el("circle", { cx: 44.5, cy: 29, r: 1.2, fill: INK }),
    el("line", { x1: 29, y1: 56, x2: 27, y2: 62, stroke: AMBER, "stroke-width": 1.8, "stroke-linecap": "round" }),
    el("line", { x1: 35, y1: 56, x2: 36, y2: 62, stroke: AMBER, "stroke-width": 1.8, "stroke-linecap": "round" }),
  ]);
}

function sticks(n) {
  if (n === 1) return [bird()];
  return STICKS[n].map(([x, y, h, c, a]) => stick(x, y, h, c, a ?? 0));
}

// --- honours and flowers ----------------------------------------------------------------

const WIND_CHARS = { E: "東", S: "南", W: "西", N: "北" };
const FLOWER_CHARS = ["春", "夏", "秋", "冬", "梅", "蘭", "菊", "竹"];
const FLOWER_COLOURS = [GREEN, RED, AMBER, BLUE, RED, PURPLE, AMBER, GREEN];

function whiteDragon() {
  return el("g", {}, [
    el("rect", { x: 12, y: 13, width: 36, height: 50, rx: 3, fill: "none", stroke: BLUE, "stroke-width": 3.4 }),
    el("rect", { x: 17, y: 18, width: 26, height: 40, rx: 1.5, fill: "none", stroke: BLUE, "stroke-width": 1.3 }),
  ]);
}

function flower(k) {
  const colour = FLOWER_COLOURS[k - 1];
  const number = ((k - 1) % 4) + 1;
  return [
    el("rect", { x: 6, y: 6, width: 48, height: 64, rx: 4, fill: "none", stroke: colour, "stroke-width": 1.2, "stroke-opacity": 0.6 }),
    el("circle", { cx: 15, cy: 16, r: 6.5, fill: colour }),
    text(String(number), 15, 16.5, 10, FACE),
    text(FLOWER_CHARS[k - 1], 31, 44, 30, colour),
  ];
}

function face(code) {
  if (code[0] === "h") return flower(Number(code.slice(1)));
  if (code in WIND_CHARS) return [text(WIND_CHARS[code], 30, 38, 38, INK)];
  if (code === "C") return [text("中", 30, 38, 40, RED)];
  if (code === "F") return [text("發", 30, 38, 38, GREEN)];
  if (code === "P") return [whiteDragon()];
  const n = Number(code[0]);
  const suit = code[1];
  if (suit === "m") return [text(NUMERALS[n - 1], 30, 22, 25, INK), text("萬", 30, 54, 29, RED)];
  if (suit === "p") return dots(n);
  if (suit === "s") return sticks(n);
  return [text("?", 30, 38, 30, RED)];
}

function body(back) {
  // The tile's thickness below its face, then the face (or the back).
  const parts = [
    el("rect", { x: 1, y: 4, width: 58, height: 75, rx: 7, fill: back ? "#0b4a2f" : "#1f7a52" }),
    el("rect", { x: 1, y: 1, width: 58, height: 73, rx: 7, fill: back ? "#1c8a5c" : FACE, stroke: back ? "#0f5c3c" : EDGE, "stroke-width": 1 }),
  ];
  if (back) {
    parts.push(
      el("rect", { x: 7, y: 7, width: 46, height: 61, rx: 4, fill: "none", stroke: "#e8f5ec", "stroke-opacity": 0.45, "stroke-width": 1.4 }),
      el("path", { d: "M30 20 L42 37.5 L30 55 L18 37.5 Z", fill: "none", stroke: "#e8f5ec", "stroke-opacity": 0.4, "stroke-width": 1.4 }),
    );
  }
  return parts;
}

const cache = new Map();

function build(code) {
  const back = code === "back";
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, xmlns: NS, class: "tile", role: "img" });
  for (const part of body(back)) svg.append(part);
  if (!back) for (const part of face(code)) svg.append(part);
  return svg;
}

export const TILE_CODES = [
  ..."123456789".split("").map((n) => `${n}m`),
  ..."123456789".split("").map((n) => `${n}p`),
  ..."123456789".split("").map((n) => `${n}s`),
  "E", "S", "W", "N", "C", "F", "P",
  "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8",
];
const KNOWN = new Set([...TILE_CODES, "back"]);

/**
 * An <svg class="tile …"> for a tile code ("5m", "E", "h3", "back"); `extra` classes
 * (e.g. "tile--last"). An unknown code is drawn as a back with its code as the label.
 */
export function tile(code, extra = "") {
  const key = KNOWN.has(code) ? code : "back";
  let template = cache.get(key);
  if (!template) {
    template = build(key);
    cache.set(key, template);
  }
  const svg = template.cloneNode(true);
  svg.setAttribute("class", `tile tile-${key}${extra ? ` ${extra}` : ""}`);
  svg.dataset.code = code;
  svg.setAttribute("aria-label", tileName(code) || code);
  return svg;
}

export function back(extra = "") {
  return tile("back", extra);
}

/** A tile code from a physical tile id 0–143 (protocol.md §4.1: kind = id // 4; 136–143 h1–h8). */
export function codeOfId(id) {
  if (id >= 136) return `h${id - 135}`;
  const kind = Math.floor(id / 4);
  if (kind < 27) return `${(kind % 9) + 1}${"mps"[Math.floor(kind / 9)]}`;
  return "ESWNCFP"[kind - 27];
}

/** The 34 kinds' order, for sorting a hand: 萬 筒 索, winds, dragons, then flowers. */
export function tileOrder(code) {
  const i = TILE_CODES.indexOf(code);
  return i < 0 ? 99 : i;
}
