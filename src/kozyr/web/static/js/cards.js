// Playing cards drawn as inline SVG: vector, so they stay sharp at any size.
//
// A card is 250 x 350 units. Big corner indices (rank over suit) keep a card
// readable when it is small or overlapped in a fan; the centre has classic pip
// layouts, a large pip for aces and a framed emblem for court cards. Suits are
// the <symbol>s #suit-S/C/D/H of index.html, so every card shares one shape.
// Colours come from the look (css/app.css): each card carries its colour
// class (suit-red / suit-black) and its suit's (suit-S ...), so the candy
// table can colour the four suits apart.

import { rankShort } from "./i18n.js";

export const RANKS = "23456789TJQKA";
export const SUITS = "SCDH";
const RED = { H: true, D: true };

export const rankOf = (code) => code[0];
export const suitOf = (code) => code[1];
export const rankValue = (code) => RANKS.indexOf(code[0]);

/** Sort a hand: by suit (trump last), then by rank. */
export function sortHand(cards, trumpSuit) {
  const order = (c) => {
    const s = suitOf(c);
    const suitRank = s === trumpSuit ? 9 : "SDCH".indexOf(s);
    return suitRank * 20 + rankValue(c);
  };
  return [...cards].sort((a, b) => order(a) - order(b));
}

// Pip centres (x, y) for 2..10; pips below the middle are drawn upside down.
const L = 88;
const C = 125;
const R = 162;
const PIPS = {
  2: [[C, 88], [C, 262]],
  3: [[C, 88], [C, 175], [C, 262]],
  4: [[L, 88], [R, 88], [L, 262], [R, 262]],
  5: [[L, 88], [R, 88], [C, 175], [L, 262], [R, 262]],
  6: [[L, 88], [R, 88], [L, 175], [R, 175], [L, 262], [R, 262]],
  7: [[L, 88], [R, 88], [C, 131], [L, 175], [R, 175], [L, 262], [R, 262]],
  8: [[L, 88], [R, 88], [C, 131], [L, 175], [R, 175], [C, 219], [L, 262], [R, 262]],
  9: [[L, 88], [R, 88], [L, 146], [R, 146], [C, 175], [L, 204], [R, 204], [L, 262], [R, 262]],
  10: [[L, 88], [R, 88], [C, 117], [L, 146], [R, 146], [L, 204], [R, 204], [C, 233], [L, 262], [R, 262]],
};

function pip(suit, x, y, size) {
  const flip = y > 180 ? ` transform="rotate(180 ${x} ${y})"` : "";
  const half = size / 2;
  return `<use href="#suit-${suit}" x="${x - half}" y="${y - half}" width="${size}" height="${size}"${flip}/>`;
}

const CROWNS = {
  K: "M-34 18 -40 -22 -20 -2 0 -30 20 -2 40 -22 34 18z",
  Q: "M-28 16 -32 -14 -14 2 0 -22 14 2 32 -14 28 16z",
  J: "M-30 14C-30-8-14-22 4-22c14 0 26 8 30 18L10-4 12 14z",
};

function court(rank, suit, label) {
  return (
    `<rect x="58" y="60" width="134" height="230" rx="10" class="court-frame"/>` +
    `<g transform="translate(125 112)" class="court-crown"><path d="${CROWNS[rank]}"/></g>` +
    `<text x="125" y="215" text-anchor="middle" class="court-letter">${label}</text>` +
    pip(suit, 125, 258, 40).replace(/ transform="[^"]*"/, "")
  );
}

function corner(rankLabel, suit) {
  const long = rankLabel.length > 1;
  const fs = long ? 52 : 64;
  const spacing = long ? ` textLength="58" lengthAdjust="spacingAndGlyphs"` : "";
  return (
    `<text x="${long ? 8 : 36}" y="64" ${long ? "" : 'text-anchor="middle"'} font-size="${fs}" class="idx"${spacing}>${rankLabel}</text>` +
    `<use href="#suit-${suit}" x="16" y="76" width="40" height="40"/>`
  );
}

/**
 * The SVG markup of one face-up card ("TD"). ``opts.title`` adds an SVG title.
 */
export function cardSVG(code) {
  const rank = rankOf(code);
  const suit = suitOf(code);
  const label = rankShort(rank);
  const colour = RED[suit] ? "red" : "black";
  let centre;
  if (rank === "A") centre = pip(suit, 125, 175, 120);
  else if ("JQK".includes(rank)) centre = court(rank, suit, label);
  else centre = PIPS[Number(rank === "T" ? 10 : rank)].map(([x, y]) => pip(suit, x, y, 46)).join("");
  const idx = corner(label, suit);
  return (
    `<svg class="card-svg suit-${colour} suit-${suit}" viewBox="0 0 250 350" aria-hidden="true" focusable="false">` +
    `<rect x="2" y="2" width="246" height="346" rx="18" class="card-face"/>` +
    `<g class="ink">${idx}<g transform="rotate(180 125 175)">${idx}</g>${centre}</g>` +
    `</svg>`
  );
}

/** The SVG markup of a card back (colours come from the look; the candy
 * table swaps the lattice for stripes and the club for a wrapped sweet). */
export function backSVG() {
  return (
    `<svg class="card-svg back" viewBox="0 0 250 350" aria-hidden="true" focusable="false">` +
    `<rect x="2" y="2" width="246" height="346" rx="18" class="back-edge"/>` +
    `<rect x="16" y="16" width="218" height="318" rx="10" fill="url(#back-lattice)" class="back-inner"/>` +
    `<rect x="16" y="16" width="218" height="318" rx="10" class="back-frame"/>` +
    `<g transform="translate(95 145)" class="back-emblem"><use href="#suit-C" width="60" height="60"/></g>` +
    `<g transform="translate(65 115)" class="back-sweet"><circle cx="60" cy="60" r="52" class="back-sweet-disc"/><use href="#candy-mark" x="10" y="10" width="100" height="100"/></g>` +
    `</svg>`
  );
}

/** A small inline suit symbol for text ("8♣" in buttons and messages). */
export function suitIcon(suit) {
  const colour = RED[suit] ? "red" : "black";
  return `<svg class="suit-icon suit-${colour} suit-${suit}" viewBox="0 0 100 100" aria-hidden="true"><use href="#suit-${suit}"/></svg>`;
}

/** "8♣" as HTML (rank text + suit symbol). */
export function cardLabelHTML(code) {
  return `<span class="card-label">${rankShort(rankOf(code))}${suitIcon(suitOf(code))}</span>`;
}
