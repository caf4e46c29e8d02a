// Kozyr's browser client: screens, connections and the flow between them.
//
// Screens: start -> room (lobby) -> table (with the result on top) -> room.
// Online play uses one WebSocket connection (net.js). Pass-and-play opens one
// connection per person on this device, all seated in one private room on the
// server, and shows one seat at a time behind a privacy screen (see README.md).

import { $, $$, fill, fillKeeping, h, openDialog, prefersReducedMotion } from "./dom.js";
import { LANGUAGES, applyI18n, currentLanguage, pickLanguage, setLanguage, t } from "./i18n.js";
import { applyLook, candyTable, chooseLook, lookFor } from "./look.js";
import { Conn } from "./net.js";
import { registerWorker } from "./pwa.js";
import { rulesForm, summary } from "./rules.js";
import { frameSounds, setupSoundToggle, sound } from "./sound.js";
import { autoLevel, recordAuto, store } from "./store.js";
import { cardSVG } from "./cards.js";
import { MOCHA_ART, TableView, botTag, cardShort, isComputerSeat, seatName } from "./table.js";
import { backButton, matchTelegramColours, saveAuto, startTelegram } from "./telegram.js";
import { notify, roomNotices } from "./notices.js";
import { Social } from "./social.js";
import { GUIDED_ROOM, Guide } from "./guide.js";
import { Help } from "./help.js";
import { Hints } from "./hint.js";
import { Pages } from "./pages.js";
import { candyLine } from "./profile.js";
import { currentPage, go, onPageChange, pagePath } from "./routes.js";

const S = {
  mode: "online", // "online" | "pnp"
  conn: null, // the player's connection (online)
  pnp: null, // {conns: [Conn], names: [string]}
  room: null,
  you: null,
  frames: new Map(), // seat -> {frame, receivedAt}
  events: new Map(), // version -> event message
  over: null,
  shownSeat: null, // pass-and-play: whose cards are shown
  revealed: true,
  switchTimer: null,
  pendingJoin: null, // invite code from the URL
  resultShownFor: null,
  resultDueAt: 0, // when the result may show (after the last card's flight)
  autoCounted: new Set(),
  passing: new Set(), // pass and play: seats whose last-call "Continue" is still to be sent
  passSentAt: null, // the version the last of those passes answered
  afterLastCall: false, // pass and play: a last call just ended (the device was shared)
  // Pass and play, hand-offs (README "Pass and play: hand-offs"):
  handoffs: 0, // privacy screens shown this game (the tests count them)
  log: [], // this game's events in order: the privacy screen's "what happened"
  viewAt: new Map(), // version -> {phase, defender} of that frame (to word the events)
  seenUpTo: new Map(), // seat -> the last version its player saw with their cards up
  thenPass: new Set(), // seats that chose "Then pass": passed for until the round ends
  autoSentAt: null, // the version the device last answered by itself
  watchRoom: false, // a spectator went "back to room" after a game: show the room, not the table
  inTelegram: false,
  tgDark: false, // a dark Telegram chat: the classic table is drawn at midnight
};

const table = new TableView({
  // Pass and play: the move goes out on the connection of the seat it names
  // (an accusation may come from any player of this device).
  move: (action, version) => connFor(action.seat).send({ type: "move", action, version }),
  lastCall: (seats) => {
    for (const seat of seats) S.passing.add(seat);
    pnpUpdate();
  },
  leave: () => leaveRoom(),
  announce: (text, urgent) => announce(text, urgent),
  extraActions: () => [...thenPassToggle(), ...hints.items()],
  rendered: () => {
    guide.update();
    help.update();
    hints.light(document);
  },
});
const forms = {};
// Hints at tables against the computer (js/hint.js, issue 27).
const hints = new Hints({
  send: (msg) => S.conn && S.conn.send(msg),
  frame: () => (S.mode === "online" ? currentFrame()?.frame || null : null),
  room: () => S.room,
  you: () => S.you,
  online: () => S.mode === "online",
  redraw: () => renderTable(),
});
// The client's own pages (js/routes.js, js/pages.js): the game viewer, profiles, ...
const pages = new Pages({ show: (screen) => show(screen, true), toast: (text) => toast(text), relogin: () => relogin(), renamed: (name) => profileRenamed(name) });

/** A name saved on the profile page: the connection's hello says it from now
 * on (a reconnect with the old one would rename the player back). */
function profileRenamed(name) {
  store.set("name", name);
  store.set("nameAuto", false);
  if (S.conn) S.conn.name = name;
  $("#player-name").value = name;
}
const social = new Social({ send: (msg) => S.conn && S.conn.send(msg) });
// Learning the game (js/guide.js, js/help.js): the guided game's tips and the help dialog.
const guide = new Guide({ table, start: () => playGuided(), announce: (text) => announce(text) });
const help = new Help({ table, replay: () => guide.replay(), shared: () => S.mode === "pnp" });

// ============================================================ helpers
function announce(text, urgent = false) {
  const el = urgent ? $("#announcer-urgent") : $("#announcer");
  el.textContent = "";
  setTimeout(() => (el.textContent = text), 30);
}

// Errors belong to the screen they came from: a toast goes when its screen
// changes (or, on the start screen, when any field is edited); an error about
// one field is shown under that field (fieldError) and goes once it is corrected.
let toastTimer = null;
function toast(text) {
  const el = $("#toast");
  el.textContent = text;
  el.hidden = false;
  el.dataset.screen = document.body.dataset.screen || "";
  clearTimeout(toastTimer);
  toastTimer = setTimeout(hideToast, 4500);
}

function hideToast() {
  clearTimeout(toastTimer);
  $("#toast").hidden = true;
}

/** Every field error of the start screen goes (the screen was left). */
function clearFieldErrors() {
  for (const el of $$(".field-error")) {
    const input = el.previousElementSibling;
    if (input && input.id) fieldError(input, null);
    else el.remove();
  }
}

function errorText(msg) {
  const key = `errors.${msg.code}`;
  const text = t(key);
  return text === key ? msg.message : text;
}

function banner(text, button) {
  const el = $("#conn-banner");
  if (!text) {
    el.hidden = true;
    return;
  }
  fill(el, h("span", {}, text), button || null);
  el.hidden = false;
}

// A padlock drawn inline: an emoji would show as a box without an emoji font.
const LOCK_SVG =
  '<svg class="lock-icon" viewBox="0 0 16 16" aria-hidden="true" focusable="false">' +
  '<path d="M5 7V5a3 3 0 0 1 6 0v2" fill="none" stroke="currentColor" stroke-width="1.8"/>' +
  '<rect x="3" y="7" width="10" height="8" rx="1.5" fill="currentColor"/></svg>';

/** The name the client makes up ("Guest1234", "Гость1234"): its number is kept,
 * its word follows the language until the user types a name (store "nameAuto"). */
function guestName() {
  let n = store.get("guestNo");
  if (!Number.isInteger(n)) {
    n = Math.floor(1000 + Math.random() * 9000);
    store.set("guestNo", n);
  }
  store.set("nameAuto", true);
  return `${t("start.guest")}${n}`.slice(0, 12);
}

/** The start screen's name: the one the user typed, else a made-up one. */
function startName() {
  const typed = validName(store.get("name"));
  return typed && !store.get("nameAuto") ? typed : guestName();
}

