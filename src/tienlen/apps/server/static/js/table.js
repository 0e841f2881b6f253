// The table: the game over /ws/tables/{id}. The page keeps only what the server sent this
// seat; legal plays, reasons and hints all come from the server, never from rules here.
import { api, ensureGuest, h, wsUrl } from "./api.js";
import { cardBack, cardFace, cardLabel, cardRow, cardsText } from "./cards.js";
import { loadReasons, reasonText, t } from "./i18n.js";

const ACTIONS = new Set(["play", "pass", "give", "offer", "accept", "refuse", "deal", "start", "rematch"]);
const FINAL_CLOSE = 4400; // 44xx: refused for good (bad token, forbidden, no such table)

function sameSet(a, b) {
  return a.length === b.size && a.every((c) => b.has(c));
}

function rank(id) {
  return id.replace(/'$/, "").slice(0, -1);
}

export async function mount(root, tableId) {
  const me = await ensureGuest(root);
  await loadReasons();
  const params = new URLSearchParams(location.search);
  const invite = params.get("invite");
  const st = {
    seat: null, version: 0, table: null, view: null, log: [], chat: [], results: [],
    selected: new Set(), order: [], groups: null, error: "", note: "", turnSince: Date.now(),
    wantSit: params.get("sit") === "1", fatal: "", socket: null, lost: false, retry: 0,
  };
  const banner = document.getElementById("banner");
  let bannerTimer = null;

  const showBanner = (text, kind) => {
    clearTimeout(bannerTimer);
    banner.hidden = false;
    banner.className = kind;
    banner.textContent = text;
    if (kind === "ok") bannerTimer = setTimeout(() => { banner.hidden = true; }, 3000);
  };

  const send = (msg) => {
    if (st.socket && st.socket.readyState === WebSocket.OPEN) st.socket.send(JSON.stringify(msg));
  };
  const act = (type, fields = {}) => {
    st.error = "";
    st.note = "";
    send({ type, ...fields, version: st.version });
  };

  const nameOf = (seat) => {
    const s = st.table && st.table.seats[seat];
    return s ? s.name : `#${seat}`;
  };

  // --- the socket ------------------------------------------------------------------------
  const connect = () => {
    const q = new URLSearchParams();
    if (invite) q.set("invite", invite);
    if (st.version > 0) q.set("since", String(st.version));
    const socket = new WebSocket(wsUrl(`/ws/tables/${encodeURIComponent(tableId)}?${q}`));
    st.socket = socket;
    socket.onopen = () => {
      st.retry = 0;
      if (st.lost) showBanner(t("conn.back"), "ok");
      st.lost = false;
    };
    socket.onmessage = (ev) => receive(JSON.parse(ev.data));
    socket.onclose = (ev) => {
      if (st.socket !== socket) return;
      if (ev.code >= FINAL_CLOSE && ev.code < 4500) {
        render();
        return;
      }
      st.lost = true;
      showBanner(t("conn.lost"), "lost");
      st.retry += 1;
      setTimeout(connect, Math.min(500 * 2 ** (st.retry - 1), 5000));
    };
  };

  const receive = (msg) => {
    switch (msg.type) {
      case "welcome":
        st.seat = msg.seat ?? null;
        return;
      case "state":
        st.version = msg.version;
        setTable(msg.table);
        setView(msg.view ?? null);
        st.log = (msg.view && msg.view.history || []).map((p) => playLine(p.seat, p.cards, p.kind));
        if (st.wantSit) sitFirstFree();
        break;
      case "event":
        st.version = Math.max(st.version, msg.version);
        if (msg.table) setTable(msg.table);
        onEvent(msg.event);
        if (!msg.more) {
          if ("view" in msg) setView(msg.view, msg.event);
          else if (!st.table || st.table.status === "waiting") setView(null);
        }
        break;
      case "error":
        // Refused for good before any state (a bad link); "try_again" closes and reconnects.
        if (st.socket && msg.code && msg.code !== "try_again" && st.version === 0 && !st.table) {
          st.fatal = msg.message;
        }
        if (msg.code === "stale") send({ type: "sync", version: st.version });
        else st.error = msg; // worded at each render, so a language switch rewords it
        break;
      default:
        return;
    }
    render();
  };

  // My seat follows the table (a sit or stand changes it; the welcome names it at first).
  const setTable = (table) => {
    st.table = table;
    const mine = table.seats.find((s) => s.player === me.player);
    st.seat = mine ? mine.seat : null;
  };

  const sitFirstFree = () => {
    st.wantSit = false;
    if (st.seat !== null || st.table.status !== "waiting") return;
    const free = st.table.seats.find((s) => !s.player);
    if (free) send({ type: "sit", seat: free.seat });
  };

  const playLine = (seat, cards, kind) =>
    kind === "pass" || !cards.length
      ? t("log.pass", { name: nameOf(seat) })
      : t(kind === "give" ? "log.give" : "log.play", { name: nameOf(seat), cards: cardsText(cards) });

  const onEvent = (e) => {
    const name = e.seat !== undefined ? nameOf(e.seat) : "";
    const line = {
      play: () => playLine(e.seat, e.cards, "play"),
      pass: () => t("log.pass", { name }),
      give: () => t("log.give", { name, cards: e.cards ? cardsText(e.cards) : "?" }),
      offer: () => t("log.offer", { name, partner: nameOf(e.partner) }),
      accept: () => t("log.accept", { name }),
      refuse: () => t("log.refuse", { name }),
      ask: () => t("log.ask", { name, partner: nameOf(e.partner), n: e.count }),
      sit: () => t("log.sit", { name: e.name, seat: e.seat }),
      stand: () => t("log.stand", { name }),
      start: () => t("log.start"),
      rematch: () => t("log.start"),
      deal: () => t("log.deal", { n: e.game }),
      away: () => t("log.away", { name }),
      back: () => t("log.back", { name }),
      timeout: () => t("log.timeout", { name }),
      game_over: () => t("log.gameover", { n: e.game }),
      match_over: () => t("log.matchover"),
      closed: () => t("log.closed"),
    }[e.kind];
    if (e.kind === "chat") st.chat.push({ name: e.name, text: e.text });
    else if (line) st.log.push(line());
    if (e.kind === "game_over") {
      st.results.push(e);
      if (e.instant_win) st.log.push(t("log.instant", { how: e.instant_win }));
    }
    if (e.kind === "deal") {
      st.selected.clear();
      st.groups = null;
      st.order = [];
    }
  };

  const setView = (view, event) => {
    const before = st.view;
    st.view = view;
    if (!view) return;
    if (view.hand) {
      const hand = new Set(view.hand);
      if (st.groups) st.groups = st.groups.map((g) => g.filter((c) => hand.has(c))).filter((g) => g.length);
      st.order = [...st.order.filter((c) => hand.has(c)), ...view.hand.filter((c) => !st.order.includes(c))];
      for (const c of [...st.selected]) if (!hand.has(c)) st.selected.delete(c);
    }
    if (!event || ACTIONS.has(event.kind)) st.turnSince = Date.now();
    announceChop(before, view);
  };

  // A chop is the engine's "bomb played on a play of another kind": seen in the pile.
  const announceChop = (before, view) => {
    if (!before || before.game !== view.game) return;
    const plays = view.pile.filter((p) => p.kind !== "pass");
    if (plays.length < 2 || plays.length <= before.pile.filter((p) => p.kind !== "pass").length) return;
    const [victim, bomb] = plays.slice(-2);
    if (victim.kind === bomb.kind) return;
    const heo = victim.cards.some((c) => rank(c) === "2");
    st.log.push(t(heo ? "log.chopheo" : "log.chop", { name: nameOf(bomb.seat), victim: nameOf(victim.seat) }));
  };

  // --- what the player does --------------------------------------------------------------
  const myTurn = () => st.view && st.seat !== null && st.view.turn === st.seat && st.view.legal;
  const candidates = () => {
    const legal = (st.view && st.view.legal) || [];
    return legal.filter((m) => m.length && [...st.selected].every((c) => m.includes(c)));
  };
  const toggle = (card) => {
    if (st.selected.has(card)) st.selected.delete(card);
    else st.selected.add(card);
    st.error = "";
    render();
  };
  const play = () => {
    if (!st.view) return;
    const cards = st.order.filter((c) => st.selected.has(c));
    if (st.view.phase === "exchange") act("give", { cards });
    else act("play", { cards });
  };
  const pass = () => act("pass");
  const clear = () => {
    st.selected.clear();
    st.error = "";
    render();
  };
  const hint = async () => {
    try {
      const got = await api(`/api/tables/${encodeURIComponent(tableId)}/hint`);
      st.selected = new Set(got.cards);
      st.note = got.cards.length ? got.why : `${t("table.hint")}: ${t("table.pass")}`;
    } catch (e) {
      st.note = e.message;
    }
    render();
  };

  // Group: the hand split into combinations (the server's plan); again: back to strength order.
  const group = async () => {
    if (st.groups) {
      st.groups = null;
      if (st.view && st.view.hand) st.order = [...st.view.hand];
    } else {
      try {
        st.groups = await api(`/api/tables/${encodeURIComponent(tableId)}/groups`);
        st.order = st.groups.flat();
      } catch (e) {
        st.note = e.message;
      }
    }
    render();
  };

  const keys = (ev) => {
    if (ev.target.closest && ev.target.closest("input, textarea, select")) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const k = ev.key.toLowerCase();
    if (k === "p") play();
    else if (k === "x") pass();
    else if (k === "h") hint();
    else if (k === "escape") clear();
    else if (k === "g") group();
    else if ((k === "arrowleft" || k === "arrowright") && ev.target.dataset && ev.target.dataset.card) {
      const buttons = [...document.querySelectorAll(".hand button.card")];
      const i = buttons.indexOf(ev.target) + (k === "arrowleft" ? -1 : 1);
      if (buttons[i]) buttons[i].focus();
    } else return;
    ev.preventDefault();
  };
  document.addEventListener("keydown", keys);

  // --- drawing ---------------------------------------------------------------------------
  const seatBox = (i) => {
    const s = st.table.seats[i];
    const v = st.view;
    const tags = [];
    if (i === st.seat) tags.push(t("table.you"));
    if (s.player && s.player === st.table.host) tags.push(t("table.host"));
    let bot = null;
    if (s.away) bot = t("table.botfor", { name: s.name });
    else if (!s.player) bot = t("table.botlevel", { level: s.bot });
    // null: the rules hide this count (hidden_counts) and nobody asked; a seated player may ask.
    const count = v ? v.card_counts[i] : null;
    const canAsk = v && count === null && v.phase === "play" && st.seat !== null && i !== st.seat;
    const place = v ? v.finish_order.indexOf(i) : -1;
    const turn = v && v.phase !== "over" && v.turn === i && st.table.status === "playing";
    const controls = [];
    if (st.table.status === "waiting") {
      if (!s.player && st.seat === null) {
        controls.push(h("button", { type: "button", onclick: () => send({ type: "sit", seat: i }) }, t("table.sit")));
      }
      if (i === st.seat) controls.push(h("button", { type: "button", onclick: () => send({ type: "stand" }) }, t("table.stand")));
    }
    return h("li", { class: "seat" + (turn ? " turn" : "") + (i === st.seat ? " mine" : ""), dataset: { seat: i } },
      h("div", { class: "seat-name" }, s.name, tags.length ? h("small", {}, ` (${tags.join(", ")})`) : null),
      bot ? h("div", { class: "seat-bot" }, bot) : null,
      v && i !== st.seat
        ? h("div", { class: "seat-cards" }, h("span", { class: "card back" }, cardBack()),
          h("span", { class: "count" }, count === null ? t("table.hidden") : t("table.cards", { n: count })),
          canAsk ? h("button", { type: "button", class: "ask", onclick: () => act("ask", { partner: i }) }, t("table.ask")) : null)
        : null,
      v && v.passed.includes(i) ? h("div", { class: "badge passed" }, t("table.passed")) : null,
      place >= 0 ? h("div", { class: "badge place" }, t("table.place", { n: place + 1 })) : null,
      ...controls,
    );
  };

  const pileBox = () => {
    const v = st.view;
    const entries = v ? v.pile.filter((p) => p.kind !== "pass") : [];
    return h("section", { class: "pile", "aria-label": t("table.pile") },
      h("h2", {}, t("table.pile")),
      entries.length
        ? h("ol", {}, entries.map((p) => h("li", { dataset: { seat: p.seat } },
          h("span", { class: "who" }, `${nameOf(p.seat)} · ${t("kind." + p.kind)}`), cardRow(p.cards))))
        : v && v.phase === "play" ? h("p", {}, t("table.lead", { name: nameOf(v.turn) })) : null,
    );
  };

  const turnBox = () => {
    const v = st.view;
    if (!v || v.phase === "over" || st.table.status !== "playing") return h("div", { class: "turn-line" });
    const text = v.turn === st.seat ? t("table.yourturn") : t("table.turnof", { name: nameOf(v.turn) });
    const timer = st.table.turn_timer
      ? h("span", { class: "timer", "data-deadline": st.turnSince + st.table.turn_timer * 1000 }) : null;
    return h("div", { class: "turn-line", id: "turn", dataset: { mine: v.turn === st.seat ? "1" : "0" } }, text, " ", timer);
  };

  const handBox = () => {
    const v = st.view;
    if (st.seat === null) return h("p", { class: "spectator" }, t("table.spectator"));
    if (!v || !v.hand) return null;
    const mine = myTurn();
    const legal = (mine && v.legal) || [];
    const fits = new Set(candidates().flat());
    const anyLegal = new Set(legal.flat());
    const hand = h("div", { class: "hand", role: "group", "aria-label": t("table.hand") });
    const starts = new Set((st.groups || []).slice(1).map((g) => g[0]));
    for (const card of st.order) {
      const cls = ["card"];
      if (starts.has(card)) cls.push("group-start");
      if (st.selected.has(card)) cls.push("selected");
      if (mine && st.selected.size && fits.has(card)) cls.push("fits");
      if (mine && v.phase === "play" && !anyLegal.has(card)) cls.push("dim");
      const b = h("button", {
        type: "button", class: cls.join(" "), "aria-pressed": String(st.selected.has(card)),
        "aria-label": cardLabel(card), draggable: "true", dataset: { card },
        onclick: () => toggle(card),
      }, cardFace(card));
      b.addEventListener("dragstart", (ev) => ev.dataTransfer.setData("text/plain", card));
      b.addEventListener("dragover", (ev) => ev.preventDefault());
      b.addEventListener("drop", (ev) => {
        ev.preventDefault();
        const moved = ev.dataTransfer.getData("text/plain");
        if (!moved || moved === card) return;
        const order = st.order.filter((c) => c !== moved);
        order.splice(order.indexOf(card), 0, moved);
        st.order = order;
        render();
      });
      hand.append(b);
    }
    return hand;
  };

  const legalBox = () => {
    if (!myTurn() || st.view.phase !== "play" || !st.selected.size) return null;
    const moves = candidates();
    if (!moves.length) return h("p", { class: "legal none" }, t("table.nolegal"));
    return h("div", { class: "legal" }, h("span", {}, t("table.legal")),
      h("ul", {}, moves.slice(0, 8).map((m) => h("li", {},
        h("button", {
          type: "button", class: sameSet(m, st.selected) ? "chosen" : "",
          onclick: () => { st.selected = new Set(m); render(); },
        }, cardsText(m))))));
  };

  const tradeBox = () => {
    const v = st.view;
    const pending = v.trades.length && v.trades[v.trades.length - 1].accepted === undefined
      ? v.trades[v.trades.length - 1] : null;
    if (pending && pending.partner === st.seat) {
      return h("div", { class: "controls" },
        h("p", {}, t("table.offered", {
          name: nameOf(pending.proposer), give: cardsText(pending.give || []), take: cardsText(pending.take || []),
        })),
        h("button", { type: "button", onclick: () => act("accept") }, t("table.accept")),
        h("button", { type: "button", onclick: () => act("refuse") }, t("table.refuse")));
    }
    const partner = h("select", { id: "partner" },
      st.table.seats.filter((s) => s.seat !== st.seat).map((s) => h("option", { value: s.seat }, s.name)));
    const take = h("input", { id: "take", placeholder: "2h As" });
    return h("div", { class: "controls" },
      h("p", {}, t("table.tradehelp")),
      h("label", { for: "partner" }, t("table.partner"), partner),
      h("label", { for: "take" }, t("table.take"), take),
      h("button", {
        type: "button",
        onclick: () => act("offer", {
          partner: Number(partner.value), give: st.order.filter((c) => st.selected.has(c)),
          take: take.value.split(/[\s,]+/).filter(Boolean),
        }),
      }, t("table.offer")),
      h("button", { type: "button", onclick: pass }, t("table.nooffer")));
  };

  const controlBox = () => {
    const v = st.view;
    if (st.seat === null || !v || v.phase === "over") return null;
    const mine = Boolean(myTurn());
    if (mine && v.phase === "trading") return tradeBox();
    if (mine && v.phase === "exchange") {
      return h("div", { class: "controls" },
        h("p", {}, t("table.givehelp", { n: v.legal[0] ? v.legal[0].length : 0 })),
        h("button", { type: "button", id: "give", onclick: play }, t("table.give")),
        h("button", { type: "button", onclick: clear }, t("table.clear")));
    }
    return h("div", { class: "controls" },
      h("button", { type: "button", id: "play", disabled: !mine || v.phase !== "play", onclick: play, "aria-keyshortcuts": "P" }, t("table.play")),
      h("button", { type: "button", id: "pass", disabled: !mine || v.phase !== "play", onclick: pass, "aria-keyshortcuts": "X" }, t("table.pass")),
      h("button", { type: "button", id: "hint", disabled: !mine || v.phase !== "play", onclick: hint, "aria-keyshortcuts": "H" }, t("table.hint")),
      h("button", { type: "button", id: "clear", onclick: clear, "aria-keyshortcuts": "Escape" }, t("table.clear")),
      h("button", { type: "button", id: "group", class: "secondary", onclick: group, "aria-keyshortcuts": "G", "aria-pressed": String(Boolean(st.groups)) }, t("table.group")),
      h("p", { class: "shortcuts" }, t("table.shortcuts")));
  };

  const resultBox = () => {
    const last = st.results[st.results.length - 1];
    const finished = st.table.status === "finished";
    const out = [];
    if (last) {
      out.push(h("section", { class: "result", id: "result" },
        h("h2", {}, t("table.result", { n: last.game })),
        h("table", {},
          h("thead", {}, h("tr", {}, h("th", {}, t("result.order")), h("th", {}, t("result.player")),
            h("th", {}, t("result.delta")), h("th", {}, t("result.total")))),
          h("tbody", {}, last.finish_order.map((seat, place) => h("tr", { dataset: { seat } },
            h("td", {}, String(place + 1)), h("td", {}, nameOf(seat)),
            h("td", {}, (last.deltas[seat] > 0 ? "+" : "") + last.deltas[seat]),
            h("td", {}, String(last.scores[seat])))))),
        last.instant_win ? h("p", {}, t("log.instant", { how: last.instant_win })) : null,
        last.record ? h("a", { href: `/games/${encodeURIComponent(last.record)}` }, t("table.replay")) : null));
    }
    if (st.table.status !== "waiting") {
      out.push(h("section", { class: "standings", id: "standings" },
        h("h2", {}, finished ? t("table.matchover") : t("table.standings")),
        h("ol", {}, st.table.seats.map((s) => h("li", {}, `${s.name}: ${st.table.scores[s.seat]}`))),
        finished && me.player === st.table.host
          ? h("button", { type: "button", id: "rematch", onclick: () => send({ type: "rematch" }) }, t("table.rematch")) : null));
    }
    const v = st.view;
    if (v && v.phase === "over" && v.hands) {
      out.push(h("section", { class: "hands" }, h("h2", {}, t("table.hands")),
        v.hands.map((cards, seat) => h("div", {}, h("span", { class: "who" }, nameOf(seat)), cardRow(cards)))));
    }
    return out;
  };

  // The last 40 lines, numbered by their place in the whole log (written out, not list
  // markers, which a narrow column clips past 9).
  const logList = () => {
    const shown = st.log.slice(-40);
    const first = st.log.length - shown.length + 1;
    return h("ol", { id: "log", start: first }, shown.map((l, i) => h("li", {},
      h("span", { class: "n", "aria-hidden": "true" }, `${first + i}.`), h("span", {}, l))));
  };

  const chatBox = () => {
    const input = h("input", { id: "chat-text", maxlength: 280, "aria-label": t("table.chat") });
    const form = h("form", { class: "chat-form" }, input, h("button", { type: "submit" }, t("table.say")));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      if (input.value.trim()) send({ type: "chat", text: input.value.trim() });
      input.value = "";
    });
    return h("section", { class: "chat" }, h("h2", {}, t("table.chat")),
      h("ul", { class: "chat-lines" }, st.chat.slice(-30).map((c) => h("li", {}, h("b", {}, c.name), " ", c.text))),
      form);
  };

  const headBox = () => {
    const tb = st.table;
    const link = `${location.origin}/t/${tb.id}${invite ? `?invite=${encodeURIComponent(invite)}` : ""}`;
    const copy = h("button", { type: "button", class: "secondary" }, t("table.copy"));
    copy.addEventListener("click", async () => {
      try { await navigator.clipboard.writeText(link); copy.textContent = t("table.copied"); } catch { /* no clipboard */ }
    });
    const bits = [tb.preset, t("status." + tb.status)];
    if (tb.match) bits.push(t("table.match", { n: tb.match }));
    if (tb.game) bits.push(t("table.game", { n: tb.game }));
    return h("header", { class: "table-head" },
      h("h1", {}, bits.join(" · ")),
      h("div", { class: "invite" }, h("label", { for: "invite-link" }, t("table.invite")),
        h("input", { id: "invite-link", readonly: true, value: link }), copy),
      tb.status === "waiting" && me.player === tb.host
        ? h("button", { type: "button", id: "start", onclick: () => send({ type: "start" }) }, t("table.start")) : null,
      tb.status === "waiting" ? h("p", {}, t("table.waiting")) : null);
  };

  const render = () => {
    if (!st.table) {
      root.replaceChildren(h("p", { class: "error", role: "alert" }, st.fatal || "…"));
      return;
    }
    const focused = document.activeElement;
    const focusKey = focused && (focused.dataset.card ? `[data-card="${focused.dataset.card}"]` : focused.id ? `#${focused.id}` : null);
    const n = st.table.seats.length;
    const base = st.seat ?? 0;
    const ring = Array.from({ length: n }, (_, k) => (base + k) % n);
    const others = st.seat === null ? ring : ring.slice(1);
    root.replaceChildren(h("section", { class: "table-page", dataset: { status: st.table.status, version: st.version } },
      headBox(),
      h("div", { class: "felt" },
        h("ol", { class: "opponents" }, others.map(seatBox)),
        pileBox(),
        turnBox(),
        h("div", { class: "me" },
          st.seat !== null ? h("ol", { class: "my-seat" }, seatBox(st.seat)) : null,
          handBox(),
          legalBox(),
          h("p", { class: "error", id: "error", role: "alert" }, st.error ? reasonText(st.error) : ""),
          h("p", { class: "note", id: "note", role: "status" }, st.note),
          controlBox())),
      h("aside", { class: "side" },
        ...resultBox(),
        h("section", { class: "log" }, h("h2", {}, t("table.log")),
          logList()),
        chatBox())));
    tick();
    if (focusKey) {
      const again = root.querySelector(focusKey);
      if (again) again.focus();
    }
  };

  const tick = () => {
    for (const el of root.querySelectorAll(".timer[data-deadline]")) {
      const left = Math.max(0, Math.ceil((Number(el.dataset.deadline) - Date.now()) / 1000));
      el.textContent = t("table.seconds", { n: left });
    }
  };
  setInterval(tick, 500);

  connect();
  render();
  return { rerender: render };
}
