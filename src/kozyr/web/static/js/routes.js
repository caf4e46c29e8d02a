// The client's own pages (web/README.md, "Pages"): /game/{id}, /player/{id},
// /me, /me/games, /leaderboard and /puzzles. The server answers each of those paths with
// index.html and a <base href> back to the root, so relative links and
// fetch("api/...") work there as at "/"; this module reads the path and moves
// between pages with the History API (no reload: inside Telegram a reload
// would be a new launch).

/** The app's root URL ("https://host/"), whatever page is open. */
export const ROOT = new URL(".", document.baseURI);

// Opened at the root, the page has no <base>: its relative URLs ("api/...",
// "avatars/...") resolve against the document's URL, which pushState changes.
// After go("/game/12") they would point under /game/ (GET /game/api/games/12/steps
// is no API). A <base> at the root keeps them where they are, as on a page the
// server served with one.
if (!document.querySelector("base")) {
  const base = document.createElement("base");
  base.href = ROOT.href;
  document.head.prepend(base);
}

const listeners = [];

/** The page the URL names, or null for the app's own screens (start, room, table). */
export function currentPage() {
  const url = new URL(location.href);
  if (!url.pathname.startsWith(ROOT.pathname)) return null;
  const rel = url.pathname.slice(ROOT.pathname.length).replace(/\/+$/, "");
  let m = rel.match(/^game\/([^/]+)$/);
  if (m) {
    const step = url.searchParams.get("step");
    return { kind: "game", id: decodeURIComponent(m[1]), step: step === null ? null : step };
  }
  m = rel.match(/^player\/([^/]+)$/);
  if (m) return { kind: "player", id: decodeURIComponent(m[1]) };
  if (rel === "me") return { kind: "me" };
  if (rel === "me/games") return { kind: "games" };
  if (rel === "leaderboard") return { kind: "leaderboard" };
  if (rel === "puzzles") return { kind: "puzzles", id: url.searchParams.get("id") };
  return null;
}

/** The path of a page, relative to the root ("game/12?step=3"). */
export function pagePath(kind, id, params = {}) {
  const base = { game: `game/${encodeURIComponent(id)}`, player: `player/${encodeURIComponent(id)}` }[kind] || {
    me: "me",
    games: "me/games",
    leaderboard: "leaderboard",
    puzzles: "puzzles",
    home: "",
  }[kind];
  const url = new URL(base, ROOT);
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) url.searchParams.set(k, String(v));
  return url.href;
}

/** Open a page (pushState); ``replace`` swaps the current history entry instead. */
export function go(href, replace = false) {
  const depth = (history.state && history.state.depth) || 0;
  if (replace) history.replaceState({ depth }, "", href);
  else history.pushState({ depth: depth + 1 }, "", href);
  changed();
}

/** Back to where the person came from inside the app, or home when the page
 * was opened from a link (nothing of ours to go back to). */
export function back() {
  if (history.state && history.state.depth > 0) history.back();
  else go(pagePath("home"), true);
}

/** Change the URL's query without a new history entry (the viewer's step). */
export function setParam(name, value) {
  const url = new URL(location.href);
  if (value === null) url.searchParams.delete(name);
  else url.searchParams.set(name, String(value));
  if (url.href !== location.href) history.replaceState(history.state, "", url.href);
}

/** ``fn(page)`` runs whenever the page changes (a link, Back, Forward). */
export function onPageChange(fn) {
  listeners.push(fn);
}

function changed() {
  const page = currentPage();
  for (const fn of listeners) fn(page);
}

window.addEventListener("popstate", changed);