// Names (docs/protocol.md, "Names"): cleaned like the server cleans them, then
// 1-12 user-perceived characters (小明 is two), something visible, no control or
// invisible format characters (the joiners of emoji sequences are fine).
const GRAPHEMES = typeof Intl.Segmenter === "function" ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;
const NAME_REFUSED = /[\p{Cc}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|(?![\u200c\u200d\u{e0020}-\u{e007f}])\p{Cf}/u;
const NAME_VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;
const NAME_MAX = 12;

/** {name, error}: the cleaned name, or null and the i18n key that says why not. */
function checkName(raw) {
  const name = String(raw || "").normalize("NFC").split(/\s+/u).filter(Boolean).join(" ");
  let error = null;
  if (!name) error = "errors.nameEmpty";
  else if (NAME_REFUSED.test(name)) error = "errors.nameControl";
  else if (!NAME_VISIBLE.test(name)) error = "errors.nameEmpty";
  else if ((GRAPHEMES ? Array.from(GRAPHEMES.segment(name)).length : Array.from(name).length) > NAME_MAX) error = "errors.nameLong";
  return error ? { name: null, error } : { name, error: null };
}

function validName(name) {
  return checkName(name).name;
}

/** Show ``key``'s message under ``input`` (its own error, read out and tied to
 * the field by aria-describedby); ``null`` clears it. */
function fieldError(input, key) {
  const id = `${input.id}-error`;
  let el = document.getElementById(id);
  if (!key) {
    if (el) el.remove();
    input.removeAttribute("aria-invalid");
    const rest = (input.getAttribute("aria-describedby") || "").split(" ").filter((x) => x && x !== id);
    if (rest.length) input.setAttribute("aria-describedby", rest.join(" "));
    else input.removeAttribute("aria-describedby");
    return;
  }
  if (!el) {
    el = h("small", { id, class: "field-error", role: "alert" });
    input.insertAdjacentElement("afterend", el);
  }
  el.dataset.key = key;
  el.textContent = t(key);
  input.setAttribute("aria-invalid", "true");
  const ids = (input.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
  if (!ids.includes(id)) input.setAttribute("aria-describedby", [...ids, id].join(" "));
}

/** A name field checks itself as it is typed: a name too long or with a control
 * character is said at once, a corrected one clears the message (an empty field
 * is only refused when the form is sent). */
function watchName(input) {
  input.addEventListener("input", () => {
    input.dataset.typed = "true";
    const { error } = checkName(input.value);
    fieldError(input, error && error !== "errors.nameEmpty" ? error : null);
  });
}

function setUrlRoom(code) {
  if (currentPage()) return; // a page of its own (the viewer ...): its URL stays
  const url = new URL(location.href);
  if (code) url.searchParams.set("room", code);
  else url.searchParams.delete("room");
  if (url.href !== location.href) history.replaceState(null, "", url.href);
}

function currentFrame() {
  if (S.mode === "pnp") return S.shownSeat === null ? null : S.frames.get(S.shownSeat) || null;
  return S.frames.get("me") || null;
}

function moveConn() {
  if (S.mode === "pnp") return S.pnp.conns[S.shownSeat] || S.pnp.conns[0];
  return S.conn;
}

function connFor(seat) {
  if (S.mode === "pnp") return S.pnp.conns[seat] || moveConn();
  return S.conn;
}

/** Rule 13's last call: the round is over, the seats in view.pending answer. */
function inLastCall(frame) {
  return Boolean(frame && frame.view.phase === "last_call");
}

/** Pass and play: every seat of this device with its latest legal actions. */
function localSeats() {
  return Array.from(S.frames.entries(), ([seat, e]) => ({
    seat,
    version: e.frame.version,
    legal: S.passing.has(seat) ? [] : e.frame.legal || [],
  }));
}

function hostConn() {
  return S.mode === "pnp" ? S.pnp.conns[0] : S.conn;
}

// ============================================================ screens
function show(screen, page = false) {
  // While a page is open (the viewer, a profile ...) the game's frames do not
  // take the screen away: its Back button returns to them (route()).
  if (!page && currentPage()) return;
  const before = document.body.dataset.screen;
  if (before !== screen) {
    if ($("#toast").dataset.screen !== screen) hideToast();
    if (before === "start") clearFieldErrors();
  }
  for (const el of $$(".screen")) el.hidden = el.id !== `screen-${screen}`;
  document.body.dataset.screen = screen;
  telegramBack(screen);
}

/** Telegram Mini App (js/telegram.js): its Back button leaves the room in the
 * lobby and after a game; during a game and on the start screen it is hidden. */
function telegramBack(screen) {
  if (currentPage()) {
    backButton(() => pages.back());
    return;
  }
  const leave = S.mode === "online" && (screen === "room" || (screen === "table" && S.room?.state === "over"));
  backButton(leave ? () => leaveRoom() : null);
}

function route() {
  const page = currentPage();
  if (page) {
    pages.open(page);
    return;
  }
  const room = S.room;
  if (!room) {
    show("start");
    return;
  }
  if (room.state === "lobby" || (S.watchRoom && room.state === "over")) {
    if (room.state === "lobby") S.watchRoom = false;
    S.over = null;
    S.frames.clear();
    S.events.clear();
    renderRoom();
    show("room");
    $("#result").hidden = true;
    return;
  }
  if (currentFrame() || (S.mode === "pnp" && S.frames.size)) {
    renderTable();
    show("table");
  } else {
    show("loading");
  }
}

// ============================================================ start screen
function setupStart() {
  const tabs = $$('[role="tab"]');
  const select = (tab) => {
    for (const other of tabs) {
      const on = other === tab;
      other.setAttribute("aria-selected", String(on));
      other.tabIndex = on ? 0 : -1;
      $(`#${other.getAttribute("aria-controls")}`).hidden = !on;
    }
    if (tab.id === "tab-join") loadPublicRooms();
    hideToast();
  };
  for (const tab of tabs) {
    tab.addEventListener("click", () => select(tab));
    tab.addEventListener("keydown", (ev) => {
      const i = tabs.indexOf(tab);
      let j = null;
      if (ev.key === "ArrowRight") j = (i + 1) % tabs.length;
      if (ev.key === "ArrowLeft") j = (i - 1 + tabs.length) % tabs.length;
      if (j !== null) {
        select(tabs[j]);
        tabs[j].focus();
        ev.preventDefault();
      }
    });
  }
  S.selectTab = (id) => select($(`#${id}`));

  for (const slot of $$(".rules-slot")) forms[slot.dataset.prefix] = rulesForm(slot, slot.dataset.prefix);
  const cpuBots = $("#cpu-bots");
  const onSeats = $("#on-seats");
  const pnpCount = $("#pnp-count");
  cpuBots.addEventListener("change", () => forms.cpu.setPlayers(Number(cpuBots.value) + 1));
  onSeats.addEventListener("change", () => forms.on.setPlayers(Number(onSeats.value)));
  pnpCount.addEventListener("change", () => {
    forms.pnp.setPlayers(Number(pnpCount.value));
    renderPnpNames();
  });
  forms.cpu.setPlayers(Number(cpuBots.value) + 1);
  forms.on.setPlayers(Number(onSeats.value));
  forms.pnp.setPlayers(Number(pnpCount.value));

  for (const radio of $$('#panel-online input[name="visibility"]')) {
    radio.addEventListener("change", () => {
      const priv = $('#panel-online input[name="visibility"]:checked').value === "private";
      $("#on-pass-field").hidden = !priv;
      const noClock = $('#on-time option[value=""]');
      noClock.disabled = !priv;
      if (!priv && $("#on-time").value === "") $("#on-time").value = "30";
    });
  }
  $('#on-time option[value=""]').disabled = true;

  $("#panel-computer").addEventListener("submit", (ev) => {
    ev.preventDefault();
    playComputer();
  });
  $("#panel-online").addEventListener("submit", (ev) => {
    ev.preventDefault();
    createOnline();
  });
  $("#join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const code = parseCode($("#join-code").value);
    if (!code) {
      fieldError($("#join-code"), "errors.no_such_room");
      $("#join-code").focus();
      return;
    }
    joinRoom(code, $("#join-pass").value || null);
  });
  $("#panel-pnp").addEventListener("submit", (ev) => {
    ev.preventDefault();
    startPnp();
  });
  $("#refresh-rooms").addEventListener("click", loadPublicRooms);
  $("#quick-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    quickMatch();
  });
  const quick = store.get("quick");
  if (quick) {
    $("#quick-variant").value = quick.variant;
    $("#quick-seats").value = String(quick.seats);
  }
  watchName($("#player-name"));
  $("#screen-start").addEventListener("input", (ev) => {
    if ($("#toast").dataset.screen === "start") hideToast();
    // A join error (wrong passphrase, no such room) is about the field edited.
    if (ev.target.id === "join-pass" || ev.target.id === "join-code") {
      fieldError($("#join-pass"), null);
      fieldError($("#join-code"), null);
    }
  });
  $("#player-name").addEventListener("input", () => store.set("nameAuto", false));
  $("#player-name").addEventListener("change", () => {
    const name = validName($("#player-name").value);
    if (name) store.set("name", name);
  });
  renderPnpNames();
  renderLevelOptions();
}

function renderLevelOptions() {
  const cpu = $("#cpu-level");
  const keep = cpu.value || store.get("cpuLevel", "auto");
  fill(
    cpu,
    h("option", { value: "auto" }, t("start.levelAuto", { n: autoLevel() })),
    Array.from({ length: 10 }, (_, i) => h("option", { value: String(i + 1) }, t(`levels.${i + 1}`))),
  );
  cpu.value = keep;
  const on = $("#on-level");
  const keepOn = on.value || "3";
  fill(on, Array.from({ length: 10 }, (_, i) => h("option", { value: String(i + 1) }, t(`levels.${i + 1}`))));
  on.value = keepOn;
  $("#cpu-auto-note").textContent = t("start.autoNote", { n: autoLevel() });
}

function renderPnpNames() {
  const n = Number($("#pnp-count").value);
  const box = $("#pnp-names");
  // Names the user typed are kept; the made-up "Player 2" follows the language.
  const old = $$("input", box).map((i) => (i.dataset.auto ? "" : i.value));
  const saved = store.get("pnpNames", []);
  fill(
    box,
    Array.from({ length: n }, (_, i) => {
      const id = `pnp-name-${i}`;
      const input = h("input", { id, maxlength: 64, required: true, autocomplete: "off" });
      input.value = old[i] || saved[i] || t("pnp.defaultName", { n: i + 1 });
      if (!old[i] && !saved[i]) input.dataset.auto = "1";
      input.addEventListener("input", () => delete input.dataset.auto);
      watchName(input);
      return h("div", { class: "field" }, h("label", { for: id }, t("pnp.playerN", { n: i + 1 })), input);
    }),
  );
}

function parseCode(text) {
  const raw = String(text || "").trim();
  if (!raw) return null;
  try {
    const url = new URL(raw);
    const code = url.searchParams.get("room");
    if (code) return code;
  } catch {
    /* not a link: a bare code */
  }
  return /^[A-Za-z0-9_-]{8,32}$/.test(raw) ? raw : null;
}

