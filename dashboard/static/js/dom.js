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

export function $(selector, root = document) {
  return root.querySelector(selector);
}

/** A URL query parameter. */
export function param(name) {
  return new URLSearchParams(location.search).get(name);
}
