// The game viewer at /game/{id} (web/README.md, "The game viewer"): a finished
// game step by step, every hand face up. The server replays the record with
// the engine (GET /api/games/{id}/steps, docs/protocol.md); this module only
// draws the state of the chosen step.
//
// Controls: the buttons, the slider, the arrow keys (Home/End: first/last),
// a swipe across the table on a phone, and Play to step on by itself.
// ?step=N in the URL opens that step, and the URL follows the step.
//
// The "Analyse" panel (issue 27) is #viewer-analysis: hidden until a module
// fills it. Hooks for it: viewer.onLoad(fn(game)), viewer.onStep(fn(step, i)),
// viewer.setMarks([{step, kind, label}]) (ticks on the slider), viewer.goTo(i).

import { $, fill, h } from "./dom.js";
import { backSVG, cardSVG, sortHand, suitIcon, suitOf } from "./cards.js";
import { cardName, t } from "./i18n.js";
import { cardShort } from "./table.js";
import { setParam } from "./routes.js";

const PLAY_MS = 1100;
const SWIPE_PX = 40;

/** A seat's name from the record's meta ("bot level 3" is written by the server). */
export function playerLabel(name, seat) {
  const bot = typeof name === "string" ? name.match(/^bot level (\d+)$/) : null;
  if (bot) return t("viewer.bot", { n: bot[1] });
  return typeof name === "string" && name ? name : t("viewer.seat", { n: seat + 1 });
}

export class Viewer {
  constructor({ back, share }) {
    this.el = {
      screen: $("#screen-viewer"),
      title: $("#viewer-title"),
      sub: $("#viewer-sub"),
      error: $("#viewer-error"),
      board: $("#viewer-board"),
      seats: $("#viewer-seats"),
      deck: $("#viewer-deck"),
      battle: $("#viewer-battle"),
      discard: $("#viewer-discard"),
      move: $("#viewer-move"),
      slider: $("#viewer-slider"),
      marks: $("#viewer-marks"),
      count: $("#viewer-count"),
      play: $("#viewer-play"),
      analysis: $("#viewer-analysis"),
    };
    this.game = null;
    this.gameId = null;
    this.index = 0;
    this.timer = null;
    this.loading = null;
    this.failed = false;
    this.wantStep = null;
    this.stepHooks = [];
    this.loadHooks = [];
    $("#viewer-back").addEventListener("click", () => back());
    $("#viewer-share").addEventListener("click", () => share(this.link()));
    $("#viewer-first").addEventListener("click", () => this.goTo(0));
    $("#viewer-prev").addEventListener("click", () => this.goTo(this.index - 1));
    $("#viewer-next").addEventListener("click", () => this.goTo(this.index + 1));
    $("#viewer-last").addEventListener("click", () => this.goTo(this.last));
    this.el.play.addEventListener("click", () => this.togglePlay());
    this.el.slider.addEventListener("input", () => this.goTo(Number(this.el.slider.value), { fromSlider: true }));
    document.addEventListener("keydown", (ev) => this.key(ev));
    this.swipe(this.el.board);
  }

  get last() {
    return this.game ? this.game.steps.length - 1 : 0;
  }

  get shown() {
    return document.body.dataset.screen === "viewer";
  }

  /** The panel a module fills (the analysis of issue 27). */
  get panel() {
    return this.el.analysis;
  }

  onStep(fn) {
    this.stepHooks.push(fn);
  }

  onLoad(fn) {
    this.loadHooks.push(fn);
    if (this.game) fn(this.game);
  }

