// The guided first game (issue 25, section 8; README "Learning the game").
//
// A normal game against one level-1 computer, played as Perevodnoy so that a
// transfer can come up, with a tip the first time each situation does: the
// intro (aim and trumps), then lead, cover, take, transfer, throw in and done,
// read from the frame the table draws (its phase and your legal actions). A
// tip never covers the cards or the button it talks about (place() below),
// never blocks a tap elsewhere, and goes with "Got it" or with your move.
// localStorage: kozyr.guide ("done" | "skipped": the start screen no longer
// offers it) and kozyr.guideGame ({room, seen}: the guided game in progress
// and the tips it has shown, so a reload does not repeat them).

import { $, $$, h, prefersReducedMotion } from "./dom.js";
import { t } from "./i18n.js";
import { DEFAULT_RULES } from "./rules.js";
import { store } from "./store.js";

/** The situations, in the order their tips come when several are new at once. */
export const SITUATIONS = ["intro", "attack", "defend", "take", "transfer", "throw", "pass"];

/** The `create_room` of a guided game: you and one level-1 computer, no clock. */
export const GUIDED_ROOM = {
  type: "create_room",
  seats: 2,
  rules: { ...DEFAULT_RULES, variant: "perevodnoy" },
  move_time: null,
  visibility: "private",
  bot_level: 1,
  start: true,
};

const SUIT_CHARS = { S: "\u2660", C: "\u2663", D: "\u2666", H: "\u2665" };
// A tip waits for the cards of the last move to land (js/table.js FLY_MS).
const SETTLE_MS = 450;
const GAP = 6; // px kept clear around what a tip talks about
const EXPECT_MS = 15000; // a guided room answers its request within this
const ANNOUNCE_AFTER_MS = 700; // the table's own announcement of the move goes first

export class Guide {
  /**
   * @param {object} hooks
   * @param {import("./table.js").TableView} hooks.table
   * @param {() => void} hooks.start  create the guided game's room (app.js)
   * @param {(text: string) => void} hooks.announce  the polite live region
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.table = hooks.table;
    this.expecting = 0; // when a guided room was asked for: the next such room is it
    this.shown = null; // {kind, version} of the tip on screen
    this.lastVersion = null;
    this.hadTurn = false;
    this.timer = null;
    this.tip = this.buildTip();
    $("#screen-table").append(this.tip);
    const resized = new ResizeObserver(() => this.place());
    for (const sel of ["#table", "#hand", "#battle", "#actions"]) resized.observe($(sel));
    window.addEventListener("resize", () => this.place());
    for (const el of $$('[data-action="guide-play"], #guide-link')) el.addEventListener("click", () => this.replay());
    $('#guide-offer [data-action="guide-no"]').addEventListener("click", () => {
      store.set("guide", "skipped");
      this.renderOffer();
    });
    this.renderOffer();
  }

  // ------------------------------------------------------------ state
  /** The guided game in progress ({room, seen}), or null. */
  get game() {
    const g = store.get("guideGame");
    return g && typeof g.room === "string" && Array.isArray(g.seen) ? g : null;
  }

  /** Play the guided game (the offer, the start screen's link, Help, the how-to page). */
  replay() {
    this.expecting = Date.now();
    this.hooks.start();
  }

  /** A room was entered: the one just asked for is the guided game (a room of
   * its making, within a few seconds: a refused request is not followed by the
   * next room you join). */
  roomChanged(room) {
    const asked = this.expecting && Date.now() - this.expecting < EXPECT_MS;
    const guided = room.seats.length === GUIDED_ROOM.seats && room.rules.variant === GUIDED_ROOM.rules.variant;
    if (!asked || !guided) return;
    this.expecting = 0;
    this.follow(room.code);
  }

  /** Guide the game of room ``code`` from its start (tests draw frames of it). */
  follow(code) {
    store.set("guideGame", { room: code, seen: [] });
    this.shown = null;
    this.lastVersion = null;
    this.renderOffer();
  }

  skip() {
    store.set("guide", "skipped");
    store.set("guideGame", null);
    this.hide();
    this.renderOffer();
    this.hooks.announce(t("guide.skipped"));
  }

  /** The start screen offers the guided game until it is done or declined. */
  renderOffer() {
    $("#guide-offer").hidden = Boolean(store.get("guide"));
  }

  active() {
    const ctx = this.table.ctx;
    const g = this.game;
    return Boolean(g && ctx && ctx.room && ctx.room.code === g.room && !ctx.shared && ctx.frame.seat !== null);
  }

  /** The situations of the frame on the table: which tips could be shown now. */
  situations() {
    const types = new Set(this.table.honestActions.map((a) => a.type));
    return SITUATIONS.filter((k) => k === "intro" || types.has(k));
  }

