// @ts-check
// The rules' words, as the service's rulebook has them (GET /api/vocabulary, from
// table_service/rules/rulebook.py and the 台 table): each violation and fault code's name
// and meaning, each 台 item's name, the claims' names, in Chinese and English. The
// dashboard keeps no rule words of its own. Loaded once per page (ui.js's setupPage asks
// for it and renders again when it comes); until then a code is shown as itself.

import { getJSON } from "./api.js";
import { lang } from "./i18n.js";

const RETRY_MS = [1000, 2000, 5000, 10000];

let words = null; // {violations, faults, items, claims, switches}: Maps by code, id or key
let loading = null;

function byKey(rows, key) {
  return new Map((rows ?? []).map((row) => [row[key], row]));
}

/** The vocabulary (a promise; asked of the service once, again after a failure). */
export function loadVocabulary() {
  if (!loading) {
    loading = getJSON("/api/vocabulary").then((data) => {
      words = {
        violations: byKey(data.violations, "code"),
        faults: byKey(data.faults, "code"),
        items: byKey(data.items, "id"),
        claims: byKey(data.claims, "id"),
        switches: byKey(data.switches, "key"),
      };
      return words;
    });
    loading.catch(() => {
      loading = null;
    });
  }
  return loading;
}

/** Call `then` once the vocabulary is in, retrying while the service cannot be reached. */
export function whenVocabulary(then, attempt = 0) {
  loadVocabulary().then(then, () => {
    setTimeout(() => whenVocabulary(then, attempt + 1), RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]);
  });
}

/** The raw rows, once loaded (null before): for tests and tools. */
export function vocabulary() {
  return words;
}

function named(row, code) {
  if (!row) return [code, ""];
  return lang() === "en" ? [row.en, row.en_meaning] : [row.zh, row.zh_meaning];
}

/** [title, rule in words] of a violation code (an unknown code is shown as itself). */
export function violationRule(code) {
  return named(words?.violations.get(code), code);
}

/** [title, meaning] of a fault code. */
export function faultRule(code) {
  return named(words?.faults.get(code), code);
}

/** A 台 item's name in the current language: the record's own names first. */
export function itemName(item) {
  const row = words?.items.get(item.id);
  if (lang() === "en") return item.en || row?.en || item.id;
  return item.name || row?.zh || item.id;
}

/** A claim's name (吃 碰 槓 胡 / chow pong kong win). */
export function claimName(id) {
  const row = words?.claims.get(id);
  if (!row) return id;
  return lang() === "en" ? row.en : row.zh;
}

/** What a profile's choice decides (§7: `seat_order` or a `[rules]` switch), by its key. */
export function switchName(key) {
  const row = words?.switches.get(key);
  if (!row) return key;
  return lang() === "en" ? row.en : row.zh;
}

/** A switch's value in words: a named choice, yes or no, or the value itself. */
export function choiceName(key, value) {
  const choice = words?.switches.get(key)?.choices?.find((c) => c.id === value);
  if (choice) return lang() === "en" ? choice.en : choice.zh;
  if (typeof value === "boolean") return lang() === "en" ? (value ? "yes" : "no") : (value ? "是" : "否");
  return String(value);
}