async function loadPublicRooms() {
  const list = $("#public-rooms");
  try {
    const res = await fetch("api/rooms");
    const data = await res.json();
    const rooms = data.rooms || [];
    if (!rooms.length) {
      fill(list, h("li", { class: "hint" }, t("start.noRooms")));
      return;
    }
    fill(
      list,
      rooms.map((r) => {
        const taken = r.seats.filter((s) => s.human || s.bot !== null).length;
        return h(
          "li",
          {},
          h(
            "span",
            {},
            h("b", {}, r.host_name || "—"),
            r.host_bot ? [" ", botTag()] : null,
            ` · ${t("start.seatsTaken", { n: taken, total: r.seats.length })} · ${t("start.here", { n: r.connected ?? 0 })} · ${summary(r.rules)} · ${t("start.perMove", { n: r.move_time })}`,
          ),
          h("button", { type: "button", class: "small", onclick: () => joinRoom(r.code, null) }, t("start.join")),
        );
      }),
    );
  } catch {
    fill(list, h("li", { class: "hint" }, t("errors.network")));
  }
}

/** Make sure the connection uses the name typed on the start screen. */
async function ensureName() {
  const input = $("#player-name");
  const { name, error } = checkName(input.value);
  fieldError(input, error);
  if (!name) {
    input.focus();
    return false;
  }
  store.set("name", name);
  if (!S.conn) openMain(name);
  if (S.conn.name !== name) await S.conn.rename(name);
  return true;
}

async function playComputer() {
  if (!(await ensureName())) return;
  const bots = Number($("#cpu-bots").value);
  const levelChoice = $("#cpu-level").value;
  store.set("cpuLevel", levelChoice);
  const level = levelChoice === "auto" ? autoLevel() : Number(levelChoice);
  const time = $("#cpu-time").value;
  const rules = forms.cpu.read();
  S.pendingAuto = levelChoice === "auto";
  S.conn.send({
    type: "create_room",
    seats: bots + 1,
    rules,
    move_time: time ? Number(time) : null,
    visibility: "private",
    bot_level: level,
    start: true,
  });
}

/** The guided game (js/guide.js): you and one level-1 computer; a game in progress is left. */
async function playGuided() {
  if (S.mode === "pnp") exitPnp();
  if (!(await ensureName())) return;
  if (S.room) S.conn.send({ type: "leave" });
  S.pendingAuto = false;
  S.conn.send({ ...GUIDED_ROOM, rules: { ...GUIDED_ROOM.rules } });
}

async function createOnline() {
  if (!(await ensureName())) return;
  const visibility = $('#panel-online input[name="visibility"]:checked').value;
  const time = $("#on-time").value;
  const msg = {
    type: "create_room",
    seats: Number($("#on-seats").value),
    rules: forms.on.read(),
    move_time: time ? Number(time) : null,
    visibility,
    bot_level: Number($("#on-level").value),
  };
  const pass = $("#on-pass").value;
  if (visibility === "private" && pass) msg.passphrase = pass;
  S.pendingAuto = false;
  S.conn.send(msg);
}

async function joinRoom(code, passphrase) {
  if (!(await ensureName())) return;
  const msg = { type: "join", room: code };
  if (passphrase) msg.passphrase = passphrase;
  if (S.room && S.room.code !== code) S.conn.send({ type: "leave" });
  S.conn.send(msg);
}

// ============================================================ room screen
/** A free seat a spectator may sit in (a bot that only filled it for the last game may be there). */
function sittable(s) {
  return !s.human && !s.reserved_for && (s.bot === null || S.room.state === "over");
}

function renderRoom() {
  const room = S.room;
  const you = S.you || {};
  const online = S.mode === "online";
  const betweenGames = room.state !== "playing";
  const rulesText = summary(room.rules);
  const clock = room.move_time ? t("start.perMove", { n: room.move_time }) : t("start.noClock");
  const vis = room.visibility === "public" ? t("room.public") : t("room.private");
  const sub = [rulesText, clock, vis].filter(Boolean).join(" · ");
  const lock = room.has_passphrase ? [" · ", h("span", { class: "lock", html: LOCK_SVG }), t("room.hasPassphrase")] : [];
  fill($("#room-sub"), sub, ...lock);
  $("#invite-link").value = room.invite;
  $("#invite-code").textContent = room.code;
  renderQr(room);
  const isHost = Boolean(you.host);
  const send = (msg) => hostConn().send(msg);
  const items = room.seats.map((s) => {
    const isYou = online ? you.seat === s.seat : Boolean(s.human);
    let who;
    if (s.human) who = s.name;
    else if (s.challenged) who = t("room.challenged", { name: s.challenged });
    else if (s.reserved_for) who = t("room.keptFor", { name: s.reserved_for });
    else if (s.bot !== null) who = `${seatName(room, s.seat)} · ${t("table.level", { n: s.bot })}`;
    else who = t("room.empty");
    const tags = [];
    if (s.bot_account || s.challenged) tags.push(botTag());
    if (s.host) tags.push(h("span", { class: "tag tag-host" }, t("room.host")));
    if (isYou && online) tags.push(h("span", { class: "tag tag-you" }, t("room.you")));
    if (s.human && !s.connected) tags.push(h("span", { class: "tag" }, t("table.offline")));
    if (s.ready) tags.push(h("span", { class: "tag tag-ready" }, t("room.ready")));
    if (!s.human && s.bot !== null) tags.push(h("span", { class: "tag tag-bot" }, t("room.bot")));
    const controls = [];
    if (isHost && room.state === "lobby" && s.challenged) {
      controls.push(h("button", { type: "button", class: "small", onclick: () => send({ type: "free_seat", seat: s.seat }) }, t("room.withdraw")));
    } else if (isHost && room.state === "lobby" && !s.human && !s.reserved_for) {
      if (s.bot === null) {
        controls.push(h("button", { type: "button", class: "small", onclick: () => send({ type: "seat_bot", seat: s.seat }) }, t("room.addBot")));
      } else {
        controls.push(h("button", { type: "button", class: "small", onclick: () => send({ type: "free_seat", seat: s.seat }) }, t("room.removeBot")));
      }
    }
    if (online && you.spectator && betweenGames && sittable(s)) {
      controls.push(h("button", { type: "button", class: "small", dataset: { action: "sit" }, onclick: () => S.conn.send({ type: "sit", seat: s.seat }) }, t("room.sitHere")));
    }
    if (online && isHost && betweenGames && s.human && !isYou) {
      controls.push(kickButton({ seat: s.seat }, s.name));
    }
    return h(
      "li",
      { class: `seat${s.human ? " human" : ""}${s.bot !== null && !s.human ? " bot" : ""}${s.human || s.bot !== null ? "" : " empty"}`, dataset: { seat: String(s.seat) } },
      h("span", { class: "seat-no" }, t("room.seatN", { n: s.seat + 1 })),
      h("span", { class: "seat-who" }, candyTable() && isComputerSeat(s) ? h("img", { class: "room-mocha", src: MOCHA_ART, alt: "" }) : null, who),
      tags,
      h("span", { class: "seat-controls" }, controls),
    );
  });
  fillKeeping($("#seat-list"), items);
  $("#spectator-box").hidden = !room.spectators.length;
  fillKeeping(
    $("#spectator-list"),
    room.spectators.map((n, i) => h("li", {}, n, botTag((room.bot_spectators || []).includes(i)), online && isHost && betweenGames && n !== S.conn.name ? [" ", kickButton({ spectator: i }, n)] : null)),
  );
  $("#start-game").hidden = !isHost;
  // Between games: sit down / stand up, ready, a new name.
  const seated = online && you.seat !== null && you.seat !== undefined;
  $("#stand-up").hidden = !(seated && betweenGames);
  $("#ready-toggle").hidden = !(seated && betweenGames);
  const mine = seated ? room.seats[you.seat] : null;
  $("#ready-toggle").setAttribute("aria-pressed", String(Boolean(mine && mine.ready)));
  $("#ready-toggle").textContent = mine && mine.ready ? t("room.notReady") : t("room.readyButton");
  $("#rename-form").hidden = !(online && betweenGames);
  // The host may ask a bot program to sit in the first empty seat (docs/bot-api.md).
  const open = room.seats.find((s) => !s.human && !s.reserved_for && !s.challenged);
  $("#challenge-form").hidden = !(online && isHost && room.state === "lobby" && open && !room.quick_start);
  if (online && document.activeElement !== $("#rename-name")) $("#rename-name").value = S.conn.name;
  const empty = room.seats.filter((s) => !s.human && s.bot === null && !s.reserved_for).length;
  let wait;
  if (room.quick_start) wait = quickCountdown(room.quick_start);
  else if (isHost) wait = empty ? t("room.emptyWillBeBots", { n: empty }) : "";
  else if (you.spectator) wait = room.seats.some(sittable) && betweenGames ? t("room.sitDownHint") : t("room.spectatorWait");
  else wait = t("room.waitHost", { name: room.host_name || "" });
  $("#room-wait").textContent = wait;
  clearTimeout(S.quickTimer);
  if (room.quick_start && room.state === "lobby") S.quickTimer = setTimeout(() => S.room === room && renderRoom(), 1000);
}

