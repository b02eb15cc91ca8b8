// @ts-check
// A player's figures (GET /api/players/{id}/stats, /api/leaderboard): their names and how
// each is written, shared by the players' page and a player's page.

import { money, t } from "./i18n.js";

/** The figures a leaderboard ranks by, in the order the page offers them. */
export const RANKED = ["net", "wins", "win_rate", "self_draws", "self_draw_rate", "deal_in_rate", "tai_per_win", "dealer_wins", "longest_streak", "ready_rate", "ready_round", "seconds_per_turn", "hands"];

/** The figures a player's page shows, in order. */
export const SHOWN = ["hands", "wins", "win_rate", "self_draws", "self_draw_rate", "discard_wins", "deal_ins", "deal_in_rate", "tai_per_win", "tai_per_deal_in", "false_wins", "net", "won", "lost", "dealer_hands", "dealer_wins", "longest_streak", "sessions"];

/** What only the sensors see (each hand's play), in order. */
export const SENSED = ["sensed_hands", "ready_rate", "ready_round", "deal_in_round", "seconds_per_turn", "hand_seconds", "go_rounds"];

/** A win's wait shapes (the 獨聽 three first), as the API names them. */
export const WAIT_SHAPES = ["single", "edge", "closed", "two_sided", "double_pong", "multi", "other"];

const RATES = new Set(["win_rate", "self_draw_rate", "deal_in_rate", "ready_rate"]);
const MONEY = new Set(["net", "won", "lost"]);
const AVERAGES = new Set(["tai_per_win", "tai_per_deal_in", "ready_round", "deal_in_round", "go_rounds"]);
const SECONDS = new Set(["seconds_per_turn", "hand_seconds"]);

export function figureName(key) {
  return t(`fig.${key}`);
}

/** A figure's value as the pages write it: a rate in %, money signed, an average to 0.1. */
export function figureText(key, value) {
  if (value === null || value === undefined) return "—";
  if (RATES.has(key)) return `${(value * 100).toFixed(1)}%`;
  if (MONEY.has(key)) return money(value);
  if (AVERAGES.has(key)) return value.toFixed(1);
  if (SECONDS.has(key) && value >= 120) return t("unit.minutes", { m: Math.floor(Math.round(value) / 60), s: Math.round(value) % 60 });
  if (SECONDS.has(key)) return t("unit.seconds", { n: value.toFixed(1) });
  return String(value);
}
