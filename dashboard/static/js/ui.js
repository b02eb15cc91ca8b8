// @ts-check
// What every page shares: static text by `data-i18n` keys, the language toggle, the
// connection pill, and the "not live" state of a page whose socket is down.

import { $, h, loadNameFonts } from "./dom.js";
import { onLangChange, t, toggleLang } from "./i18n.js";
import { whenVocabulary } from "./vocabulary.js";

/** Fill every element with `data-i18n="key"` (and `data-i18n-placeholder`, `-title`). */
export function translateStatic(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(/** @type {HTMLElement} */ (el).dataset.i18n);
  for (const el of /** @type {NodeListOf<HTMLInputElement>} */ (root.querySelectorAll("[data-i18n-placeholder]"))) el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll("[data-i18n-title]"))) el.title = t(el.dataset.i18nTitle);
}

/**
 * Wire the page: the toggle (a button with id "lang"), static text, and `render` again
 * whenever the language changes, and once the rules' words (vocabulary.js) have come;
 * the fonts for players' names once the page has painted (dom.js, loadNameFonts).
 */
export function setupPage(render) {
  loadNameFonts();
  const button = $("#lang");
  if (button) {
    button.addEventListener("click", () => toggleLang());
  }
  const apply = () => {
    translateStatic();
    if (button) {
      button.textContent = t("lang.toggle");
      button.title = t("lang.toggle.title");
    }
    if (render) render();
  };
  onLangChange(apply);
  apply();
  whenVocabulary(apply);
}

/**
 * The connection pill (element with id "conn") and the page's stale state: whenever the
 * socket is not live, <body> gets `is-stale` (the board dims, the "reconnecting" label shows).
 */
export class ConnectionView {
  constructor() {
    this.pill = $("#conn");
    this.label = $("#stale-label");
    this.status = "connecting";
    this.retryIn = 0;
    onLangChange(() => this.render());
    this.render();
  }

  set(status, info = {}) {
    this.status = status;
    this.retryIn = info.retryIn ?? 0;
    this.render();
  }

  render() {
    const live = this.status === "live";
    document.body.classList.toggle("is-stale", !live);
    document.body.dataset.conn = this.status;
    if (this.pill) {
      this.pill.className = `conn conn--${this.status}`;
      this.pill.replaceChildren(h("span", { class: "conn-dot" }), t(`conn.${this.status}`));
    }
    if (this.label) {
      this.label.replaceChildren(
        h("strong", null, t(this.status === "connecting" ? "conn.connecting" : "conn.reconnecting")),
        h("span", null, t("conn.stale")),
      );
    }
  }
}