function quickCountdown(at) {
  const left = Math.max(0, Math.ceil((at - Date.now()) / 1000));
  return t("room.quickWait", { n: left });
}

function kickButton(target, name) {
  let armed = null;
  const btn = h(
    "button",
    { type: "button", class: "small ghost kick", dataset: { action: "kick" }, "aria-label": t("room.kickName", { name }) },
    t("room.kick"),
  );
  // Two taps, like Leave: the first asks, the second sends the person out.
  btn.addEventListener("click", () => {
    if (armed) {
      clearTimeout(armed);
      S.conn.send({ type: "kick", ...target });
      return;
    }
    btn.textContent = t("room.kickConfirm");
    armed = setTimeout(() => {
      armed = null;
      btn.textContent = t("room.kick");
    }, 3000);
  });
  return btn;
}

/** The invite as a QR code (a phone joins from a desktop's screen): shown on
 * larger screens only, loaded once per room. */
function renderQr(room) {
  const img = $("#invite-qr");
  const src = `api/rooms/${encodeURIComponent(room.code)}/qr.svg`;
  if (img.dataset.src !== src) {
    img.dataset.src = src;
    img.src = src;
  }
}

async function shareInvite() {
  const url = $("#invite-link").value;
  if (navigator.share) {
    try {
      await navigator.share({ title: t("room.shareTitle"), text: t("room.shareText"), url });
      return;
    } catch (err) {
      if (err && err.name === "AbortError") return; // the person closed the sheet
    }
  }
  await copyInvite();
}

async function copyInvite() {
  const input = $("#invite-link");
  let ok = false;
  try {
    await navigator.clipboard.writeText(input.value);
    ok = true;
  } catch {
    input.select();
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
  }
  $("#copy-status").textContent = ok ? t("room.copied") : t("room.copyManually");
}

function setupRoom() {
  $("#copy-invite").addEventListener("click", copyInvite);
  $("#share-invite").addEventListener("click", shareInvite);
  // The share button says what it does here: Share where the browser can, else Copy.
  if (!navigator.share) $("#share-invite").hidden = true;
  $("#stand-up").addEventListener("click", () => S.conn.send({ type: "stand" }));
  $("#ready-toggle").addEventListener("click", () => {
    const mine = S.room && S.you ? S.room.seats[S.you.seat] : null;
    S.conn.send({ type: "ready", ready: !(mine && mine.ready) });
  });
  $("#rename-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = $("#rename-name");
    const { name, error } = checkName(input.value);
    fieldError(input, error);
    if (!name) return;
    store.set("name", name);
    store.set("nameAuto", false);
    S.conn.send({ type: "rename", name });
  });
  $("#challenge-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = $("#challenge-name");
    const bot = input.value.trim();
    const seat = S.room && S.room.seats.find((s) => !s.human && !s.reserved_for && !s.challenged);
    if (!bot || !seat) return;
    S.conn.send({ type: "challenge", seat: seat.seat, bot });
    input.value = "";
  });
  $("#start-game").addEventListener("click", () => hostConn().send({ type: "start" }));
  $("#leave-room").addEventListener("click", () => leaveRoom());
  let armed = null;
  $("#table-leave").addEventListener("click", () => {
    const btn = $("#table-leave");
    if (armed) {
      clearTimeout(armed);
      armed = null;
      btn.textContent = t("table.leave");
      leaveRoom();
      return;
    }
    btn.textContent = t("table.leaveConfirm");
    // Leaving is not for good: say so before the second tap (online, seated, in a game).
    const playing = S.mode === "online" && S.room && S.room.state === "playing" && S.you && !S.you.spectator;
    if (playing) notify(t("table.leaveComeBack"), announce);
    armed = setTimeout(() => {
      armed = null;
      btn.textContent = t("table.leave");
    }, playing ? 5000 : 3000);
  });
}

function leaveRoom() {
  if (S.mode === "pnp") {
    exitPnp();
    return;
  }
  if (S.conn) S.conn.send({ type: "leave" });
}

// ============================================================ table + result
function renderTable() {
  const entry = currentFrame();
  if (!entry) return;
  const { frame, receivedAt } = entry;
  document.body.dataset.version = String(frame.version);
  const pnp = S.mode === "pnp";
  // Pass and play, last call: everybody looks at the table (anyone may call a
  // card out), so the privacy screen steps aside and the hand is hidden.
  const lastCall = pnp && inLastCall(frame);
  table.render({
    frame,
    room: S.room,
    event: S.events.get(frame.version) || null,
    receivedAt,
    hidden: pnp && !S.revealed && !lastCall,
    local: pnp ? localSeats() : null,
    shared: pnp,
  });
  frameSounds({ frame, event: S.events.get(frame.version) || null });
  $("#table").classList.toggle("concealed", pnp && !S.revealed && !lastCall);
  $("#table").classList.toggle("hand-hidden", lastCall);
  if (pnp && lastCall) for (const seat of S.frames.keys()) S.seenUpTo.set(seat, frame.version);
  else if (pnp && S.revealed && S.shownSeat !== null) S.seenUpTo.set(S.shownSeat, frame.version);
  renderPrivacy();
  renderResult(frame);
}

// ============================================================ modal dialogs keep the focus
/** A redraw rebuilds a dialog's buttons (the result's, again when the room
 * changes): the focus goes back to the same button, else the first one; never
 * to the page body behind the dialog. */
function dialogFocusLost(ev) {
  const dlg = openDialog();
  if (!dlg || ev.relatedTarget || !dlg.contains(ev.target)) return;
  const memo = { dialog: dlg.id, action: ev.target.dataset.action || null, id: ev.target.id || null };
  setTimeout(() => {
    const el = document.activeElement;
    if (!el || el === document.body) keepDialogFocus(memo);
  }, 0);
}

function keepDialogFocus(memo) {
  const dlg = openDialog();
  if (!dlg || dlg.contains(document.activeElement)) return;
  if (memo && memo.dialog !== dlg.id) memo = null;
  const same = memo && (memo.action ? $(`[data-action="${memo.action}"]`, dlg) : memo.id ? $(`#${memo.id}`, dlg) : null);
  const target = same || $("button", dlg);
  if (target) target.focus({ preventScroll: true });
}

/** Tab and Shift+Tab go round the open dialog's controls (aria-modal). */
function trapDialogTab(ev) {
  if (ev.key !== "Tab") return;
  const dlg = openDialog();
  if (!dlg) return;
  const items = $$("button, [href], input, select", dlg).filter((el) => !el.disabled && el.getClientRects().length);
  if (!items.length) return;
  const i = items.indexOf(document.activeElement);
  const j = i < 0 ? 0 : (i + (ev.shiftKey ? items.length - 1 : 1)) % items.length;
  items[j].focus();
  ev.preventDefault();
}

function renderResult(frame) {
  const over = S.over;
  const dlg = $("#result");
  if (!over || over.game !== frame.game || !S.room || S.room.state === "lobby") {
    dlg.hidden = true;
    return;
  }
  const show = () => {
    if (!S.over || S.over !== over) return;
    fillResult(over);
    const wasHidden = dlg.hidden;
    dlg.hidden = false;
    if (wasHidden) {
      const first = $("#result-actions button");
      if (first) first.focus();
      announce(resultSpoken());
    }
  };
  if (S.resultShownFor !== over.game) {
    S.resultShownFor = over.game;
    S.resultDueAt = performance.now() + 900;
    setTimeout(show, 900); // let the last card land first
  } else if (performance.now() >= S.resultDueAt) show(); // (a redraw before then waits too)
}

/** The finishing order as groups of seats (first out first, the durak last):
 * the server's ``places``, else the final view's ``out`` and the rest. */
function placesOf(over) {
  if (Array.isArray(over.places) && over.places.length) return over.places;
  const out = currentFrame()?.frame.view.out || [];
  const rest = over.cards_left.map((_, seat) => seat).filter((seat) => !out.includes(seat));
  return [...out.map((seat) => [seat]), ...(rest.length ? [rest] : [])];
}

/** What a screen reader hears when the result shows: the title and the lines
 * under it as sentences ("You won! Oleg is the durak. Your place: 1 of 3"), so
 * that who lost is said even when the title is your win. */
function resultSpoken() {
  const parts = [$("#result-title").textContent, ...$("#result-sub").textContent.split(" · ")].filter(Boolean);
  const sep = t("table.evJoin");
  // After a sentence that already ends ("!", "！") only the space, if the language has one.
  const glue = (text) => (/[.!?。！？]$/.test(text) ? (sep.endsWith(" ") ? " " : "") : sep);
  return parts.reduce((text, part) => (text ? text + glue(text) + part : part), "");
}

/** The viewer's outcome: "win", "durak", "draw", or null (pass and play, spectators). */
function outcomeOf(over) {
  const me = S.mode === "online" && S.you && !S.you.spectator ? S.you.seat : null;
  const res = over.result || {};
  if (res.draw) return "draw";
  if (me === null || me === undefined) return null;
  return res.durak === me || (res.team || []).includes(me) ? "durak" : "win";
}

