// The page shell: navigation, the language switch, and the page the URL names.
import { ensureGuest, h } from "./api.js";
import { lang, setLang, t, translate } from "./i18n.js";

const PAGES = [
  [/^\/$/, () => import("./lobby.js")],
  [/^\/t\/([^/]+)$/, () => import("./table.js")],
  [/^\/games\/([^/]+)$/, () => import("./replay.js")],
  [/^\/players\/([^/]+)$/, () => import("./player.js")],
  [/^\/leaderboard$/, () => import("./leaderboard.js")],
  [/^\/rules$/, () => import("./rules.js")],
  [/^\/pads$/, () => import("./pads.js")],
  [/^\/pads\/([^/]+)$/, () => import("./pads.js")],
  [/^\/puzzles$/, () => import("./puzzle.js")],
  [/^\/puzzles\/([^/]+)$/, () => import("./puzzle.js")],
];

const root = document.getElementById("page");
let current = null;

function nav() {
  const bar = document.getElementById("nav");
  const mine = h("a", { href: "#", "data-i18n": "nav.mine" });
  mine.addEventListener("click", async (ev) => {
    ev.preventDefault();
    const me = await ensureGuest(root);
    location.href = `/players/${me.player}`;
  });
  const switcher = h("button", { type: "button", id: "lang", class: "lang", "data-i18n": "lang.switch" });
  switcher.addEventListener("click", () => setLang(lang() === "vi" ? "en" : "vi"));
  bar.replaceChildren(
    h("a", { href: "/", class: "brand", "data-i18n": "app.title" }),
    h("a", { href: "/", "data-i18n": "nav.lobby" }),
    h("a", { href: "/rules", "data-i18n": "nav.rules" }),
    h("a", { href: "/leaderboard", "data-i18n": "nav.leaderboard" }),
    h("a", { href: "/pads", "data-i18n": "nav.pad" }),
    h("a", { href: "/puzzles", "data-i18n": "nav.puzzles" }),
    mine,
    switcher,
  );
}

async function main() {
  document.documentElement.lang = lang();
  nav();
  translate();
  window.addEventListener("tienlen-lang", async () => {
    translate();
    document.title = t("app.title");
    // A page that mounts itself again hands back its new self.
    if (current && current.rerender) current = (await current.rerender()) || current;
  });
  for (const [pattern, load] of PAGES) {
    const m = location.pathname.match(pattern);
    if (m) {
      const page = await load();
      current = await page.mount(root, ...m.slice(1).map(decodeURIComponent));
      return;
    }
  }
  root.textContent = "404";
}

main();

// Installable: the service worker keeps the page's files and shows an offline page.
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch(() => { /* a page without it works the same */ });
}
