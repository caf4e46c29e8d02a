// Translations: every UI string lives in i18n/<lang>.json (en is the fallback).
//
// Keys are dotted paths ("table.take"). A value may be a plain string with
// {placeholders}, or an object of plural forms ({"one": ..., "few": ...,
// "many": ..., "other": ...}) chosen by Intl.PluralRules from params.n.

export const LANGUAGES = ["en", "ru", "zh", "ja"];

const cache = new Map();
let lang = "en";
let dict = {};
let fallback = {};

async function fetchDict(code) {
  if (!cache.has(code)) {
    // Next to this module: under the client's versioned name (cached for good).
    const res = await fetch(new URL(`../i18n/${code}.json`, import.meta.url));
    if (!res.ok) throw new Error(`no translation ${code}`);
    cache.set(code, await res.json());
  }
  return cache.get(code);
}

/** The language to start with: the saved choice, else the browser's, else English. */
export function pickLanguage(saved) {
  if (saved && LANGUAGES.includes(saved)) return saved;
  const wanted = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
  for (const tag of wanted) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

export async function setLanguage(code) {
  fallback = await fetchDict("en");
  dict = code === "en" ? fallback : await fetchDict(code);
  lang = code;
  document.documentElement.lang = { zh: "zh-Hans", ja: "ja", ru: "ru", en: "en" }[code] || code;
  applyI18n(document); // the <title> too (data-i18n)
}

export const currentLanguage = () => lang;

function lookup(table, key) {
  let node = table;
  for (const part of key.split(".")) {
    if (node === null || typeof node !== "object" || !(part in node)) return undefined;
    node = node[part];
  }
  return node;
}

const pluralRules = new Map();
function pluralOf(n) {
  if (!pluralRules.has(lang)) pluralRules.set(lang, new Intl.PluralRules(lang));
  return pluralRules.get(lang).select(n);
}

/** The translation of ``key`` with {placeholders} filled from ``params``. */
export function t(key, params = {}) {
  let value = lookup(dict, key);
  if (value === undefined) value = lookup(fallback, key);
  if (value === undefined) return key;
  if (typeof value === "object") {
    const form = pluralOf(Number(params.n ?? 0));
    value = value[form] ?? value.other ?? Object.values(value)[0];
  }
  return String(value).replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** Fill elements marked data-i18n (text) and data-i18n-attr ("attr:key;attr:key"). */
export function applyI18n(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) {
    el.textContent = t(el.dataset.i18n);
  }
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      if (attr && key) el.setAttribute(attr.trim(), t(key.trim()));
    }
  }
}

// ------------------------------------------------------------------ cards
const RANK_KEYS = { T: "10" };

/** "Ten of diamonds" in the current language. ``form`` ("Acc", "Ins") picks a
 * grammatical case where the language has one (Russian: "шестёрку червей",
 * "шестёркой червей", in running text, lower case); elsewhere the plain name. */
export function cardName(code, form = "") {
  const rank = RANK_KEYS[code[0]] || code[0];
  const cased = form ? lookup(dict, `cards.rank${form}.${rank}`) : undefined;
  return t("cards.name", {
    rank: typeof cased === "string" ? cased : t(`cards.rank.${rank}`),
    suit: t(`cards.suit.${code[1]}`),
  });
}

/** The short rank printed on a card ("10", "J"; Russian decks print В Д К Т). */
export function rankShort(rank) {
  const local = lookup(dict, `cards.short.${rank}`);
  if (typeof local === "string") return local;
  return rank === "T" ? "10" : rank;
}