/** The last play of the game's final attack (the sixes of pogony), from the events seen. */
function lastPlayCards() {
  const events = S.mode === "pnp" ? S.log : Array.from(S.events.values());
  for (let i = events.length - 1; i >= 0; i--) {
    const a = events[i].action;
    if (["attack", "throw", "transfer"].includes(a.type)) return a.cards || [];
  }
  return [];
}

function fillResult(over) {
  const room = S.room;
  const me = S.mode === "online" && S.you ? S.you.seat : null;
  const res = over.result || {};
  const outcome = outcomeOf(over);
  const losers = new Set(res.draw ? [] : res.team && res.team.length ? res.team : [over.durak]);
  const name = (seat) => seatName(room, seat);
  const places = placesOf(over);

  // Your outcome first; at a shared device (or watching) the durak is named.
  let title;
  if (outcome === "draw") title = t("result.draw");
  else if (outcome === "durak") title = t("result.youDurak");
  else if (outcome === "win") title = t("result.youWon");
  else title = t("result.durak", { name: name(over.durak) });
  $("#result-title").textContent = title;
  const dlg = $("#result");
  dlg.dataset.outcome = outcome || (res.draw ? "draw" : "durak");

  const sub = [];
  const placeNo = (seat) => 1 + places.findIndex((g) => g.includes(seat));
  if (outcome === "win") {
    sub.push(t("result.durak", { name: name(over.durak) }));
    sub.push(t("result.yourPlace", { n: placeNo(me), total: over.cards_left.length }));
  } else if (outcome === "durak" || outcome === null) {
    const first = places[0] && !places[0].some((s) => losers.has(s)) ? places[0] : null;
    if (first) sub.push(t("result.firstOut", { names: first.map(name).join(", "), n: first.length }));
  }
  if (res.repetition) sub.push(t("result.repetition"));
  if (res.team && res.team.length) sub.push(t("result.team", { names: res.team.map(name).join(", ") }));
  $("#result-sub").textContent = sub.join(" · ");

  // Pogony: the durak wears the last sixes on the shoulders.
  const pogony = $("#result-pogony");
  pogony.hidden = !over.pogony;
  if (over.pogony) {
    const sixes = lastPlayCards().filter((c) => c[0] === "6");
    const text = over.durak === me ? t("result.pogonyYou") : t("result.pogonyName", { name: name(over.durak) });
    fill(
      pogony,
      h("span", { class: "epaulettes", "aria-hidden": "true" }, sixes.map((c) => h("span", { class: "epaulette", html: cardSVG(c) }))),
      h("span", { class: "pogony-text" }, text, sixes.length ? [" ", h("span", { class: "nowrap" }, `(${sixes.map(cardShort).join("\u00a0")})`)] : null),
    );
  }

  // The finishing order: a place per group of seats that went out together.
  fill(
    $("#result-rows"),
    places.flatMap((group, i) =>
      group.map((seat) => {
        const lost = losers.has(seat);
        const tags = [];
        if (seat === me) tags.push(h("span", { class: "tag tag-you" }, t("room.you")));
        if (room && room.seats[seat] && room.seats[seat].bot_account) tags.push(botTag());
        if (lost) tags.push(h("span", { class: "tag tag-durak" }, t("result.durakTag")));
        return h(
          "tr",
          { class: `${lost ? "durak" : ""}${seat === me ? " mine" : ""}`.trim(), dataset: { seat: String(seat) } },
          h("td", { class: "place" }, lost ? "\u2014" : String(i + 1)),
          h("td", { class: "who" }, h("span", { class: "who-name" }, name(seat)), tags),
          h("td", { class: "left" }, String(over.cards_left[seat])),
        );
      }),
    ),
  );

  // Auto: the ladder's step after this game ("Auto: level 3 → 4").
  const auto = store.get("autoLast");
  const autoEl = $("#result-auto");
  const key = room ? `${room.code}:${over.game}` : null;
  autoEl.hidden = !(auto && auto.key === key);
  if (!autoEl.hidden) {
    autoEl.textContent = auto.to === auto.from ? t("result.autoSame", { n: auto.to }) : t("result.autoChange", { from: auto.from, to: auto.to });
  }

  // Hints used in this game (issue 27): only the receiver's own count comes.
  const hintsEl = $("#result-hints");
  hintsEl.hidden = !(over.hints > 0);
  if (over.hints > 0) hintsEl.textContent = t("result.hints", { n: over.hints });
  // Candies (issue 26): this game's grant, or why nothing was paid; the rating's move.
  const candyEl = $("#result-candies");
  const lines = [candyLine(over.candies)];
  if (over.rating && Number.isFinite(over.rating.before) && Number.isFinite(over.rating.after)) {
    lines.push(t("profile.ratingResult", { before: Math.round(over.rating.before), after: Math.round(over.rating.after) }));
  }
  candyEl.textContent = lines.filter(Boolean).join(" · ");
  candyEl.hidden = !candyEl.textContent;
  candyEl.dataset.amount = over.candies ? String(over.candies.amount) : "";

  // Confetti for a win: yours, or at a shared device the winners'; never for spectators.
  celebrate(outcome === "win" || (S.mode === "pnp" && !res.draw));

  const buttons = [];
  const isHost = S.mode === "pnp" || (S.you && S.you.host);
  const seated = S.mode === "pnp" || (S.you && !S.you.spectator);
  if (isHost) buttons.push(h("button", { type: "button", class: "primary", dataset: { action: "rematch" }, onclick: playAgain }, t("result.playAgain")));
  if (seated) {
    buttons.push(
      h("button", { type: "button", dataset: { action: "back" }, onclick: () => hostOrMe().send({ type: "back_to_room" }) }, t("result.backToRoom")),
    );
  } else {
    // A spectator goes back to the room to watch (or sit down for) the next game.
    const back = () => {
      S.watchRoom = true;
      S.conn.send({ type: "back_to_room" });
      route();
    };
    buttons.push(h("button", { type: "button", dataset: { action: "back" }, onclick: back }, t("result.backToRoom")));
  }
  // The finished game, step by step with every hand (js/viewer.js).
  if (S.mode === "online" && over.game_id) {
    const open = () => go(pagePath("game", over.game_id, { step: "last" }));
    buttons.push(h("button", { type: "button", dataset: { action: "open-game" }, onclick: open }, t("viewer.openGame")));
  }
  buttons.push(h("button", { type: "button", class: "ghost", dataset: { action: "leave" }, onclick: leaveRoom }, t("result.leave")));
  // The buttons on screen stay the same nodes while nothing about them changed:
  // a redraw between a press and its release (the room's message, the delayed
  // show) would otherwise swallow the click or tap. Buttons that did change are
  // redrawn, and keep the keyboard focus: dialogFocusLost puts it back.
  const box = $("#result-actions");
  const drawn = [S.mode, seated, room ? room.code : "", over.game, over.game_id || "", ...buttons.map((b) => `${b.dataset.action}:${b.textContent}`)].join("|");
  if (box.dataset.drawn !== drawn) {
    fill(box, buttons);
    box.dataset.drawn = drawn;
  }
}

/** A short burst of confetti around the result (none with reduced motion). */
function celebrate(on) {
  const box = $("#result-confetti");
  if (!on || prefersReducedMotion()) {
    fill(box);
    return;
  }
  if (box.childElementCount) return; // already celebrating this result
  const colours = ["#e53935", "#fdd835", "#43a047", "#1e88e5", "#8e24aa", "#fb8c00"];
  fill(
    box,
    Array.from({ length: 24 }, (_, i) =>
      h("i", { style: `--x:${(i * 37) % 100}%;--d:${(i % 6) * 0.12}s;--r:${(i * 47) % 360}deg;--c:${colours[i % colours.length]}` }),
    ),
  );
}

function hostOrMe() {
  return S.mode === "pnp" ? S.pnp.conns[0] : S.conn;
}

/** Host, after a game: the same table again (Auto games move the bots' level first). */
function playAgain() {
  const conn = hostOrMe();
  const room = S.room;
  const autoRooms = store.get("autoRooms", []);
  if (S.mode === "online" && autoRooms.includes(room.code)) {
    const level = autoLevel();
    const botSeats = room.seats.filter((s) => !s.human && s.bot !== null);
    if (botSeats.some((s) => s.bot !== level)) {
      conn.send({ type: "back_to_room" });
      for (const s of botSeats) conn.send({ type: "seat_bot", seat: s.seat, level });
      conn.send({ type: "start" });
      return;
    }
  }
  conn.send({ type: "rematch" });
}

function countAuto(over) {
  const autoRooms = store.get("autoRooms", []);
  if (S.mode !== "online" || !S.room || !autoRooms.includes(S.room.code)) return;
  const key = `${S.room.code}:${over.game}`;
  const counted = store.get("autoCounted", []);
  if (counted.includes(key)) return;
  store.set("autoCounted", [...counted.slice(-50), key]);
  const outcome = { win: "win", durak: "loss", draw: "draw" }[outcomeOf(over)];
  if (!outcome) return;
  const from = autoLevel();
  const to = recordAuto(outcome);
  store.set("autoLast", { key, from, to }); // the result screen's "Auto: level 3 → 4"
  saveAuto(store.get("auto")); // a Telegram player's ladder is kept on the server too
  renderLevelOptions();
}

