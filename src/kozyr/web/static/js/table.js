// The table screen: opponents, the cards in play, deck and discard, your hand
// and the buttons for the moves you may make now; animations of every play.
//
// The table is redrawn from the latest `game` frame (the server's view of one
// seat plus that seat's legal actions); the frame's `event` (the action that
// led to it) decides what to animate: the cards fly from where they came from
// (an opponent's seat, your hand, the table) to where they went.

import { $, fill, h, openDialog, prefersReducedMotion } from "./dom.js";
import { RANKS, backSVG, cardLabelHTML, cardSVG, sortHand, suitIcon, suitOf } from "./cards.js";
import { cardName, currentLanguage, rankShort, t } from "./i18n.js";
import "./input.js"; // html[data-input]: no focus rings on a touch screen until a key is pressed
import { candyTable } from "./look.js";

const FLY_MS = 420;
const CALLOUT_MS = 4500;
const SUIT_CHARS = { S: "\u2660", C: "\u2663", D: "\u2666", H: "\u2665" };

/** "9♠" (Russian decks: "Д♥"): a card in running text. */
export function cardShort(code) {
  return `${rankShort(code[0])}${SUIT_CHARS[code[1]] || code[1]}`;
}

/** Whether a seat is the computer's (a bot's, not a person's nor an empty one). */
export const isComputerSeat = (info) => Boolean(info) && !info.human && !info.name && info.bot !== null && info.bot !== undefined;

/** Mocha's portrait (art/mocha.svg), for the computer's seats at the candy table. */
export const MOCHA_ART = new URL("../art/mocha.svg", import.meta.url).href;

/** The name shown for a seat: the person's, or "Bot" for a computer seat ("Bot 3",
 * by seat number, when there are several: seats with no name, empty ones too).
 * At the candy table the computer's seats are Mocha's: "Mocha" alone, else
 * "Mocha", "Mocha 2", "Mocha 3"... in seat order (docs/client.md). */
export function seatName(room, seat) {
  const info = room && room.seats[seat];
  if (info && info.name) return info.name;
  if (candyTable() && isComputerSeat(info)) {
    const nth = room.seats.slice(0, seat + 1).filter(isComputerSeat).length;
    return nth === 1 ? t("candy.mocha") : t("candy.mochaN", { n: nth });
  }
  const unnamed = room ? room.seats.filter((s) => !s.name && !s.human).length : 0;
  return unnamed === 1 ? t("table.botOnly") : t("table.botName", { n: seat + 1 });
}

/** The avatar of a seat: the person's initial, the robot, or Mocha's portrait. */
export function seatAvatar(info, name) {
  if (info.human) return h("span", { class: "avatar", "aria-hidden": "true" }, name.slice(0, 1).toUpperCase());
  if (candyTable() && isComputerSeat(info)) {
    return h("span", { class: "avatar mocha", "aria-hidden": "true" }, h("img", { class: "mocha-face", src: MOCHA_ART, alt: "" }));
  }
  return h("span", { class: "avatar bot", "aria-hidden": "true" }, h("span", { class: "icon icon-robot" }));
}

/** The "BOT" tag that follows a bot account's name everywhere (docs/bot-api.md):
 * a program, not a person (the computer's own seats say "Computer" instead). */
export function botTag(isBot = true) {
  return isBot ? h("span", { class: "tag tag-botacct", title: t("room.botAccountHint") }, t("room.botAccount")) : null;
}

/** Actions of ``legal`` that play ``card`` (attack, defend, throw, transfer, show trump). */
function actionsWithCard(legal, card) {
  return legal.filter((a) => a.type !== "accuse" && ((a.cards && a.cards.includes(card)) || a.card === card));
}

function cardsOfAction(a) {
  if (a.type === "accuse") return [];
  if (a.cards) return a.cards;
  if (a.card) return [a.card];
  return [];
}

// ------------------------------------------------------------ cheating tables (rule 13)
// The server lists cheats among the legal actions exactly like the honest
// actions they imitate; the client tells them apart to offer them only on
// purpose (the Cheat toggle). Whether a card *on the table* was a cheat is
// never computed here: noticing it is the game.

/** Whether ``card`` beats ``target`` (a higher card of the suit, or a trump over a non-trump). */
export function beats(card, target, trumpSuit) {
  if (card[1] === target[1]) return RANKS.indexOf(card[0]) > RANKS.indexOf(target[0]);
  return card[1] === trumpSuit && target[1] !== trumpSuit;
}

function tableRanks(view) {
  const ranks = new Set();
  for (const pair of view.table) {
    ranks.add(pair.attack[0]);
    if (pair.defense) ranks.add(pair.defense[0]);
  }
  return ranks;
}

/** A legal action that is a cheat: a throw-in of a rank not on the table, a
 * cover that does not beat its target, a lead of two ranks. */
export function isCheat(view, a) {
  if (a.type === "throw") {
    const ranks = tableRanks(view);
    return a.cards.some((c) => !ranks.has(c[0]));
  }
  if (a.type === "defend") return !beats(a.card, a.target, suitOf(view.trump));
  if (a.type === "attack") return new Set(a.cards.map((c) => c[0])).size > 1;
  return false;
}

const escapeHTML = (text) =>
  String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

const sameCards = (a, b) => a.length === b.length && a.every((c) => b.includes(c));

/** A hand card that may be played now (or cheated, or is selected). */
const LIT = ".playable, .cheatable, .chosen";
const isLit = (el) => el.matches(LIT);

// ------------------------------------------------------------ the hand's layout
// Every card of the hand keeps a part of its own at least MIN_STEP x ROW_STEP px
// (a 44 x 44 px tap target with a little to spare, whether it is lit or not, so
// that the layout never moves when a selection changes what is lit): in a
// fanned row the strip left of its right neighbour, in rows also the top strip
// above the next row (where a card's rank and suit are).
const MIN_STEP = 50;
const LOW_SCREEN = window.matchMedia("(orientation: landscape) and (max-height: 540px)");
const ROW_STEP = 50;
const MIN_CARD = 48;
const BIG_HAND = 14; // the narrowest a hand card gets when the table is short of room
const FAN_TOP = 6; // room above the rows for a selected card's rise
const CHOSEN_RISE = 4;
// The most pairs a round puts on the table (the attack limit): the hand is laid
// out as if they were all there, so that its cards keep their size all round.
const FULL_TABLE = 6;

/** How far each card of a fanned row of ``n`` turns from its neighbour (degrees). */
const fanSpread = (n) => Math.min(2.6, 26 / Math.max(n, 1));

/** The ways to lay ``n`` cards out in a hand ``width`` px wide, best first:
 * fewest rows (one row is a fan), then the widest cards, from the CSS width
 * ``w0`` down to MIN_CARD (narrower cards leave the table more height). Only
 * plans that keep every step at least MIN_STEP; at most three row counts. */
export function handPlans(n, width, w0) {
  const plans = [];
  let firstRows = 0;
  for (let rows = 1; rows <= n; rows++) {
    const perRow = Math.ceil(n / rows);
    if (Math.ceil(n / perRow) !== rows) continue; // the same as another row count
    if (firstRows && rows > firstRows + 2) break;
    for (let w = Math.round(w0); w >= Math.min(MIN_CARD, w0); w -= 4) {
      const hgt = w * 1.4;
      // The outer cards of a fan tilt about a point below them: keep their
      // corners inside the hand by a margin of that swing.
      const tilt = rows === 1 ? ((perRow - 1) / 2) * fanSpread(perRow) : 0;
      const pad = Math.ceil(hgt * 1.1 * Math.sin((tilt * Math.PI) / 180)) + 2;
      const room = width - 2 * pad - w;
      const step = perRow > 1 ? Math.min(Math.max(w * 0.9, MIN_STEP), room / (perRow - 1)) : 0;
      if (perRow > 1 && step < MIN_STEP) continue;
      const rowStep = Math.min(hgt, Math.max(ROW_STEP, hgt * 0.42));
      plans.push({ rows, perRow, w, step, rowStep, pad });
      firstRows = firstRows || rows;
    }
  }
  if (!plans.length) {
    // Not even MIN_CARD-wide cards fit MIN_STEP apart: one card per row.
    plans.push({ rows: n, perRow: 1, w: Math.min(MIN_CARD, w0), step: 0, rowStep: ROW_STEP, pad: 2 });
  }
  return plans;
}

