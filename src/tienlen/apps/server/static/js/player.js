// A player's finished games (and, through the leaderboard, their ratings).
import { api, h } from "./api.js";
import { t } from "./i18n.js";

export async function mount(root, playerId) {
  const games = await api(`/api/players/${encodeURIComponent(playerId)}/games`);
  const render = () => {
    root.replaceChildren(h("section", { class: "player" },
      h("h1", {}, t("player.title", { name: playerId })),
      h("h2", {}, t("player.games")),
      games.length
        ? h("table", { class: "games" },
          h("thead", {}, h("tr", {}, ["player.when", "player.rules", "player.place", "player.delta"].map((k) => h("th", {}, t(k))), h("th", {}))),
          h("tbody", {}, games.map((g) => h("tr", {},
            h("td", {}, new Date(g.finished).toLocaleString()), h("td", {}, h("a", { href: `/leaderboard?rules=${encodeURIComponent(g.rules_key)}` }, g.rules_key)),
            h("td", {}, String(g.place + 1)), h("td", {}, (g.delta > 0 ? "+" : "") + g.delta),
            h("td", {}, h("a", { href: `/games/${encodeURIComponent(g.game)}` }, t("table.replay")))))))
        : h("p", {}, t("player.none"))));
  };
  render();
  return { rerender: render };
}
