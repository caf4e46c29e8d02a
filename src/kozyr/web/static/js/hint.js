// Hints at tables against the computer (issue 27): a Hint button among the
// moves when you are the only person at the table, and the answer — the best
// move lit in the hand or on its button, with its chance of not being the
// durak. The server decides (it refuses with hint_unavailable elsewhere); the
// button only shows where it would not be refused.
import { $$, h } from "./dom.js";
import { t } from "./i18n.js";
import { cardShort } from "./table.js";

const NAMES = {
  attack: "table.lead",
  throw: "table.throwIn",
  transfer: "table.transfer",
  show_trump: "table.showTrump",
  take: "table.take",
  defend: "table.cover",
};

/** A move in words with its cards: "Lead 7♠ 7♥", "Cover 6♦ with 9♦", "Take". */
export function moveText(action, taking) {
  if (action.type === "pass") return taking ? t("table.pass") : t("table.done");
  if (action.type === "defend") return t("hint.cover", { target: cardShort(action.target), card: cardShort(action.card) });
  const cards = action.cards || (action.card ? [action.card] : []);
  return [t(NAMES[action.type] || "table.move"), ...cards.map(cardShort)].join(" ");
}

export class Hints {
  /** hooks: send(msg), frame() -> the current frame, room() -> the room info,
   * you() -> {seat, spectator}, online() -> bool, redraw(). */
  constructor(hooks) {
    this.hooks = hooks;
    this.answer = null; // the last hint: {game, version, action, chance, exact, used}
    this.waitingFor = null; // the version a hint was asked at
  }

  /** Whether this table gives hints: online, seated, not rated, every other seat a bot's. */
  available() {
    const room = this.hooks.room();
    const you = this.hooks.you();
    if (!this.hooks.online() || !room || !you || you.spectator || you.seat === null || you.seat === undefined) return false;
    return !room.rated && room.seats.every((s) => s.seat === you.seat || !s.human);
  }

  /** The hint for the frame on screen, if there is one. */
  current() {
    const f = this.hooks.frame();
    const a = this.answer;
    return f && a && a.game === f.game && a.version === f.version ? a : null;
  }

  /** Extra items of the action bar: the Hint button, and the hint once it came. */
  items() {
    if (!this.available()) return [];
    const f = this.hooks.frame();
    if (!f || f.to_move !== f.seat) return [];
    const shown = this.current();
    const waiting = this.waitingFor === f.version;
    const out = [
      h(
        "button",
        {
          type: "button",
          class: `act hint${shown ? " on" : ""}`,
          dataset: { action: "hint" },
          disabled: waiting || Boolean(shown),
          "aria-keyshortcuts": "H",
          title: t("table.shortcut", { label: t("hint.button"), key: "H" }),
          onclick: () => this.ask(),
        },
        h("span", { class: "hint-bulb", "aria-hidden": "true" }, "\u{1F4A1}"),
        " ",
        waiting ? t("hint.thinking") : t("hint.button"),
      ),
    ];
    if (shown) {
      const pct = `${Math.round(shown.chance * 100)}\u00a0%`;
      out.push(
        h(
          "p",
          { class: "hint-note", role: "status", dataset: { chance: String(shown.chance) } },
          t("hint.best", { move: moveText(shown.action, f.view.taking), chance: pct }),
        ),
      );
    }
    return out;
  }

  ask() {
    const f = this.hooks.frame();
    if (!f || this.waitingFor === f.version) return;
    this.waitingFor = f.version;
    this.hooks.send({ type: "hint" });
    this.hooks.redraw();
  }

  /** The server's answer. */
  received(msg) {
    this.answer = msg;
    this.waitingFor = null;
    this.hooks.redraw();
  }

  /** A refusal (hint_unavailable, rate_limited ...): the button is free again. */
  refused() {
    this.waitingFor = null;
    this.hooks.redraw();
  }

  /** After the table is drawn: light the hinted cards in the hand, or its button. */
  light(root) {
    for (const el of $$(".hinted", root)) el.classList.remove("hinted");
    const shown = this.current();
    if (!shown) return;
    const a = shown.action;
    const cards = a.cards || (a.card ? [a.card] : []);
    for (const c of cards) for (const el of $$(`#hand button[data-card="${c}"]`, root)) el.classList.add("hinted");
    if (a.type === "defend") for (const el of $$(`#battle [data-card="${a.target}"]`, root)) el.classList.add("hinted");
    if (a.type === "take" || a.type === "pass") for (const el of $$(`#actions [data-action="${a.type}"]`, root)) el.classList.add("hinted");
  }
}
