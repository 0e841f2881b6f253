// The service worker: the page's own files are kept, so the app opens at once and says
// plainly when the server cannot be reached. Play itself always needs the server: the
// API and the sockets are never cached.
const CACHE = "tienlen-static-v2";
const FILES = [
  "/static/style.css", "/static/offline.html", "/static/icon.svg", "/static/app-icon.svg",
  "/static/manifest.json", "/static/js/app.js", "/static/js/api.js", "/static/js/i18n.js",
  "/static/js/cards.js", "/static/js/lobby.js", "/static/js/rules.js", "/static/js/table.js",
  "/static/js/tablestate.js", "/static/js/tableview.js", "/static/js/sound.js",
  "/static/js/pads.js", "/static/js/replay.js", "/static/js/player.js", "/static/js/leaderboard.js",
  "/static/js/analysis.js", "/static/js/puzzle.js",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin) return;
  if (request.mode === "navigate") {
    // A page: the server's answer, or the honest offline page.
    event.respondWith(fetch(request).catch(() => caches.match("/static/offline.html")));
    return;
  }
  if (!url.pathname.startsWith("/static/")) return; // the API: always the server
  // A file: the server's newest copy (kept for later), else the kept one.
  event.respondWith(fetch(request)
    .then((response) => {
      if (response.ok) {
        const copy = response.clone();
        caches.open(CACHE).then((c) => c.put(request, copy));
      }
      return response;
    })
    .catch(() => caches.match(request)));
});