  /** Open game ``id`` at ``step`` (a number, "last", or null: the first step). */
  async open(id, step) {
    if (this.gameId === id && !this.failed) {
      // Open already, or on its way (route() runs on every room frame): only the step.
      if (this.game) this.goTo(this.parseStep(step));
      else this.wantStep = step;
      return;
    }
    this.stop();
    this.gameId = id;
    this.game = null;
    this.failed = false;
    this.wantStep = step;
    this.showError(null);
    this.el.screen.dataset.state = "loading";
    fill(this.el.title, t("viewer.title", { id }));
    fill(this.el.sub, t("viewer.loading"));
    fill(this.el.seats);
    fill(this.el.battle);
    fill(this.el.deck);
    fill(this.el.discard);
    fill(this.el.move);
    this.setMarks([]);
    this.el.analysis.hidden = true; // until the analysis module fills it for this game
    const loading = (this.loading = this.fetchSteps(id));
    const result = await loading;
    if (this.loading !== loading || this.gameId !== id) return; // another game was opened meanwhile
    if (result.error) {
      this.failed = true;
      this.el.screen.dataset.state = "error";
      fill(this.el.sub);
      this.showError(result.error);
      return;
    }
    this.game = result.game;
    this.el.screen.dataset.state = "ready";
    this.el.slider.max = String(this.last);
    this.renderTitle();
    this.goTo(this.parseStep(this.wantStep), { force: true });
    for (const fn of this.loadHooks) fn(this.game);
  }

  /** The steps, or the error's code. No retry for a game that just ended: the
   * server stores it as finished before it sends the last move and game_over. */
  async fetchSteps(id) {
    try {
      const res = await fetch(`api/games/${encodeURIComponent(id)}/steps`);
      const body = await res.json().catch(() => null);
      if (res.ok && body && Array.isArray(body.steps)) return { game: body };
      const code = body && body.error ? body.error.code : "http_error";
      return { error: code };
    } catch {
      return { error: "offline" };
    }
  }

  showError(code) {
    this.el.error.hidden = !code;
    if (!code) return;
    const key = `viewer.error.${code}`;
    this.el.error.textContent = t(key) === key ? t("viewer.error.other") : t(key);
  }

  parseStep(step) {
    if (step === "last") return this.last;
    const n = Number.parseInt(step, 10);
    return Number.isFinite(n) ? Math.max(0, Math.min(this.last, n)) : 0;
  }

  link() {
    const url = new URL(location.href);
    url.hash = "";
    return url.href;
  }

  name(seat) {
    const players = this.game && this.game.players;
    return playerLabel(players ? players[seat] : null, seat);
  }

  renderTitle() {
    const g = this.game;
    const n = g.steps[0].state.hands.length;
    const names = Array.from({ length: n }, (_, seat) => this.name(seat));
    fill(this.el.title, names.join(t("viewer.versus")));
    const parts = [t(`rules.values.variant.${g.rules.variant}`)];
    parts.push(t("viewer.deckSize", { n: g.rules.deck }));
    if (g.started) {
      const when = new Date(g.started);
      if (!Number.isNaN(when.getTime())) parts.push(when.toLocaleDateString(document.documentElement.lang || undefined, { dateStyle: "medium" }));
    }
    const res = g.result || {};
    if (res.draw) parts.push(t("viewer.resultDraw"));
    else if (res.durak !== undefined && res.durak !== null) parts.push(t("viewer.resultDurak", { name: this.name(res.durak) }));
    fill(this.el.sub, parts.join(" · "));
  }

  /** Show step ``i`` (clamped); the URL follows it. */
  goTo(i, { fromSlider = false, force = false } = {}) {
    if (!this.game) return;
    const next = Math.max(0, Math.min(this.last, Number.isFinite(i) ? i : 0));
    if (next === this.index && !force) {
      if (!fromSlider) this.el.slider.value = String(next);
      return;
    }
    this.index = next;
    if (!fromSlider) this.el.slider.value = String(next);
    if (this.index >= this.last) this.stop();
    this.render();
    if (this.shown) setParam("step", this.index);
    for (const fn of this.stepHooks) fn(this.game.steps[this.index], this.index);
  }

  render() {
    const step = this.game.steps[this.index];
    const s = step.state;
    const prev = this.index > 0 ? this.game.steps[this.index - 1].state : null;
    this.el.screen.dataset.step = String(this.index);
    fill(this.el.count, t("viewer.stepOf", { n: this.index, total: this.last }));
    this.el.slider.setAttribute("aria-valuetext", t("viewer.stepOf", { n: this.index, total: this.last }));
    $("#viewer-first").disabled = $("#viewer-prev").disabled = this.index === 0;
    $("#viewer-next").disabled = $("#viewer-last").disabled = this.index === this.last;
    this.renderSeats(s);
    this.renderDeck(s);
    this.renderBattle(s);
    this.renderDiscard(s);
    fill(this.el.move, this.describe(step, prev));
  }

