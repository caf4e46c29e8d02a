// Telegram Mini App mode (docs/telegram.md).
//
// Telegram opens the client with its launch parameters in the URL's hash:
// tgWebAppData (the signed initData), tgWebAppThemeParams (colours),
// tgWebAppStartParam (a deep link's start parameter), tgWebAppVersion ...
// No Telegram script is loaded: this module reads the hash and talks to the
// Telegram app through the bridge Telegram documents for Mini Apps:
// window.TelegramWebviewProxy.postEvent on phones and desktops, postMessage to
// the parent frame on the web version; events come back through
// window.Telegram.WebView.receiveEvent (native) or "message" events (web).
//
// Outside Telegram (no tgWebAppData) every function here does nothing.

import { LANGUAGES } from "./i18n.js";

const SAVED = "kozyr.tgLaunch"; // sessionStorage: survives a reload inside Telegram

function launchParams() {
  const hash = location.hash.startsWith("#") ? location.hash.slice(1) : "";
  let params = new URLSearchParams(hash);
  try {
    if (params.has("tgWebAppData")) sessionStorage.setItem(SAVED, hash);
    else params = new URLSearchParams(sessionStorage.getItem(SAVED) || "");
  } catch {
    /* no sessionStorage: only the hash counts */
  }
  return params.has("tgWebAppData") ? params : null;
}

const launch = launchParams();
const handlers = new Map(); // event type -> [callback]
let session = null; // the player's token once logged in

/** True when the page runs as a Telegram Mini App. */
export function inTelegram() {
  return launch !== null;
}

/** Send one event to the Telegram app (documented "postEvent" bridge). */
export function postEvent(type, data = {}) {
  if (!launch) return;
  const proxy = window.TelegramWebviewProxy;
  if (proxy && typeof proxy.postEvent === "function") {
    proxy.postEvent(type, JSON.stringify(data));
  } else if (window.parent && window.parent !== window) {
    window.parent.postMessage(JSON.stringify({ eventType: type, eventData: data }), "*");
  }
}

function on(type, callback) {
  if (!handlers.has(type)) handlers.set(type, []);
  handlers.get(type).push(callback);
}

function receive(type, data) {
  for (const callback of handlers.get(type) || []) callback(data || {});
}

function listen() {
  // Native apps call window.Telegram.WebView.receiveEvent(type, data).
  window.Telegram = window.Telegram || {};
  window.Telegram.WebView = window.Telegram.WebView || {};
  window.Telegram.WebView.receiveEvent = receive;
  window.TelegramGameProxy = window.TelegramGameProxy || { receiveEvent: receive };
  // The web version posts {eventType, eventData} JSON to this window.
  window.addEventListener("message", (ev) => {
    if (ev.source !== window.parent) return;
    let msg = ev.data;
    try {
      if (typeof msg === "string") msg = JSON.parse(msg);
    } catch {
      return;
    }
    if (msg && typeof msg.eventType === "string") receive(msg.eventType, msg.eventData);
  });
}

// ------------------------------------------------------------ theme and viewport
/** A #rrggbb colour (Telegram's, or one of the client's CSS variables). */
const isColour = (value) => /^#[0-9a-f]{6}$/i.test(String(value || ""));

/** Relative luminance of a #rrggbb colour (0 black .. 1 white), or null. */
function luminance(hex) {
  if (!isColour(hex)) return null;
  const n = parseInt(String(hex).slice(1), 16);
  const lin = (c) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin((n >> 16) & 255) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
}

// Telegram's theme colours -> the client's CSS variables (the felt stays a felt;
// panels, their text and the buttons take the chat's colours). The top bar keeps
// its own colour (its text is drawn for a dark bar) and Telegram's header is
// asked to match it instead.
const THEME_VARS = {
  "--panel": ["section_bg_color", "bg_color"],
  "--panel-ink": ["text_color"],
  "--panel-soft": ["hint_color", "subtitle_text_color"],
  "--panel-line": ["section_separator_color", "hint_color"],
  "--accent": ["button_color"],
  "--accent-ink": ["button_text_color"],
};

let themeApplied = null; // callback(baseTheme) from the app: "midnight" in a dark chat