export class TableView {
  /**
   * @param {object} hooks
   * @param {(action: object, version: number) => void} hooks.move
   * @param {() => void} hooks.leave
   * @param {(text: string, urgent?: boolean) => void} hooks.announce  (urgent: an accusation's verdict)
   * @param {(seats: number[]) => void} [hooks.lastCall]  pass & play: "Continue" for these seats
   * @param {() => Element[]} [hooks.extraActions]  pass & play: the "Then pass" toggle, after the moves
   * @param {() => void} [hooks.rendered]  after every drawing (the guided game's tips, the help)
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.el = {
      table: $("#table"),
      status: $("#status"),
      opponents: $("#opponents"),
      battle: $("#battle"),
      deck: $("#deck"),
      discard: $("#discard"),
      meInfo: $("#me-info"),
      actions: $("#actions"),
      hand: $("#hand"),
      fly: $("#fly-layer"),
      callout: $("#callout"),
    };
    this.ctx = null;
    this.selection = []; // the hand cards selected for a move (choose cards, then act)
    this.cheatMode = false; // the Cheat toggle: the hand offers cheats instead of honest plays
    this.accuseCard = null; // the table card selected to call out
    this.accuseChoice = null; // pass & play: {card, seats} while asking who calls it out
    this.lastCallWindow = null; // {deadline, total} of the last call's countdown
    this.calloutTimer = null;
    this.sentVersion = null; // version we already answered (no double moves)
    this.animatedVersion = null;
    this.flights = 0; // cards animated so far (tests read it)
    this.timerHandle = setInterval(() => this.tickTimers(), 250);
    this.el.hand.addEventListener("keydown", (ev) => this.handKeys(ev));
    document.addEventListener("keydown", (ev) => this.globalKeys(ev));
    // Focus (see placeFocus): where it last was in the table, and whether it
    // belongs there (a move removes the focused card or button; the focus then
    // goes to the next sensible control, never to the page body).
    this.wantFocus = false;
    this.lastFocus = null;
    this.handCurrent = null; // the hand's one Tab stop (roving tabindex)
    this.focusGame = null; // the game in which the focus has been placed in the table
    document.addEventListener("focusin", (ev) => this.focusMoved(ev.target));
    // A focused control removed outside a redraw of ours: the next sensible one.
    document.addEventListener("focusout", (ev) => {
      if (ev.relatedTarget || (ev.target.isConnected && !this.el.table.contains(ev.target))) return;
      setTimeout(() => {
        const el = document.activeElement;
        if (this.ctx && this.wantFocus && (!el || el === document.body)) this.placeFocus(this.lastFocus);
      }, 0);
    });
    $("#keys-open").addEventListener("click", () => this.openKeys());
    $("#keys-close").addEventListener("click", () => this.closeKeys());
    // Lay the fan out again whenever the hand's box changes (resize, screen shown).
    // Only a change of width matters (the fan sets the hand's height itself).
    // The fan takes the height the rest of the table leaves: it is laid out
    // again when the table or a part of it above changes size (a resize, a
    // font that arrives late, a status of two lines, seats in rows).
    this.handWidth = 0;
    this.tableSize = "";
    const resized = new ResizeObserver(() => {
      const box = this.tableBox();
      if (this.el.hand.clientWidth === this.handWidth && box === this.tableSize) return;
      if (box.split(" ")[0] !== this.tableSize.split(" ")[0]) this.layoutSeats();
      this.layoutHand();
    });
    for (const el of [...this.sizedParts(), this.el.hand]) resized.observe(el);
  }

  // ------------------------------------------------------------ public
  /**
   * ctx: {frame, room, event, receivedAt, hidden}
   *   frame     latest `game` message for the seat shown
   *   room      RoomInfo
   *   event     the `event` message of frame.version (or null)
   *   receivedAt performance.now() when the frame arrived (move clock)
   *   hidden    pass & play: the privacy screen is up (nothing may be played)
   *   local     pass & play: [{seat, version, legal}] of every seat on this
   *             device (who may call a card out, who answers the last call)
   *   shared    pass & play: announcements name everybody (no "you")
   */
  render(ctx) {
    const before = this.snapshot();
    const prev = this.ctx;
    const hadTurn = Boolean(prev) && this.turnActions.length > 0;
    const newVersion = !prev || prev.frame.version !== ctx.frame.version || prev.frame.game !== ctx.frame.game;
    const newGame = !prev || prev.frame.game !== ctx.frame.game;
    this.ctx = ctx;
    const kept = this.selection;
    if (newVersion) {
      this.selection = [];
      this.sentVersion = null;
      this.accuseChoice = null;
    }
    if (newGame) this.accuseCard = null;
    if (!this.cheatActions.length) this.cheatMode = false;
    // A selection survives a new frame (a throw-in while you choose your cover)
    // as long as the cards are still in your hand and still make a move together.
    if (newVersion && !newGame && kept.length) {
      const hand = this.view.hand || [];
      const fits = (a) => kept.every((c) => cardsOfAction(a).includes(c));
      if (kept.every((c) => hand.includes(c)) && this.handActions.some(fits)) this.selection = kept;
    }
    if (this.accuseCard && !this.accusersOf(this.accuseCard).length) this.accuseCard = null;
    // Until the focus has been in the table once in this game, the table takes
    // it (the start or room screen's button just went away with its screen).
    const fresh = this.focusGame !== ctx.frame.game;
    const memo = this.focusMemo(fresh);

    this.renderStatus();
    this.renderOpponents();
    this.renderBattle();
    this.renderDeck();
    this.renderDiscard();
    this.renderMe();
    this.renderActions();
    this.renderHand();
    this.tickTimers();

    // Keep keyboard players where they were, or on the next sensible control.
    this.placeFocus(memo, newVersion && !hadTurn && this.turnActions.length > 0);
    if (fresh && memo) {
      // The first frame is drawn before its screen is shown: try again then.
      setTimeout(() => this.ctx && this.focusGame !== this.ctx.frame.game && this.placeFocus(this.focusMemo(true)), 0);
    }

    const say = [];
    if (newVersion && prev && ctx.event && ctx.event.version === ctx.frame.version) {
      if (this.animatedVersion !== ctx.event.version) {
        this.animatedVersion = ctx.event.version;
        this.animate(ctx.event, before, prev);
        say.push(this.eventText(ctx.event, prev.frame.view));
      }
    }
    const lastCall = this.view.phase === "last_call";
    if (newVersion && lastCall && (!prev || prev.frame.view.phase !== "last_call") && this.lastCallSeats().length) {
      say.push(t("table.lastCall"));
    }
    const text = say.filter(Boolean).join(t("table.evJoin"));
    if (text) this.hooks.announce(text);
    if (this.hooks.rendered) this.hooks.rendered();
  }

  get view() {
    return this.ctx.frame.view;
  }

  get mySeat() {
    return this.ctx.frame.seat;
  }

  get legal() {
    const f = this.ctx.frame;
    if (this.ctx.hidden || this.sentVersion === f.version) return [];
    return f.legal || [];
  }

  /** A cheating table (rule 13): its views list the marked seats. */
  get cheating() {
    return Array.isArray(this.view.marked);
  }

  get shared() {
    return Boolean(this.ctx.shared);
  }

  /** Your moves on your turn: no accusations, nothing in the last call. */
  get turnActions() {
    if (this.view.phase === "last_call") return [];
    return this.legal.filter((a) => a.type !== "accuse");
  }

  get honestActions() {
    return this.turnActions.filter((a) => !isCheat(this.view, a));
  }

  get cheatActions() {
    if (!this.cheating) return [];
    return this.turnActions.filter((a) => isCheat(this.view, a));
  }

  /** What the hand offers: the honest moves, or with the Cheat toggle on the cheats. */
  get handActions() {
    return this.cheatMode ? this.cheatActions : this.honestActions;
  }

  // ------------------------------------------------------------ choose cards, then act
  /** The hand's moves that use exactly the selected cards (what the buttons offer). */
  selectionMoves() {
    const sel = this.selection;
    if (!sel.length) return [];
    return this.handActions.filter((a) => sameCards(cardsOfAction(a), sel));
  }

  /** The covers of the selected card, in table order: the numbered choices. */
  coverOptions() {
    const at = (c) => this.view.table.findIndex((p) => p.attack === c);
    return this.selectionMoves()
      .filter((a) => a.type === "defend")
      .sort((a, b) => at(a.target) - at(b.target));
  }

  /** Whether ``card`` may join the selection: some move uses all of them. */
  fitsSelection(card) {
    const pick = [...this.selection, card];
    return this.handActions.some((a) => {
      const cards = cardsOfAction(a);
      return pick.every((c) => cards.includes(c));
    });
  }

  /** The move a tap on ``card`` makes at once, or null (the card is selected
   * instead): only when the card has exactly one move and it is a lead, a
   * throw-in or a cover of that card alone, so no other card could go with it.
   * A transfer or showing a trump always waits for its button. */
  playsAtOnce(card) {
    const uses = actionsWithCard(this.handActions, card);
    if (uses.length !== 1) return null;
    const a = uses[0];
    if (!["attack", "throw", "defend"].includes(a.type) || cardsOfAction(a).length !== 1) return null;
    return a;
  }

  /** The seats (of this device) that may call ``card`` out now. */
  accusersOf(card) {
    const f = this.ctx.frame;
    if (!card || this.sentVersion === f.version) return [];
    const has = (legal) => (legal || []).some((a) => a.type === "accuse" && a.card === card);
    if (this.ctx.local) return this.ctx.local.filter((l) => l.version === f.version && has(l.legal)).map((l) => l.seat);
    return !this.ctx.hidden && has(f.legal) ? [this.mySeat] : [];
  }

  /** The seats (of this device) that still answer the last call. */
  lastCallSeats() {
    const f = this.ctx.frame;
    if (this.view.phase !== "last_call" || this.sentVersion === f.version) return [];
    const has = (legal) => (legal || []).some((a) => a.type === "pass");
    if (this.ctx.local) return this.ctx.local.filter((l) => l.version === f.version && has(l.legal)).map((l) => l.seat);
    return !this.ctx.hidden && has(f.legal) ? [this.mySeat] : [];
  }

  /** "You", or the seat's name (pass & play always names people). */
  nameOf(seat) {
    return seat === this.mySeat && !this.shared && seat !== null ? t("table.you") : seatName(this.ctx.room, seat);
  }

  // ------------------------------------------------------------ focus
  /** A focused control of the table, described so that it can be found again
   * after a redraw (the element itself may be replaced or gone). */
  describeFocus(el) {
    const area = el.closest("#hand") ? "hand" : el.closest("#actions") ? "actions" : el.closest("#battle") ? "battle" : "bar";
    const index = area === "hand" ? Array.from(this.el.hand.children).indexOf(el) : 0;
    return { area, card: el.dataset.card || null, action: el.dataset.action || null, id: el.id || null, index };
  }

