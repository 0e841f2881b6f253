// The table page: the socket to /ws/tables/{id}, the state (tablestate.js: every frame and
// tap goes through reduce) and its drawing (tableview.js), plus what only a page can do:
// keys, sounds, the slide of a play, the clock of the countdowns.
import { api, ensureGuest, h, wsUrl } from "./api.js";
import { loadLevels, loadPhrases, loadReasons, t } from "./i18n.js";
import { play as playSound, setSound, soundOn } from "./sound.js";
import { initialState, reduce, selection } from "./tablestate.js";
import { render } from "./tableview.js";

const FINAL_CLOSE = 4400; // 44xx: refused for good (bad token, forbidden, no such table)
// Keeping a socket alive (docs/web-protocol.md), in ms: a ping after `ping` without a frame
// (while the page is shown: a player's hidden tabs send none); a socket that answers nothing
// for `silent` (a lease, so that a paused owner's tables are free by then), or does not open
// within `open`, is given up. Its welcome may take up to `welcome`: a relayed opening waits
// while the table changes owners. These are the server's defaults, until a welcome's
// `keepalive` (in seconds, from the site's lease) replaces them.
const KEEPALIVE = { ping: 2000, silent: 5000, open: 5000, welcome: 20000 };
const WATCH_EVERY = 500;
// A welcome's `keepalive` in ms; the defaults for what it lacks (an older server's welcome).
const keepalive = (given) => Object.fromEntries(Object.entries(KEEPALIVE)
  .map(([k, ms]) => [k, typeof given?.[k] === "number" && given[k] > 0 ? given[k] * 1000 : ms]));
const still = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

