// The players' pages of issue 26 (web/README.md, "Profiles, games, leaderboard"):
// your profile (/me), your games (/me/games), a player's public page
// (/player/{public_id}) and the leaderboard (/leaderboard); the candy balance in
// the top bar. Everything comes from the server's API (docs/protocol.md,
// "Players"); the token in localStorage is the identity.

import { $, $$, fill, h } from "./dom.js";
import { currentLanguage, t } from "./i18n.js";
import { store } from "./store.js";
import { go, pagePath } from "./routes.js";
import { playerLabel } from "./viewer.js";

/** The built-in avatars (/avatars/<id>.svg), as the server lists them
 * (kozyr.server.players.ids.AVATARS; a test keeps the two the same). */
export const AVATARS = ["fox", "bear", "cat", "owl", "hedgehog", "rabbit", "penguin", "frog", "wolf", "panda", "mouse", "cow", "octopus", "sun"];
const VARIANTS = ["podkidnoy", "perevodnoy"];
const PAGE_SIZE = 20;

/** ``fetch`` of the API with the token; ``{ok, status, body}`` (never throws). */
export async function api(path, { method = "GET", body, auth = true } = {}) {
  const headers = {};
  const token = store.get("token");
  if (auth && token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  try {
    const res = await fetch(`api/${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const data = await res.json().catch(() => null);
    return { ok: res.ok, status: res.status, body: data };
  } catch {
    return { ok: false, status: 0, body: { error: { code: "offline" } } };
  }
}

function errorText(result) {
  const code = result.body && result.body.error ? result.body.error.code : "other";
  const key = `profile.error.${code}`;
  return t(key) === key ? t("profile.error.other") : t(key);
}

const avatarSrc = (id) => `avatars/${AVATARS.includes(id) ? id : AVATARS[0]}.svg`;

function dateText(iso, withTime = false) {
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return "";
  const opts = withTime ? { dateStyle: "medium", timeStyle: "short" } : { dateStyle: "medium" };
  return when.toLocaleString(currentLanguage(), opts);
}

/** "+12" / "−7" / "±0" for a rating change. */
function signed(n) {
  if (n > 0) return `+${n}`;
  if (n < 0) return `\u2212${-n}`;
  return "\u00b10";
}

/** A game's seats in words: names, bots as "Bot (level 3)". */
function seatsText(players) {
  return (players || []).map((p) => (p.bot_level ? t("viewer.bot", { n: p.bot_level }) : p.name || playerLabel(null, p.seat))).join(t("viewer.versus"));
}

/** One game of a list: a link that opens it in the viewer. */
function gameItem(game) {
  const href = pagePath("game", game.game_id);
  const facts = [t("profile.moves", { n: game.moves })];
  if (game.candies) facts.push(t("profile.candiesWon", { n: game.candies }));
  if (game.rating_change !== null && game.rating_change !== undefined) facts.push(t("profile.ratingChange", { change: signed(game.rating_change) }));
  return h(
    "li",
    { class: `game-item result-${game.result}`, dataset: { game: String(game.game_id) } },
    h(
      "a",
      { href, "aria-label": t("profile.open", { id: game.game_id }), onclick: (ev) => follow(ev, href) },
      h("span", { class: `game-result tag-${game.result}` }, t(`profile.result.${game.result}`)),
      h(
        "span",
        { class: "game-main" },
        h("span", { class: "game-players" }, seatsText(game.players)),
        h("span", { class: "game-meta" }, [dateText(game.ended_at, true), t(`rules.values.variant.${game.variant}`), ...facts].filter(Boolean).join(" · ")),
      ),
    ),
  );
}

/** A link inside the app: no reload (pushState). */
function follow(ev, href) {
  if (ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  ev.preventDefault();
  go(href);
}

/** A small line graph of a rating over time (SVG; nothing when fewer than 2 points). */
export function ratingGraph(points, label) {
  if (!points || points.length < 2) return null;
  const W = 300;
  const H = 80;
  const values = points.map((p) => p.rating);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const span = Math.max(hi - lo, 1);
  const xy = values.map((v, i) => [(i * W) / (values.length - 1), H - 6 - ((v - lo) * (H - 12)) / span]);
  const path = xy.map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(1)} ${y.toFixed(1)}`).join("");
  return h("svg", {
    class: "rating-graph",
    viewBox: `0 0 ${W} ${H}`,
    preserveAspectRatio: "none",
    role: "img",
    "aria-label": `${label}: ${values.join(", ")}`,
    html: `<path d="${path}" fill="none" stroke="currentColor" stroke-width="2.5" vector-effect="non-scaling-stroke"/>`,
  });
}

function ratingsBlock(ratings, graph) {
  return VARIANTS.filter((v) => ratings && ratings[v]).map((variant) => {
    const r = ratings[variant];
    const name = t(`rules.values.variant.${variant}`);
    return h(
      "div",
      { class: "rating", dataset: { variant } },
      h("span", { class: "rating-variant" }, name),
      h("b", { class: "rating-value" }, String(r.rating)),
      r.provisional ? h("span", { class: "tag tag-provisional" }, t("profile.provisional")) : null,
      h("span", { class: "hint" }, t("profile.ratingGames", { n: r.games })),
      graph ? ratingGraph(graph[variant], t("profile.graph", { variant: name })) : null,
    );
  });
}

export class Profiles {
  constructor({ show, toast, back, relogin, renamed }) {
    this.show = show;
    this.toast = toast;
    this.relogin = relogin; // a claimed code: connect again with the new token
    this.renamed = renamed; // a name saved here: the connection's hello says it
    this.me = null;
    this.cursor = null;
    this.current = null;
    for (const btn of $$(".page-back")) btn.addEventListener("click", () => back());
    for (const a of $$("a[data-page]")) a.addEventListener("click", (ev) => follow(ev, pagePath(a.dataset.page)));
    $("#profile-name-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.save({ name: $("#profile-name-input").value.trim() });
    });
    $("#transfer-make").addEventListener("click", () => this.transfer());
    $("#delete-ask").addEventListener("click", () => this.askDelete(true));
    $("#delete-no").addEventListener("click", () => this.askDelete(false));
    $("#delete-yes").addEventListener("click", () => this.remove());
    $("#claim-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.claim($("#claim-code").value);
    });
    $("#games-more").addEventListener("click", () => this.loadGames(true));
    $("#board-variant").addEventListener("change", () => this.loadBoard());
    $("#profile-public").addEventListener("click", (ev) => follow(ev, $("#profile-public").href));
  }

  /** Show a page: "me", "games", "player" (with ``id``), "leaderboard". */
  open(page) {
    const same = this.current && this.current.kind === page.kind && this.current.id === page.id;
    this.current = page;
    const screen = { me: "profile", games: "games", player: "player", leaderboard: "leaderboard" }[page.kind];
    this.show(screen);
    if (same) return;
    if (page.kind === "me") this.loadMe();
    else if (page.kind === "games") this.loadGames(false);
    else if (page.kind === "player") this.loadPlayer(page.id);
    else if (page.kind === "leaderboard") this.loadBoard();
  }

  pageError(screen, text) {
    const el = $(`#screen-${screen} .page-error`);
    el.hidden = !text;
    el.textContent = text || "";
  }

  // ------------------------------------------------------------ the candy balance
  /** Ask the server for your profile and show your candies in the top bar. */
  async refresh() {
    if (!store.get("token")) {
      this.setMe(null);
      return null;
    }
    const res = await api("me");
    this.setMe(res.ok ? res.body : null);
    return res;
  }

  setMe(me) {
    this.me = me;
    const link = $("#candy-link");
    link.hidden = !me || !me.candies;
    if (me && me.candies) {
      $("#candy-balance").textContent = String(me.candies.balance);
      link.setAttribute("aria-label", t("profile.candyBalance", { n: me.candies.balance }));
      link.title = t("profile.candyBalance", { n: me.candies.balance });
      link.dataset.balance = String(me.candies.balance);
    }
  }

  // ------------------------------------------------------------ your profile
  async loadMe() {
    this.pageError("profile", null);
    $("#profile-body").hidden = true;
    $("#transfer-code").hidden = true;
    $("#transfer-expiry").textContent = "";
    this.askDelete(false);
    const res = await this.refresh();
    if (!res || !res.ok) {
      this.pageError("profile", !res || res.status === 404 || res.status === 401 ? t("profile.noProfile") : errorText(res));
      return;
    }
    this.renderMe();
  }

  renderMe() {
    const me = this.me;
    $("#profile-body").hidden = false;
    $("#profile-avatar").src = avatarSrc(me.avatar);
    $("#profile-name").textContent = me.name;
    $("#profile-since").textContent = me.joined ? t("profile.since", { date: dateText(me.joined) }) : "";
    if (document.activeElement !== $("#profile-name-input")) $("#profile-name-input").value = me.name;
    const c = me.candies || { balance: 0, today: 0, daily_cap: 0 };
    const candies = c.daily_cap ? t("profile.candiesToday", { n: c.today, cap: c.daily_cap }) : t("profile.candiesOff");
    fill(
      $("#profile-facts"),
      h("div", {}, h("dt", {}, t("profile.candies")), h("dd", { id: "profile-candies" }, h("b", {}, String(c.balance)), " ", h("span", { class: "hint" }, `(${candies})`))),
      me.games !== undefined ? h("div", {}, h("dt", {}, t("profile.gamesPlayed")), h("dd", {}, String(me.games))) : null,
    );
    fill($("#profile-ratings"), ratingsBlock(me.ratings, null));
    $("#profile-public").href = pagePath("player", me.public_id);
    fill(
      $("#avatar-grid"),
      AVATARS.map((id) =>
        h(
          "button",
          {
            type: "button",
            class: "avatar-option",
            "aria-pressed": String(id === me.avatar),
            "aria-label": t(`profile.avatars.${id}`),
            title: t(`profile.avatars.${id}`),
            dataset: { avatar: id },
            onclick: () => this.save({ avatar: id }),
          },
          h("img", { src: avatarSrc(id), alt: "", width: 44, height: 44 }),
        ),
      ),
    );
  }

  async save(change) {
    const res = await api("me", { method: "PATCH", body: change });
    if (!res.ok) {
      this.toast(errorText(res));
      return;
    }
    this.setMe(res.body);
    if (change.name) this.renamed(res.body.name);
    this.renderMe();
    this.toast(t("profile.saved"));
  }

  async transfer() {
    const res = await api("me/transfer", { method: "POST" });
    if (!res.ok) {
      this.toast(errorText(res));
      return;
    }
    const code = $("#transfer-code");
    code.hidden = false;
    code.textContent = res.body.code;
    const until = new Date(Date.now() + 1000 * (res.body.expires_in || 600));
    $("#transfer-expiry").textContent = t("profile.transferExpires", {
      time: until.toLocaleTimeString(currentLanguage(), { hour: "2-digit", minute: "2-digit" }),
    });
  }

  askDelete(on) {
    $("#delete-ask").hidden = on;
    $("#delete-yes").hidden = !on;
    $("#delete-no").hidden = !on;
    if (on) $("#delete-no").focus();
  }

  async remove() {
    const res = await api("me", { method: "DELETE" });
    if (!res.ok) {
      this.toast(errorText(res));
      this.askDelete(false);
      return;
    }
    store.set("token", null);
    this.setMe(null);
    this.toast(t("profile.deleted"));
    this.relogin();
    go(pagePath("home"), true);
  }

  async claim(raw) {
    const status = $("#claim-status");
    const res = await api("claim", { method: "POST", body: { code: raw.trim() }, auth: false });
    if (!res.ok) {
      status.textContent = errorText(res);
      return;
    }
    status.textContent = t("profile.claimed", { name: res.body.name });
    store.set("token", res.body.token);
    store.set("name", res.body.name);
    store.set("nameAuto", false);
    $("#claim-code").value = "";
    this.relogin();
    this.current = null;
    this.open({ kind: "me" });
  }

  // ------------------------------------------------------------ your games
  async loadGames(more) {
    this.pageError("games", null);
    if (!more) {
      this.cursor = null;
      fill($("#games-list"));
      $("#games-more").hidden = true;
      $("#games-empty").hidden = true;
    }
    if (!store.get("token")) {
      this.pageError("games", t("profile.noProfile"));
      return;
    }
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (more && this.cursor) query.set("before", this.cursor);
    const res = await api(`me/games?${query}`);
    if (!res.ok) {
      this.pageError("games", res.status === 404 ? t("profile.noProfile") : errorText(res));
      return;
    }
    $("#games-list").append(...res.body.games.map(gameItem));
    this.cursor = res.body.next;
    $("#games-more").hidden = !this.cursor;
    $("#games-empty").hidden = $("#games-list").childElementCount > 0;
  }

  // ------------------------------------------------------------ a player's page
  async loadPlayer(id) {
    this.pageError("player", null);
    $("#player-body").hidden = true;
    fill($("#public-name"));
    const res = await api(`players/${encodeURIComponent(id)}`, { auth: false });
    if (this.current.id !== id) return;
    if (!res.ok) {
      this.pageError("player", errorText(res));
      return;
    }
    const p = res.body;
    $("#player-body").hidden = false;
    $("#public-name").textContent = p.name;
    $("#player-avatar").src = avatarSrc(p.avatar);
    const since = p.joined ? t("profile.since", { date: dateText(p.joined) }) : "";
    $("#player-since").textContent = [since, p.games !== undefined ? `${t("profile.gamesPlayed")}: ${p.games}` : ""].filter(Boolean).join(" · ");
    fill($("#player-ratings"), ratingsBlock(p.ratings, p.graph || {}));
    const recent = p.recent || [];
    fill($("#player-games"), recent.map(gameItem));
    $("#player-empty").hidden = recent.length > 0;
  }

  // ------------------------------------------------------------ the leaderboard
  async loadBoard() {
    this.pageError("leaderboard", null);
    const variant = $("#board-variant").value;
    const res = await api(`leaderboard?variant=${encodeURIComponent(variant)}&limit=50`, { auth: false });
    if ($("#board-variant").value !== variant) return;
    if (!res.ok) {
      fill($("#board-list"));
      this.pageError("leaderboard", errorText(res));
      return;
    }
    const rows = res.body.players || [];
    const mine = this.me ? this.me.public_id : null;
    fill(
      $("#board-list"),
      rows.map((r) => {
        const href = pagePath("player", r.public_id);
        return h(
          "li",
          { class: `board-row${r.public_id === mine ? " mine" : ""}`, dataset: { player: r.public_id } },
          h(
            "a",
            { href, onclick: (ev) => follow(ev, href) },
            h("span", { class: "board-rank" }, String(r.rank)),
            h("img", { class: "avatar", src: avatarSrc(r.avatar), alt: "", width: 32, height: 32 }),
            h(
              "span",
              { class: "board-main" },
              h("span", { class: "board-name" }, r.name),
              h("span", { class: "board-games hint" }, t("profile.ratingGames", { n: r.games })),
            ),
            h("b", { class: "board-rating" }, String(r.rating)),
          ),
        );
      }),
    );
    $("#board-empty").hidden = rows.length > 0;
  }

  /** Redraw in a new language. */
  relabel() {
    if (this.me) this.setMe(this.me);
    if (!this.current) return;
    const page = this.current;
    this.current = null;
    if (document.body.dataset.screen && ["profile", "games", "player", "leaderboard"].includes(document.body.dataset.screen)) this.open(page);
  }
}

/** The result screen's line about candies ("+15 candies for a win with friends",
 * or why nothing was paid), from game_over's ``candies``; null without one. */
export function candyLine(grant) {
  if (!grant || typeof grant.reason !== "string") return null;
  const key = `profile.candy.${grant.reason}`;
  let text = t(key) === key ? (grant.amount ? t("profile.candy.other", { n: grant.amount }) : null) : t(key, { n: grant.amount });
  if (text && grant.capped && grant.amount) text += ` ${t("profile.candy.capped")}`;
  return text;
}
