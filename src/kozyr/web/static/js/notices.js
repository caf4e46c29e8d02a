// Short notices at the table: what happened that nobody asked about (the clock
// played for you, someone left and a bot took the seat, someone came back, a
// spectator joined or left, the host changed). Each shows for a few seconds in
// a strip that never covers the cards, and screen readers hear it.

import { $, h } from "./dom.js";
import { t } from "./i18n.js";

const SHOW_MS = 5000;
const KEEP = 3; // at most this many at once; older ones go first

/** The notices a change of the room (``prev`` -> ``next``) deserves, as texts,
 * for the person ``you`` (their own comings and goings are not news to them). */
export function roomNotices(prev, next, you) {
  if (!prev || !next || prev.code !== next.code) return [];
  const out = [];
  const mine = (seat) => you && you.seat === seat;
  next.seats.forEach((s, i) => {
    const was = prev.seats[i];
    if (!was || mine(s.seat)) return;
    if (was.human && !s.human && s.reserved_for) out.push(t("notice.leftBot", { name: s.reserved_for }));
    else if (was.human && s.human && !was.away && s.away) out.push(t("notice.awayBot", { name: s.name }));
    else if (!was.human && was.reserved_for && s.human) out.push(t("notice.back", { name: s.name }));
    else if (was.away && !s.away && s.human) out.push(t("notice.back", { name: s.name }));
  });
  const before = new Set(prev.spectators);
  const after = new Set(next.spectators);
  for (const name of next.spectators) if (!before.has(name)) out.push(t("notice.watching", { name }));
  for (const name of prev.spectators) if (!after.has(name)) out.push(t("notice.stoppedWatching", { name }));
  if (prev.host_name !== next.host_name && next.host_name) {
    out.push(you && you.host ? t("notice.youHost") : t("notice.host", { name: next.host_name }));
  }
  return out;
}

/** Show ``text`` for a few seconds (and have it read out). */
export function notify(text, announce) {
  const box = $("#notices");
  if (!box || !text) return;
  const item = h("li", { class: "notice" }, text);
  box.append(item);
  while (box.childElementCount > KEEP) box.firstElementChild.remove();
  setTimeout(() => item.remove(), SHOW_MS);
  if (announce) announce(text);
}