  renderSeats(s) {
    const trump = suitOf(s.trump);
    const over = s.phase === "over";
    const res = s.result || {};
    const losers = new Set(res.draw ? [] : res.team && res.team.length ? res.team : res.durak !== undefined ? [res.durak] : []);
    const seats = s.hands.map((hand, seat) => {
      const tags = [];
      if (!over && seat === s.attacker) tags.push(["attack", t("table.tagAttack")]);
      if (!over && seat === s.defender) tags.push(["defend", t(s.taking ? "table.tagTakes" : "table.tagDefend")]);
      if (s.out.includes(seat)) tags.push(["out", t("table.tagOut")]);
      if (over && losers.has(seat)) tags.push(["durak", t("result.durakTag")]);
      if (over && res.draw) tags.push(["draw", t("viewer.draw")]);
      const cards = sortHand(hand, trump);
      const label = cards.length ? cards.map((c) => cardName(c)).join(", ") : t("viewer.noCards");
      return h(
        "li",
        { class: `vseat${!over && seat === s.to_move ? " to-move" : ""}`, dataset: { seat: String(seat), count: String(hand.length) } },
        h(
          "div",
          { class: "vseat-head" },
          h("span", { class: "vseat-name" }, this.name(seat)),
          tags.map(([kind, text]) => h("span", { class: `tag tag-${kind}` }, text)),
          !over && seat === s.to_move ? h("span", { class: "tag tag-move" }, t("table.toMove")) : null,
          h("span", { class: "vseat-count" }, t("table.cardsCount", { n: hand.length })),
        ),
        h(
          "div",
          { class: "vhand", role: "img", "aria-label": label, style: `--n:${Math.max(cards.length, 1)}` },
          cards.map((c) => h("div", { class: `vcard${suitOf(c) === trump ? " trump" : ""}`, dataset: { card: c }, html: cardSVG(c) })),
        ),
      );
    });
    fill(this.el.seats, seats);
    this.el.seats.dataset.players = String(s.hands.length);
  }

  renderDeck(s) {
    const trumpSuit = suitOf(s.trump);
    const parts = [];
    if (s.deck > 0) {
      parts.push(h("div", { class: "vtrump", dataset: { card: s.trump }, html: cardSVG(s.trump) }));
      if (s.deck > 1) parts.push(h("div", { class: "vdeck-back", html: backSVG() }));
    }
    parts.push(
      h("div", { class: "deck-count" }, h("span", { class: "trump-mark", html: suitIcon(trumpSuit) }), h("span", {}, s.deck > 0 ? String(s.deck) : t("table.deckEmpty"))),
    );
    fill(this.el.deck, parts);
    this.el.deck.dataset.count = String(s.deck);
    this.el.deck.setAttribute("aria-label", t("table.deckLabel", { n: s.deck, trump: cardName(s.trump), suit: t(`cards.suitName.${trumpSuit}`) }));
  }

  renderBattle(s) {
    const pairs = s.table.map((pair, i) => {
      const label = pair.defense
        ? t("table.pairCovered", { attack: cardName(pair.attack), cover: cardName(pair.defense), coverIns: cardName(pair.defense, "Ins") })
        : t("table.pairOpen", { attack: cardName(pair.attack) });
      return h(
        "div",
        { class: "vpair", role: "img", "aria-label": label, dataset: { index: String(i) } },
        h("div", { class: "vcard attack", dataset: { card: pair.attack }, html: cardSVG(pair.attack) }),
        pair.defense ? h("div", { class: "vcard cover", dataset: { card: pair.defense }, html: cardSVG(pair.defense) }) : null,
      );
    });
    fill(this.el.battle, pairs.length ? pairs : [h("p", { class: "vempty" }, t("viewer.emptyTable"))]);
    this.el.battle.dataset.count = String(s.table.length);
  }