  focusMoved(el) {
    const inTable = Boolean(el && el.closest && el.closest("#table"));
    this.wantFocus = inTable;
    if (!inTable) return;
    this.lastFocus = this.describeFocus(el);
    if (el.closest("#hand") && el.dataset.card) {
      this.handCurrent = el.dataset.card;
      for (const card of this.el.hand.children) card.tabIndex = card === el ? 0 : -1;
    }
  }

  /** Where the focus is before a redraw: a control of the table; or, when it
   * was lost (its card was played, its button went), the last one it was on.
   * ``fresh``: a new game, where nothing of the page has the focus yet. */
  focusMemo(fresh = false) {
    const el = document.activeElement;
    // In a new game a control of another screen (Play, Start game) is going away too.
    const elsewhere = fresh && el && el.closest && el.closest("#main") && !el.closest("#screen-table");
    const lost = !el || el === document.body || !el.isConnected || !el.getClientRects().length || elsewhere;
    if (lost) return this.wantFocus || fresh ? this.lastFocus || { area: "hand", index: 0 } : null;
    return el.closest && el.closest("#table") ? this.describeFocus(el) : null;
  }

  /** Put the focus back on the control described by ``memo``, or the next
   * sensible one: a playable card, the first button (Take, Done...), the hand,
   * the keys button. ``turnStarts``: your turn has just come, so the focus
   * leaves a card that cannot be played for one that can. */
  placeFocus(memo, turnStarts = false) {
    if (!memo || this.ctx.hidden || !$("#keys-help").hidden || $("#help")?.hidden === false) return;
    const hand = this.el.hand;
    const inside = (root, sel) => (sel ? root.querySelector(sel) : null);
    let target = null;
    if (memo.area === "battle" && memo.card) target = inside(this.el.battle, `button[data-card="${memo.card}"]`);
    if (memo.area === "hand" && memo.card) {
      target = inside(hand, `button[data-card="${memo.card}"]`);
      if (target && turnStarts && !isLit(target)) target = null;
    }
    if (memo.area === "actions" && memo.action) target = inside(this.el.actions, `[data-action="${memo.action}"]`);
    if (memo.area === "bar" && memo.id) target = document.getElementById(memo.id);
    if (!target) target = hand.querySelector(LIT) || this.el.actions.querySelector("button");
    if (!target && hand.children.length) target = hand.children[Math.min(memo.index || 0, hand.children.length - 1)];
    if (!target) target = [$("#keys-open"), $("#help-open")].find((el) => el && el.getClientRects().length) || null;
    if (target && target !== document.activeElement) target.focus({ preventScroll: true });
    if (this.el.table.contains(document.activeElement)) this.focusGame = this.ctx.frame.game;
  }

  /** The hand is one Tab stop (roving tabindex): the focused card, else the
   * card last focused while it may be played, else the first playable card. */
  rovingHand(items) {
    const last = items.find((el) => el.dataset.card === this.handCurrent);
    const current =
      items.find((el) => el === document.activeElement) ||
      (last && (isLit(last) || !items.some(isLit)) ? last : null) ||
      items.find(isLit) ||
      last ||
      items[0];
    for (const el of items) el.tabIndex = el === current ? 0 : -1;
  }

  /** The keyboard shortcuts, listed (the ? button or key). */
  openKeys() {
    const rows = [
      ["\u2190 \u2192", "cards"],
      ["Enter / Space", "play"],
      ["1\u20139", "choice"],
      ["L", "lead"],
      ["T", "take"],
      ["D", "done"],
      ["R", "transfer"],
      ["Esc", "escape"],
      ["Tab / Shift+Tab", "tab"],
      ["C", "cheat"],
      ["K", "catch"],
      ["?", "help"],
    ];
    fill(
      $("#keys-list"),
      rows.flatMap(([key, what]) => [h("dt", {}, h("kbd", {}, key)), h("dd", {}, t(`table.keys.${what}`))]),
    );
    this.keysOpener = document.activeElement;
    $("#keys-help").hidden = false;
    $("#keys-close").focus();
  }

  closeKeys() {
    $("#keys-help").hidden = true;
    const back = this.keysOpener;
    this.keysOpener = null;
    if (back && back.isConnected && back.getClientRects().length) back.focus({ preventScroll: true });
    else if (this.ctx) this.placeFocus(this.lastFocus || { area: "hand", index: 0 });
  }

  // ------------------------------------------------------------ status line
  renderStatus() {
    const v = this.view;
    const f = this.ctx.frame;
    const room = this.ctx.room;
    let text = "";
    if (v.phase === "over") {
      text = t("table.gameOver");
    } else if (v.phase === "last_call") {
      const waiting = (v.pending || []).filter((s) => !this.lastCallSeats().includes(s));
      text = this.lastCallSeats().length
        ? t("table.lastCall")
        : t("table.lastCallWait", { names: waiting.map((s) => this.nameOf(s)).join(", ") });
    } else if (this.selection.length && this.turnActions.length) {
      text = this.selectionHint();
    } else if (this.cheatMode && this.cheatActions.length) {
      text = t(`table.cheatHint.${v.phase === "lead" ? "lead" : v.phase === "defend" ? "defend" : "throw"}`);
    } else if (f.to_move === this.mySeat && this.mySeat !== null) {
      if (v.phase === "lead") text = t("table.youLead");
      else if (v.phase === "defend") text = t("table.youDefend");
      else if (v.taking) text = t("table.youThrowTaking", { name: seatName(room, v.defender) });
      else text = t("table.youThrow");
    } else if (f.to_move !== null && f.to_move !== undefined) {
      const name = seatName(room, f.to_move);
      const info = room.seats[f.to_move];
      text = info && info.bot !== null && !info.human ? t("table.botThinking", { name }) : t("table.waitingFor", { name });
      if (v.taking) text += ` · ${t("table.takes", { name: seatName(room, v.defender) })}`;
    }
    if (this.mySeat === null) text = `${t("table.watching")} · ${text}`;
    this.el.status.textContent = text;
    this.el.table.dataset.myTurn = String(this.turnActions.length > 0);
    this.el.table.dataset.phase = v.phase;
  }

  // ------------------------------------------------------------ seats
  tagsFor(seat) {
    const v = this.view;
    const room = this.ctx.room;
    const tags = [];
    if (v.out.includes(seat)) tags.push(["out", t("table.tagOut")]);
    else if (v.phase !== "over") {
      if (v.attacker === seat) tags.push(["attack", t("table.tagAttack")]);
      if (v.defender === seat) tags.push(["defend", v.taking ? t("table.tagTakes") : t("table.tagDefend")]);
    }
    if (this.cheating && v.marked.includes(seat)) tags.push(["marked", t("table.tagMarked")]);
    const teams = room.rules.teams;
    if (teams && teams !== "none") {
      const n = teams === "2v2v2" ? 3 : 2;
      tags.push(["team", t("table.tagTeam", { team: "ABC"[seat % n] })]);
    }
    return tags;
  }

  tagList(seat) {
    return h(
      "span",
      { class: "tags" },
      this.tagsFor(seat).map(([kind, label]) => h("span", { class: `tag tag-${kind}` }, label)),
    );
  }

  opponentSeats() {
    const n = this.view.hand_counts.length;
    const me = this.mySeat;
    const seats = [];
    if (me === null) {
      for (let i = 0; i < n; i++) seats.push(i);
    } else {
      // Clockwise from your left: seat+1 sits at the left, the last at the right.
      for (let k = 1; k < n; k++) seats.push((me + k) % n);
    }
    return seats;
  }

  timerEl(seat) {
    const f = this.ctx.frame;
    if (f.to_move !== seat || !f.deadline || f.time_left === null || f.time_left === undefined) return null;
    if (this.view.phase === "last_call") return null; // the last call's countdown is in its prompt
    const endsAt = this.ctx.receivedAt + f.time_left;
    const total = (this.ctx.room.move_time || 30) * 1000;
    return h(
      "div",
      { class: "timer", dataset: { ends: String(endsAt), total: String(total) }, role: "timer", "aria-label": t("table.timeLeft") },
      h("span", { class: "timer-fill" }),
      h("span", { class: "timer-text" }),
    );
  }

  tickTimers() {
    const now = performance.now();
    for (const el of document.querySelectorAll(".timer[data-ends]")) {
      const left = Math.max(0, Number(el.dataset.ends) - now);
      const total = Number(el.dataset.total) || 30000;
      el.querySelector(".timer-fill").style.width = `${Math.min(100, (left / total) * 100)}%`;
      el.querySelector(".timer-text").textContent = `${Math.ceil(left / 1000)}`;
      el.classList.toggle("urgent", left < Number(el.dataset.urgent || 10000));
    }
  }

