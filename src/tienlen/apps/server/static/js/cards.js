// Cards drawn as SVG (this project's own drawing): a face from a card identifier ("10h",
// "3s'" for a second deck's copy), or a plain back that says nothing about the card.
import { t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
const SUITS = { s: "♠", c: "♣", d: "♦", h: "♥" };
const RED = new Set(["d", "h"]);

/** {rank, suit, second} of a card identifier. */
export function parseCard(id) {
  const second = id.endsWith("'");
  const core = second ? id.slice(0, -1) : id;
  return { rank: core.slice(0, -1), suit: core.slice(-1), second };
}

/** "3♠" (with ' for a second deck's copy). */
export function cardText(id) {
  const { rank, suit, second } = parseCard(id);
  return rank + SUITS[suit] + (second ? "'" : "");
}

/** Cards as text: "3♠ 4♠ 5♦". */
export function cardsText(ids) {
  return ids.map(cardText).join(" ");
}

/** The accessible name of a card: "3 of spades" / "3 bích". */
export function cardLabel(id) {
  const { rank, suit, second } = parseCard(id);
  return t("card.name", { rank, suit: t("suit." + suit) }) + (second ? " ′" : "");
}

function el(name, attrs, text) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A card's face: rank and suit in two corners, a large suit in the middle. */
export function cardFace(id) {
  const { rank, suit, second } = parseCard(id);
  const svg = el("svg", { viewBox: "0 0 60 84", class: "card-svg", "aria-hidden": "true" });
  const colour = RED.has(suit) ? "#c0212f" : "#1b1b1f";
  svg.append(el("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#fffdf7", stroke: "#7a7a7a" }));
  if (second) svg.append(el("rect", { x: 4, y: 4, width: 52, height: 76, rx: 4, fill: "none", stroke: "#3a6fd8", "stroke-dasharray": "3 2" }));
  svg.append(el("text", { x: 6, y: 19, "font-size": 16, "font-weight": 700, fill: colour }, rank));
  svg.append(el("text", { x: 6, y: 34, "font-size": 14, fill: colour }, SUITS[suit]));
  svg.append(el("text", { x: 30, y: 60, "font-size": 30, "text-anchor": "middle", fill: colour }, SUITS[suit]));
  const corner = el("g", { transform: "rotate(180 30 42)" });
  corner.append(el("text", { x: 6, y: 19, "font-size": 16, "font-weight": 700, fill: colour }, rank));
  svg.append(corner);
  return svg;
}

/** A card's back: a lattice, the same for every card. */
export function cardBack() {
  const svg = el("svg", { viewBox: "0 0 60 84", class: "card-svg", role: "img", "aria-label": t("card.back") });
  svg.append(el("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#8c1d2c", stroke: "#5a0f19" }));
  svg.append(el("rect", { x: 6, y: 6, width: 48, height: 72, rx: 3, fill: "none", stroke: "#e6b85c", "stroke-width": 1.5 }));
  for (let i = 0; i < 6; i++) {
    svg.append(el("line", { x1: 6, y1: 6 + i * 14, x2: 54, y2: 20 + i * 14, stroke: "#e6b85c", "stroke-width": 0.6 }));
  }
  return svg;
}

/** A face-up card that is not a button (piles, results, replays). */
export function cardImage(id) {
  const span = document.createElement("span");
  span.className = "card";
  span.setAttribute("role", "img");
  span.setAttribute("aria-label", cardLabel(id));
  span.dataset.card = id;
  span.append(cardFace(id));
  return span;
}

/** A row of face-up cards. */
export function cardRow(ids) {
  const div = document.createElement("div");
  div.className = "card-row";
  for (const id of ids) div.append(cardImage(id));
  return div;
}