export function applyTheme(theme) {
  if (!launch || !theme || typeof theme !== "object") return;
  const root = document.documentElement;
  const lum = luminance(theme.bg_color);
  if (lum !== null && themeApplied) themeApplied(lum < 0.4 ? "midnight" : "classic");
  for (const [name, keys] of Object.entries(THEME_VARS)) {
    const value = keys.map((k) => theme[k]).find(isColour);
    if (value) root.style.setProperty(name, value);
    else root.style.removeProperty(name);
  }
  matchTelegramColours();
}

/** Telegram's header and background take the colours of the client's top bar
 * and felt (again after the table's look changes). */
export function matchTelegramColours() {
  if (!launch) return;
  const css = getComputedStyle(document.documentElement);
  const match = (event, name) => {
    const color = css.getPropertyValue(name).trim();
    if (isColour(color)) postEvent(event, { color });
  };
  match("web_app_set_header_color", "--topbar");
  match("web_app_set_background_color", "--felt-dark");
}

function applyViewport(height) {
  const h = Number(height);
  if (!Number.isFinite(h) || h <= 0) return;
  document.documentElement.style.setProperty("--tg-viewport-height", `${Math.round(h)}px`);
}

function addStyle() {
  // Fill Telegram's viewport (its height changes as the sheet is dragged) and
  // do not let a swipe on the page pull the Mini App closed.
  const style = document.createElement("style");
  style.textContent =
    "html[data-telegram] body{min-height:var(--tg-viewport-height,100vh);overscroll-behavior:none}";
  document.head.append(style);
}

// ------------------------------------------------------------ back button
let backVisible = null;
let backAction = null;

/** Show Telegram's Back button (calling ``action`` when pressed), or hide it (null). */
export function backButton(action) {
  backAction = action;
  const visible = Boolean(action);
  if (visible === backVisible) return;
  backVisible = visible;
  postEvent("web_app_setup_back_button", { is_visible: visible });
}

// ------------------------------------------------------------ start-up and login
/** Language of the Telegram user (en, ru, zh, ja) if Telegram names one we have. */
function userLanguage() {
  try {
    const user = JSON.parse(new URLSearchParams(launch.get("tgWebAppData")).get("user"));
    const base = String(user.language_code || "").toLowerCase().split("-")[0];
    return LANGUAGES.includes(base) ? base : null;
  } catch {
    return null;
  }
}

/**
 * In Telegram: set up the bridge, theme and viewport, then log in with the
 * launch data. Returns null outside Telegram, else
 * {ok, token, name, auto, start, language, error}: ``start`` is the deep link's
 * start parameter (a room code, or "computer"); ``error`` the server's refusal.
 */
export async function startTelegram({ onTheme }) {
  if (!launch) return null;
  themeApplied = onTheme;
  document.documentElement.dataset.telegram = "1";
  listen();
  addStyle();
  on("theme_changed", (data) => applyTheme(data.theme_params));
  on("viewport_changed", (data) => applyViewport(data.height));
  on("back_button_pressed", () => backAction && backAction());
  try {
    applyTheme(JSON.parse(launch.get("tgWebAppThemeParams") || "{}"));
  } catch {
    /* no usable colours: the client's own theme stays */
  }
  applyViewport(window.innerHeight);
  postEvent("web_app_ready");
  postEvent("web_app_expand");
  postEvent("web_app_request_theme");
  postEvent("web_app_request_viewport");
  const start = launch.get("tgWebAppStartParam") || null;
  try {
    const res = await fetch("api/telegram/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ init_data: launch.get("tgWebAppData") }),
    });
    const body = await res.json();
    if (!res.ok) return { ok: false, error: body.error || { code: "network" }, start, language: userLanguage() };
    session = body.token;
    return { ok: true, ...body, start: body.start_param || start };
  } catch {
    return { ok: false, error: { code: "network" }, start, language: userLanguage() };
  }
}

/** Keep a Telegram player's Auto ladder on the server (it follows them to every device). */
export function saveAuto(auto) {
  if (!session || !auto) return;
  fetch("api/telegram/auto", {
    method: "PUT",
    headers: { "content-type": "application/json", authorization: `Bearer ${session}` },
    body: JSON.stringify({ level: auto.level, games: auto.games }),
  }).catch(() => {
    /* the ladder is kept in this browser anyway */
  });
}