  // ------------------------------------------------------------ following the table
  /** After every drawing of the table (TableView's ``rendered`` hook). */
  update() {
    if (!this.active()) {
      this.hide();
      return;
    }
    const f = this.table.ctx.frame;
    if (f.view.phase === "over") {
      store.set("guide", "done");
      store.set("guideGame", null);
      this.hide();
      this.renderOffer();
      return;
    }
    const newVersion = f.version !== this.lastVersion;
    const moved = newVersion && this.hadTurn; // you moved (or your clock did)
    this.lastVersion = f.version;
    this.hadTurn = this.table.turnActions.length > 0;
    if (this.shown && newVersion && (this.shown.kind !== "intro" || moved)) this.hide();
    if (this.shown) {
      this.fillTip(this.shown.kind); // the language may have changed
      this.place();
      return;
    }
    this.showNext();
  }

  /** The first situation of this frame not explained yet, if any (``now``:
   * straight away; else once the last move's cards have landed). */
  showNext(now = false) {
    clearTimeout(this.timer);
    const seen = new Set(this.game ? this.game.seen : []);
    const kind = this.situations().find((k) => !seen.has(k));
    if (!kind) return;
    const version = this.table.ctx.frame.version;
    const go = () => {
      if (!this.active() || this.table.ctx.frame.version !== version || this.shown) return;
      this.show(kind);
    };
    if (now || prefersReducedMotion()) go();
    else this.timer = setTimeout(go, SETTLE_MS);
  }

  show(kind) {
    const g = this.game;
    if (!g.seen.includes(kind)) store.set("guideGame", { ...g, seen: [...g.seen, kind] });
    this.shown = { kind, version: this.table.ctx.frame.version };
    this.fillTip(kind);
    this.tip.hidden = false;
    this.table.el.table.dataset.guide = kind; // css/learn.css rings the button it names
    this.place();
    requestAnimationFrame(() => this.place());
    // Read out after the move that brought it (the same live region).
    const spoken = `${t(`guide.tip.${this.tipKey(kind)}.title`)}. ${$(".guide-body", this.tip).textContent}`;
    setTimeout(() => this.shown && this.shown.kind === kind && this.hooks.announce(spoken), ANNOUNCE_AFTER_MS);
  }

  hide() {
    clearTimeout(this.timer);
    this.shown = null;
    this.tip.hidden = true;
    delete this.table.el.table.dataset.guide;
  }

  ok() {
    const focused = this.tip.contains(document.activeElement);
    this.hide();
    this.showNext(true);
    if (focused) {
      const next = this.tip.hidden ? null : this.tip.querySelector('[data-action="guide-ok"]');
      if (next) next.focus({ preventScroll: true });
      else this.table.placeFocus({ area: "hand", index: 0 });
    }
  }

  // ------------------------------------------------------------ the tip
  buildTip() {
    const tip = h(
      "div",
      { id: "guide-tip", class: "guide-tip", role: "dialog", "aria-modal": "false", "aria-labelledby": "guide-tip-title", hidden: true },
      h("p", { class: "guide-text" }, h("b", { id: "guide-tip-title", class: "guide-title" }), " ", h("span", { class: "guide-body" })),
      h(
        "div",
        { class: "guide-actions" },
        h("button", { type: "button", class: "small ghost", dataset: { action: "guide-skip" }, onclick: () => this.skip() }),
        h("button", { type: "button", class: "small primary", dataset: { action: "guide-ok" }, onclick: () => this.ok() }),
      ),
    );
    return tip;
  }

  /** The taking variant of "done" is "pass" (the button says Pass then). */
  tipKey(kind) {
    return kind === "pass" && this.table.view.taking ? "passTaking" : kind;
  }

  fillTip(kind) {
    const trump = this.table.view.trump;
    const names = {
      suit: trump ? SUIT_CHARS[trump[1]] : "",
      lead: t("table.lead"),
      take: t("table.take"),
      transfer: t("table.transfer"),
      done: t("table.done"),
      pass: t("table.pass"),
    };
    const key = this.tipKey(kind);
    this.tip.dataset.kind = kind;
    this.tip.setAttribute("aria-label", `${t("guide.label")}: ${t(`guide.tip.${key}.title`)}`);
    $(".guide-title", this.tip).textContent = t(`guide.tip.${key}.title`);
    $(".guide-body", this.tip).textContent = t(`guide.tip.${key}.text`, names);
    $('[data-action="guide-skip"]', this.tip).textContent = t("guide.skip");
    $('[data-action="guide-ok"]', this.tip).textContent = t("guide.ok");
  }

