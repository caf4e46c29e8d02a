// The table options (docs/rules.md) as a form section, shared by the
// "computer", "online room" and "pass and play" forms, plus a one-line summary.

import { h } from "./dom.js";
import { currentLanguage, t } from "./i18n.js";

const CHOICES = {
  deck: [24, 36, 52],
  variant: ["podkidnoy", "perevodnoy"],
  throw_in: ["all", "neighbours"],
  first_round_cap: ["off", "first_round", "until_first_bito"],
  teams: ["none", "2v2", "3v3", "2v2v2"],
  first_attacker: ["lowest_trump", "durak_attacked", "after_durak"],
};
const SWITCHES = ["lead_multiple", "transfer_show_trump", "pogony", "repetition_draw", "throw_in_after_take", "cheating"];
export const DEFAULT_RULES = {
  deck: 36,
  variant: "podkidnoy",
  lead_multiple: true,
  first_round_cap: "off",
  throw_in: "all",
  transfer_show_trump: false,
  teams: "none",
  first_attacker: "lowest_trump",
  pogony: true,
  repetition_draw: true,
  throw_in_after_take: true,
  cheating: false,
};
const TEAM_PLAYERS = { "2v2": [4], "3v3": [6], "2v2v2": [6] };

/** Build the rules section inside ``slot``; returns {read(), setPlayers(n), refresh()}. */
export function rulesForm(slot, prefix) {
  const id = (name) => `${prefix}-rule-${name}`;
  const selects = {};
  const checks = {};
  let players = 4;

  const body = h("div", { class: "rules-grid" });
  for (const [name, values] of Object.entries(CHOICES)) {
    const sel = h("select", { id: id(name), name });
    for (const v of values) sel.append(h("option", { value: String(v) }));
    sel.value = String(DEFAULT_RULES[name]);
    selects[name] = sel;
    body.append(
      h("div", { class: "field" }, h("div", { class: "rule-head" }, h("label", { for: id(name), "data-rule-label": name }), about(name)), sel),
    );
  }
  for (const name of SWITCHES) {
    const box = h("input", { type: "checkbox", id: id(name), name });
    box.checked = Boolean(DEFAULT_RULES[name]);
    checks[name] = box;
    body.append(
      h("div", { class: "rule-check" }, h("label", { class: "inline check", for: id(name) }, box, h("span", { "data-rule-label": name })), about(name)),
    );
  }
  // The box says it opens (a chevron and "Change"): the variants hide in it.
  const details = h(
    "details",
    { class: "rules" },
    h(
      "summary",
      {},
      h("span", { class: "rules-title" }),
      " ",
      h("span", { class: "rules-summary" }),
      h("span", { class: "rules-open" }, h("span", { class: "rules-open-text" }), h("span", { class: "rules-chevron", "aria-hidden": "true" })),
    ),
    body,
  );
  slot.replaceChildren(details);

  function relabel() {
    details.querySelector(".rules-title").textContent = t("rules.title");
    details.querySelector(".rules-open-text").textContent = t("rules.change");
    for (const el of details.querySelectorAll("[data-rule-label]")) {
      el.textContent = t(`rules.${el.dataset.ruleLabel}`);
    }
    for (const a of details.querySelectorAll("a.rule-about")) {
      a.href = `howto/${currentLanguage()}.html#opt-${a.dataset.rule}`;
      const label = t("rules.about", { option: t(`rules.${a.dataset.rule}`) });
      a.setAttribute("aria-label", label);
      a.title = label;
    }
    for (const [name, sel] of Object.entries(selects)) {
      for (const opt of sel.options) opt.textContent = t(`rules.values.${name}.${opt.value}`);
    }
    details.querySelector(".rules-summary").textContent = `(${summary(read())})`;
  }

  // Options that do not fit the table are disabled (the server checks too).
  function constrain() {
    for (const opt of selects.deck.options) opt.disabled = Number(opt.value) < players * 6;
    if (selects.deck.selectedOptions[0]?.disabled) selects.deck.value = players > 4 ? "36" : selects.deck.value;
    for (const opt of selects.teams.options) {
      const need = TEAM_PLAYERS[opt.value];
      opt.disabled = Boolean(need) && !need.includes(players);
    }
    if (selects.teams.selectedOptions[0]?.disabled) selects.teams.value = "none";
    const perevodnoy = selects.variant.value === "perevodnoy";
    checks.transfer_show_trump.disabled = !perevodnoy;
    if (!perevodnoy) checks.transfer_show_trump.checked = false;
    relabel();
  }

  function read() {
    const rules = {};
    for (const [name, sel] of Object.entries(selects)) {
      rules[name] = name === "deck" ? Number(sel.value) : sel.value;
    }
    for (const [name, box] of Object.entries(checks)) rules[name] = box.checked;
    return rules;
  }

  body.addEventListener("change", constrain);
  constrain();
  return {
    read,
    setPlayers(n) {
      players = n;
      constrain();
    },
    refresh: relabel,
  };
}

/** The option's own section of the how-to page (a new tab: the form stays as it is). */
function about(name) {
  return h("a", { class: "rule-about", dataset: { rule: name }, target: "_blank", rel: "noopener" }, h("span", { "aria-hidden": "true" }, "?"));
}

/** "Perevodnoy · 36 cards · teams 2v2" */
export function summary(rules) {
  const parts = [t(`rules.values.variant.${rules.variant || "podkidnoy"}`), t("rules.deckCards", { n: rules.deck || 36 })];
  if (rules.transfer_show_trump) parts.push(t("rules.transfer_show_trump"));
  if (rules.teams && rules.teams !== "none") parts.push(t(`rules.values.teams.${rules.teams}`));
  if (rules.throw_in === "neighbours") parts.push(t("rules.values.throw_in.neighbours"));
  if (rules.first_round_cap && rules.first_round_cap !== "off") {
    parts.push(t(`rules.values.first_round_cap.${rules.first_round_cap}`));
  }
  if (rules.lead_multiple === false) parts.push(t("rules.singleLead"));
  if (rules.pogony === false) parts.push(t("rules.noPogony"));
  if (rules.repetition_draw === false) parts.push(t("rules.noRepetitionDraw"));
  if (rules.throw_in_after_take === false) parts.push(t("rules.noThrowInAfterTake"));
  if (rules.cheating) parts.push(t("rules.withCheating"));
  return parts.join(" · ");
}
