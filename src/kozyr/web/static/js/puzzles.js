// Durak puzzles (/puzzles, issue 27 §5; docs/puzzles.md): the puzzle of the day
// or /puzzles?id=..., solved move by move against the server's solver
// (GET /api/puzzles/{id}, POST /api/puzzles/{id}/move). The page sends all the
// player's moves each time: the server keeps no state of a puzzle being solved.
// The solved count and the streak are the profile's when this browser has a
// token (GET /api/me/puzzles; each wrong or solved answer carries the new
// progress), else this browser's (localStorage).
// A search puzzle (tags.kind "search", 3 players holding cards) hides what the
// player cannot know: the others' unknown cards are face down, and the answer
// to a move gives chances instead of a line.

import { $, fill, h } from "./dom.js";
import { backSVG, cardLabelHTML, cardSVG, sortHand, suitOf } from "./cards.js";
import { t } from "./i18n.js";
import { store } from "./store.js";
import { go, pagePath } from "./routes.js";

/** GET or POST the puzzles API; ``{ok, status, body}`` (never throws). */
async function api(path, body, base = "api/puzzles") {
  const headers = {};
  const token = store.get("token");
  if (token) headers.authorization = `Bearer ${token}`;
  const init = body === undefined ? { headers } : { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) };
  try {
    const res = await fetch(`${base}${path}`, init);
    return { ok: res.ok, status: res.status, body: await res.json().catch(() => null) };
  } catch {
    return { ok: false, status: 0, body: null };
  }
}

const cardsHTML = (cards) => cards.map(cardLabelHTML).join(" ");
const pct = (chance) => `${Math.round(chance * 100)}\u00a0%`;

/** One action in words, with card symbols (HTML: the cards are ours, not input). */
export function actionHTML(a) {
  const key = `puzzles.act.${a.type}`;
  return t(key, { cards: cardsHTML(a.cards || []), card: a.card ? cardLabelHTML(a.card) : "", target: a.target ? cardLabelHTML(a.target) : "" });
}

/** The solved puzzles and the streak: the profile's (``progress`` from the
 *  server) when there is one, else this browser's. */
export function stats(progress = null) {
  if (progress) return { solved: progress.ids, streak: progress.streak };
  const solved = store.get("puzzles.solved", []);
  return { solved: Array.isArray(solved) ? solved : [], streak: Number(store.get("puzzles.streak", 0)) || 0 };
}

export class Puzzles {
  constructor({ show }) {
    this.show = show;
    this.puzzle = null; // the puzzle as the server gave it
    this.moves = []; // the player's moves so far
    this.failed = false; // a wrong move was made on this puzzle
    this.busy = false;
    this.list = null;
    this.progress = null; // the profile's progress (null: none, or no token)
    $("#puzzle-next").addEventListener("click", () => this.next());
    $("#puzzle-retry").addEventListener("click", () => this.retry());
    $("#puzzle-daily").addEventListener("click", () => go(pagePath("puzzles")));
  }

  /** Show /puzzles (``id`` null: the puzzle of the day). */
  async open(id) {
    this.show("puzzles");
    // route() runs again for the same page (a language change, a reconnect):
    // the puzzle on screen, or the one being fetched, stays.
    const want = id === null ? "/daily" : `/${encodeURIComponent(id)}`;
    if (this.wanted === want) return;
    this.wanted = want;
    this.error(null);
    const [res] = await Promise.all([api(want), this.loadProgress()]);
    if (this.wanted !== want) return; // another puzzle was asked for meanwhile
    if (!res.ok) {
      this.puzzle = null;
      fill($("#puzzle-board"));
      this.error(t(res.status === 404 ? "puzzles.notFound" : "puzzles.offline"));
      return;
    }
    this.puzzle = res.body;
    this.daily = id === null;
    this.start();
  }

  /** The profile's progress, when this browser has a token with a profile. */
  async loadProgress() {
    if (!store.get("token")) {
      this.progress = null;
      return;
    }
    const res = await api("/puzzles", undefined, "api/me");
    this.progress = res.ok && res.body ? res.body : null;
  }

