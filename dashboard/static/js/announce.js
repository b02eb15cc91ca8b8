// @ts-check
// 語音報分: a screen may call each hand's result aloud in Mandarin, as the caller at a
// table would (the winner, 自摸 or who let the tile go, the 台 and what they are), through
// the browser's own speech synthesis. Off until a person turns it on; the screen remembers.
// The sentence is always Chinese, whatever language the page is shown in.

import { onLangChange, t } from "./i18n.js";

const KEY = "mjtable.speak";
const DIGITS = ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
const WIND_SEAT = { E: "東家", S: "南家", W: "西家", N: "北家" };

/** A count as it is said: 1 一, 2 兩, 10 十, 12 十二, 20 二十, 105 一百零五. */
export function spokenNumber(n) {
  if (!Number.isInteger(n) || n < 0) return String(n);
  if (n === 2) return "兩";
  if (n < 10) return DIGITS[n];
  if (n < 20) return `十${n % 10 ? DIGITS[n % 10] : ""}`;
  if (n < 100) return `${DIGITS[Math.floor(n / 10)]}十${n % 10 ? DIGITS[n % 10] : ""}`;
  if (n < 1000) {
    const rest = n % 100;
    const tail = rest === 0 ? "" : rest < 10 ? `零${DIGITS[rest]}` : rest < 20 ? `一${spokenNumber(rest)}` : spokenNumber(rest);
    return `${DIGITS[Math.floor(n / 100)]}百${tail}`;
  }
  return String(n);
}

function tai(n) {
  return `${spokenNumber(n)}台`;
}

/** Who a seat is, aloud: the player's name, else the seat's wind (東家 …), else its number. */
function who(state, seat) {
  const name = state?.players?.[seat];
  if (name !== undefined && name !== null && name !== "") return String(name);
  const wind = state?.hand?.seats?.[seat]?.wind;
  return WIND_SEAT[wind] ?? `${seat}號位`;
}

function itemsSaid(record) {
  return (record.items ?? []).map((item) => `${item.name || item.id}${tai(item.tai)}`);
}

function dealerSaid(record) {
  if (!(record.dealer_tai > 0)) return [];
  const streak = record.streak > 0 ? `連${spokenNumber(record.streak)}拉${spokenNumber(record.streak)}` : "";
  return [`莊家${streak}${tai(record.dealer_tai)}`];
}

/**
 * The sentence a hand's record is called with: "阿明胡牌，陳小華放槍。五台：門清一台，…；
 * 莊家連一拉一三台。"
 * `state` gives the players' names and the seats' winds.
 */
export function resultSentence(record, state) {
  const winner = who(state, record.seat);
  switch (record.result) {
    case "drawn":
      return `荒局，${who(state, record.dealer)}連莊。`;
    case "false_win":
      return `${winner}詐胡，賠三家${record.tai > 0 ? `，牌面${tai(record.tai)}` : ""}。`;
    default: {
      let opening;
      if (record.result === "flower_win") {
        const flower = record.kind === "eight_immortals" ? "八仙過海" : "七搶一";
        opening = record.payer !== null && record.payer !== undefined
          ? `${winner}${flower}，${who(state, record.payer)}付`
          : `${winner}${flower}自摸`;
      } else if (record.kind === "self_draw") {
        opening = `${winner}自摸`;
      } else if (record.kind === "robbing_kong") {
        opening = `${winner}搶槓胡，${who(state, record.payer)}付`;
      } else {
        opening = `${winner}胡牌，${who(state, record.payer)}放槍`;
      }
      const items = itemsSaid(record);
      const dealer = dealerSaid(record); // the dealer's 台 are counted apart (§5)
      return `${opening}。${tai(record.tai)}${items.length ? `：${items.join("，")}` : ""}${dealer.length ? `；${dealer[0]}` : ""}。`;
    }
  }
}

/** Whether this screen calls results aloud (remembered by the browser). */
export function speaking() {
  try {
    return localStorage.getItem(KEY) === "on";
  } catch {
    return false;
  }
}

export function setSpeaking(on) {
  try {
    localStorage.setItem(KEY, on ? "on" : "off");
  } catch {
    // a browser that keeps nothing: on for this page only
  }
}

function voice() {
  const voices = window.speechSynthesis?.getVoices?.() ?? [];
  return voices.find((v) => v.lang === "zh-TW") ?? voices.find((v) => v.lang?.startsWith("zh")) ?? null;
}

/** Say a hand's result, if this screen speaks (a newer result cuts an older one short). */
export function announce(record, state) {
  const speech = window.speechSynthesis;
  if (!speaking() || !speech || typeof SpeechSynthesisUtterance === "undefined") return;
  const utterance = new SpeechSynthesisUtterance(resultSentence(record, state));
  utterance.lang = "zh-TW";
  const chosen = voice();
  if (chosen) utterance.voice = chosen;
  speech.cancel();
  speech.speak(utterance);
}

/**
 * The page's 語音報分 button: on/off, remembered. A browser speaks only after a person has
 * touched the page, so a screen reloaded with it on asks for one tap until then.
 */
export function setupSpeakButton(button) {
  if (!button) return;
  const render = () => {
    const on = speaking();
    const waiting = on && navigator.userActivation && !navigator.userActivation.hasBeenActive;
    button.textContent = t(waiting ? "speak.tap" : on ? "speak.on" : "speak.off");
    button.title = t("speak.title");
    button.setAttribute("aria-pressed", on ? "true" : "false");
  };
  button.addEventListener("click", () => {
    setSpeaking(!speaking());
    render();
  });
  window.addEventListener("pointerdown", render, { once: true });
  onLangChange(render);
  render();
}
