// Sound effects and the "your turn" buzz: synthesized with the Web Audio API
// (no audio files), short and quiet, behind one switch that is remembered.
//
// Cues: deal (a new game), play (a card on the table), take (the defender picks
// the table up), bito (the round goes to the discard pile), turn (it is your
// move; phones also vibrate where the browser allows it).
//
// The switch ("Sound", key "sound" in localStorage) is on by default: a game
// is started by a tap, which is the gesture browsers want before they play
// sound, and the cues are soft. It also governs vibration: one switch for
// everything the game does to get attention (README.md, "Sound").
// Nothing here ever throws: without Web Audio, or before the browser allows
// sound, the game is silent and goes on.

import { store } from "./store.js";

const VOLUME = 0.22;
const BUZZ_MS = 35;

let audio = null; // the AudioContext, made at the first cue after sound is on
let master = null;
let noise = null; // one second of white noise, reused by every cue
const played = []; // the last cues played (tests read it)

export const sound = {
  get on() {
    return store.get("sound", true) !== false;
  },
  set on(value) {
    store.set("sound", Boolean(value));
    if (!value && audio) {
      try {
        audio.suspend();
      } catch {
        /* nothing to stop */
      }
    }
  },
  played,
};

/** The audio context, or null when the browser has none or refuses one. */
function context() {
  if (!sound.on) return null;
  try {
    if (!audio) {
      const Ctx = window.AudioContext || window.webkitAudioContext;
      if (!Ctx) return null;
      audio = new Ctx();
      master = audio.createGain();
      master.gain.value = VOLUME;
      master.connect(audio.destination);
    }
    if (audio.state === "suspended") audio.resume().catch(() => {});
    return audio;
  } catch {
    audio = null;
    return null;
  }
}

/** Browsers start audio suspended until a tap or a key: resume it then. */
function unlockOnGesture() {
  const unlock = () => {
    if (sound.on) context();
  };
  for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, unlock, { capture: true, passive: true });
}

function noiseBuffer(ac) {
  if (!noise) {
    noise = ac.createBuffer(1, ac.sampleRate, ac.sampleRate);
    const data = noise.getChannelData(0);
    for (let i = 0; i < data.length; i++) data[i] = Math.random() * 2 - 1;
  }
  return noise;
}

/** A short burst of filtered noise: the snap of a card (or, longer, a sweep). */
function hiss(ac, at, { dur = 0.06, freq = 2500, to = null, q = 0.9, gain = 0.9, type = "bandpass" } = {}) {
  const src = ac.createBufferSource();
  src.buffer = noiseBuffer(ac);
  const filter = ac.createBiquadFilter();
  filter.type = type;
  filter.Q.value = q;
  filter.frequency.setValueAtTime(freq, at);
  if (to) filter.frequency.exponentialRampToValueAtTime(to, at + dur);
  const env = ac.createGain();
  env.gain.setValueAtTime(0.0001, at);
  env.gain.exponentialRampToValueAtTime(gain, at + Math.min(0.01, dur / 4));
  env.gain.exponentialRampToValueAtTime(0.0001, at + dur);
  src.connect(filter).connect(env).connect(master);
  src.start(at, Math.random() * 0.5);
  src.stop(at + dur + 0.02);
}

/** A soft tone with a bell-like decay. */
function tone(ac, at, freq, { dur = 0.18, gain = 0.5, type = "sine", to = null } = {}) {
  const osc = ac.createOscillator();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, at);
  if (to) osc.frequency.exponentialRampToValueAtTime(to, at + dur);
  const env = ac.createGain();
  env.gain.setValueAtTime(0.0001, at);
  env.gain.exponentialRampToValueAtTime(gain, at + 0.012);
  env.gain.exponentialRampToValueAtTime(0.0001, at + dur);
  osc.connect(env).connect(master);
  osc.start(at);
  osc.stop(at + dur + 0.02);
}