  renderOpponents() {
    const v = this.view;
    const room = this.ctx.room;
    const seats = this.opponentSeats();
    const count = seats.length;
    const items = seats.map((seat, idx) => {
      const info = room.seats[seat] || {};
      const n = v.hand_counts[seat];
      const name = seatName(room, seat);
      const toMove = v.phase === "last_call" ? (v.pending || []).includes(seat) : this.ctx.frame.to_move === seat;
      const backs = h("div", { class: "opp-backs", "aria-hidden": "true" });
      const shown = Math.min(n, 6);
      for (let i = 0; i < shown; i++) {
        backs.append(h("span", { class: "mini back", style: `--i:${i};--n:${shown}`, html: backSVG() }));
      }
      const known = (v.known[seat] || []).filter(Boolean);
      const knownEl = known.length
        ? h(
            "div",
            { class: "known", role: "img", "aria-label": t("table.knownCards", { cards: known.map(cardName).join(", ") }) },
            // Chips, rank and suit in text: readable at any size (cards this small were not).
            known.map((c) =>
              h("span", { class: "card-label known-card", dataset: { card: c }, html: `${rankShort(c[0])}${suitIcon(c[1])}` }),
            ),
          )
        : null;
      const status = [];
      if (info.human && !info.connected) status.push(t("table.offline"));
      if (info.away) status.push(t("table.botPlaysFor"));
      const tags = this.tagsFor(seat).map((x) => x[1]);
      const label = [name, info.bot_account ? t("room.botAccount") : "", t("table.cardsCount", { n }), ...tags, ...status, toMove ? t("table.toMove") : ""]
        .filter(Boolean)
        .join(", ");
      // An arc: the outer seats sit a little lower than the middle ones.
      const mid = (count - 1) / 2;
      const arc = count > 2 ? Math.abs(idx - mid) / Math.max(1, mid) : 0;
      return h(
        "div",
        {
          class: `opp${toMove ? " to-move" : ""}${v.out.includes(seat) ? " is-out" : ""}`,
          dataset: { seat: String(seat) },
          style: `--arc:${arc.toFixed(2)}`,
          role: "group",
          "aria-label": label,
        },
        h(
          "div",
          { class: "opp-head" },
          seatAvatar(info, name),
          h("span", { class: "opp-name" }, name),
          botTag(Boolean(info.bot_account)),
          info.bot && !info.human ? h("span", { class: "level" }, t("table.level", { n: info.bot })) : null,
        ),
        // The count is in the seat's name: a bare "5" is not read out.
        h("div", { class: "opp-hand", "aria-hidden": "true" }, backs, h("span", { class: "count" }, String(n))),
        this.tagList(seat),
        status.length ? h("span", { class: "opp-status" }, status.join(" · ")) : null,
        knownEl,
        this.timerEl(seat),
      );
    });
    fill(this.el.opponents, items);
    this.el.opponents.dataset.count = String(count);
    this.el.table.dataset.seats = String(count);
    this.layoutSeats();
  }

  /** Seats sit in one row while all of each seat shows there (its name, tags
   * and count: measured, so any language and font is right); otherwise
   * compact (one card back beside the count, the tags flowing after it), and
   * then in balanced rows (3 + 2, 2 + 2, 2 + 1), flat, so that seats never
   * overlap and nothing of them is cut. A phone on its side (little height)
   * always has compact seats. */
  layoutSeats() {
    const box = this.el.opponents;
    const seats = Array.from(box.children);
    const count = seats.length;
    const tries = [];
    for (let rows = 1; rows <= count; rows++) {
      const perRow = Math.ceil(count / rows);
      if (Math.ceil(count / perRow) !== rows) continue; // the same as another row count
      if (rows === 1 && !LOW_SCREEN.matches) tries.push({ perRow, compact: false });
      tries.push({ perRow, compact: true });
    }
    const overflows = (el) => el.scrollWidth > el.clientWidth + 1;
    const cut = () => seats.some((s) => overflows(s) || Array.from(s.querySelectorAll(".opp-name, .tag"), overflows).some(Boolean));
    for (const { perRow, compact } of tries) {
      box.classList.toggle("wrapped", perRow < count);
      box.classList.toggle("compact", compact);
      box.style.setProperty("--per-row", String(perRow));
      if (!cut()) return;
    }
  }

  // ------------------------------------------------------------ the cards in play
  renderBattle() {
    const v = this.view;
    const covers = this.coverOptions();
    const choosing = covers.length > 0;
    const targets = new Map();
    covers.forEach((opt, i) => targets.set(opt.target, { i, opt }));
    const owners = new Map((v.plays || []).map((p) => [p.card, p.seat]));
    const cleared = new Set(v.cleared || []);
    // A card someone else played may be called out (rule 13): it is a button
    // that selects it for the Catch! button.
    const tableCard = (card, kind, other) => {
      const fair = cleared.has(card);
      const owner = owners.get(card);
      const mark = fair ? h("span", { class: "fair-mark", "aria-hidden": "true", title: t("table.fairTitle") }, "\u2713") : null;
      const face = h("span", { class: "face", html: cardSVG(card) });
      if (!choosing && this.accusersOf(card).length) {
        const selected = this.accuseCard === card;
        let label = cardName(card);
        if (owner !== undefined) label += t("table.playedBy", { name: this.nameOf(owner) });
        label += t("table.accusableSuffix");
        return h(
          "button",
          {
            class: `tcard ${kind} accusable${selected ? " selected" : ""}`,
            dataset: { card },
            "aria-pressed": String(selected),
            "aria-label": label,
            onclick: () => this.selectAccused(card),
          },
          face,
          selected ? h("span", { class: "catch-badge", "aria-hidden": "true" }, "?") : null,
        );
      }
      // A card that may not be called out (your own cover, say) passes a tap
      // on to the card it lies on or under: on a phone a covered card shows
      // only a thin edge.
      const onclick = !choosing && other && this.accusersOf(other).length ? () => this.selectAccused(other) : null;
      return h("div", { class: `tcard ${kind}${fair ? " cleared" : ""}${onclick ? " passes-tap" : ""}`, dataset: { card }, onclick }, face, mark);
    };
    const pairs = v.table.map((pair, idx) => {
      const target = targets.get(pair.attack);
      const fairNote = (c) => (cleared.has(c) ? t("table.fairSuffix") : "");
      const label = pair.defense
        ? t("table.pairCovered", {
            attack: cardName(pair.attack) + fairNote(pair.attack),
            cover: cardName(pair.defense) + fairNote(pair.defense),
            coverIns: cardName(pair.defense, "Ins") + fairNote(pair.defense),
          })
        : t("table.pairOpen", { attack: cardName(pair.attack) + fairNote(pair.attack) });
      const attack = target
        ? h(
            "button",
            {
              class: "tcard attack choose",
              dataset: { card: pair.attack, choice: String(target.i + 1) },
              "aria-label": this.coverName(target.opt),
              "aria-keyshortcuts": String(target.i + 1),
              onclick: () => this.play(target.opt),
            },
            h("span", { class: "face", html: cardSVG(pair.attack) }),
            h("span", { class: "choice-badge", "aria-hidden": "true" }, String(target.i + 1)),
          )
        : tableCard(pair.attack, "attack", pair.defense);
      const cover = pair.defense ? tableCard(pair.defense, "cover", pair.attack) : null;
      const interactive = Boolean(target) || attack.tagName === "BUTTON" || (cover && cover.tagName === "BUTTON");
      return h(
        "div",
        { class: "pair", role: interactive ? "group" : "img", "aria-label": label, dataset: { index: String(idx) } },
        attack,
        cover,
      );
    });
    fill(this.el.battle, pairs);
    this.el.battle.dataset.count = String(v.table.length);
    const limit = v.limit;
    if (v.table.length && limit) {
      // The attack limit of this round: how many attack cards are down, of how many allowed.
      const label = t("table.limitLabel", { n: v.table.length, limit });
      // role=img: a plain span's aria-label is not read; "2/6" alone means nothing.
      this.el.battle.append(
        h("span", { class: "limit", role: "img", "aria-label": label, title: label }, t("table.limitShort", { n: v.table.length, limit })),
      );
    }
  }

  renderDeck() {
    const v = this.view;
    const trumpSuit = suitOf(v.trump);
    const parts = [];
    if (v.deck > 0) {
      parts.push(h("div", { class: "trump-card", html: cardSVG(v.trump), dataset: { card: v.trump } }));
      const layers = v.deck > 1 ? Math.min(3, Math.ceil(v.deck / 8)) : 0;
      for (let i = 0; i < layers; i++) parts.push(h("div", { class: "deck-back", style: `--i:${i}`, html: backSVG() }));
    }
    parts.push(
      h(
        "div",
        { class: "deck-count" },
        h("span", { class: "trump-mark", html: suitIcon(trumpSuit) }),
        h("span", {}, v.deck > 0 ? String(v.deck) : t("table.deckEmpty")),
      ),
    );
    fill(this.el.deck, parts);
    this.el.deck.setAttribute(
      "aria-label",
      t("table.deckLabel", { n: v.deck, trump: cardName(v.trump), suit: t(`cards.suitName.${trumpSuit}`) }),
    );
    this.el.deck.setAttribute("role", "img");
    this.el.deck.dataset.count = String(v.deck);
  }

  renderDiscard() {
    const v = this.view;
    const pile = [];
    const layers = v.discard ? Math.min(4, Math.ceil(v.discard / 6)) : 0;
    for (let i = 0; i < layers; i++) pile.push(h("div", { class: "discard-back", style: `--i:${i}`, html: backSVG() }));
    pile.push(h("div", { class: "discard-count" }, t("table.discard"), " ", h("b", {}, String(v.discard))));
    fill(this.el.discard, pile);
    this.el.discard.setAttribute("aria-label", t("table.discardLabel", { n: v.discard }));
    this.el.discard.setAttribute("role", "img");
  }

  // ------------------------------------------------------------ you
  renderMe() {
    const seat = this.mySeat;
    if (seat === null) {
      fill(this.el.meInfo, h("span", { class: "me-name" }, t("table.watching")));
      return;
    }
    const f = this.ctx.frame;
    const turn = f.to_move === seat && !this.ctx.hidden && this.view.phase !== "last_call";
    fill(
      this.el.meInfo,
      h("span", { class: "me-name" }, seatName(this.ctx.room, seat)),
      this.tagList(seat),
      turn ? h("span", { class: "your-turn" }, t("table.yourTurn")) : null,
      this.timerEl(seat),
    );
    this.el.meInfo.classList.toggle("to-move", f.to_move === seat);
  }