  start() {
    this.moves = [];
    this.failed = false;
    this.finished = false; // solved, or a wrong move made: no more moves until Try again
    this.position = this.puzzle.position;
    this.feedback(null);
    this.render();
  }

  retry() {
    if (this.puzzle) this.start();
  }

  async next() {
    if (!this.list) {
      const res = await api("");
      if (!res.ok) {
        this.error(t("puzzles.offline"));
        return;
      }
      this.list = res.body.puzzles;
    }
    const solved = new Set(stats(this.progress).solved);
    const at = this.puzzle ? this.list.findIndex((p) => p.id === this.puzzle.id) : -1;
    for (let k = 1; k <= this.list.length; k++) {
      const p = this.list[(at + k) % this.list.length];
      if (!solved.has(p.id) || k === this.list.length) {
        go(pagePath("puzzles", null, { id: p.id }));
        return;
      }
    }
  }

  async play(action) {
    if (this.busy || !this.puzzle) return;
    this.busy = true;
    const moves = [...this.moves, action];
    const res = await api(`/${encodeURIComponent(this.puzzle.id)}/move`, { actions: moves });
    this.busy = false;
    if (!res.ok) {
      this.error(res.body && res.body.error ? res.body.error.message : t("puzzles.offline"));
      return;
    }
    const r = res.body;
    this.position = r.position;
    if (r.progress) this.progress = r.progress;
    if (r.result === "wrong") {
      this.failed = true;
      store.set("puzzles.streak", 0);
      this.feedback("wrong", action, r);
    } else {
      this.moves = moves;
      if (r.result === "solved") this.solved();
      this.feedback(r.result, action, r);
    }
    this.finished = r.result === "wrong" || r.result === "solved";
    this.render();
  }

  solved() {
    const s = stats();
    if (!s.solved.includes(this.puzzle.id)) s.solved.push(this.puzzle.id);
    store.set("puzzles.solved", s.solved);
    if (!this.failed) store.set("puzzles.streak", s.streak + 1);
  }

  who(seat) {
    return seat === this.puzzle.seat ? t("puzzles.you") : t("puzzles.opponent", { seat: seat + 1 });
  }

  feedback(kind, action, r) {
    const box = $("#puzzle-feedback");
    box.hidden = !kind;
    box.dataset.result = kind || "";
    $("#puzzle-retry").hidden = kind !== "wrong";
    if (!kind) return fill(box);
    const lines = [];
    if (kind === "wrong" && r.chance_best !== undefined) {
      lines.push(h("p", { class: "puzzle-verdict" }, t("puzzles.wrongSearch")));
      lines.push(h("p", {}, t("puzzles.chanceWrong", { played: pct(r.chance), best: pct(r.chance_best) })));
    } else if (kind === "solved" && r.chances) {
      lines.push(h("p", { class: "puzzle-verdict" }, t("puzzles.solvedSearch")));
      lines.push(
        h("ul", { class: "puzzle-chances" }, r.chances.map((c) => h("li", { html: `${actionHTML(c.action)}: <b>${pct(c.chance)}</b>` }))),
      );
      lines.push(h("p", { class: "hint" }, t("puzzles.chancesNote")));
    } else if (kind === "wrong") {
      lines.push(h("p", { class: "puzzle-verdict" }, t("puzzles.wrong")));
      if (r.durak === this.puzzle.seat) lines.push(h("p", {}, t("puzzles.youDurak")));
      else if (r.durak !== null) lines.push(h("p", {}, t("puzzles.endsDurak", { who: this.who(r.durak) })));
      lines.push(
        h("ol", { class: "puzzle-line" }, r.line.map((a) => h("li", { html: `<b>${this.who(a.seat)}</b>: ${actionHTML(a)}` }))),
      );
    } else {
      lines.push(h("p", { class: "puzzle-verdict" }, t(kind === "solved" ? "puzzles.solved" : "puzzles.right")));
      for (const a of r.replies) lines.push(h("p", { html: `<b>${this.who(a.seat)}</b>: ${actionHTML(a)}` }));
      if (kind === "right") lines.push(h("p", { class: "hint" }, t("puzzles.goOn")));
    }
    fill(box, ...lines);
  }