const CUES = {
  // a card laid down: a snap and a small thump
  play(ac, t0) {
    hiss(ac, t0, { dur: 0.05, freq: 3200, gain: 0.8 });
    tone(ac, t0, 190, { dur: 0.07, gain: 0.35, to: 90 });
  },
  // cards dealt one after another
  deal(ac, t0, count = 6) {
    for (let i = 0; i < count; i++) hiss(ac, t0 + i * 0.075, { dur: 0.045, freq: 2600 + (i % 3) * 500, gain: 0.55 });
  },
  // the defender gathers the table: a falling pair of notes
  take(ac, t0) {
    hiss(ac, t0, { dur: 0.25, freq: 1800, to: 500, gain: 0.35 });
    tone(ac, t0 + 0.02, 440, { dur: 0.16, gain: 0.3, type: "triangle" });
    tone(ac, t0 + 0.15, 330, { dur: 0.24, gain: 0.3, type: "triangle" });
  },
  // bito: the table is swept off to the discard pile
  bito(ac, t0) {
    hiss(ac, t0, { dur: 0.32, freq: 4000, to: 350, q: 0.7, gain: 0.45, type: "lowpass" });
  },
  // your move: two bright notes
  turn(ac, t0) {
    tone(ac, t0, 659.25, { dur: 0.16, gain: 0.32 });
    tone(ac, t0 + 0.11, 987.77, { dur: 0.26, gain: 0.28 });
  },
};

/** Play a cue (``delay`` seconds from now). Silent, never throwing, when off. */
export function cue(name, delay = 0, ...args) {
  const ac = context();
  if (!ac || !CUES[name]) return;
  try {
    CUES[name](ac, ac.currentTime + 0.01 + delay, ...args);
    played.push(name);
    if (played.length > 50) played.shift();
  } catch {
    /* a browser that lacks a node type: no sound */
  }
}

/** A short buzz on phones that allow it (same switch as the sound). */
export function buzz() {
  if (!sound.on) return;
  // Browsers refuse (and complain) until the page has been tapped once, e.g.
  // right after a reload in the middle of a game.
  if (navigator.userActivation && !navigator.userActivation.hasBeenActive) return;
  try {
    if (typeof navigator.vibrate === "function" && !document.hidden) navigator.vibrate(BUZZ_MS);
  } catch {
    /* not allowed: nothing */
  }
}

// ------------------------------------------------------------ what happened
// The cues of a table frame: ``frame`` (the seat shown), ``event`` (the
// action that led to it, when known) and whether the frame is new.
let last = { game: null, version: null, seat: null, turnOf: null };

/** Whose turn the frame offers (its seat) or null (nothing to do, or a last call). */
function turnOf(frame) {
  if (!frame.legal || frame.view.phase === "last_call") return null;
  return frame.legal.some((a) => a.type !== "accuse") ? frame.seat : null;
}

export function frameSounds({ frame, event }) {
  const sameVersion = frame.game === last.game && frame.version === last.version;
  if (sameVersion && frame.seat === last.seat) return; // drawn again, nothing new
  const view = frame.view;
  const newGame = frame.game !== last.game;
  const turn = turnOf(frame);
  // A turn starts when the seat shown gets moves it did not have (pass and play:
  // also when the device goes to the next player).
  const turnStarts = turn !== null && (newGame || turn !== last.turnOf);
  last = { game: frame.game, version: frame.version, seat: frame.seat, turnOf: turn };
  if (newGame) {
    if (!(view.table || []).length && !view.discard) cue("deal");
  } else if (!sameVersion && event && event.version === frame.version) {
    const a = event.action || {};
    let at = 0;
    if (["attack", "defend", "throw", "transfer", "show_trump"].includes(a.type)) {
      cue("play");
      at = 0.12;
    }
    if (event.round_end === "took") cue("take", at);
    if (event.round_end === "bito") cue("bito", at);
    if (event.round_end && (event.draws || []).some((n) => n > 0)) cue("deal", at + 0.35, 3);
  }
  if (turnStarts) {
    cue("turn", newGame ? 0.6 : 0.25);
    buzz();
  }
}

/** The Sound switch: a toggle button (aria-pressed = sound on), kept in localStorage. */
export function setupSoundToggle(button) {
  unlockOnGesture();
  if (!button) return;
  const render = () => button.setAttribute("aria-pressed", String(sound.on));
  button.addEventListener("click", () => {
    sound.on = !sound.on;
    render();
    if (sound.on) cue("turn");
  });
  render();
}
