// Ratings under one rule set (openskill, ranked by mu - 3 sigma).
import { api, h } from "./api.js";
import { t } from "./i18n.js";

export async function mount(root) {
  const { presets } = await api("/api/presets");
  const params = new URLSearchParams(location.search);
  let rules = params.get("rules") || "standard";
  let board = [];
  const load = async () => { board = await api(`/api/leaderboard?rules=${encodeURIComponent(rules)}`); render(); };
  const render = () => {
    const choice = h("select", { id: "board-rules" }, [...new Set([rules, ...Object.keys(presets)])].map((p) => h("option", { value: p }, p in presets ? t("preset." + p) : p)));
    choice.value = rules;
    choice.addEventListener("change", () => { rules = choice.value; history.replaceState(null, "", `?rules=${encodeURIComponent(rules)}`); load(); });
    root.replaceChildren(h("section", { class: "board" },
      h("h1", {}, t("board.title")),
      h("label", { for: "board-rules" }, t("board.rules"), choice),
      board.length
        ? h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, t("result.player")), h("th", {}, t("board.rating")), h("th", {}, t("board.games")))),
          h("tbody", {}, board.map((r, i) => h("tr", {}, h("td", {}, String(i + 1)),
            h("td", {}, h("a", { href: `/players/${r.player}` }, r.name)), h("td", {}, r.ordinal.toFixed(1)), h("td", {}, String(r.games))))))
        : h("p", {}, t("board.none"))));
  };
  await load();
  return { rerender: render };
}