// ============================================================ privacy (pass and play)
function renderPrivacy() {
  const el = $("#privacy");
  const hidden =
    S.mode !== "pnp" ||
    S.revealed ||
    S.shownSeat === null ||
    (S.over && S.room && S.room.state === "over") ||
    inLastCall(currentFrame()?.frame);
  if (hidden) {
    el.hidden = true;
    return;
  }
  $("#privacy-title").textContent = seatName(S.room, S.shownSeat);
  const since = sinceLastTurn(S.shownSeat);
  $("#privacy-last").textContent = since;
  $("#privacy-last").hidden = !since;
  const wasHidden = el.hidden;
  el.hidden = false;
  if (wasHidden) {
    S.handoffs += 1;
    $("#privacy-reveal").focus();
  }
}

/** What happened since ``seat``'s player last saw their cards: "Anna led 7♠;
 * Boris covered 7♠ with 9♠; Anna threw in 7♥". Only what the events say, and
 * they carry played cards and draw counts, never a hidden card. */
function sinceLastTurn(seat) {
  const from = S.seenUpTo.has(seat) ? S.seenUpTo.get(seat) : -Infinity;
  const parts = S.log.filter((ev) => ev.version > from).flatMap(describeEvent);
  const MAX = 10;
  const shown = parts.length > MAX ? ["\u2026", ...parts.slice(-MAX)] : parts;
  return shown.join("; ");
}

function describeEvent(ev) {
  const a = ev.action;
  const name = (seat) => seatName(S.room, seat);
  const before = S.viewAt.get(ev.version - 1) || {};
  const parts = [];
  if (a.type === "accuse") {
    const acc = ev.accusation;
    if (acc) {
      const key = acc.verdict === "caught" ? "caught" : "fair";
      parts.push(t(`table.acc.${key}`, { accuser: name(ev.seat), cheater: name(acc.player), card: cardShort(acc.card) }));
    }
  } else if (!(a.type === "pass" && before.phase === "last_call")) {
    const cards = (a.cards || (a.card ? [a.card] : [])).map(cardShort).join(" ");
    parts.push(t(`pnp.ev.${a.type}`, { who: name(ev.seat), cards, target: a.target ? cardShort(a.target) : "" }));
  }
  if (ev.round_end === "bito") parts.push(t("pnp.ev.bito"));
  if (ev.round_end === "took") parts.push(t("pnp.ev.took", { who: name(before.defender ?? ev.seat) }));
  return parts;
}

/** Pass and play: "Then pass", a toggle beside the moves of a player who leads
 * or throws in: after this move the device passes for them until the round
 * ends (their choice, made once a round, instead of a hand-off per Pass). */
function thenPassToggle() {
  if (S.mode !== "pnp" || !S.revealed || S.shownSeat === null) return [];
  const f = currentFrame()?.frame;
  if (!f || f.to_move !== S.shownSeat || !["lead", "throw"].includes(f.view.phase)) return [];
  const on = S.thenPass.has(S.shownSeat);
  // A switch (a track and a knob), not a move: it never looks like the main
  // button, and says what it does under its name (a tooltip alone reaches no
  // touch user: issue 25).
  return [
    h(
      "button",
      {
        type: "button",
        class: `then-pass${on ? " on" : ""}`,
        "aria-pressed": String(on),
        "aria-label": t("pnp.thenPass"),
        "aria-describedby": "then-pass-hint",
        dataset: { action: "then-pass" },
        onclick: () => {
          if (S.thenPass.has(S.shownSeat)) S.thenPass.delete(S.shownSeat);
          else S.thenPass.add(S.shownSeat);
          renderTable();
          $('#actions [data-action="then-pass"]')?.focus({ preventScroll: true });
        },
      },
      h("span", { class: "switch-track", "aria-hidden": "true" }, h("span", { class: "switch-knob" })),
      h(
        "span",
        { class: "switch-text" },
        h("span", { class: "switch-name" }, t("pnp.thenPass")),
        h("span", { class: "switch-hint", id: "then-pass-hint" }, t("pnp.thenPassHint")),
      ),
    ),
  ];
}

/** Pass and play: answer for ``seat`` without handing the device over when
 * the answer is already decided: a Pass its player chose with "Then pass", or
 * a lead of the last card (a hand of one, as everybody sees, has one lead).
 * True while such an answer is on its way. */
function autoMove(seat, version) {
  if (S.autoSentAt === version) return true;
  const f = S.frames.get(seat)?.frame;
  if (!f || f.version !== version) return false;
  const legal = f.legal || [];
  let action = null;
  if (f.view.phase === "throw" && S.thenPass.has(seat)) action = legal.find((a) => a.type === "pass");
  else if (f.view.phase === "lead" && legal.length === 1 && f.view.hand_counts[seat] === 1) action = legal[0];
  if (!action) return false;
  S.autoSentAt = version;
  S.pnp.conns[seat].send({ type: "move", action, version });
  return true;
}

function setupPrivacy() {
  $("#privacy-reveal").addEventListener("click", () => {
    S.revealed = true;
    renderTable();
    const target = $("#hand .playable") || $("#actions button") || $("#hand button");
    if (target) target.focus({ preventScroll: true });
  });
}

// ============================================================ connections
function onMessage(msg, conn) {
  if (S.mode === "pnp") {
    pnpMessage(msg, conn);
    return;
  }
  switch (msg.type) {
    case "welcome":
      store.set("token", msg.token);
      store.set("name", msg.name);
      // The server's name fills the field only if the player has not typed in
      // it: a welcome that comes late must not replace what is being typed.
      if (!validName($("#player-name").value) && !$("#player-name").dataset.typed) {
        $("#player-name").value = msg.name;
      }
      afterWelcome(msg);
      pages.profiles.refresh();
      break;
    case "room":
      setRoom(msg);
      break;
    case "game":
      if (S.over && S.over.game !== msg.game) S.over = null;
      S.frames.set("me", { frame: msg, receivedAt: performance.now() });
      // (A spectator who went back to the room stays there until the next game.)
      if (S.room && S.room.state !== "lobby" && !(S.watchRoom && S.room.state === "over")) {
        renderTable();
        show("table");
      }
      break;
    case "event":
      S.events.set(msg.version, msg);
      if (S.events.size > 50) S.events.delete(S.events.keys().next().value);
      // The clock ran out and the computer moved for you: say which card.
      if (msg.by === "timeout" && S.you && msg.seat === S.you.seat) notify(timeoutText(msg), announce);
      break;
    case "said":
    case "reacted":
      social.show(msg);
      break;
    case "challenge_closed":
      notify(t(`notice.challenge_${msg.reason}`, { name: msg.bot }), announce);
      break;
    case "renamed":
      store.set("name", msg.name);
      S.conn.name = msg.name;
      $("#player-name").value = msg.name;
      notify(t("room.renamed", { name: msg.name }), announce);
      break;
    case "hint":
      hints.received(msg);
      break;
    case "game_over":
      S.over = msg;
      countAuto(msg);
      pages.profiles.refresh(); // the game's candies are in the balance now
      if (currentFrame()) renderTable();
      break;
    case "left":
      if (msg.reason === "kicked") toast(t("room.kickedYou"));
      S.room = null;
      S.you = null;
      S.frames.clear();
      S.over = null;
      S.watchRoom = false;
      social.setRoom(null, null, false);
      setUrlRoom(null);
      route();
      break;
    case "error":
      if (msg.ref === "hint") {
        hints.refused();
        toast(errorText(msg));
        break;
      }
      handleError(msg);
      break;
    default:
      break; // messages of a later protocol version are ignored
  }
}

/** What the clock played for you, in words ("9♠ was played for you: time ran out"). */
function timeoutText(ev) {
  const a = ev.action || {};
  const cards = a.card ? [a.card] : a.cards || [];
  if (!cards.length) {
    const key = `notice.timeout_${a.type}`;
    return t(key) === key ? t("notice.timeoutMove") : t(key);
  }
  return t("notice.timeoutCards", { cards: cards.map(cardShort).join(" ") });
}

function setRoom(msg) {
  const changed = !S.room || S.room.code !== msg.room.code;
  if (!changed && S.mode === "online") for (const text of roomNotices(S.room, msg.room, msg.you)) notify(text, announce);
  if (changed) {
    S.frames.clear();
    S.events.clear();
    S.over = null;
    S.resultShownFor = null;
  }
  S.room = msg.room;
  S.you = msg.you;
  social.setRoom(msg.room, msg.you, S.mode === "online");
  if (changed) guide.roomChanged(msg.room);
  if (S.mode === "online") {
    setUrlRoom(msg.room.code);
    if (changed && S.pendingAuto !== undefined) {
      const autoRooms = store.get("autoRooms", []).filter((c) => c !== msg.room.code);
      if (S.pendingAuto) autoRooms.push(msg.room.code);
      store.set("autoRooms", autoRooms.slice(-20));
      S.pendingAuto = undefined;
    }
  }
  S.pendingJoin = null;
  S.joining = null;
  route();
}

