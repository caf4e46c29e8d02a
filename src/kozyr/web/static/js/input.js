// How the person uses the page: touch, or keys. Focus rings are for keyboard
// users, and the stylesheet shows them with :focus-visible; but Chromium's
// :focus-visible also matches a focus that a script placed before any input
// (the table takes the focus for keyboard users when a reload resumes a game),
// so a phone that never saw a key showed rings (issue 25).
//
// html[data-input="touch"] hides the rings (app.css): from the first touch, or
// from the start on a screen that is touch only (or was touched earlier in this
// tab), until a key is pressed; a key brings them back at once, a mouse leaves
// them to the browser's :focus-visible.

const KEY = "kozyr.input";
const root = document.documentElement;

function remember(how) {
  if (root.dataset.input === how) return;
  root.dataset.input = how;
  try {
    sessionStorage.setItem(KEY, how);
  } catch {
    // storage refused (private mode): the page still follows the input
  }
}

function saved() {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

const touchOnly = window.matchMedia && window.matchMedia("(hover: none) and (pointer: coarse)").matches;
root.dataset.input = saved() || (touchOnly ? "touch" : "mouse");

document.addEventListener(
  "pointerdown",
  (ev) => remember(ev.pointerType === "touch" || ev.pointerType === "pen" ? "touch" : "mouse"),
  true,
);
document.addEventListener(
  "keydown",
  (ev) => {
    if (!["Shift", "Control", "Alt", "Meta"].includes(ev.key)) remember("keys");
  },
  true,
);