  /** What the tip of ``kind`` talks about: it must never cover these. */
  targets(kind) {
    const table = this.table.el;
    const pairs = $$(".pair", table.battle);
    const lit = $$(".hcard.playable", table.hand);
    const button = (action) => $$(`[data-action="${action}"]`, table.actions);
    switch (kind) {
      case "intro":
        return [table.deck];
      case "attack":
        return lit;
      case "defend":
      case "throw":
        return [...pairs, ...lit];
      case "take":
        return [...pairs, ...button("take")];
      case "transfer": {
        const cards = new Set(this.table.honestActions.filter((a) => a.type === "transfer").flatMap((a) => a.cards));
        return [...pairs, ...button("transfer"), ...$$(".hcard", table.hand).filter((el) => cards.has(el.dataset.card))];
      }
      case "pass":
        return [...pairs, ...button("pass")];
      default:
        return [];
    }
  }

  /** Put the tip where it covers none of its targets and as little as possible
   * of anything else you could tap, near what it talks about. */
  place() {
    if (!this.shown || this.tip.hidden) return;
    this.tip.classList.remove("tight");
    const roomy = this.bestPlace();
    let best = roomy;
    if (roomy.covers > 0) {
      // Nowhere free: smaller type, if that finds a free place (or a better one).
      this.tip.classList.add("tight");
      best = this.bestPlace();
      if (best.cost >= roomy.cost) {
        this.tip.classList.remove("tight");
        best = roomy;
      }
    }
    this.tip.style.left = `${Math.round(best.x)}px`;
    this.tip.style.top = `${Math.round(best.y)}px`;
  }

  /** The best place for the tip as it is now: {x, y, cost}. The cost counts
   * what it covers, in px²: a million for what it talks about, a thousand for
   * anything else you could tap, one for what the table tells (seats, the
   * status line, the deck); then the distance to its targets. ``covers``: the
   * part of it for what it talks about and what you could tap (0: nothing). */
  bestPlace() {
    const tip = this.tip;
    const vw = document.documentElement.clientWidth;
    const vh = window.innerHeight;
    const width = Math.min(vw - 16, 420);
    tip.style.width = `${width}px`;
    tip.style.left = "0px";
    tip.style.top = "0px";
    const w = tip.offsetWidth;
    const ht = tip.offsetHeight;
    const box = (el) => el.getBoundingClientRect();
    const seen = (r) => r.width > 0 && r.height > 0;
    const targetEls = this.targets(this.shown.kind);
    const targets = targetEls.map(box).filter(seen);
    const others = $$("button, a[href], select, input, .hcard")
      .filter((el) => !tip.contains(el) && !targetEls.includes(el) && el.getClientRects().length)
      .map(box)
      .filter(seen);
    // What the table tells (seats, the status line, the deck...): better left in view.
    const info = $$(".opp, #status, #deck, #discard, #me-info")
      .filter((el) => !targetEls.includes(el) && el.getClientRects().length)
      .map(box)
      .filter(seen);
    const overlap = (x, y, r, pad) =>
      Math.max(0, Math.min(x + w, r.right + pad) - Math.max(x, r.left - pad)) * Math.max(0, Math.min(y + ht, r.bottom + pad) - Math.max(y, r.top - pad));
    const xs = new Set([8, (vw - w) / 2, vw - w - 8]);
    const ys = new Set([8, vh - ht - 8]);
    const felt = ["#opponents", "#felt", "#me", ".table-bar"].map((s) => $(s)).filter(Boolean).map(box);
    for (const r of [...targets, ...others, ...felt, ...info]) {
      for (const x of [r.left, r.right - w, r.right + GAP, r.left - w - GAP]) xs.add(x);
      for (const y of [r.top, r.bottom + GAP, r.top - ht - GAP]) ys.add(y);
    }
    const union = targets.reduce(
      (u, r) => ({ left: Math.min(u.left, r.left), top: Math.min(u.top, r.top), right: Math.max(u.right, r.right), bottom: Math.max(u.bottom, r.bottom) }),
      { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity },
    );
    const cx = targets.length ? (union.left + union.right) / 2 : vw / 2;
    const cy = targets.length ? (union.top + union.bottom) / 2 : vh / 2;
    let best = null;
    for (let x of xs) {
      x = Math.max(4, Math.min(vw - w - 4, x));
      for (let y of ys) {
        y = Math.max(4, Math.min(vh - ht - 4, y));
        let covers = 0;
        for (const r of targets) covers += 1e6 * overlap(x, y, r, GAP);
        for (const r of others) covers += 1e3 * overlap(x, y, r, 0);
        let cost = covers + Math.hypot(x + w / 2 - cx, y + ht / 2 - cy);
        for (const r of info) cost += overlap(x, y, r, 0);
        if (!best || cost < best.cost) best = { x, y, cost, covers };
      }
    }
    return best;
  }
}
