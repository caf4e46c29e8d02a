// The "Analyse" panel of the game viewer (issue 27; docs/analysis.md, "In the
// browser"). It fills the viewer's #viewer-analysis: which seat to judge (your
// own when your token played the game), an Analyse button that asks the server
// (POST /api/games/{id}/analysis?seat=N, docs/protocol.md) and polls its
// progress, then the seat's accuracy, ticks on the slider at inaccuracies,
// mistakes and blunders, a graph of the seat's chance after each of its
// decisions, and at a judged step the move played beside the best one.
//
// Decision ``index`` k of the analysis is the record's action k, which the
// viewer shows at step k + 1 (the state after it, with the move described).
// A stored analysis is read with GET when the game opens: nothing runs again.

import { fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { store } from "./store.js";
import { moveText } from "./hint.js";

const MARKED = ["inaccuracy", "mistake", "blunder"];
const POLL_MS = 1000;
const SVG = "http://www.w3.org/2000/svg";
const GRAPH_W = 360;
const GRAPH_H = 96;
const PAD = 6;

const pct = (chance) => `${Math.round(chance * 100)}\u00a0%`;
const isBot = (name) => typeof name === "string" && /^bot level \d+$/.test(name);

/** A wait in words: "40 s", "3 min", "2 h". */
export function waitText(seconds) {
  const s = Math.max(1, Math.ceil(Number(seconds) || 1));
  if (s < 90) return t("analysis.seconds", { n: s });
  if (s < 90 * 60) return t("analysis.minutes", { n: Math.ceil(s / 60) });
  return t("analysis.hours", { n: Math.ceil(s / 3600) });
}

function svg(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

async function call(path, method = "GET") {
  const headers = {};
  const token = store.get("token");
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    const res = await fetch(`api/${path}`, { method, headers });
    const body = await res.json().catch(() => null);
    return { ok: res.ok, status: res.status, body: body || {} };
  } catch {
    return { ok: false, status: 0, body: { error: { code: "offline" } } };
  }
}

export class AnalysisPanel {
  constructor(viewer) {
    this.viewer = viewer;
    this.panel = viewer.panel;
    this.gen = 0; // bumped on every game or seat: late answers of the old one are dropped
    this.timer = null;
    this.reset();
    viewer.onLoad((game) => this.load(game));
    viewer.onStep((_step, i) => this.showStep(i));
    document.addEventListener("keydown", (ev) => this.key(ev));
  }

  /** N: the next marked move (as the button), on the viewer with results. */
  key(ev) {
    if (ev.key !== "n" && ev.key !== "N") return;
    if (!this.viewer.shown || this.phase !== "done" || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const target = ev.target;
    if (target && (target.matches("input, select, textarea") || target.isContentEditable)) return;
    ev.preventDefault();
    this.nextMistake();
  }

  reset() {
    this.game = null;
    this.gameId = null;
    this.mine = null; // the seat your token played, if it did
    this.seat = 0;
    this.result = null; // the seat's object of the analysis JSON
    this.byStep = new Map();
    this.marks = [];
    this.phase = "idle"; // idle | waiting | running | done | error
    this.message = null; // {key, params} of the status line
    this.progress = null; // {done, total}
  }

  get seats() {
    return this.game ? this.game.steps[0].state.hands.length : 0;
  }

  /** A game opened in the viewer: find your seat, then what the server has. */
  async load(game) {
    const gen = ++this.gen;
    this.stopPolling();
    this.reset();
    this.game = game;
    this.gameId = this.viewer.gameId;
    this.viewer.setMarks([]);
    const mine = await this.findMySeat(this.gameId);
    if (gen !== this.gen) return;
    this.mine = mine;
    const players = game.players || [];
    const person = Array.from({ length: this.seats }, (_, s) => s).find((s) => !isBot(players[s]));
    this.seat = mine ?? person ?? 0;
    this.phase = "waiting";
    this.render();
    await this.fetchStatus(gen);
  }

  /** Your seat in this game, from your list of games (null when you did not play it). */
  async findMySeat(id) {
    if (!store.get("token")) return null;
    const res = await call("me/games?limit=100");
    const games = res.ok && Array.isArray(res.body.games) ? res.body.games : [];
    const found = games.find((g) => String(g.game_id) === String(id));
    return found && Number.isInteger(found.seat) ? found.seat : null;
  }

  path() {
    return `games/${encodeURIComponent(this.gameId)}/analysis?seat=${this.seat}`;
  }

  /** GET: the stored analysis, or where it is. Never starts one. */
  async fetchStatus(gen) {
    const res = await call(this.path());
    if (gen !== this.gen) return;
    this.take(res, gen, false);
  }

  /** POST: start the analysis (or join the one that runs). */
  async start() {
    if (this.phase === "running" || !this.gameId) return;
    const gen = this.gen;
    this.phase = "running";
    this.progress = null;
    this.message = { key: "analysis.queued" };
    this.render();
    const res = await call(this.path(), "POST");
    if (gen !== this.gen) return;
    this.take(res, gen, true);
  }

  /** An answer of either route: show it, and poll while it runs. */
  take(res, gen, asked) {
    const body = res.body || {};
    if (!res.ok) {
      const code = body.error && body.error.code ? body.error.code : "other";
      this.phase = "error";
      this.message = { key: `analysis.error.${code}`, params: { wait: waitText(body.error && body.error.retry_after) }, code };
      this.render();
      return;
    }
    const status = body.status;
    if (status === "done" && body.result && body.result.seats) {
      this.showResult(body.result.seats[String(this.seat)]);
      return;
    }
    if (status === "queued" || status === "running") {
      const was = this.phase;
      this.phase = "running";
      this.progress = { done: body.done || 0, total: body.total || 0 };
      this.message = { key: status === "queued" ? "analysis.queued" : "analysis.running" };
      const line = this.panel.querySelector("#analysis-status");
      // While it runs only the status line changes (the same live region, read out).
      if (was === "running" && line) fill(line, [...this.statusLine().childNodes]);
      else this.render();
      this.timer = setTimeout(() => {
        this.timer = null;
        if (gen === this.gen) this.fetchStatus(gen);
      }, POLL_MS);
      return;
    }
    if (status === "failed") {
      this.phase = "error";
      this.message = { key: "analysis.error.failed", code: "failed" };
    } else {
      this.phase = "idle"; // none: never asked (or asked elsewhere and lost)
      this.message = asked ? { key: "analysis.error.other", code: "other" } : null;
    }
    this.render();
  }

  stopPolling() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  chooseSeat(seat) {
    if (seat === this.seat) return;
    const gen = ++this.gen;
    this.stopPolling();
    this.seat = seat;
    this.result = null;
    this.byStep = new Map();
    this.marks = [];
    this.viewer.setMarks([]);
    this.phase = "waiting";
    this.message = null;
    this.render();
    this.fetchStatus(gen);
  }

  showResult(seatResult) {
    this.stopPolling();
    this.phase = "done";
    this.message = null;
    this.result = seatResult || { accuracy: null, decisions: [] };
    this.byStep = new Map(this.result.decisions.map((d) => [d.index + 1, d]));
    this.marks = this.result.decisions
      .filter((d) => MARKED.includes(d.label))
      .map((d) => ({ step: d.index + 1, kind: d.label, label: t(`analysis.label.${d.label}`) }));
    this.viewer.setMarks(this.marks);
    this.render();
  }

  /** The name of a seat, "You" for yours. */
  who(seat) {
    return seat === this.mine ? t("analysis.you") : this.viewer.name(seat);
  }

  // ------------------------------------------------------------------ drawing

  render() {
    // Nothing for a game the viewer no longer shows (another one is loading).
    if (!this.game || String(this.viewer.gameId) !== String(this.gameId)) return;
    this.panel.hidden = false;
    this.panel.dataset.state = this.phase;
    this.panel.dataset.seat = String(this.seat);
    // The panel is redrawn whole: the keyboard focus stays on the same control,
    // or moves from Analyse (gone once done) to Next mistake or the seat chooser.
    const active = document.activeElement;
    const focused = active && this.panel.contains(active) ? active.id : null;
    const head = h("div", { class: "an-head" }, h("h2", { class: "an-title" }, t("analysis.title")), this.seatPicker(), this.button());
    const parts = [head, this.statusLine()];
    if (this.phase === "done") parts.push(this.summary(), this.graph(), this.moveBox(), this.nextButton());
    fill(this.panel, parts);
    if (this.phase === "done") this.showStep(this.viewer.index);
    if (focused) {
      const next = this.panel.querySelector(`#${focused}`) || this.panel.querySelector("#analysis-next:not([disabled])") || this.panel.querySelector("#analysis-seat");
      if (next) next.focus({ preventScroll: true });
    }
  }

  seatPicker() {
    const options = Array.from({ length: this.seats }, (_, s) =>
      h("option", { value: String(s), selected: s === this.seat }, s === this.mine ? t("analysis.yourSeat", { name: this.viewer.name(s) }) : this.viewer.name(s)),
    );
    const select = h("select", { id: "analysis-seat", onchange: (ev) => this.chooseSeat(Number(ev.target.value)) }, options);
    return h("label", { class: "an-seat" }, h("span", {}, t("analysis.whose")), select);
  }

  button() {
    if (this.phase === "done" || this.phase === "waiting") return null;
    // aria-disabled, not disabled, while it runs: a disabled button would drop the focus.
    const busy = this.phase === "running";
    return h(
      "button",
      { type: "button", id: "analysis-start", class: "small", "aria-disabled": busy ? "true" : null, "aria-busy": busy ? "true" : null, onclick: () => this.start() },
      busy ? t("analysis.working") : t("analysis.button"),
    );
  }

  statusLine() {
    const m = this.message;
    const line = h("p", { id: "analysis-status", class: `an-status${this.phase === "error" ? " an-error" : ""}`, role: this.phase === "error" ? "alert" : "status", dataset: { code: (m && m.code) || "" } });
    if (m) {
      const text = t(m.key, m.params || {});
      line.append(text === m.key ? t("analysis.error.other") : text);
    } else if (this.phase === "idle") {
      line.append(t("analysis.intro"));
    }
    if (this.phase === "running" && this.progress && this.progress.total > 0) {
      const { done, total } = this.progress;
      line.append(
        " ",
        h("span", { class: "an-count" }, t("analysis.progress", { done, total })),
        h("progress", { class: "an-progress", max: String(total), value: String(done), "aria-label": t("analysis.progress", { done, total }) }),
      );
    }
    return line;
  }

  summary() {
    const r = this.result;
    const count = (label) => r.decisions.filter((d) => d.label === label).length;
    const chips = MARKED.map((label) =>
      h("li", { class: `an-chip an-${label}`, dataset: { label, count: String(count(label)) } }, h("b", {}, String(count(label))), " ", t(`analysis.labels.${label}`, { n: count(label) })),
    );
    const acc = r.accuracy === null || r.accuracy === undefined ? "—" : `${Number(r.accuracy).toFixed(1)}\u00a0%`;
    return h(
      "div",
      { class: "an-summary" },
      h("p", { class: "an-accuracy", dataset: { accuracy: String(r.accuracy) } }, t("analysis.accuracy", { who: this.who(this.seat) }), " ", h("b", {}, acc)),
      h("ul", { class: "an-chips" }, chips),
    );
  }

  /** The seat's chance after each of its decisions; a click goes to that step. */
  graph() {
    const last = Math.max(1, this.viewer.last);
    const x = (step) => PAD + ((GRAPH_W - 2 * PAD) * step) / last;
    const y = (chance) => PAD + (GRAPH_H - 2 * PAD) * (1 - chance);
    const decisions = this.result.decisions;
    const root = svg("svg", { viewBox: `0 0 ${GRAPH_W} ${GRAPH_H}`, class: "an-graph", role: "img", id: "analysis-graph" });
    root.setAttribute("aria-label", t("analysis.graphLabel", { who: this.who(this.seat), n: decisions.length }));
    root.append(svg("rect", { x: 0, y: 0, width: GRAPH_W, height: GRAPH_H, class: "an-bg" }));
    root.append(svg("line", { x1: PAD, x2: GRAPH_W - PAD, y1: y(0.5), y2: y(0.5), class: "an-half" }));
    if (decisions.length) {
      const pts = decisions.map((d) => `${x(d.index + 1).toFixed(1)},${y(d.chance_played).toFixed(1)}`);
      root.append(svg("polyline", { points: pts.join(" "), class: "an-line" }));
    }
    this.cursor = svg("line", { y1: 0, y2: GRAPH_H, class: "an-cursor" });
    root.append(this.cursor);
    for (const d of decisions) {
      const dot = svg("circle", { cx: x(d.index + 1).toFixed(1), cy: y(d.chance_played).toFixed(1), r: MARKED.includes(d.label) ? 4.5 : 2.5, class: `an-dot an-${d.label}` });
      dot.dataset.step = String(d.index + 1);
      root.append(dot);
    }
    root.addEventListener("click", (ev) => {
      const box = root.getBoundingClientRect();
      if (!box.width || !decisions.length) return;
      const at = ((ev.clientX - box.left) / box.width) * GRAPH_W;
      let best = decisions[0];
      for (const d of decisions) if (Math.abs(x(d.index + 1) - at) < Math.abs(x(best.index + 1) - at)) best = d;
      this.viewer.stop();
      this.viewer.goTo(best.index + 1);
    });
    this.graphX = x;
    return h("div", { class: "an-graph-box" }, root);
  }

  moveBox() {
    this.move = h("div", { id: "analysis-move", class: "an-move", "aria-live": "polite" });
    return this.move;
  }

  nextButton() {
    return h(
      "button",
      { type: "button", id: "analysis-next", class: "small", disabled: !this.marks.length, "aria-keyshortcuts": "N", onclick: () => this.nextMistake() },
      t("analysis.next"),
    );
  }

  nextMistake() {
    if (!this.marks.length) return;
    const here = this.viewer.index;
    const next = this.marks.find((m) => m.step > here) || this.marks[0];
    this.viewer.stop();
    this.viewer.goTo(next.step);
  }

  /** At step ``i``: the cursor on the graph, and the judged move if there is one. */
  showStep(i) {
    if (this.phase !== "done" || !this.move) return;
    if (this.cursor && this.graphX) {
      const cx = this.graphX(i).toFixed(1);
      this.cursor.setAttribute("x1", cx);
      this.cursor.setAttribute("x2", cx);
    }
    const d = this.byStep.get(i);
    if (!d) {
      this.move.dataset.index = "";
      this.move.dataset.label = "";
      fill(this.move, h("p", { class: "an-none" }, t("analysis.noDecision", { who: this.who(this.seat) })));
      return;
    }
    const before = this.game.steps[i - 1].state;
    const taking = Boolean(before.taking);
    const box = (cls, title, action, chance) =>
      h(
        "div",
        { class: `an-side ${cls}`, dataset: { action: JSON.stringify(action), chance: String(chance) } },
        h("span", { class: "an-k" }, title),
        h("b", { class: "an-what" }, moveText(action, taking)),
        h("span", { class: "an-pct" }, pct(chance)),
      );
    this.move.dataset.index = String(d.index);
    this.move.dataset.label = d.label;
    const verdict = h("p", { class: `an-verdict an-${d.label}` }, t(`analysis.label.${d.label}`));
    const played = box("an-side-played", t("analysis.played", { who: this.who(d.played.seat ?? this.seat) }), d.played, d.chance_played);
    if (d.label === "best" || d.label === "forced") {
      fill(this.move, verdict, h("div", { class: "an-sides one" }, played));
      return;
    }
    fill(this.move, verdict, h("div", { class: "an-sides" }, played, box("an-side-best", t("analysis.best"), d.best, d.chance_best)));
  }

  relabel() {
    if (!this.game) return;
    if (this.phase === "done") this.showResult(this.result);
    else this.render();
  }
}
