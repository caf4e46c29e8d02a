// In-game help (issue 25, section 8; README "Learning the game"): the help
// button of the table bar (on phones too, where the keyboard list is no use)
// opens a dialog that says the phase in one sentence, what you may do now and
// the rules of this table. All of it comes from the frame the table draws:
// its view (phase, attacker, defender, taking) and your legal actions, sorted
// as the table sorts them (honest moves, cheats, accusations, the last call).
// It also replays the guided game and opens the keyboard shortcuts.

import { $, fill, h } from "./dom.js";
import { currentLanguage, t } from "./i18n.js";
import { summary } from "./rules.js";
import { seatName } from "./table.js";

/** The moves, in the order they are listed (as the buttons come on the table). */
const MOVES = ["attack", "defend", "take", "transfer", "show_trump", "throw", "pass"];

export class Help {
  /**
   * @param {object} hooks
   * @param {import("./table.js").TableView} hooks.table
   * @param {() => void} hooks.replay  start the guided game (leaving this one)
   * @param {() => boolean} hooks.shared  pass and play (no guided game from here)
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.table = hooks.table;
    this.el = $("#help");
    this.opener = null;
    this.armed = null; // the replay button's "tap again" timer
    $("#help-open").addEventListener("click", () => this.open());
    $('[data-action="help-close"]', this.el).addEventListener("click", () => this.close());
    $('[data-action="help-keys"]', this.el).addEventListener("click", () => {
      this.close(false);
      this.table.openKeys();
    });
    $('[data-action="guide-replay"]', this.el).addEventListener("click", () => this.replay());
    // Modal: Escape closes it (app.js keeps Tab inside; TableView ignores keys
    // while a dialog is open).
    document.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape" && this.isOpen) {
        this.close();
        ev.preventDefault();
      }
    });
    this.el.addEventListener("click", (ev) => {
      if (ev.target === this.el) this.close(); // a tap beside the dialog
    });
  }

  get isOpen() {
    return !this.el.hidden;
  }

  open() {
    if (!this.table.ctx) return;
    this.opener = document.activeElement;
    this.disarm();
    this.render();
    this.el.hidden = false;
    $('[data-action="help-close"]', this.el).focus();
  }

  close(restore = true) {
    this.el.hidden = true;
    this.disarm();
    const back = this.opener;
    this.opener = null;
    if (restore && back && back.isConnected && back.getClientRects().length) back.focus({ preventScroll: true });
  }

  /** After every drawing of the table: an open dialog follows the game. */
  update() {
    if (this.isOpen) this.render();
  }

  // ------------------------------------------------------------ the guided game
  /** A game in progress is left only on a second tap. */
  replay() {
    const view = this.table.ctx ? this.table.view : null;
    const playing = view && view.phase !== "over" && this.table.mySeat !== null;
    if (playing && !this.armed) {
      $('[data-action="guide-replay"]', this.el).textContent = t("help.replayConfirm");
      this.armed = setTimeout(() => this.disarm(), 4000);
      return;
    }
    this.close(false);
    this.hooks.replay();
  }

  disarm() {
    clearTimeout(this.armed);
    this.armed = null;
    $('[data-action="guide-replay"]', this.el).textContent = t("help.replay");
  }

  // ------------------------------------------------------------ what it says
  render() {
    const table = this.table;
    $("#help-phase").textContent = this.phaseSentence();
    const moves = this.moves();
    if (moves.length) {
      fill($("#help-moves"), moves.map(([kind, text]) => h("li", { dataset: { kind } }, text)));
    } else {
      const f = table.ctx.frame;
      const waiting = f.to_move !== null && f.to_move !== undefined && f.to_move !== table.mySeat && f.view.phase !== "over";
      const text = waiting ? t("help.nothing", { name: seatName(table.ctx.room, f.to_move) }) : t("help.nothingYet");
      fill($("#help-moves"), h("li", { class: "none" }, text));
    }
    $("#help-rules").textContent = summary(table.ctx.room.rules || {});
    $("a.help-howto", this.el).href = `howto/${currentLanguage()}.html`;
    $('[data-action="guide-replay"]', this.el).hidden = this.hooks.shared();
    if (!this.armed) this.disarm();
  }

  /** The phase in one sentence, from where you sit. */
  phaseSentence() {
    const table = this.table;
    const v = table.view;
    const me = table.mySeat;
    const name = (seat) => seatName(table.ctx.room, seat);
    const names = { attacker: name(v.attacker), defender: name(v.defender) };
    let key;
    if (v.phase === "over") key = "over";
    else if (v.phase === "last_call") key = "lastCall";
    else if (v.phase === "lead") key = v.attacker === me ? "leadYou" : v.defender === me ? "leadAtYou" : "leadOther";
    else if (v.phase === "defend") key = v.defender === me ? "defendYou" : "defendOther";
    else if (v.taking) key = v.defender === me ? "takingYou" : "takingOther";
    else key = v.defender === me ? "throwAtYou" : table.ctx.frame.to_move === me ? "throwYou" : "throwOther";
    return t(`help.now.${key}`, names);
  }

  /** [kind, sentence] for each kind of move you may make now. */
  moves() {
    const table = this.table;
    const names = {
      lead: t("table.lead"),
      take: t("table.take"),
      transfer: t("table.transfer"),
      showTrump: t("table.showTrump"),
      done: t("table.done"),
      pass: t("table.pass"),
      cheat: t("table.cheat"),
      catch: t("table.catch"),
      continue: t("table.continue"),
    };
    const types = new Set(table.honestActions.map((a) => a.type));
    const out = MOVES.filter((k) => types.has(k)).map((k) => [k, t(`help.move.${k === "pass" && table.view.taking ? "passTaking" : k}`, names)]);
    if (table.cheatActions.length) out.push(["cheat", t("help.move.cheat", names)]);
    if (table.legal.some((a) => a.type === "accuse")) out.push(["accuse", t("help.move.accuse", names)]);
    if (table.lastCallSeats().length) out.push(["lastCall", t("help.move.lastCall", names)]);
    return out;
  }
}
