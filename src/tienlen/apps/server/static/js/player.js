// A player: their ratings (one per rule set) and their finished games.
import { api, h } from "./api.js";
import { t } from "./i18n.js";

export async function mount(root, playerId) {
  const id = encodeURIComponent(playerId);
  const [card, games] = await Promise.all([api(`/api/players/${id}`), api(`/api/players/${id}/games`)]);
  const board = (key) => h("a", { href: `/leaderboard?rules=${encodeURIComponent(key)}` }, key);
  const render = () => {
    root.replaceChildren(h("section", { class: "player" },
      h("h1", {}, t("player.title", { name: card.name })),
      h("h2", {}, t("board.rating")),
      card.ratings.length
        ? h("table", { class: "ratings" },
          h("thead", {}, h("tr", {}, h("th", {}, t("board.rules")), h("th", {}, t("board.rating")), h("th", {}, t("board.games")))),
          h("tbody", {}, card.ratings.map((r) => h("tr", {},
            h("td", {}, board(r.rules_key)), h("td", {}, r.ordinal.toFixed(1)), h("td", {}, String(r.games))))))
        : h("p", {}, t("board.none")),
      h("h2", {}, t("player.games")),
      games.length
        ? h("table", { class: "games" },
          h("thead", {}, h("tr", {}, ["player.when", "player.rules", "player.place", "player.delta"].map((k) => h("th", {}, t(k))), h("th", {}))),
          h("tbody", {}, games.map((g) => h("tr", {},
            h("td", {}, new Date(g.finished).toLocaleString()), h("td", {}, board(g.rules_key)),
            h("td", {}, String(g.place + 1)), h("td", {}, (g.delta > 0 ? "+" : "") + g.delta),
            h("td", {}, h("a", { href: `/games/${encodeURIComponent(g.game)}` }, t("table.replay")))))))
        : h("p", {}, t("player.none"))));
  };
  render();
  return { rerender: render };
}
