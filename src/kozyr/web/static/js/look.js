// The table's look (html[data-theme], css/app.css): "classic" (green felt,
// plain cards), "midnight" (navy felt) or "candy" (Mocha's candy table:
// candy-coloured cards, and the computer's seats are Mocha's).
//
// The look a player picks is remembered (localStorage "kozyr.look"). Until
// they pick one, the language decides: candy in Chinese and Japanese, classic
// in Russian and English (in a dark Telegram chat, midnight instead of
// classic). docs/client.md, "The looks".

import { store } from "./store.js";

export const LOOKS = ["classic", "midnight", "candy"];
const CANDY_LANGUAGES = ["zh", "ja"];

/** The look a language starts with ("zh-Hans" counts as "zh"). */
export function defaultLook(lang) {
  const base = String(lang || "").toLowerCase().split("-")[0];
  return CANDY_LANGUAGES.includes(base) ? "candy" : "classic";
}

/** The look the player picked, or null while they never have. */
export function chosenLook() {
  const look = store.get("look");
  if (LOOKS.includes(look)) return look;
  // Before the candy table the theme was kept as "kozyr.theme", written on
  // every visit: only "midnight" there was certainly picked.
  const legacy = store.get("theme");
  if (legacy !== null) {
    store.set("theme", null);
    if (legacy === "midnight") {
      store.set("look", "midnight");
      return "midnight";
    }
  }
  return null;
}

/** The look to show: the player's pick, else the language's (``dark``: a
 * dark Telegram chat, where the classic table is drawn at midnight). */
export function lookFor(lang, dark = false) {
  const chosen = chosenLook();
  if (chosen) return chosen;
  const look = defaultLook(lang);
  return look === "classic" && dark ? "midnight" : look;
}

/** Show ``look`` (not remembered: see chooseLook). */
export function applyLook(look) {
  const value = LOOKS.includes(look) ? look : "classic";
  document.documentElement.dataset.theme = value;
  return value;
}

/** The player picks ``look``: shown and remembered, in any language. */
export function chooseLook(look) {
  store.set("look", applyLook(look));
}

/** Whether the candy table is on: the computer's seats are Mocha's. */
export function candyTable() {
  return document.documentElement.dataset.theme === "candy";
}