export async function mount(root, tableId) {
  const me = await ensureGuest(root);
  await Promise.all([loadReasons(), loadPhrases(), loadLevels()]);
  const params = new URLSearchParams(location.search);
  const invite = params.get("invite");
  let st = initialState(me.player, { wantSit: params.get("sit") === "1" });
  let socket = null;
  let retry = 0;
  let drawer = false;
  let chatSeen = 0;
  let bannerTimer = null;
  let resultTimer = null;
  const banner = document.getElementById("banner");
  document.body.classList.add("at-table");

  const showBanner = (text, kind) => {
    clearTimeout(bannerTimer);
    banner.hidden = false;
    banner.className = kind;
    banner.textContent = text;
    if (kind === "ok") bannerTimer = setTimeout(() => { banner.hidden = true; }, 3000);
  };

  const send = (msg) => {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(msg));
  };
  const act = (type, fields = {}) => send({ type, ...fields, version: st.version });

  const dispatch = (msg) => {
    const before = st;
    st = reduce(st, msg);
    if (st.wantSit && st.table) sitFirstFree();
    startIfAsked();
    draw(before);
    for (const effect of st.effects) perform(effect);
  };

  const sitFirstFree = () => {
    st = reduce(st, { type: "sat" });
    if (st.seat !== null || st.table.status !== "waiting") return;
    const free = st.table.seats.find((s) => !s.player);
    if (free) send({ type: "sit", seat: free.seat });
  };

  // "Play now": once seated at a table of one's own, deal at once.
  let startNow = params.get("start") === "1";
  const startIfAsked = () => {
    if (!startNow || !st.table || st.seat === null || st.table.status !== "waiting" || st.me !== st.table.host) return;
    startNow = false;
    send({ type: "start" });
    history.replaceState(null, "", `${location.pathname}${invite ? `?invite=${encodeURIComponent(invite)}` : ""}`);
  };

  const perform = (effect) => {
    if (effect.kind === "sound") playSound(effect.sound);
    else if (effect.kind === "sync") send({ type: "sync", version: st.version });
    else if (effect.kind === "slide") slide(effect.seat);
  };

  // A play slides from its seat to the pile (not under prefers-reduced-motion).
  const slide = (seat) => {
    if (still()) return;
    const from = root.querySelector(`.seat[data-seat="${seat}"] .avatar`);
    const to = root.querySelector("#pile li.top .card-row");
    if (!from || !to || !to.animate) return;
    const a = from.getBoundingClientRect();
    const b = to.getBoundingClientRect();
    const dx = a.left + a.width / 2 - (b.left + b.width / 2);
    const dy = a.top + a.height / 2 - (b.top + b.height / 2);
    to.animate([{ transform: `translate(${dx}px, ${dy}px) scale(.5)`, opacity: 0.3 }, { transform: "none", opacity: 1 }],
      { duration: 280, easing: "cubic-bezier(.2,.8,.3,1)" });
  };

  // --- the socket ------------------------------------------------------------------------
  // Where the socket opens: this page's node, or the table's owner that node sent us to
  // (`target`; "moved" in docs/web-protocol.md: `moves` in a row, which the nodes bound).
  // A node that hangs (paused) keeps its sockets up without a word, so the page pings a
  // quiet socket and gives it up when nothing comes ("Keeping alive" in the same document):
  // a socket at the owner then opens relayed at this page's node, whose forwards find the
  // table's next owner once the hung one's lease (the welcome's `silent`) has run out.
  let target = null;
  let moves = 0;
  let relay = false;
  let keep = KEEPALIVE; // the last welcome's: its socket's, and the next one's until welcomed
  const connect = () => {
    const q = new URLSearchParams();
    if (invite) q.set("invite", invite);
    if (st.version > 0) q.set("since", String(st.version));
    if (target) q.set("moves", String(moves));
    if (relay) q.set("relay", "1");
    const ws = new WebSocket(`${target || wsUrl(`/ws/tables/${encodeURIComponent(tableId)}`)}?${q}`);
    socket = ws;
    let opened = false;
    let welcomed = false;
    let heard = Date.now(); // the last frame (or the opening)
    let waiting = Date.now(); // since when an answer is due (null: none)
    const watch = setInterval(() => {
      if (socket !== ws) { clearInterval(watch); return; }
      const now = Date.now();
      const limit = !opened ? keep.open : welcomed ? keep.silent : keep.welcome;
      if (waiting !== null && now - waiting > limit) {
        // Hung: dropped without waiting for its close (a hung node never answers that).
        socket = null;
        ws.close();
        clearInterval(watch);
        gone(opened, 1006, true);
      } else if (welcomed && waiting === null && !document.hidden && now - heard >= keep.ping) {
        waiting = now;
        send({ type: "ping" });
      }
    }, WATCH_EVERY);
    ws.onopen = () => {
      opened = true;
      retry = 0;
      waiting = Date.now(); // the welcome is due (a relayed one waits for the owner)
      if (st.lost) showBanner(t("conn.back"), "ok");
    };
    ws.onmessage = (ev) => {
      if (socket !== ws) return; // a socket given up on
      heard = Date.now();
      waiting = null;
      const msg = JSON.parse(ev.data);
      if (msg.type === "pong") return;
      if (msg.type === "moved") {
        // To the owner (or, without a url, back to this page's node, which knows the new one).
        socket = null;
        ws.close();
        target = msg.url || null;
        moves = target ? moves + 1 : 0;
        relay = false;
        connect();
        return;
      }
      if (msg.type === "welcome") {
        moves = 0;
        welcomed = true;
        keep = keepalive(msg.keepalive);
      }
      dispatch({ ...msg, received: Date.now() });
    };
    ws.onclose = (ev) => {
      clearInterval(watch); // (a closed socket is not watched, even one refused for good)
      if (socket !== ws) return;
      gone(opened, ev.code, false);
    };
  };

  // A socket closed, or given up on (`hung`): opened again at this page's node, at once and
  // relayed if it was at an owner that could not be reached, hung or refused it (a cookie
  // that does not go to the owner's host name), else after a growing pause (an owner that
  // closed it is asked for again where the page first asked).
  const gone = (opened, code, hung) => {
    const refused = code >= FINAL_CLOSE && code < 4500;
    relay = target !== null && (!opened || hung || refused);
    target = null;
    if (relay) {
      connect();
      return;
    }
    if (refused) {
      draw();
      return;
    }
    dispatch({ type: "lost" });
    showBanner(t("conn.lost"), "lost");
    retry += 1;
    setTimeout(connect, Math.min(500 * 2 ** (retry - 1), 5000));
  };

  // --- what the player does --------------------------------------------------------------
  const ctx = {
    send, act, dispatch, invite,
    selection: () => selection(st),
    soundOn, drawerOpen: () => drawer, chatSeen: () => chatSeen,
    do: {
      play: () => {
        if (!st.view) return;
        if (!st.selected.length) { dispatch({ type: "note", note: { key: "table.noselection" } }); return; }
        act(st.view.phase === "exchange" ? "give" : "play", { cards: selection(st) });
      },
      pass: () => act("pass"),
      clear: () => dispatch({ type: "clear" }),
      hint: async () => {
        const asked = st.moves;
        try {
          const got = await api(`/api/tables/${encodeURIComponent(tableId)}/hint`);
          dispatch({ type: "hint", asked, cards: got.cards, kind: got.kind, why: got.why, reason: got.reason });
        } catch (e) {
          dispatch({ type: "note", note: { key: "error.generic", message: e.message } });
        }
      },
      // Group: the hand split into combinations (the server's plan); again: back to strength order.
      group: async () => {
        if (st.groups) { dispatch({ type: "groups", groups: null }); return; }
        try {
          dispatch({ type: "groups", groups: await api(`/api/tables/${encodeURIComponent(tableId)}/groups`) });
        } catch (e) {
          dispatch({ type: "note", note: { key: "error.generic", message: e.message } });
        }
      },
      sound: () => { setSound(!soundOn()); draw(); },
      drawer: () => { drawer = !drawer; chatSeen = st.chat.length; draw(); },
    },
  };

  const keys = (ev) => {
    if (ev.target.closest && ev.target.closest("input, textarea, select")) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const k = ev.key.toLowerCase();
    if (k === "p") ctx.do.play();
    else if (k === "x") { if (!document.querySelector("#pass")?.disabled) ctx.do.pass(); }
    else if (k === "h") ctx.do.hint();
    else if (k === "escape") { if (drawer) ctx.do.drawer(); else ctx.do.clear(); }
    else if (k === "g") ctx.do.group();
    else if ((k === "arrowleft" || k === "arrowright") && ev.target.dataset && ev.target.dataset.card) {
      const buttons = [...document.querySelectorAll(".hand button.card")];
      const i = buttons.indexOf(ev.target) + (k === "arrowleft" ? -1 : 1);
      if (buttons[i]) buttons[i].focus();
    } else return;
    ev.preventDefault();
  };
  document.addEventListener("keydown", keys);

  // --- drawing ---------------------------------------------------------------------------
  const draw = (before) => {
    const focused = document.activeElement;
    const focusKey = focused && focused !== document.body && (focused.dataset.card ? `[data-card="${focused.dataset.card}"]` : focused.id ? `#${focused.id}` : null);
    const log = root.querySelector("#log");
    const atEnd = !log || log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
    if (drawer && st.chat.length > chatSeen) chatSeen = st.chat.length;
    root.replaceChildren(render(st, ctx));
    tick();
    // The move log follows the newest move unless the reader scrolled back.
    const fresh = root.querySelector("#log");
    if (fresh && atEnd) fresh.scrollTop = fresh.scrollHeight;
    if (focusKey) {
      const again = root.querySelector(focusKey);
      if (again) again.focus({ preventScroll: true });
    }
    if (st.banner && (!before || before.banner !== st.banner)) {
      const version = st.banner.version;
      setTimeout(() => dispatch({ type: "unbanner", version }), 2200);
    }
    // Between games of a match the result closes by itself once the next deal is played on.
    if (st.resultOpen && st.table && st.table.status === "playing" && !resultTimer) {
      resultTimer = setTimeout(() => { resultTimer = null; if (st.table.status === "playing") dispatch({ type: "result", open: false }); }, 8000);
    }
  };

  const tick = () => {
    const now = Date.now();
    for (const el of root.querySelectorAll(".timer[data-until]")) {
      el.textContent = t("table.seconds", { n: Math.max(0, Math.ceil((Number(el.dataset.until) - now) / 1000)) });
    }
    for (const arc of root.querySelectorAll(".ring-arc")) {
      const left = Math.max(0, Number(arc.dataset.until) - now) / Number(arc.dataset.total);
      arc.style.strokeDashoffset = String(100 - Math.min(1, left) * 100);
      arc.classList.toggle("low", left < 0.25);
    }
  };
  setInterval(tick, 250);

  connect();
  draw();
  return { rerender: () => draw() };
}