  renderActions() {
    const turn = this.turnActions;
    const buttons = [];
    const sel = this.selection;
    if (this.accuseChoice) {
      // Pass & play: which of the players here calls the card out?
      const { card, seats } = this.accuseChoice;
      seats.forEach((seat, i) => {
        buttons.push(
          h("button", {
            class: "choice catch",
            dataset: { action: `catch-${seat}`, choice: String(i + 1) },
            "aria-label": `${t("table.whoCatches", { name: seatName(this.ctx.room, seat) })}: ${cardName(card)}`,
            "aria-keyshortcuts": String(i + 1),
            onclick: () => this.accuse(card, seat),
            html: `<b>${i + 1}</b> ${escapeHTML(t("table.whoCatches", { name: seatName(this.ctx.room, seat) }))} ${cardLabelHTML(card)}`,
          }),
        );
      });
      buttons.push(h("button", { class: "ghost", dataset: { action: "cancel" }, onclick: () => this.cancelChoice() }, t("table.cancel")));
    } else if (sel.length && turn.length) {
      // Cards are selected: one button per move they make (numbered covers,
      // then Lead / Throw in / Transfer / Show trump with the cards it plays).
      const cheat = this.cheatMode ? " cheat-choice" : "";
      this.coverOptions().forEach((opt, i) => {
        buttons.push(
          h("button", {
            class: `choice primary${cheat}`,
            dataset: { action: `choice-${i + 1}`, choice: String(i + 1) },
            "aria-label": this.coverName(opt),
            "aria-keyshortcuts": String(i + 1),
            title: t("table.shortcut", { label: this.coverName(opt), key: String(i + 1) }),
            onclick: () => this.play(opt),
            html: `<b>${i + 1}</b> ${escapeHTML(t("table.cover"))} ${cardLabelHTML(opt.target)}`,
          }),
        );
      });
      for (const a of this.selectionMoves()) {
        if (a.type === "defend") continue;
        buttons.push(this.moveButton(a));
      }
      buttons.push(
        h("button", { class: "ghost unselect", dataset: { action: "cancel" }, onclick: () => this.cancelChoice() }, t("table.unselect")),
      );
      if (this.cheatActions.length) buttons.push(this.cheatToggle());
    } else {
      if (this.accuseCard && this.accusersOf(this.accuseCard).length) {
        buttons.push(
          h("button", {
            class: "act catch",
            dataset: { action: "catch" },
            "aria-keyshortcuts": "K",
            "aria-label": t("table.catchLabel", { card: cardName(this.accuseCard) }),
            title: t("table.shortcut", { label: t("table.catch"), key: "K" }),
            onclick: () => this.catchSelected(),
            html: `${escapeHTML(t("table.catch"))} ${cardLabelHTML(this.accuseCard)}`,
          }),
        );
      }
      const lastCall = this.lastCallSeats();
      if (lastCall.length) buttons.push(this.lastCallPrompt(lastCall));
      const take = turn.find((a) => a.type === "take");
      const pass = turn.find((a) => a.type === "pass");
      const transfers = turn.filter((a) => a.type === "transfer");
      const shows = turn.filter((a) => a.type === "show_trump");
      if (take) {
        buttons.push(
          h(
            "button",
            { class: "act take", dataset: { action: "take" }, ...this.keyed(t("table.take"), "T"), onclick: () => this.play(take) },
            t("table.take"),
          ),
        );
      }
      if (pass) {
        const label = this.view.taking ? t("table.pass") : t("table.done");
        buttons.push(h("button", { class: "act pass", dataset: { action: "pass" }, ...this.keyed(label, "D"), onclick: () => this.play(pass) }, label));
      }
      // One transfer (or one trump to show): the button names its cards and
      // plays it; several: the button selects the smallest, to adjust in the hand.
      if (transfers.length === 1) buttons.push(this.moveButton(transfers[0]));
      else if (transfers.length) {
        buttons.push(
          h(
            "button",
            { class: "act transfer", dataset: { action: "transfer" }, ...this.keyed(t("table.transfer"), "R"), onclick: () => this.startTransfer(transfers) },
            `${t("table.transfer")}\u2026`,
          ),
        );
      }
      if (shows.length === 1) buttons.push(this.moveButton(shows[0]));
      else if (shows.length) {
        buttons.push(
          h("button", { class: "act show-trump", dataset: { action: "show_trump" }, onclick: () => this.select([cardsOfAction(shows[0])[0]]) }, `${t("table.showTrump")}\u2026`),
        );
      }
      if (this.cheatActions.length) buttons.push(this.cheatToggle());
    }
    if (this.hooks.extraActions && !this.accuseChoice && turn.length) buttons.push(...this.hooks.extraActions());
    fill(this.el.actions, buttons);
    this.el.actions.classList.toggle("choosing", Boolean(sel.length || this.accuseChoice));
    this.el.table.dataset.canAct = String(turn.length > 0 || this.lastCallSeats().length > 0);
    this.el.table.dataset.cheatMode = String(this.cheatMode);
    this.el.table.dataset.selecting = String(sel.length > 0);
  }

  /** A button's shortcut: for assistive technology and in its tooltip ("Take (key T)"). */
  keyed(label, key) {
    return { "aria-keyshortcuts": key, title: t("table.shortcut", { label, key }) };
  }

  /** The name of a cover choice: "Cover Six of spades with Nine of spades"
   * (each choice its own: the target differs). */
  coverName(a) {
    return t("table.coverWith", {
      target: cardName(a.target),
      card: cardName(a.card),
      targetAcc: cardName(a.target, "Acc"),
      cardIns: cardName(a.card, "Ins"),
    });
  }

  /** The button of one move, saying what it does: "Lead 7♠ 7♥", "Transfer 8♦". */
  moveButton(a) {
    const cards = cardsOfAction(a);
    const cheat = this.cheatMode && isCheat(this.view, a);
    const kinds = {
      attack: ["lead", "table.lead", "L", "lead"],
      throw: ["throw", "table.throwIn", null, "lead"],
      transfer: ["transfer", "table.transfer", "R", "transfer"],
      show_trump: ["show_trump", "table.showTrump", null, "show-trump"],
    };
    const [action, key, shortcut, cls] = kinds[a.type];
    const label = `${t(key)} ${cards.map(cardShort).join(" ")}`;
    return h("button", {
      class: `act go ${cls}${cheat ? " cheat-go" : ""}`,
      // data-label: the button's words with the cards in text ("Lead 7♠ 7♥"); the
      // suits on the button itself are icons.
      dataset: { action: cheat && a.type === "attack" ? "cheat-lead" : action, label },
      ...(shortcut ? this.keyed(label, shortcut) : {}),
      "aria-label": `${t(key)} ${cards.map(cardName).join(", ")}`,
      onclick: () => this.play(a),
      html: `${escapeHTML(t(key))} ${cards.map(cardLabelHTML).join(" ")}`,
    });
  }

  cheatToggle() {
    return h(
      "button",
      {
        class: `act cheat${this.cheatMode ? " on" : ""}`,
        dataset: { action: "cheat" },
        "aria-pressed": String(this.cheatMode),
        "aria-keyshortcuts": "C",
        title: t("table.shortcut", { label: t("table.cheatTitle"), key: "C" }),
        onclick: () => this.toggleCheat(),
      },
      h("span", { class: "icon icon-mask", "aria-hidden": "true" }),
      " ",
      t("table.cheat"),
    );
  }

  /** What the status line says while cards are selected. */
  selectionHint() {
    const cards = this.selection.map(cardShort).join(" ");
    const more = this.view.hand.some((c) => !this.selection.includes(c) && this.fitsSelection(c));
    if (!this.selectionMoves().length) return t("table.selectHintPick", { cards });
    return t(more ? "table.selectHintMore" : "table.selectHint", { cards });
  }

  /** The last call (rule 13): call a card out, or Continue; its countdown. */
  lastCallPrompt(seats) {
    const f = this.ctx.frame;
    let timer = null;
    if (f.deadline && f.time_left !== null && f.time_left !== undefined) {
      if (!this.lastCallWindow || this.lastCallWindow.deadline !== f.deadline) {
        this.lastCallWindow = { deadline: f.deadline, total: Math.max(1000, f.time_left) };
      }
      const endsAt = this.ctx.receivedAt + f.time_left;
      timer = h(
        "div",
        {
          class: "timer lastcall-timer",
          dataset: { ends: String(endsAt), total: String(this.lastCallWindow.total), urgent: "2000" },
          role: "timer",
          "aria-label": t("table.lastCallTime"),
        },
        h("span", { class: "timer-fill" }),
        h("span", { class: "timer-text" }),
      );
    }
    const everyone = this.ctx.local && seats.length > 1;
    const entering = !this.el.actions.querySelector(".lastcall"); // slide in once, not at every redraw
    // The status line says "Last call — ...": the prompt does not say it again
    // (it did, word for word, and took three lines on a phone: issue 25). One
    // row, how to call a card out, the countdown and Continue; on a narrow
    // screen the hint takes a line of its own.
    return h(
      "div",
      { class: `lastcall${entering ? " entering" : ""}`, id: "lastcall", role: "group", "aria-label": t("table.lastCall") },
      h("span", { class: "lastcall-hint" }, t("table.lastCallHint")),
      h(
        "div",
        { class: "lastcall-row" },
        timer,
        h(
          "button",
          {
            class: "act pass continue",
            dataset: { action: "pass" },
            ...this.keyed(everyone ? t("table.continueAll") : t("table.continue"), "D"),
            onclick: () => this.continueLastCall(),
          },
          everyone ? t("table.continueAll") : t("table.continue"),
        ),
      ),
    );
  }

