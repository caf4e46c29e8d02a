// What the browser remembers (localStorage): name, token, language, theme,
// the "Auto" level ladder, and the seats of a pass-and-play game.

const KEY = "kozyr.";

function get(name, fallback = null) {
  try {
    const raw = localStorage.getItem(KEY + name);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

function set(name, value) {
  try {
    if (value === null || value === undefined) localStorage.removeItem(KEY + name);
    else localStorage.setItem(KEY + name, JSON.stringify(value));
  } catch {
    /* private mode: nothing is remembered */
  }
}

export const store = { get, set };

// ------------------------------------------------------------ the Auto level
// The same ladder as kozyr.bots.auto: one level up after a win, one down
// after a loss, unchanged after a draw, within 1..10; a new player starts at
// level 3 and meets at most level 4 in their first two games.
const START_LEVEL = 3;
const GENTLE_GAMES = 2;
const GENTLE_CAP = 4;

export function autoLevel() {
  const a = get("auto", { level: START_LEVEL, games: 0 });
  const level = Math.max(1, Math.min(10, Number(a.level) || START_LEVEL));
  return a.games < GENTLE_GAMES ? Math.min(level, GENTLE_CAP) : level;
}

/** Record the outcome ("win" | "loss" | "draw") of a game against Auto bots. */
export function recordAuto(outcome) {
  const a = get("auto", { level: START_LEVEL, games: 0 });
  let level = Number(a.level) || START_LEVEL;
  if (outcome === "win") level += 1;
  if (outcome === "loss") level -= 1;
  set("auto", { level: Math.max(1, Math.min(10, level)), games: (a.games || 0) + 1 });
  return autoLevel();
}
