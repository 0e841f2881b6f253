// Puzzles (routes/analysis.py): every hand face up, find the one play that forces the win.
// The legal choices and the verdict come from the server (its solver); the rating is an
// Elo rating kept in this browser, each puzzle rated by the server.
import { api, h } from "./api.js";
import { cardRow, cardsText } from "./cards.js";
import { t } from "./i18n.js";

const KEY = "tienlen.puzzles";

function saved() {
  try {
    const data = JSON.parse(localStorage.getItem(KEY) || "{}");
    return { rating: Number(data.rating) || 1500, seen: data.seen || {} };
  } catch {
    return { rating: 1500, seen: {} };
  }
}

function elo(rating, puzzle, solved) {
  const expected = 1 / (1 + 10 ** ((puzzle - rating) / 400));
  return rating + 32 * ((solved ? 1 : 0) - expected);
}

function playText(cards) {
  return cards.length ? cardsText(cards) : t("kind.pass");
}

export async function mount(root, puzzleId) {
  let state = saved();
  const list = await api("/api/puzzles");
  const next = () => list.filter((p) => !(p.id in state.seen))
    .sort((a, b) => Math.abs(a.rating - state.rating) - Math.abs(b.rating - state.rating))[0] ?? list[0];
  const id = puzzleId || next().id;
  const p = await api(`/api/puzzles/${encodeURIComponent(id)}`);
  const result = h("section", { class: "puzzle-result", id: "puzzle-result", role: "status" });
  const answer = async (cards) => {
    for (const b of root.querySelectorAll(".puzzle-choices button")) b.disabled = true;
    const verdict = await api(`/api/puzzles/${encodeURIComponent(id)}/answer`, { cards });
    const lines = [h("p", { class: verdict.correct ? "right" : "wrong" },
      verdict.correct ? t("puzzle.right", { play: playText(cards) })
        : t("puzzle.wrong", { play: playText(verdict.solution) }))];
    lines.push(h("p", {}, t("puzzle.line"), " ",
      verdict.line.map((a) => `S${a.seat} ${playText(a.cards)}`).join(", ")));
    if (!(id in state.seen)) {
      const rating = elo(state.rating, p.rating, verdict.correct);
      state = { rating, seen: { ...state.seen, [id]: verdict.correct } };
      localStorage.setItem(KEY, JSON.stringify(state));
    }
    lines.push(h("p", {}, t("puzzle.rating", { n: Math.round(state.rating) })),
      h("a", { href: "/puzzles", "data-link": "" }, t("puzzle.next")));
    result.replaceChildren(...lines);
  };
  const task = p.out.length ? t("puzzle.ahead", { seat: `S${p.seat}` }) : t("puzzle.first", { seat: `S${p.seat}` });
  root.replaceChildren(h("section", { class: "puzzle" },
    h("h1", {}, t("puzzle.title", { id: p.id }), " · ", t(`puzzle.${p.difficulty}`), ` (${p.rating})`),
    h("p", { class: "puzzle-task" }, task),
    h("div", { class: "replay-hands" }, p.hands.map((cards, seat) => h("div", {
      class: `replay-seat${seat === p.seat ? " to-act" : ""}`, dataset: { seat },
    }, h("span", { class: "who" }, `S${seat} (${cards.length})`), cardRow(cards)))),
    h("section", { class: "pile" }, h("h2", {}, t("table.pile")),
      h("ol", {}, p.pile.map((a) => h("li", {}, h("span", { class: "who" }, `S${a.seat}`), cardRow(a.cards))))),
    h("div", { class: "puzzle-choices" }, p.choices.map((cards) => h("button", {
      type: "button", onclick: () => answer(cards),
    }, playText(cards)))),
    result));
  return { rerender: () => mount(root, id) };
}
