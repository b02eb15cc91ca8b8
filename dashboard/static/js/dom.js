// @ts-check
// Building the page without HTML strings: every text from the API goes in as a text node
// (textContent), so a name like `<img src=x onerror=…>` is shown as those characters.
// No innerHTML, no inline styles or handlers (the service's CSP forbids them anyway).

/**
 * h("div", {class: "seat", dataset: {seat: 0}, on: {click: fn}}, "text", child, [more])
 * Strings and numbers become text nodes; null/undefined/false children are skipped.
 */
export function h(tag, attrs = null, ...children) {
  const el = document.createElement(tag);
  if (attrs) setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "on") for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn);
    else if (key === "text") el.textContent = String(value);
    else if (key.startsWith("on")) throw new Error(`no inline handler attributes (${key})`);
    else if (key === "style") throw new Error("no style attributes: use classes or el.style");
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replace everything inside `el` with `children`. */
export function fill(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/**
 * Make `old` look like `next` (a freshly built copy of it), keeping every node that is
 * already as it should be: a live board redrawn on each move then restyles and repaints
 * only what changed, not all of it (measured on a busy 2-core machine: ~50 ms of style
 * and layout a move when built anew, ~10 ms so). Attributes and text are copied over; a
 * child list of another length is replaced.
 * Only for trees without event listeners (a kept node keeps its old ones).
 */
export function morph(old, next) {
  if (old.isEqualNode(next)) return old;
  if (old.nodeType !== Node.ELEMENT_NODE || old.nodeName !== next.nodeName) {
    old.replaceWith(next);
    return next;
  }
  for (const { name } of [...old.attributes]) if (!next.hasAttribute(name)) old.removeAttribute(name);
  for (const { name, value } of next.attributes) {
    if (name === "style") copyStyle(old, next); // property by property: the CSP forbids style=""
    else if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  }
  const before = [...old.childNodes];
  const after = [...next.childNodes];
  if (before.length !== after.length) old.replaceChildren(...after);
  else before.forEach((child, i) => morph(child, after[i]));
  return old;
}

function copyStyle(old, next) {
  for (const prop of [...old.style]) if (!next.style.getPropertyValue(prop)) old.style.removeProperty(prop);
  for (const prop of next.style) {
    const value = next.style.getPropertyValue(prop);
    const priority = next.style.getPropertyPriority(prop);
    if (old.style.getPropertyValue(prop) !== value || old.style.getPropertyPriority(prop) !== priority) {
      old.style.setProperty(prop, value, priority);
    }
  }
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

/** A URL query parameter. */
export function param(name) {
  return new URLSearchParams(location.search).get(name);
}

let nameFonts = false;

/**
 * Noto Sans TC's slices (vendor/fonts/fonts.css), for what the UI font (ui.css, linked by
 * every page) does not have: players' names. Added once the page has painted, so no page
 * waits for that stylesheet (57 KiB) to show; a name drawn before it comes shows in the
 * system's font (blank where it has no CJK font) and swaps to Noto Sans TC once its slice
 * has loaded (font-display: swap), as it did while the slice itself was on its way.
 * A <link> made here, not an onload= attribute in the page: the CSP forbids inline handlers.
 * setupPage (ui.js) calls it; once per page.
 */
export function loadNameFonts() {
  if (nameFonts) return;
  nameFonts = true;
  const href = new URL("../vendor/fonts/fonts.css", import.meta.url).href;
  const add = () => document.head.append(h("link", { rel: "stylesheet", href }));
  // rAF runs before the next paint, the timeout it sets after it: past the first paint
  requestAnimationFrame(() => setTimeout(add, 0));
}
