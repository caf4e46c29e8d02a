// Tiny DOM helpers: no framework, just element building and look-ups.

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

/**
 * h("button", {class: "x", onclick: fn, dataset: {card: "TD"}}, "text", child)
 * Attributes whose value is null/undefined/false are skipped; true sets "".
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (key === "html") {
      el.innerHTML = value;
    } else if (key === "text") {
      el.textContent = value;
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replace every child of ``el`` with ``children``. */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

const drawnAs = new WeakMap(); // node -> its markup when it was drawn (fillKeeping)

/**
 * Like ``fill``, but each child whose new version draws exactly as the old one
 * did (the same markup) stays the same node. Lists that are redrawn on every
 * message (the room's seats, every second in a quick match's countdown) would
 * otherwise swallow a click or tap whose press and release straddle a redraw,
 * and a button's own state (a kick's first tap) would be lost.
 */
export function fillKeeping(el, ...children) {
  const next = children.flat().filter((c) => c !== null && c !== undefined && c !== false);
  const old = Array.from(el.childNodes);
  const kept = next.map((child, i) => {
    const markup = child instanceof Element ? child.outerHTML : null;
    const was = old[i];
    if (markup !== null && was && drawnAs.get(was) === markup) return was;
    if (markup !== null) drawnAs.set(child, markup);
    return child;
  });
  if (kept.length !== old.length || kept.some((node, i) => node !== old[i])) el.replaceChildren(...kept);
  return el;
}

export const prefersReducedMotion = () =>
  window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** The modal dialog on screen (result, privacy screen, shortcuts list), or null. */
export const openDialog = () => $$('.overlay[aria-modal="true"]').find((d) => !d.hidden) || null;