async function afterWelcome(msg) {
  const code = S.pendingJoin;
  if (S.joining) return; // the invite was accepted: its join is on its way
  if (S.guideLink && !code) {
    // The how-to page's "Play the guided game" (?guide=1).
    S.guideLink = false;
    if (msg.room) S.conn.send({ type: "leave" });
    guide.replay();
    return;
  }
  if (!code) {
    if (!msg.room) route();
    return;
  }
  if (msg.room === code) return; // the server puts us back and resyncs
  let info = null;
  try {
    const res = await fetch(`api/rooms/${encodeURIComponent(code)}`);
    if (res.ok) info = await res.json();
  } catch {
    info = null;
  }
  if (!info) {
    S.pendingJoin = null;
    setUrlRoom(null);
    toast(t("errors.no_such_room"));
    if (!msg.room) route();
    return;
  }
  if (S.inTelegram && !info.has_passphrase) {
    // Inside Telegram the name is the person's Telegram name: straight in.
    if (msg.room) S.conn.send({ type: "leave" });
    S.conn.send({ type: "join", room: code });
    return;
  }
  showInvite(info, Boolean(msg.room));
}

/** A link to a room: say whose room it is, and let the person choose the name
 * the others will see (prefilled, remembered) before joining. */
function showInvite(info, leaveFirst) {
  const host = info.host_name || "—";
  $("#invite-title").textContent = t("invite.title", { name: info.host_bot ? `${host} (${t("room.botAccount")})` : host });
  const taken = info.seats.filter((s) => s.human || s.bot !== null).length;
  $("#invite-sub").textContent = [summary(info.rules), t("start.seatsTaken", { n: taken, total: info.seats.length })].join(" · ");
  $("#invite-name").value = startName();
  $("#invite-pass-field").hidden = !info.has_passphrase;
  $("#invite-pass").value = "";
  S.inviteLeave = leaveFirst;
  show("invite");
  $("#invite-name").focus();
}

async function acceptInvite() {
  const code = S.pendingJoin;
  const input = $("#invite-name");
  const { name, error } = checkName(input.value);
  fieldError(input, error);
  if (!name || !code) return;
  store.set("name", name);
  store.set("nameAuto", false);
  $("#player-name").value = name;
  S.joining = code; // a new welcome (the rename) must not ask again
  if (S.conn.name !== name) await S.conn.rename(name);
  if (S.inviteLeave) S.conn.send({ type: "leave" });
  const msg = { type: "join", room: code };
  const pass = $("#invite-pass").value;
  if (pass) msg.passphrase = pass;
  S.conn.send(msg);
}

function setupInvite() {
  $("#invite-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    acceptInvite();
  });
  $("#invite-cancel").addEventListener("click", () => {
    S.pendingJoin = null;
    setUrlRoom(null);
    route();
  });
  watchName($("#invite-name"));
}

async function quickMatch() {
  if (!(await ensureName())) return;
  const variant = $("#quick-variant").value;
  const seats = Number($("#quick-seats").value);
  store.set("quick", { variant, seats });
  S.pendingAuto = false;
  S.conn.send({ type: "quick_match", variant, seats });
}

function handleError(msg, conn) {
  if (msg.code === "replaced") return;
  if (msg.retrying) return; // unavailable: net.js sends it again shortly
  if (msg.ref === "move" || msg.code === "stale_version" || msg.code === "not_your_turn" || msg.code === "illegal_move") {
    table.moveRefused();
    S.autoSentAt = null;
    (conn || moveConn()).send({ type: "sync" });
    if (msg.code === "stale_version") return;
  }
  if (msg.ref === "join") S.joining = null;
  if (msg.ref === "join" && S.pendingJoin) {
    if (document.body.dataset.screen === "invite" && ["wrong_passphrase", "throttled"].includes(msg.code)) {
      $("#invite-pass-field").hidden = false;
      fieldError($("#invite-pass"), `errors.${msg.code}`);
      $("#invite-pass").focus();
      return;
    }
    S.pendingJoin = null;
    setUrlRoom(null);
    route();
  }
  if (msg.code === "rate_limited") return;
  if (document.body.dataset.screen === "start") {
    const field = { bad_name: "#player-name", wrong_passphrase: "#join-pass", throttled: "#join-pass", no_such_room: "#join-code" }[msg.code];
    if (field && (msg.code === "bad_name" || msg.ref === "join")) {
      if (field !== "#player-name") S.selectTab("tab-join");
      fieldError($(field), `errors.${msg.code}`);
      $(field).focus();
      return;
    }
  }
  toast(errorText(msg));
}

function onState(state, conn) {
  if (S.mode === "pnp" && conn !== S.pnp.conns[0]) return;
  if (state === "open") banner(null);
  else if (state === "reconnecting") {
    banner(t("ui.reconnecting"));
    // No server (offline, the app opened from its cache): the start screen
    // rather than "Connecting…" for ever; a welcome later puts the seat back.
    if (document.body.dataset.screen === "loading" && !S.room) show("start");
  }
  else if (state === "replaced") {
    banner(
      t("ui.replaced"),
      h("button", { type: "button", class: "small", onclick: () => conn.open() }, t("ui.playHere")),
    );
  }
}

/** Another token (a transfer code claimed, a profile deleted): connect again as it. */
function relogin() {
  if (S.mode !== "online" || !S.conn) return;
  S.conn.close();
  S.room = null;
  S.you = null;
  S.frames.clear();
  S.over = null;
  openMain(store.get("name") || startName());
}

function openMain(name) {
  S.conn = new Conn({
    name,
    token: store.get("token"),
    onMessage,
    onState,
  });
  S.conn.open();
}

// ============================================================ pass and play
// One connection per person, each with its own token, all in one private room
// with no move clock. The seat to move is shown after its player taps "show
// my cards"; the others' cards are never on screen at the same time.

function pnpMessage(msg, conn) {
  const seat = S.pnp.conns.indexOf(conn);
  switch (msg.type) {
    case "welcome": {
      const saved = store.get("pnp");
      if (saved && saved.players[seat]) {
        saved.players[seat].token = msg.token;
        store.set("pnp", saved);
      }
      if (seat === 0 && S.pnp.resuming && !msg.room) {
        store.set("pnp", null);
        exitPnp(true);
        toast(t("errors.no_such_room"));
      }
      break;
    }
    case "room":
      if (seat === 0) {
        S.room = msg.room;
        S.you = msg.you;
        route();
      }
      break;
    case "game":
      if (S.pnpGame !== msg.game) newPnpGame(msg.game);
      S.frames.set(seat, { frame: msg, receivedAt: performance.now() });
      S.viewAt.set(msg.version, { phase: msg.view.phase, defender: msg.view.defender, toMove: msg.to_move });
      if (S.over && S.over.game !== msg.game) S.over = null;
      pnpUpdate();
      break;
    case "event":
      // Every connection hears every event (they are public): keep one of each.
      if (S.events.has(msg.version)) break;
      S.events.set(msg.version, msg);
      if (S.events.size > 50) S.events.delete(S.events.keys().next().value);
      S.log.push(msg);
      if (msg.round_end) S.thenPass.clear(); // "Then pass" lasts one round
      break;
    case "game_over":
      if (seat === 0) {
        S.over = msg;
        if (currentFrame()) renderTable();
      }
      break;
    case "left":
      break;
    case "error":
      handleError(msg, conn);
      break;
    default:
      break;
  }
}

/** A new game at a pass-and-play table: the hand-off bookkeeping starts afresh. */
function newPnpGame(game) {
  S.pnpGame = game;
  S.handoffs = 0;
  S.log = [];
  S.viewAt.clear();
  S.seenUpTo.clear();
  S.thenPass.clear();
  S.autoSentAt = null;
}

function pnpUpdate() {
  if (!S.room || S.room.state === "lobby") return;
  let latest = null;
  for (const entry of S.frames.values()) {
    if (!latest || entry.frame.version > latest.frame.version) latest = entry;
  }
  if (!latest) return;
  const toMove = latest.frame.to_move;
  const lastCall = inLastCall(latest.frame);
  if (lastCall) {
    // The last call is answered out of turn, by anyone looking at the table:
    // no passing the device now; whoever plays next taps to see their cards.
    clearTimeout(S.switchTimer);
    S.nextSeat = null;
    S.revealed = false;
    S.afterLastCall = true;
    sendPasses(latest.frame.version);
  } else {
    S.passing.clear();
  }
  const ready = toMove !== null && toMove !== undefined && S.frames.get(toMove)?.frame.version === latest.frame.version;
  const switchNow = S.shownSeat === null || S.afterLastCall; // no cards of anybody's are showing
  if (!lastCall && ready) S.afterLastCall = false;
  const auto = !lastCall && ready && autoMove(toMove, latest.frame.version);
  if (!auto && !lastCall && ready && toMove !== S.shownSeat && S.nextSeat !== toMove) {
    S.nextSeat = toMove;
    clearTimeout(S.switchTimer);
    const swap = () => {
      S.shownSeat = S.nextSeat;
      S.nextSeat = null;
      S.revealed = false;
      renderTable();
      show("table");
    };
    if (switchNow) swap();
    else S.switchTimer = setTimeout(swap, 800); // let the last card land, then cover
  }
  if (S.shownSeat === null) S.shownSeat = toMove ?? 0;
  if (currentFrame()) {
    renderTable();
    show("table");
  }
}