  renderDiscard(s) {
    const summary = h("summary", {}, t("table.discard"), " ", h("b", {}, String(s.discard)));
    const cards = h(
      "div",
      { class: "vdiscarded", role: "img", "aria-label": s.discarded.map((c) => cardName(c)).join(", ") || t("viewer.noCards") },
      s.discarded.map((c) => h("span", { class: "vmini", html: cardSVG(c), dataset: { card: c } })),
    );
    const open = this.el.discard.open;
    fill(this.el.discard, summary, cards);
    this.el.discard.open = open;
    this.el.discard.dataset.count = String(s.discard);
  }

  /** What happened at this step, in words: the move, then a bito or a pick-up. */
  describe(step, prev) {
    if (!step.action) return t("viewer.deal", { name: this.name(step.state.attacker ?? 0) });
    const a = step.action;
    const who = this.name(a.seat);
    const cards = (a.cards || (a.card ? [a.card] : [])).map(cardShort).join(" ");
    const target = a.target ? cardShort(a.target) : "";
    const parts = [t(`viewer.ev.${a.type}`, { who, cards, target })];
    const s = step.state;
    if (prev && prev.table.length && !s.table.length) {
      if (s.discard > prev.discard) parts.push(t("table.ev.bito"));
      else if (prev.defender !== null) parts.push(t("table.ev.took", { who: this.name(prev.defender) }));
    }
    if (s.phase === "over") {
      const res = s.result || {};
      parts.push(res.draw ? t("viewer.resultDraw") : t("viewer.resultDurak", { name: this.name(res.durak) }));
    }
    return parts.join(t("table.evJoin"));
  }

  /** Ticks on the slider at these steps ({step, kind, label}): for the analysis. */
  setMarks(marks) {
    const last = Math.max(1, this.last);
    fill(
      this.el.marks,
      marks.map((m) =>
        h("span", { class: `vmark vmark-${m.kind || "note"}`, style: `--at:${(100 * m.step) / last}%`, title: m.label || "", dataset: { step: String(m.step) } }),
      ),
    );
  }

  togglePlay() {
    if (this.timer) this.stop();
    else if (this.game) {
      if (this.index >= this.last) this.goTo(0);
      this.el.play.setAttribute("aria-pressed", "true");
      fill(this.el.play, t("viewer.pause"));
      this.timer = setInterval(() => this.goTo(this.index + 1), PLAY_MS);
    }
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.el.play.setAttribute("aria-pressed", "false");
    fill(this.el.play, t("viewer.play"));
  }

  key(ev) {
    if (!this.shown || !this.game || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const target = ev.target;
    if (target && (target.matches("input, select, textarea") || target.isContentEditable)) return;
    const moves = { ArrowRight: this.index + 1, ArrowLeft: this.index - 1, Home: 0, End: this.last };
    if (!(ev.key in moves)) return;
    ev.preventDefault();
    this.stop();
    this.goTo(moves[ev.key]);
  }

  /** A swipe across the table: left for the next step, right for the one before. */
  swipe(el) {
    let start = null;
    el.addEventListener(
      "touchstart",
      (ev) => {
        const touch = ev.touches[0];
        start = ev.touches.length === 1 ? { x: touch.clientX, y: touch.clientY } : null;
      },
      { passive: true },
    );
    el.addEventListener(
      "touchend",
      (ev) => {
        if (!start) return;
        const touch = ev.changedTouches[0];
        const dx = touch.clientX - start.x;
        const dy = touch.clientY - start.y;
        start = null;
        if (Math.abs(dx) < SWIPE_PX || Math.abs(dx) < 1.5 * Math.abs(dy)) return;
        this.stop();
        this.goTo(this.index + (dx < 0 ? 1 : -1));
      },
      { passive: true },
    );
  }

  /** Redraw in a new language. */
  relabel() {
    if (!this.game) return;
    this.renderTitle();
    this.render();
    if (!this.timer) fill(this.el.play, t("viewer.play"));
  }
}