  renderHand() {
    const v = this.view;
    const hand = this.el.hand;
    if (this.mySeat === null || !v.hand) {
      fill(hand);
      hand.dataset.count = "0";
      this.el.table.dataset.bigHand = "false";
      return;
    }
    const acts = this.handActions;
    const myTurn = this.turnActions.length > 0;
    const cheat = this.cheatMode;
    const sel = this.selection;
    const knownToOthers = new Set(v.known[this.mySeat] || []);
    const cards = sortHand(v.hand, suitOf(v.trump));
    // Buttons are kept per card between frames, so the fan slides instead of
    // being rebuilt (and a card you hold keeps its place while others move).
    const lang = currentLanguage();
    const existing = new Map(Array.from(hand.children, (el) => [el.dataset.card, el]));
    const items = cards.map((card) => {
      // While cards are selected, the lit cards are those that may join them.
      const chosen = sel.includes(card);
      const lit = sel.length ? !chosen && this.fitsSelection(card) : actionsWithCard(acts, card).length > 0;
      const playable = lit && !cheat;
      const cheatable = lit && cheat;
      const known = knownToOthers.has(card);
      let label = cardName(card);
      if (chosen) label += t("table.selectedSuffix");
      else if (lit && sel.length) label += t(cheat ? "table.addCheatSuffix" : "table.addSuffix");
      else if (playable) label += t("table.playableSuffix");
      else if (cheatable) label += t("table.cheatableSuffix");
      if (known) label += t("table.knownSuffix");
      let el = existing.get(card);
      if (!el) {
        el = h("button", { dataset: { card }, onclick: () => this.clickCard(card) });
      }
      if (el.dataset.lang !== lang) {
        el.replaceChildren(h("span", { class: "face", html: cardSVG(card) }));
        el.dataset.lang = lang;
      }
      el.className =
        `hcard${playable ? " playable" : ""}${cheatable ? " cheatable" : ""}` +
        `${myTurn && !lit && !chosen ? " dim" : ""}${chosen ? " chosen" : ""}${known ? " known" : ""}`;
      el.setAttribute("aria-label", label);
      if (lit || chosen) el.removeAttribute("aria-disabled");
      else el.setAttribute("aria-disabled", "true");
      // A card that may be selected is a toggle button (pressed = selected).
      if (myTurn && (chosen || sel.length || !this.playsAtOnce(card)) && (lit || chosen)) {
        el.setAttribute("aria-pressed", String(chosen));
      } else el.removeAttribute("aria-pressed");
      for (const mark of el.querySelectorAll(".play-mark, .known-mark")) mark.remove();
      if (chosen) el.append(h("span", { class: "play-mark pick-mark", "aria-hidden": "true" }, "\u2713"));
      if (playable) el.append(h("span", { class: "play-mark", "aria-hidden": "true" }, sel.length ? "+" : "\u25B2"));
      if (cheatable) el.append(h("span", { class: "play-mark cheat-mark", "aria-hidden": "true" }, "\u2726"));
      if (known) {
        el.append(h("span", { class: "known-mark", "aria-hidden": "true", title: t("table.knownTitle") }, h("span", { class: "icon icon-eye" })));
      }
      return el;
    });
    fill(hand, items);
    this.rovingHand(items);
    hand.dataset.count = String(cards.length);
    // A phone on its side gives a big hand a wider column (app.css).
    this.el.table.dataset.bigHand = String(cards.length > BIG_HAND);
    hand.classList.toggle("my-turn", myTurn);
    this.layoutHand();
  }

  /** Lay the hand out (see handPlans): the first plan, best first, that leaves
   * the rest of the table room (the felt's content fits in the felt and the
   * table does not overflow the screen); if none does, the lowest. The room
   * is that of a full table (FULL_TABLE covered pairs, see reserveBattle),
   * whatever lies on it now: the hand's cards do not shrink when a pair is
   * played and grow back when the round ends. */
  layoutHand() {
    const ghosts = this.reserveBattle();
    try {
      this.layoutHandNow();
    } finally {
      for (const ghost of ghosts) ghost.remove();
    }
  }

  /** Fill the table up to FULL_TABLE covered pairs with invisible ones, for
   * layoutHand to measure (they are gone before anything is painted). */
  reserveBattle() {
    const count = this.el.battle.querySelectorAll(".pair").length;
    const ghosts = [];
    for (let i = count; i < FULL_TABLE; i++) {
      ghosts.push(
        h(
          "div",
          { class: "pair ghost", "aria-hidden": "true" },
          h("span", { class: "tcard attack" }),
          h("span", { class: "tcard cover" }),
        ),
      );
    }
    this.el.battle.append(...ghosts);
    return ghosts;
  }

  layoutHandNow() {
    const hand = this.el.hand;
    const cards = Array.from(hand.children);
    const n = cards.length;
    hand.style.removeProperty("--card-w");
    if (!n) {
      hand.style.height = "";
      hand.classList.remove("rows");
      return;
    }
    const width = hand.clientWidth;
    this.handWidth = width;
    this.tableSize = this.tableBox();
    const w0 = cards[0].offsetWidth;
    const plans = handPlans(n, width, w0);
    let lowest = null;
    for (const plan of plans) {
      const height = this.placeCards(cards, plan);
      if (!lowest || height < lowest.height) lowest = { plan, height };
      if (!this.tableOverflows()) return;
    }
    if (lowest) this.placeCards(cards, lowest.plan);
  }

  /** The parts whose sizes the fan depends on: the table (first), the status
   * bar, the seats, your line and the buttons. */
  sizedParts() {
    const { table, status, opponents, meInfo, actions } = this.el;
    return [table, status.parentElement, opponents, meInfo, actions];
  }

  /** Their sizes, as one string to compare. */
  tableBox() {
    return this.sizedParts()
      .map((e) => `${e.clientWidth}x${e.clientHeight}`)
      .join(" ");
  }