  error(text) {
    const el = $("#puzzle-error");
    el.hidden = !text;
    el.textContent = text || "";
  }

  render() {
    const p = this.puzzle;
    const v = this.position;
    const s = stats(this.progress);
    $("#puzzle-stats").textContent = t("puzzles.stats", { solved: s.solved.length, streak: s.streak });
    $("#puzzle-kind").textContent = this.daily ? t("puzzles.daily") : t("puzzles.number", { id: p.id });
    const tags = [t(`rules.values.variant.${p.tags.variant}`), t("puzzles.players", { n: p.tags.players }), t(`puzzles.level.${p.level}`)];
    $("#puzzle-tags").textContent = tags.join(" · ");
    const search = p.tags.kind === "search";
    const task = search ? "puzzles.taskSearch" : p.tags.role === "defend" ? "puzzles.taskDefend" : "puzzles.taskAttack";
    $("#puzzle-task").textContent = t(task, { n: p.moves });
    $("#puzzle-known").textContent = t(v.all_known ? "puzzles.allKnown" : "puzzles.hiddenCards");
    $("#puzzle-known").hidden = !v.all_known && !search;
    const trumpSuit = suitOf(v.trump);
    const seats = [];
    for (let seat = 0; seat < v.hands.length; seat++) {
      if (seat === p.seat) continue;
      // Face up: every card when all are known, else those known to be there.
      const cards = sortHand(v.hands[seat], trumpSuit);
      const held = v.hand_counts[seat];
      const backs = Array.from({ length: Math.max(0, held - cards.length) }, () => h("span", { class: "pcard back", html: backSVG() }));
      seats.push(
        h(
          "div",
          { class: "puzzle-seat", dataset: { seat } },
          h("p", { class: "puzzle-who" }, `${this.who(seat)} · ${held ? t("puzzles.cards", { n: held }) : t("puzzles.out")}`),
          h("div", { class: "puzzle-cards" }, [...cards.map((c) => h("span", { class: "pcard", dataset: { card: c }, html: cardSVG(c) })), ...backs]),
        ),
      );
    }
    const table = v.table.map((pair) =>
      h(
        "div",
        { class: "puzzle-pair" },
        h("span", { class: "pcard", dataset: { card: pair.attack }, html: cardSVG(pair.attack) }),
        pair.defense ? h("span", { class: "pcard cover", dataset: { card: pair.defense }, html: cardSVG(pair.defense) }) : null,
      ),
    );
    const mine = sortHand(v.hands[p.seat], trumpSuit);
    const legal = this.finished ? [] : v.legal;
    fill(
      $("#puzzle-board"),
      ...seats,
      h(
        "div",
        { class: "puzzle-middle" },
        h(
          "div",
          { class: "puzzle-trump" },
          h("span", { class: "pcard", html: cardSVG(v.trump) }),
          h("span", { class: "hint" }, t("puzzles.trump")),
          h("span", { class: "hint puzzle-discard" }, t("puzzles.discarded", { n: v.discard })),
        ),
        h("div", { class: "puzzle-table", "aria-label": t("puzzles.table") }, table.length ? table : h("span", { class: "hint" }, t("puzzles.emptyTable"))),
      ),
      h(
        "div",
        { class: "puzzle-seat mine" },
        h("p", { class: "puzzle-who" }, `${t("puzzles.you")} · ${t("puzzles.cards", { n: mine.length })}`),
        h("div", { class: "puzzle-cards" }, mine.map((c) => h("span", { class: "pcard", dataset: { card: c }, html: cardSVG(c) }))),
      ),
      h(
        "div",
        { class: "puzzle-moves", role: "group", "aria-label": t("puzzles.yourMove") },
        legal.map((a) => h("button", { type: "button", class: "puzzle-move", dataset: { action: JSON.stringify(a) }, html: actionHTML(a), onclick: () => this.play(a) })),
      ),
    );
  }
}
