// A finished game, move by move, with every hand shown (from /api/games/{id}/steps).
import { api, h } from "./api.js";
import { cardRow, cardsText } from "./cards.js";
import { t } from "./i18n.js";
import { analyseButton, curveSvg, markLine, markOf, summary } from "./analysis.js";

export async function mount(root, gameId) {
  const data = await api(`/api/games/${encodeURIComponent(gameId)}/steps`);
  let at = 0; // 0: the deal; n: after step n
  const total = data.steps.length;
  let analysis = null; // once analysed: every decision's label (routes/analysis.py)
  const action = analyseButton(gameId, (done) => { analysis = done; render(); });

  const render = () => {
    const step = at ? data.steps[at - 1] : null;
    const hands = step ? step.hands : data.hands;
    const pile = step ? step.pile : [];
    const go = (n) => { at = Math.max(0, Math.min(total, n)); render(); };
    const last = !step ? ""
      : step.kind === "ask"
        ? t("log.ask", { name: data.names[step.seat], partner: data.names[step.partner], n: step.hands[step.partner].length })
        : `${data.names[step.seat]}: ${step.kind === "play" ? cardsText(step.cards) : t("kind." + (step.kind === "give" ? "give" : "pass"))}`;
    root.replaceChildren(h("section", { class: "replay" },
      h("h1", {}, t("game.title", { id: data.id }), " · ", data.rules),
      h("div", { class: "steps" },
        h("button", { type: "button", id: "first", onclick: () => go(0) }, t("game.start")),
        h("button", { type: "button", id: "prev", onclick: () => go(at - 1) }, t("game.prev")),
        h("span", { id: "where", role: "status" }, t("game.move", { n: at, total })),
        h("button", { type: "button", id: "next", onclick: () => go(at + 1) }, t("game.next")),
        h("button", { type: "button", id: "last", onclick: () => go(total) }, t("game.end"))),
      h("p", { class: "last-move", id: "last-move" }, last),
      at ? markLine(markOf(analysis, at)) : null,
      h("div", { class: "replay-hands" }, hands.map((cards, seat) => h("div", { class: "replay-seat", dataset: { seat } },
        h("span", { class: "who" }, `${data.names[seat]} (${cards.length})`), cardRow(cards)))),
      h("section", { class: "pile" }, h("h2", {}, t("table.pile")),
        h("ol", {}, pile.filter((p) => p.kind !== "pass").map((p) => h("li", {},
          h("span", { class: "who" }, `${data.names[p.seat]} · ${t("kind." + p.kind)}`), cardRow(p.cards))))),
      data.result && at === total
        ? h("section", { class: "result" }, h("h2", {}, t("result.order")),
          h("ol", {}, data.result.finish_order.map((seat) => h("li", {},
            `${data.names[seat]}: ${data.result.scores[seat] > 0 ? "+" : ""}${data.result.scores[seat]}`))))
        : null,
      data.seed ? h("p", { class: "seed" }, `${t("game.seed")}: `, h("code", {}, data.seed)) : null,
      h("section", { class: "analysis", id: "analysis" }, h("h2", {}, t("analysis.title")),
        analysis ? [summary(analysis, data.names), curveSvg(analysis, data.names, total)] : action)));
  };
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowRight") { at = Math.min(total, at + 1); render(); }
    if (ev.key === "ArrowLeft") { at = Math.max(0, at - 1); render(); }
  });
  render();
  return { rerender: render };
}