  /** The table does not fit its screen: the felt's content (the cards in play,
   * the deck) is squeezed, or the whole grid runs past the bottom. */
  tableOverflows() {
    const { table, battle, deck, discard } = this.el;
    const felt = battle.parentElement;
    const over = (el) => el.scrollHeight > el.clientHeight + 1;
    // You (your line, buttons, hand) sit at the bottom of your area: too tall,
    // they run out at its top, which no scroll height shows.
    const me = this.el.hand.parentElement.getBoundingClientRect();
    const top = table.getBoundingClientRect().top;
    if (over(table) || over(felt) || over(battle) || me.top < top - 1) return true;
    // The felt's rows may be squeezed below the cards in play (the battle has
    // a min-height, so no automatic minimum): then the battle runs out of its
    // row, up past the felt's top (no scroll height shows that) and down onto
    // the deck (phones: the deck's row is below it).
    const f = felt.getBoundingClientRect();
    const b = battle.getBoundingClientRect();
    if (b.top < f.top - 1 || b.bottom > f.bottom + 1) return true;
    return [deck, discard].some((el) => {
      const r = el.getBoundingClientRect();
      const w = Math.min(r.right, b.right) - Math.max(r.left, b.left);
      const h = Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top);
      return w > 1 && h > 1;
    });
  }

  /** Place the hand's cards by ``plan``; returns the hand's height. One row
   * is a fan (a slight arc; lit cards rise, a selected one more); several rows
   * are flat, each row's cards showing their top ``rowStep`` px above the next
   * row, where their rank and suit are (a selected card rises a little). */
  placeCards(cards, { rows, perRow, w, step, rowStep, pad }) {
    const hand = this.el.hand;
    const n = cards.length;
    hand.style.setProperty("--card-w", `${w}px`);
    hand.classList.toggle("rows", rows > 1);
    const hgt = w * 1.4;
    const W = hand.clientWidth - 2 * pad;
    let bottom = 0;
    for (let i = 0; i < n; i++) {
      const row = Math.floor(i / perRow);
      const k = i % perRow;
      const inRow = row === rows - 1 ? n - perRow * row : perRow;
      const left = pad + (W - (w + step * (inRow - 1))) / 2 + k * step;
      const chosen = cards[i].classList.contains("chosen");
      const raised = ["playable", "cheatable"].some((c) => cards[i].classList.contains(c));
      let top;
      let angle = 0;
      if (rows === 1) {
        const mid = (inRow - 1) / 2;
        angle = (k - mid) * fanSpread(inRow);
        const drop = Math.abs(k - mid) ** 2 * Math.min(1.6, 14 / Math.max(inRow, 1));
        const lift = chosen ? -hgt * 0.2 : raised ? -hgt * 0.12 : 0;
        // Room above the fan for lifted cards and their ▲ markers.
        top = drop + lift + hgt * 0.2 + 16;
        bottom = Math.max(bottom, top - lift + hgt + Math.abs(angle) * w * 0.012);
      } else {
        top = FAN_TOP + row * rowStep - (chosen ? CHOSEN_RISE : 0);
        bottom = Math.max(bottom, FAN_TOP + row * rowStep + hgt);
      }
      cards[i].style.left = `${left}px`;
      cards[i].style.top = `${top}px`;
      cards[i].style.transform = `rotate(${angle}deg)`;
      cards[i].style.zIndex = String(i + 1);
    }
    const height = Math.ceil(bottom + 4);
    hand.style.height = `${height}px`;
    return height;
  }

  // ------------------------------------------------------------ playing
  /** A tap (or Enter) on a hand card: choose cards, then act. A selected card
   * is unselected; while cards are selected a card that may go with them
   * joins them; otherwise the card plays at once when that is its only move
   * (see playsAtOnce), or it is selected and the buttons say what may follow. */
  clickCard(card) {
    if (!this.handActions.length) return;
    const sel = this.selection;
    if (sel.includes(card)) {
      this.select(sel.filter((c) => c !== card), t("table.unselectedAnnounce", { card: cardName(card) }));
      return;
    }
    if (sel.length) {
      if (this.fitsSelection(card)) this.select([...sel, card]);
      else {
        this.explain(
          t("table.cannotJoin", { card: cardShort(card), cards: sel.map(cardShort).join(" ") }),
          t("table.cannotJoin", { card: cardName(card), cards: sel.map(cardName).join(", ") }),
        );
      }
      return;
    }
    if (!actionsWithCard(this.handActions, card).length) {
      this.explain(t("table.notPlayable", { card: cardShort(card) }), t("table.notPlayable", { card: cardName(card) }));
      return;
    }
    const now = this.playsAtOnce(card);
    if (now) this.play(now);
    else this.select([card]);
  }

  /** Set the selection, redraw, keep the focus where it was and say what the buttons offer. */
  select(cards, spoken) {
    const focused = document.activeElement;
    const focusCard = focused && focused.closest && focused.closest("#hand") ? focused.dataset.card : null;
    this.selection = cards;
    this.accuseChoice = null;
    this.renderStatus();
    this.renderBattle();
    this.renderActions();
    this.renderHand();
    if (focusCard) this.el.hand.querySelector(`[data-card="${focusCard}"]`)?.focus({ preventScroll: true });
    if (spoken === undefined && cards.length) {
      const names = cards.map(cardName).join(", ");
      const moves = Array.from(this.el.actions.querySelectorAll(".go, .choice"), (b) => b.getAttribute("aria-label") || b.textContent);
      spoken = [t("table.selectedAnnounce", { cards: names }), ...moves].join(". ");
    }
    if (spoken) this.hooks.announce(spoken);
  }

  /** A tap that cannot do anything: say why, on the status line and aloud. */
  explain(shown, spoken) {
    if (!this.turnActions.length) return;
    this.el.status.textContent = shown;
    this.hooks.announce(spoken);
    clearTimeout(this.explainTimer);
    this.explainTimer = setTimeout(() => this.ctx && this.renderStatus(), 2500);
  }

  /** Transfer with several possible transfers: select the smallest (fewest
   * cards, no trump if it can be helped); the hand adjusts it, the button sends it. */
  startTransfer(transfers) {
    const trump = suitOf(this.view.trump);
    const cost = (a) => cardsOfAction(a).length * 10 + cardsOfAction(a).filter((c) => suitOf(c) === trump).length;
    const best = [...transfers].sort((a, b) => cost(a) - cost(b))[0];
    this.cheatMode = false;
    this.select([...cardsOfAction(best)]);
    this.el.actions.querySelector('[data-action="transfer"]')?.focus({ preventScroll: true });
  }

  /** Escape or Unselect: drop the selection (or the pass & play "who calls it out"). */
  cancelChoice() {
    const card = this.selection[0];
    const accused = this.accuseChoice && this.accuseChoice.card;
    this.selection = [];
    this.accuseChoice = null;
    this.renderStatus();
    this.renderBattle();
    this.renderActions();
    this.renderHand();
    if (accused) {
      this.el.battle.querySelector(`button[data-card="${accused}"]`)?.focus({ preventScroll: true });
      return;
    }
    const back = card && this.el.hand.querySelector(`[data-card="${card}"]`);
    (back || this.el.hand.querySelector(".playable") || this.el.hand.querySelector("button"))?.focus({ preventScroll: true });
    if (card) this.hooks.announce(t("table.unselectedAllAnnounce"));
  }

  play(action) {
    const f = this.ctx.frame;
    if (this.sentVersion === f.version) return;
    this.sentVersion = f.version;
    this.selection = [];
    this.accuseChoice = null;
    this.cheatMode = false;
    if (action.type === "accuse") this.accuseCard = null;
    const memo = this.focusMemo();
    this.hooks.move(action, f.version);
    this.renderStatus();
    this.renderBattle();
    this.renderActions();
    this.renderHand();
    this.placeFocus(memo);
  }

  /** The server refused our move (stale or illegal): allow another try. */
  moveRefused() {
    this.sentVersion = null;
    if (this.ctx) {
      const memo = this.focusMemo();
      this.renderBattle();
      this.renderActions();
      this.renderHand();
      this.placeFocus(memo);
    }
  }

  // ------------------------------------------------------------ cheating (rule 13)
  /** The Cheat toggle: while it is on the hand offers the cheats only (a lead
   * alongside is selected card by card like any lead, then Lead). */
  toggleCheat() {
    if (!this.cheatActions.length) return;
    this.cheatMode = !this.cheatMode;
    this.selection = [];
    this.renderStatus();
    this.renderBattle();
    this.renderActions();
    this.renderHand();
    this.el.actions.querySelector('[data-action="cheat"]')?.focus({ preventScroll: true });
    this.hooks.announce(this.cheatMode ? t("table.cheatOnAnnounce") : t("table.cheatOffAnnounce"));
  }

  /** Tap a card on the table to call it out; tap it again to unselect it (a
   * second tap on a cover selects the card under it if that may be called out). */
  selectAccused(card) {
    if (this.accuseCard === card) {
      const pair = this.view.table.find((p) => p.defense === card);
      this.accuseCard = pair && this.accusersOf(pair.attack).length ? pair.attack : null;
      card = this.accuseCard || card;
    } else {
      this.accuseCard = card;
    }
    this.accuseChoice = null;
    this.renderBattle();
    this.renderActions();
    if (this.accuseCard) {
      this.el.actions.querySelector('[data-action="catch"]')?.focus({ preventScroll: true });
      this.hooks.announce(t("table.selectedToCatch", { card: cardName(card) }));
    } else {
      this.el.battle.querySelector(`button[data-card="${card}"]`)?.focus({ preventScroll: true });
    }
  }

  unselectAccused() {
    const card = this.accuseCard;
    this.accuseCard = null;
    this.renderBattle();
    this.renderActions();
    this.el.battle.querySelector(`button[data-card="${card}"]`)?.focus({ preventScroll: true });
  }

  /** Catch!: call the selected card out; on a shared device ask who does. */
  catchSelected() {
    const card = this.accuseCard;
    const seats = this.accusersOf(card);
    if (!seats.length) return;
    if (seats.length === 1) {
      this.accuse(card, seats[0]);
      return;
    }
    this.accuseChoice = { card, seats };
    this.renderActions();
    this.el.actions.querySelector("button")?.focus({ preventScroll: true });
    this.hooks.announce(t("table.whoCatchesAnnounce", { n: seats.length }));
  }

  accuse(card, seat) {
    if (!this.accusersOf(card).includes(seat)) return;
    this.play({ seat, type: "accuse", card });
  }

  /** The last call: pass (for every player of this device who still answers it). */
  continueLastCall() {
    const seats = this.lastCallSeats();
    if (!seats.length) return;
    if (this.ctx.local && this.hooks.lastCall) {
      this.sentVersion = this.ctx.frame.version;
      this.accuseCard = null;
      this.hooks.lastCall(seats);
      this.renderStatus();
      this.renderBattle();
      this.renderActions();
      return;
    }
    const pass = this.legal.find((a) => a.type === "pass");
    if (pass) this.play(pass);
  }

  handKeys(ev) {
    if (ev.key !== "ArrowLeft" && ev.key !== "ArrowRight" && ev.key !== "Home" && ev.key !== "End") return;
    const cards = Array.from(this.el.hand.querySelectorAll("button"));
    const i = cards.indexOf(document.activeElement);
    if (i < 0) return;
    let j = i;
    if (ev.key === "ArrowLeft") j = Math.max(0, i - 1);
    if (ev.key === "ArrowRight") j = Math.min(cards.length - 1, i + 1);
    if (ev.key === "Home") j = 0;
    if (ev.key === "End") j = cards.length - 1;
    cards[j].focus();
    ev.preventDefault();
  }

  globalKeys(ev) {
    if (!this.ctx || document.body.dataset.screen !== "table") return;
    if (!$("#keys-help").hidden) {
      // The shortcuts list is modal: Escape closes it (app.js keeps Tab inside).
      if (ev.key === "Escape") {
        this.closeKeys();
        ev.preventDefault();
      }
      return;
    }
    if (this.ctx.hidden || openDialog()) return; // the result or the privacy screen
    if (ev.target && (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT")) return;
    if (ev.key === "?") {
      this.openKeys();
      ev.preventDefault();
      return;
    }
    if (ev.key === "Escape") {
      if (this.selection.length || this.accuseChoice) this.cancelChoice();
      else if (this.accuseCard) this.unselectAccused();
      else return;
      ev.preventDefault();
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if ((this.selection.length || this.accuseChoice) && /^[1-9]$/.test(ev.key)) {
      const btn = this.el.actions.querySelector(`[data-choice="${ev.key}"]`);
      if (btn) {
        btn.click();
        ev.preventDefault();
      }
      return;
    }
    // The key's place, not its letter: T is T on a Russian layout too (Е).
    const key = /^Key[A-Z]$/.test(ev.code || "") ? ev.code.slice(3).toLowerCase() : ev.key.toLowerCase();
    const map = { t: "take", d: "pass", r: "transfer", c: "cheat", k: "catch", l: "lead", h: "hint" };
    if (map[key]) {
      const sel = key === "l" ? '[data-action="lead"], [data-action="cheat-lead"]' : `[data-action="${map[key]}"]`;
      const btn = this.el.actions.querySelector(sel);
      if (btn) {
        btn.click();
        ev.preventDefault();
      }
    }
  }

  // ------------------------------------------------------------ announcements
  /** What a screen reader hears about ``ev`` (an accusation's verdict is also shown). */
  eventText(ev, prevView) {
    const room = this.ctx.room;
    const a = ev.action;
    if (a.type === "accuse" && ev.accusation) {
      // A verdict has its own (assertive) live region: the next moves come at
      // once and would replace it in the polite one before it is read.
      this.hooks.announce(this.announceAccusation(ev), true);
      return "";
    }
    // "You" and a named player are separate sentences (the verb agrees: "You
    // take", "Bot takes"; Russian "Вы берёте", "Бот берёт"); the cards in the
    // case the sentence needs (Russian: "кроет шестёрку червей девяткой").
    const you = (seat) => seat === this.mySeat && seat !== null && !this.shared;
    const said = (what, seat, params = {}) =>
      t(`table.${you(seat) ? "evYou" : "ev"}.${what}`, { who: seatName(room, seat), ...params });
    const cards = cardsOfAction(a);
    const list = (form) => cards.map((c) => cardName(c, form)).join(", ");
    // Answers to the last call are not news; the round's end is.
    const parts = [];
    if (!(a.type === "pass" && prevView.phase === "last_call")) {
      parts.push(
        said(a.type, ev.seat, {
          cards: list(""),
          cardsAcc: list("Acc"),
          cardsIns: list("Ins"),
          target: a.target ? cardName(a.target) : "",
          targetAcc: a.target ? cardName(a.target, "Acc") : "",
        }),
      );
    }
    if (ev.round_end === "bito") parts.push(t("table.ev.bito"));
    if (ev.round_end === "took") parts.push(said("took", prevView.defender ?? ev.seat));
    return parts.join(t("table.evJoin"));
  }

  /** The verdict of an accusation: shown on the table and returned for the live region. */
  announceAccusation(ev) {
    const acc = ev.accusation;
    const me = this.shared ? null : this.mySeat;
    const accuser = ev.seat;
    let key;
    if (acc.verdict === "caught") {
      if (me !== null && accuser === me) key = "caughtByYou";
      else if (me !== null && acc.player === me) key = "caughtYou";
      else key = "caught";
    } else if (me !== null && accuser === me) key = "fairYou";
    else if (me !== null && acc.player === me) key = "fairYours";
    else key = "fair";
    const names = { accuser: seatName(this.ctx.room, accuser), cheater: seatName(this.ctx.room, acc.player) };
    const shown = t(`table.acc.${key}`, { ...names, card: cardShort(acc.card) });
    this.showCallout(shown, acc.verdict, acc.card, key);
    return t(`table.acc.${key}`, { ...names, card: cardName(acc.card) });
  }

  /** A banner for a few seconds (it never blocks a tap, and never lies over the
   * cards in play: it sits above the table). Verdicts that come together stack,
   * each shown in full; a false accusation of your own looks like the setback it is. */
  showCallout(text, verdict, card, key) {
    const box = this.el.callout;
    if (!box) return;
    const setback = key === "fairYou" || key === "caughtYou";
    const item = h(
      "div",
      { class: `callout-item callout-${verdict}${setback ? " callout-setback" : ""}`, dataset: { verdict, kind: key } },
      h("span", { class: "callout-card", html: cardSVG(card) }),
      h("span", { class: "callout-text" }, text),
    );
    box.append(item);
    while (box.childElementCount > 3) box.firstElementChild.remove();
    box.hidden = false;
    box.dataset.verdict = verdict;
    box.dataset.kind = key;
    setTimeout(() => {
      item.remove();
      if (!box.childElementCount) box.hidden = true;
    }, CALLOUT_MS);
  }

  // ------------------------------------------------------------ animation
  snapshot() {
    const rects = { hand: new Map(), table: new Map(), seats: new Map(), deck: null, discard: null, handBox: null };
    for (const el of this.el.hand.querySelectorAll("[data-card]")) rects.hand.set(el.dataset.card, el.getBoundingClientRect());
    for (const el of this.el.battle.querySelectorAll("[data-card]")) rects.table.set(el.dataset.card, el.getBoundingClientRect());
    rects.deck = this.el.deck.getBoundingClientRect();
    rects.discard = this.el.discard.getBoundingClientRect();
    rects.handBox = this.el.hand.getBoundingClientRect();
    return rects;
  }

  seatRect(seat) {
    if (seat === this.mySeat) return this.el.hand.getBoundingClientRect();
    const el = this.el.opponents.querySelector(`.opp[data-seat="${seat}"] .opp-hand`);
    return el ? el.getBoundingClientRect() : this.el.opponents.getBoundingClientRect();
  }

  cardSize() {
    const sample = this.el.battle.querySelector(".tcard") || this.el.hand.querySelector(".hcard");
    if (sample) return { w: sample.offsetWidth, h: sample.offsetHeight };
    return { w: 70, h: 98 };
  }

  animate(ev, before, prev) {
    if (prefersReducedMotion() || document.hidden) return;
    const a = ev.action;
    const mine = ev.seat === this.mySeat;
    const from = (card) => (mine && before.hand.get(card)) || this.centerRect(this.seatRect(ev.seat));
    const played = cardsOfAction(a).filter((c) => a.type !== "show_trump" && c);
    const prevView = prev.frame.view;

    // 0. an accusation: a caught cheat's cards go back to the hands they came
    //    from; a card found fair flashes where it lies
    if (a.type === "accuse" && ev.accusation) {
      if (ev.accusation.verdict === "caught") {
        const owners = new Map((prevView.plays || []).map((p) => [p.card, p.seat]));
        const now = new Set(this.view.table.flatMap((p) => [p.attack, p.defense]).filter(Boolean));
        let i = 0;
        for (const [card, rect] of before.table) {
          if (now.has(card)) continue;
          const seat = owners.get(card);
          const back = seat === this.mySeat && this.el.hand.querySelector(`[data-card="${card}"]`);
          if (back) this.flyInto(back, rect);
          else if (seat !== undefined) {
            this.flyClone(cardSVG(card), rect, this.centerRect(this.seatRect(seat)), { delay: 150 + i * 60 });
          }
          i++;
        }
      } else {
        const el = this.el.battle.querySelector(`.tcard[data-card="${ev.accusation.card}"] .face`);
        if (el) {
          el.animate([{ scale: "1" }, { scale: "1.18" }, { scale: "1" }], { duration: 700, easing: "ease-in-out", iterations: 2 });
        }
      }
      return;
    }

    // 1. the cards just played come from the player's seat (or your hand)
    for (const card of played) {
      const target = this.el.battle.querySelector(`.tcard[data-card="${card}"]`);
      if (target) this.flyInto(target, from(card));
      else if (ev.round_end) before.table.set(card, from(card)); // swept away at once
    }
    if (a.type === "show_trump" && a.card) {
      const r = this.seatRect(ev.seat);
      this.flyClone(cardSVG(a.card), this.centerRect(r), this.centerRect(r, 1.25), { fade: true, hold: 700 });
    }

    // 2. the end of a round: the table goes to the taker or to the discard pile
    if (ev.round_end) {
      const dest =
        ev.round_end === "took"
          ? this.centerRect(this.seatRect(prevView.defender))
          : this.centerRect(this.el.discard.getBoundingClientRect());
      let i = 0;
      for (const [card, rect] of before.table) {
        const html = ev.round_end === "took" ? cardSVG(card) : backSVG();
        this.flyClone(ev.round_end === "took" ? html : cardSVG(card), rect, dest, { delay: 120 + i * 30, fade: ev.round_end === "bito" });
        i++;
      }
      // 3. refill: backs fly from the deck to each seat that drew
      if (ev.draws) {
        const deck = this.centerRect(this.el.deck.getBoundingClientRect());
        let k = 0;
        ev.draws.forEach((count, seat) => {
          for (let j = 0; j < Math.min(count, 6); j++) {
            this.flyClone(backSVG(), deck, this.centerRect(this.seatRect(seat)), { delay: 420 + k * 70, fade: true });
            k++;
          }
        });
      }
    }
  }

  centerRect(r, scale = 1) {
    const { w, h: hh } = this.cardSize();
    const cw = w * scale;
    const ch = hh * scale;
    return { left: r.left + r.width / 2 - cw / 2, top: r.top + r.height / 2 - ch / 2, width: cw, height: ch };
  }

  /** Animate an element already in place from ``fromRect`` to where it is. */
  flyInto(el, fromRect) {
    const to = el.getBoundingClientRect();
    if (!to.width) return;
    const dx = fromRect.left + fromRect.width / 2 - (to.left + to.width / 2);
    const dy = fromRect.top + fromRect.height / 2 - (to.top + to.height / 2);
    const s = Math.max(0.4, Math.min(2, fromRect.width / to.width));
    this.flights += 1;
    el.animate(
      [
        { translate: `${dx}px ${dy}px`, scale: String(s), zIndex: 50 },
        { translate: "0px 0px", scale: "1", zIndex: 50 },
      ],
      { duration: FLY_MS, easing: "cubic-bezier(.2,.7,.3,1)" },
    );
  }

  /** A temporary card flying from one rectangle to another. */
  flyClone(html, from, to, { delay = 0, fade = false, hold = 0 } = {}) {
    const el = h("div", { class: "fly-card", html });
    this.flights += 1;
    el.style.left = `${from.left}px`;
    el.style.top = `${from.top}px`;
    el.style.width = `${from.width}px`;
    el.style.height = `${from.height}px`;
    this.el.fly.append(el);
    const dx = to.left - from.left;
    const dy = to.top - from.top;
    const s = to.width / from.width;
    const frames = hold
      ? [
          { translate: "0 0", scale: "1", opacity: 0 },
          { translate: `${dx}px ${dy}px`, scale: String(s), opacity: 1, offset: 0.3 },
          { translate: `${dx}px ${dy}px`, scale: String(s), opacity: 1, offset: 0.8 },
          { translate: `${dx}px ${dy}px`, scale: String(s), opacity: 0 },
        ]
      : [
          { translate: "0 0", scale: "1", opacity: 1 },
          { translate: `${dx}px ${dy}px`, scale: String(s), opacity: fade ? 0.15 : 1 },
        ];
    const anim = el.animate(frames, { duration: FLY_MS + hold, delay, easing: "cubic-bezier(.3,.6,.3,1)", fill: "both" });
    anim.finished.then(() => el.remove(), () => el.remove());
  }
}
