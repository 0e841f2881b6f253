// A finished game's analysis (routes/analysis.py): the "Analyse" action with its progress,
// each move's label and the best alternative, and the win-probability curve as SVG. The
// values come from the server; nothing here knows a rule of the game.
import { api, h } from "./api.js";
import { cardsText } from "./cards.js";
import { t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 160;
// One colour a seat (up to eight).
const COLOURS = ["#c0392b", "#2471a3", "#1e8449", "#b9770e", "#7d3c98", "#117a65", "#566573", "#a04000"];

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children) node.append(c);
  return node;
}

/** The analysed decision of action `number` (from 1), if any. */
export function markOf(analysis, number) {
  return analysis?.decisions.find((d) => d.number === number) ?? null;
}

/** One move's label and, unless it was the best, the best choice and what was lost. */
export function markLine(decision) {
  if (!decision) return null;
  const words = [h("span", { class: `label label-${decision.label}` }, t(`label.${decision.label}`))];
  if (decision.label !== "best") {
    const best = decision.best === "pass" ? t("kind.pass") : cardsText(decision.best.split(" "));
    const lost = Math.round(decision.loss.mean * 100);
    words.push(" ", t("analysis.lost", { n: lost }), " · ", t("analysis.best", { play: best }));
  }
  return h("p", { class: "analysis-mark", id: "analysis-mark" }, ...words);
}

/** Each player's win probability over the game: one line per seat. */
export function curveSvg(analysis, names, total) {
  const x = (n) => (WIDTH * n) / Math.max(1, total);
  const y = (p) => HEIGHT - HEIGHT * p;
  const lines = analysis.players.filter((p) => p.curve.length).map((p) => svg("polyline", {
    class: `curve seat-${p.seat}`, fill: "none", "stroke-width": 2, stroke: COLOURS[p.seat % COLOURS.length],
    points: p.curve.map(([n, w]) => `${x(n).toFixed(1)},${y(w).toFixed(1)}`).join(" "),
  }, svg("title", {}, document.createTextNode(names[p.seat]))));
  const frame = svg("rect", { x: 0, y: 0, width: WIDTH, height: HEIGHT, fill: "#fff", stroke: "#999" });
  const half = svg("line", {
    x1: 0, x2: WIDTH, y1: y(0.5), y2: y(0.5), class: "curve-half", stroke: "#ccc", "stroke-dasharray": 4,
  });
  const chart = svg("svg", {
    class: "win-curve", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: WIDTH, height: HEIGHT, role: "img",
    "aria-label": t("analysis.curve"),
  }, frame, half, ...lines);
  const legend = h("p", { class: "curve-legend" }, analysis.players.map((p) => h("span", {
    style: `color: ${COLOURS[p.seat % COLOURS.length]}; margin-right: 1em`,
  }, `■ ${names[p.seat]}`)));
  return h("figure", { class: "analysis-curve" }, chart, h("figcaption", {}, t("analysis.curve")), legend);
}

/** Accuracy and label counts per player. */
export function summary(analysis, names) {
  return h("table", { class: "analysis-summary", cellpadding: 4 },
    h("tr", {}, h("th", {}, t("analysis.player")), h("th", {}, t("analysis.accuracy")),
      ...["best", "good", "inaccuracy", "mistake", "blunder"].map((l) => h("th", {}, t(`label.${l}`)))),
    analysis.players.map((p) => h("tr", { dataset: { seat: p.seat } },
      h("td", {}, names[p.seat]), h("td", {}, p.accuracy === null ? "-" : `${p.accuracy}%`),
      ...Object.values(p.labels).map((n) => h("td", {}, String(n))))));
}

/** The "Analyse" action of a finished game: starts the review, shows its progress and,
 * once done, calls `done(analysis)`. */
export function analyseButton(gameId, done) {
  const status = h("span", { class: "analysis-status", role: "status" });
  const path = `/api/games/${encodeURIComponent(gameId)}/analysis`;
  const show = (view) => {
    if (view.status === "done") { status.textContent = ""; done(view.analysis); return true; }
    if (view.status === "failed") { status.textContent = view.message; return true; }
    status.textContent = t("analysis.progress", { done: view.done, total: view.total });
    return false;
  };
  const poll = async () => {
    if (!show(await api(path))) setTimeout(poll, 1000);
  };
  const button = h("button", {
    type: "button", id: "analyse",
    onclick: async () => {
      button.disabled = true;
      try {
        if (!show(await api(path, {}))) setTimeout(poll, 1000);
      } catch (err) {
        status.textContent = err.message;
        button.disabled = false;
      }
    },
  }, t("analysis.analyse"));
  // an analysis already made is shown at once
  api(path).then((view) => { if (view.status === "done") show(view); }).catch(() => {});
  return h("span", { class: "analysis-action" }, button, " ", status);
}
