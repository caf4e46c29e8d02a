// Quick phrases and reactions at the table (docs/protocol.md, `say`, `react`).
//
// A fixed set, no free text: each phrase is shown in the reader's own language
// (i18n "phrase.*"), each reaction as an emoji. A bubble appears by the
// sender's seat for a few seconds. Seated players say phrases; spectators only
// react. Anyone may be muted: that person's bubbles stop showing here (kept in
// this browser, per room). Pass and play has none of it.

import { $, $$, fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { store } from "./store.js";
import { botTag } from "./table.js";

export const PHRASES = ["hello", "good_game", "well_played", "take_it", "hurry_up", "oops", "thanks", "good_luck", "nice_move", "sorry"];
export const REACTIONS = { laugh: "😂", wow: "😮", cry: "😢", angry: "😠", clap: "👏", think: "🤔", fire: "🔥", heart: "❤️" };
const BUBBLE_MS = 3500;

export class Social {
  /** @param {{send: (msg: object) => void}} hooks */
  constructor(hooks) {
    this.hooks = hooks;
    this.room = null;
    this.you = null;
    this.on = false;
    $("#chat-open").addEventListener("click", () => this.toggle());
    document.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape" && !$("#chat-panel").hidden) this.close();
    });
  }

  mutedKey() {
    return this.room ? `muted:${this.room.code}` : "muted:";
  }

  muted() {
    return new Set(store.get(this.mutedKey(), []));
  }

  /** The room as it is now; ``on`` false in pass and play. */
  setRoom(room, you, on) {
    this.room = room;
    this.you = you;
    this.on = Boolean(on && room);
    $("#chat-open").hidden = !this.on;
    if (!this.on) this.close();
    else if (!$("#chat-panel").hidden) this.build();
  }

  toggle() {
    if ($("#chat-panel").hidden) this.open();
    else this.close();
  }

  open() {
    this.build();
    // Just below the bar's button, wherever the layout put the bar: the
    // panel never covers Help, Phrases or Leave.
    const screen = $("#screen-table").getBoundingClientRect();
    const button = $("#chat-open").getBoundingClientRect();
    $("#chat-panel").style.top = `${Math.round(button.bottom - screen.top + 6)}px`;
    $("#chat-panel").hidden = false;
    $("#chat-open").setAttribute("aria-expanded", "true");
    const first = $("#chat-panel button");
    if (first) first.focus();
  }

  close() {
    const panel = $("#chat-panel");
    if (!panel || panel.hidden) return;
    panel.hidden = true;
    $("#chat-open").setAttribute("aria-expanded", "false");
  }

  build() {
    const seated = this.you && !this.you.spectator;
    const phrases = seated
      ? h(
          "div",
          { class: "chat-phrases", role: "group", "aria-label": t("chat.phrases") },
          PHRASES.map((id) =>
            h("button", { type: "button", class: "small chat-phrase", dataset: { phrase: id }, onclick: () => this.say(id) }, t(`phrase.${id}`)),
          ),
        )
      : h("p", { class: "hint" }, t("chat.spectatorsReact"));
    const reactions = h(
      "div",
      { class: "chat-reactions", role: "group", "aria-label": t("chat.reactions") },
      Object.entries(REACTIONS).map(([id, emoji]) =>
        h("button", { type: "button", class: "chat-reaction", dataset: { reaction: id }, "aria-label": t(`reaction.${id}`), onclick: () => this.react(id) }, emoji),
      ),
    );
    const muted = this.muted();
    const others = this.people().filter((p) => !p.self);
    const mutes = others.length
      ? h(
          "div",
          { class: "chat-mutes" },
          h("h3", {}, t("chat.mute")),
          others.map((p) =>
            h(
              "label",
              { class: "inline chat-mute" },
              h("input", { type: "checkbox", dataset: { who: p.key }, checked: muted.has(p.key), onchange: (ev) => this.mute(p.key, ev.target.checked) }),
              " ",
              p.name,
            ),
          ),
        )
      : null;
    fill($("#chat-panel"), phrases, reactions, mutes);
  }

  /** Everyone at the table, with the key a mute is kept under. */
  people() {
    const room = this.room;
    if (!room) return [];
    const you = this.you || {};
    const seats = room.seats.filter((s) => s.human).map((s) => ({ key: `seat:${s.seat}:${s.name}`, name: s.name, self: you.seat === s.seat }));
    const watchers = room.spectators.map((name) => ({ key: `watch:${name}`, name, self: false }));
    return [...seats, ...watchers];
  }

  mute(key, on) {
    const muted = this.muted();
    if (on) muted.add(key);
    else muted.delete(key);
    store.set(this.mutedKey(), [...muted]);
  }

  say(phrase) {
    this.hooks.send({ type: "say", phrase });
    this.close();
  }

  react(reaction) {
    this.hooks.send({ type: "react", reaction });
    this.close();
  }

  /** A `said` or `reacted` message: a bubble by the sender, unless muted. */
  show(msg) {
    if (!this.on) return;
    const key = msg.seat === null || msg.seat === undefined ? `watch:${msg.name}` : `seat:${msg.seat}:${msg.name}`;
    if (this.muted().has(key)) return;
    const text = msg.type === "said" ? t(`phrase.${msg.phrase}`) : REACTIONS[msg.reaction] || "";
    const you = this.you || {};
    let anchor = null;
    if (msg.seat !== null && msg.seat !== undefined) {
      anchor = msg.seat === you.seat ? $("#me-info") : $(`#opponents .opp[data-seat="${msg.seat}"]`);
    }
    const layer = $("#bubbles");
    // Each sender keeps one bubble at a time.
    for (const old of $$(".bubble", layer)) if (old.dataset.from === msg.name) old.remove();
    const bubble = h(
      "div",
      { class: `bubble${msg.type === "reacted" ? " bubble-reaction" : ""}${anchor ? "" : " bubble-free"}`, role: "status" },
      anchor ? null : [h("b", {}, msg.name), msg.bot ? [" ", botTag()] : null, ": "],
      text,
    );
    bubble.dataset.from = msg.name;
    if (anchor) {
      // By the seat (the seats are redrawn often: the bubble lives in a layer
      // of its own, placed where the seat is now).
      const r = anchor.getBoundingClientRect();
      const below = r.top < window.innerHeight / 2;
      bubble.style.left = `${Math.round(r.left + r.width / 2)}px`;
      bubble.style.top = `${Math.round(below ? r.bottom + 4 : r.top - 4)}px`;
      bubble.classList.add(below ? "bubble-below" : "bubble-above");
    }
    layer.append(bubble);
    setTimeout(() => bubble.remove(), BUBBLE_MS);
  }
}