/** "Continue" in a shared last call: one pass per waiting seat, one at a time
 * (each answers the version the previous pass produced). */
function sendPasses(version) {
  if (!S.passing.size || S.passSentAt === version) return;
  for (const seat of Array.from(S.passing)) {
    const entry = S.frames.get(seat);
    if (!entry || entry.frame.version !== version) return; // its frame is on the way
    S.passing.delete(seat);
    const pass = (entry.frame.legal || []).find((a) => a.type === "pass");
    if (!pass) continue; // no longer pending (the server passed, or it called a card out)
    S.passSentAt = version;
    S.pnp.conns[seat].send({ type: "move", action: pass, version });
    return;
  }
}

function makePnpConn(name, token) {
  return new Conn({ name, token, onMessage, onState, label: name });
}

async function startPnp() {
  const inputs = $$("#pnp-names input");
  const names = inputs.map((input) => {
    const { name, error } = checkName(input.value);
    fieldError(input, error);
    return name;
  });
  const bad = inputs.find((_, i) => !names[i]);
  if (bad) {
    bad.focus();
    return;
  }
  if (new Set(names).size !== names.length) {
    toast(t("pnp.distinctNames"));
    return;
  }
  store.set(
    "pnpNames",
    names.map((name, i) => (inputs[i].dataset.auto ? null : name)),
  );
  if (S.conn && S.room) S.conn.send({ type: "leave" });
  if (S.conn) S.conn.close();
  S.conn = null;
  S.room = null;
  S.mode = "pnp";
  S.frames.clear();
  S.events.clear();
  S.over = null;
  S.shownSeat = null;
  S.nextSeat = null;
  S.revealed = false;
  S.resultShownFor = null;
  S.passing.clear();
  S.passSentAt = null;
  S.pnpGame = null;
  show("loading");
  const conns = names.map((n) => makePnpConn(n, null));
  S.pnp = { conns, names, resuming: false };
  store.set("pnp", { room: null, players: names.map((name) => ({ name, token: null })) });
  try {
    await conns[0].open();
    conns[0].send({
      type: "create_room",
      seats: names.length,
      rules: forms.pnp.read(),
      move_time: null,
      visibility: "private",
      bot_level: 3,
    });
    const first = await conns[0].next("room");
    const code = first.room.code;
    const saved = store.get("pnp");
    saved.room = code;
    store.set("pnp", saved);
    for (let i = 1; i < conns.length; i++) {
      await conns[i].open();
      conns[i].send({ type: "join", room: code, seat: i });
      await conns[i].next("room");
    }
    conns[0].send({ type: "start" });
  } catch (err) {
    toast(t("errors.network"));
    exitPnp();
  }
}

function resumePnp(saved) {
  S.mode = "pnp";
  S.revealed = false;
  const conns = saved.players.map((p) => makePnpConn(p.name, p.token));
  S.pnp = { conns, names: saved.players.map((p) => p.name), resuming: true };
  show("loading");
  for (const c of conns) c.open();
}

function exitPnp(silent = false) {
  if (S.pnp) {
    for (const c of S.pnp.conns) {
      if (!silent) c.send({ type: "leave" });
      setTimeout(() => c.close(), 200);
    }
  }
  store.set("pnp", null);
  clearTimeout(S.switchTimer);
  S.pnp = null;
  S.mode = "online";
  S.room = null;
  S.you = null;
  S.frames.clear();
  S.events.clear();
  S.over = null;
  S.shownSeat = null;
  S.pnpGame = null;
  S.passing.clear();
  $("#privacy").hidden = true;
  $("#result").hidden = true;
  openMain(startName());
  show("start");
}

// ============================================================ language and theme
async function changeLanguage(code) {
  store.set("lang", code);
  await setLanguage(code);
  $("#lang-select").value = code;
  setHowtoLink(code);
  for (const f of Object.values(forms)) f.refresh();
  renderLevelOptions();
  renderPnpNamesLabels();
  renderGuestName();
  for (const el of $$(".field-error")) el.textContent = t(el.dataset.key);
  showLook(); // the language's look, while the player has never picked one
  renderNames();
}

/** Redraw what names the seats (the language or the look changed them). */
function renderNames() {
  if (S.room && S.room.state === "lobby") renderRoom();
  if (currentFrame() && S.room && S.room.state !== "lobby") renderTable();
  pages.relabel();
}

function renderPnpNamesLabels() {
  $$("#pnp-names label").forEach((label, i) => (label.textContent = t("pnp.playerN", { n: i + 1 })));
  $$("#pnp-names input").forEach((input, i) => {
    if (input.dataset.auto) input.value = t("pnp.defaultName", { n: i + 1 });
  });
}

/** A made-up name follows the language (one the user typed stays as it is). */
function renderGuestName() {
  if (!store.get("nameAuto")) return;
  const name = guestName();
  $("#player-name").value = name;
  store.set("name", name);
  fieldError($("#player-name"), null);
}

/** The start screen's "How to play" opens the page in the language in use. */
function setHowtoLink(code) {
  $("#howto-link").href = `howto/${code}.html`;
}

/** Show the table's look (js/look.js): the player's pick, else the language's
 * (candy in Chinese and Japanese; midnight for classic in a dark Telegram). */
function showLook() {
  const look = applyLook(lookFor(currentLanguage(), S.tgDark));
  $("#theme-select").value = look;
  if (S.inTelegram) matchTelegramColours();
}

/** The player picks a look in the top bar: remembered, in every language. */
function pickLook(look) {
  chooseLook(look);
  showLook();
  renderNames();
}

// ============================================================ start-up
async function main() {
  // Telegram Mini App (js/telegram.js): log in with the launch data first.
  const tg = await startTelegram({
    onTheme: (base) => {
      S.tgDark = base === "midnight";
      showLook();
    },
  });
  if (tg && tg.ok) {
    store.set("token", tg.token);
    store.set("name", tg.name);
    store.set("nameAuto", false);
    if (tg.auto) store.set("auto", tg.auto);
  }
  if (tg && tg.language && !store.get("lang")) store.set("lang", tg.language);
  // A deep link's start parameter: a room code, "computer", "game_ID[_STEP]" or "puzzles[_ID]".
  let tgStart = tg ? tg.start : null;
  const tgGame = tgStart ? /^game_(\d{1,19})(?:_(\d{1,6}))?$/.exec(tgStart) : null;
  const tgPuzzle = tgStart ? /^puzzles(?:_(\d{1,12}-\d{1,6}))?$/.exec(tgStart) : null;
  if (tgGame) {
    // A shared game in the Mini App: open the viewer (at that step).
    tgStart = null;
    history.replaceState({ depth: 0 }, "", pagePath("game", tgGame[1], { step: tgGame[2] ?? null }) + location.hash);
  } else if (tgPuzzle) {
    // The bot's /puzzle (or a shared puzzle): open the puzzles page.
    tgStart = null;
    history.replaceState({ depth: 0 }, "", pagePath("puzzles", null, { id: tgPuzzle[1] ?? null }) + location.hash);
  }
  S.inTelegram = Boolean(tg);

  const lang = pickLanguage(store.get("lang"));
  await setLanguage(lang);
  $("#lang-select").value = lang;
  $("#lang-select").addEventListener("change", (ev) => changeLanguage(ev.target.value));
  showLook();
  $("#theme-select").addEventListener("change", (ev) => pickLook(ev.target.value));
  setHowtoLink(lang);
  setupSoundToggle($("#sound-toggle"));
  registerWorker();
  setupStart();
  setupRoom();
  setupInvite();
  setupPrivacy();
  document.addEventListener("keydown", trapDialogTab);
  document.addEventListener("focusout", dialogFocusLost);
  applyI18n(document);

  const params = new URL(location.href).searchParams;
  const code = params.get("room") || (tgStart && tgStart !== "computer" ? tgStart : null);
  if (params.has("guide")) {
    S.guideLink = true; // once: a reload does not start another guided game
    const url = new URL(location.href);
    url.searchParams.delete("guide");
    history.replaceState(null, "", url.href);
  }
  const saved = store.get("pnp");
  if (saved && saved.room && saved.players.every((p) => p.token) && !code) {
    resumePnp(saved);
    return;
  }
  store.set("pnp", null);
  const name = startName();
  $("#player-name").value = name;
  if (code) {
    S.pendingJoin = code;
    $("#join-code").value = code;
  }
  onPageChange(() => route());
  if (currentPage()) {
    route();
  } else if (store.get("token") || code || S.guideLink) {
    show("loading");
  } else {
    show("start");
  }
  openMain(name);
  if (tg && !tg.ok) toast(errorText(tg.error));
  if (!code && (params.get("play") === "computer" || tgStart === "computer")) S.selectTab("tab-computer");
}

window.kozyr = { state: S, table, pages, viewer: pages.viewer, guide, help, sound, social, show, fillResult, renderRoom, resultSpoken, checkName, onMessage, showInvite, notify, languages: LANGUAGES }; // for debugging and tests
main();
