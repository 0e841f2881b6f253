// The table drawn from its state: render(state, ctx) -> the page's nodes. ctx carries what a
// control does (ctx.do.play(), ctx.dispatch({type: "toggle", card})...); nothing here keeps
// state of its own or talks to the server.
import { h } from "./api.js";
import { cardBack, cardFace, cardLabel, cardRow, cardsText } from "./cards.js";
import { levelText, phraseText, reasonText, t } from "./i18n.js";
import { candidates, myTurn, playOrder } from "./tablestate.js";

const SVG = "http://www.w3.org/2000/svg";

/** A seat's name at this table. */
export function nameOf(st, seat) {
  const s = st.table && st.table.seats[seat];
  if (!s) return `#${seat + 1}`;
  // A bot's seat is named in the reader's language, with its strength.
  return !s.player && s.bot ? `${t("bot.seat", { n: seat + 1 })} (${levelText(s.bot).toLowerCase()})` : s.name;
}

/** A log line or note ({key, seat, cards...}) in the language in use. */
export function words(st, e) {
  return t(e.key, {
    name: e.name ?? (e.seat !== undefined ? nameOf(st, e.seat) : ""),
    partner: e.partner !== undefined ? nameOf(st, e.partner) : "",
    victim: e.victim !== undefined ? nameOf(st, e.victim) : "",
    cards: e.cards ? cardsText(e.cards) : "?",
    kind: e.kind ? t("kind." + e.kind) : "",
    n: e.n ?? "",
    how: e.how ? phraseText({ code: "instant." + e.how }) : "",
    message: e.message ?? "",
  });
}

const step = (st) => (st.table.options && st.table.options.direction === "anticlockwise" ? -1 : 1);

/** Where each seat sits: this player at the bottom, then round the table in play order (the
 * next player to the left when play goes clockwise, to the right when anticlockwise). */
export function seatPlaces(st) {
  const n = st.table.seats.length;
  const dir = step(st);
  return playOrder(n, st.seat ?? 0, dir).map((seat, k) => {
    const angle = Math.PI / 2 + (dir * k * 2 * Math.PI) / n;
    return { seat, k, x: 50 + 50 * Math.cos(angle), y: 50 + 50 * Math.sin(angle) };
  });
}

function secondsLeft(until, now) {
  return Math.max(0, Math.ceil((until - now) / 1000));
}

/** A ring that empties as a deadline comes: data-from/data-until let the page's tick move it. */
function countdownRing(until, total) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 44 44");
  svg.setAttribute("class", "ring");
  svg.setAttribute("aria-hidden", "true");
  const track = document.createElementNS(SVG, "circle");
  const arc = document.createElementNS(SVG, "circle");
  for (const c of [track, arc]) {
    c.setAttribute("cx", "22"); c.setAttribute("cy", "22"); c.setAttribute("r", "20");
  }
  track.setAttribute("class", "ring-track");
  arc.setAttribute("class", "ring-arc");
  arc.setAttribute("pathLength", "100");
  arc.dataset.until = String(until);
  arc.dataset.total = String(total);
  svg.append(track, arc);
  return svg;
}

function seatBox(st, place, ctx) {
  const i = place.seat;
  const s = st.table.seats[i];
  const v = st.view;
  const mine = i === st.seat;
  const playing = st.table.status === "playing" && v && v.phase !== "over";
  const turn = playing && v.turn === i;
  const count = v ? v.card_counts[i] : null; // null: hidden by the rules and not asked
  const finished = v ? v.finish_order.indexOf(i) : -1;
  const offline = st.presence[i];
  const badges = [];
  if (finished >= 0) badges.push(h("span", { class: "badge place" }, t("table.place", { n: finished + 1 })));
  else if (v && v.passed.includes(i) && playing) badges.push(h("span", { class: "badge passed" }, t("table.passed")));
  if (playing && count === 1 && finished < 0) badges.push(h("span", { class: "badge last", title: t("table.lastcard") }, t("table.bao")));
  if (offline) {
    badges.push(h("span", { class: "badge offline" }, t("table.offline"), " ",
      h("span", { class: "timer", "data-until": offline.until }, t("table.seconds", { n: secondsLeft(offline.until, Date.now()) }))));
  } else if (s.away) {
    badges.push(h("span", { class: "badge away" }, t("table.botplays")));
  }
  const who = [];
  if (mine) who.push(t("table.you"));
  if (s.player && s.player === st.table.host) who.push(t("table.host"));
  const controls = [];
  if (st.table.status === "waiting") {
    if (!s.player && st.seat === null) controls.push(h("button", { type: "button", class: "small", onclick: () => ctx.send({ type: "sit", seat: i }) }, t("table.sit")));
    if (mine) controls.push(h("button", { type: "button", class: "small secondary", onclick: () => ctx.send({ type: "stand" }) }, t("table.stand")));
  }
  const canAsk = v && count === null && v.phase === "play" && st.seat !== null && !mine;
  const initial = nameOf(st, i).trim().charAt(0).toUpperCase();
  const ring = turn && st.deadline ? countdownRing(st.deadline, (st.table.turn_timer || 30) * 1000) : null;
  return h("li", {
    class: ["seat", turn ? "turn" : "", mine ? "mine" : "", offline ? "offline" : "", finished >= 0 ? "out" : ""].join(" ").trim(),
    dataset: { seat: i, k: place.k },
    style: `--x:${place.x.toFixed(2)}%;--y:${place.y.toFixed(2)}%`,
    "aria-current": turn ? "true" : null,
  },
  h("div", { class: "avatar", "aria-hidden": "true" }, h("span", {}, initial), ring),
  h("div", { class: "seat-text" },
    h("div", { class: "seat-name" }, nameOf(st, i), who.length ? h("small", {}, ` (${who.join(", ")})`) : null),
    v && !mine
      ? h("div", { class: "seat-cards" }, h("span", { class: "card back" }, cardBack()),
        h("span", { class: "count" }, count === null ? t("table.hidden") : t("table.cards", { n: count })),
        canAsk ? h("button", { type: "button", class: "ask small secondary", onclick: () => ctx.act("ask", { partner: i }) }, t("table.ask")) : null)
      : null,
    badges.length ? h("div", { class: "badges" }, badges) : null,
    controls));
}

function pileBox(st) {
  const v = st.view;
  const plays = v ? v.pile.filter((p) => p.kind !== "pass") : [];
  const shown = plays.slice(-3);
  let empty = null;
  if (!plays.length && v && v.phase === "play" && st.table.status === "playing") {
    empty = h("p", { class: "lead" }, v.turn === st.seat ? t("table.youlead") : t("table.lead", { name: nameOf(st, v.turn) }));
  }
  return h("section", { class: "pile", id: "pile", "aria-label": t("table.pile") },
    shown.length
      ? h("ol", {}, shown.map((p, i) => h("li", { dataset: { seat: p.seat }, class: i === shown.length - 1 ? "top" : "under" },
        h("span", { class: "who" }, `${nameOf(st, p.seat)} · ${t("kind." + p.kind)}`), cardRow(p.cards))))
      : empty);
}

function turnLine(st) {
  const v = st.view;
  if (!v || v.phase === "over" || st.table.status !== "playing") {
    return h("div", { class: "turn-line", id: "turn", dataset: { mine: "0" } },
      st.table.status === "waiting" ? t("table.waiting") : "");
  }
  const mine = v.turn === st.seat;
  const text = mine ? t("table.yourturn") : t("table.turnof", { name: nameOf(st, v.turn) });
  const timer = st.deadline ? h("span", { class: "timer", "data-until": st.deadline }, t("table.seconds", { n: secondsLeft(st.deadline, Date.now()) })) : null;
  return h("div", { class: "turn-line", id: "turn", dataset: { mine: mine ? "1" : "0" }, role: "status" }, text, " ", timer);
}

function handBox(st, ctx) {
  const v = st.view;
  if (st.seat === null) return h("p", { class: "spectator" }, t("table.spectator"));
  if (!v || !v.hand) return h("div", { class: "hand empty" });
  const mine = myTurn(st);
  const fits = new Set(candidates(st).flat());
  const anyLegal = new Set(((mine && v.legal) || []).flat());
  const starts = new Set((st.groups || []).slice(1).map((g) => g[0]));
  const hand = h("div", { class: "hand", role: "group", "aria-label": t("table.hand"), style: `--n:${st.order.length}` });
  st.order.forEach((card, i) => {
    const chosen = st.selected.includes(card);
    const cls = ["card"];
    if (starts.has(card)) cls.push("group-start");
    if (chosen) cls.push("selected");
    if (mine && st.selected.length && fits.has(card)) cls.push("fits");
    if (mine && v.phase === "play" && !anyLegal.has(card)) cls.push("dim");
    const b = h("button", {
      type: "button", class: cls.join(" "), "aria-pressed": String(chosen),
      "aria-label": cardLabel(card), draggable: "true", dataset: { card }, style: `--i:${i}`,
      onclick: () => ctx.dispatch({ type: "toggle", card }),
    }, cardFace(card));
    b.addEventListener("dragstart", (ev) => ev.dataTransfer.setData("text/plain", card));
    b.addEventListener("dragover", (ev) => ev.preventDefault());
    b.addEventListener("drop", (ev) => {
      ev.preventDefault();
      const moved = ev.dataTransfer.getData("text/plain");
      if (!moved || moved === card) return;
      const order = st.order.filter((c) => c !== moved);
      order.splice(order.indexOf(card), 0, moved);
      ctx.dispatch({ type: "order", order });
    });
    hand.append(b);
  });
  return hand;
}

function legalBox(st, ctx) {
  if (!myTurn(st) || st.view.phase !== "play" || !st.selected.length) return null;
  const moves = candidates(st);
  if (!moves.length) return h("p", { class: "legal none" }, t("table.nolegal"));
  const same = (m) => m.length === st.selected.length && m.every((c) => st.selected.includes(c));
  return h("div", { class: "legal" }, h("span", {}, t("table.legal")),
    h("ul", {}, moves.slice(0, 6).map((m) => h("li", {},
      h("button", { type: "button", class: same(m) ? "chosen" : "", onclick: () => ctx.dispatch({ type: "select", cards: m }) }, cardsText(m))))));
}

function tradeBox(st, ctx) {
  const v = st.view;
  const last = v.trades[v.trades.length - 1];
  const pending = last && last.accepted === undefined ? last : null;
  if (pending && pending.partner === st.seat) {
    return h("div", { class: "controls trade" },
      h("p", {}, t("table.offered", { name: nameOf(st, pending.proposer), give: cardsText(pending.give || []), take: cardsText(pending.take || []) })),
      h("button", { type: "button", onclick: () => ctx.act("accept") }, t("table.accept")),
      h("button", { type: "button", onclick: () => ctx.act("refuse") }, t("table.refuse")));
  }
  const partner = h("select", { id: "partner" },
    st.table.seats.filter((s) => s.seat !== st.seat).map((s) => h("option", { value: s.seat }, nameOf(st, s.seat))));
  const take = h("input", { id: "take", placeholder: "2h As", autocapitalize: "off" });
  return h("div", { class: "controls trade" },
    h("p", {}, t("table.tradehelp")),
    h("label", { for: "partner" }, t("table.partner"), partner),
    h("label", { for: "take" }, t("table.take"), take),
    h("button", {
      type: "button",
      onclick: () => ctx.act("offer", { partner: Number(partner.value), give: ctx.selection(), take: take.value.split(/[\s,]+/).filter(Boolean) }),
    }, t("table.offer")),
    h("button", { type: "button", onclick: () => ctx.act("pass") }, t("table.nooffer")));
}

function controlBox(st, ctx) {
  const v = st.view;
  if (st.seat === null || !v || v.phase === "over") return h("div", { class: "controls" });
  const mine = myTurn(st);
  if (mine && v.phase === "trading") return tradeBox(st, ctx);
  if (mine && v.phase === "exchange") {
    return h("div", { class: "controls" },
      h("p", {}, t("table.givehelp", { n: v.legal[0] ? v.legal[0].length : 0 })),
      h("button", { type: "button", id: "give", class: "big", disabled: !st.selected.length, onclick: ctx.do.play }, t("table.give")),
      h("button", { type: "button", class: "secondary", onclick: ctx.do.clear }, t("table.clear")));
  }
  const inPlay = mine && v.phase === "play";
  const canPass = inPlay && v.legal.some((m) => !m.length);
  return h("div", { class: "controls" },
    h("button", { type: "button", id: "play", class: "big", disabled: !inPlay || !st.selected.length, onclick: ctx.do.play, "aria-keyshortcuts": "P", title: st.selected.length ? null : t("table.noselection") }, t("table.play")),
    h("button", { type: "button", id: "pass", class: "big secondary", disabled: !canPass, onclick: ctx.do.pass, "aria-keyshortcuts": "X" }, t("table.pass")),
    h("button", { type: "button", id: "hint", class: "big secondary", disabled: !inPlay, onclick: ctx.do.hint, "aria-keyshortcuts": "H" }, t("table.hint")),
    h("button", { type: "button", id: "clear", class: "secondary", disabled: !st.selected.length, onclick: ctx.do.clear, "aria-keyshortcuts": "Escape" }, t("table.clear")),
    h("button", { type: "button", id: "group", class: "secondary", onclick: ctx.do.group, "aria-keyshortcuts": "G", "aria-pressed": String(Boolean(st.groups)) }, t("table.group")));
}

/** Standings: every seat, most points first. */
function standingsBox(st, id) {
  const tb = st.table;
  const finished = tb.status === "finished";
  const order = tb.seats.map((s) => s.seat).sort((a, b) => tb.scores[b] - tb.scores[a] || a - b);
  return h("section", { class: "standings", id },
    h("h2", {}, finished ? t("table.matchover") : t("table.standings")),
    h("ol", {}, order.map((seat) => h("li", { dataset: { seat } }, h("span", {}, nameOf(st, seat)), h("b", {}, String(tb.scores[seat]))))));
}

/** The end of a game: the finishing order with points, the standings, and what comes next. */
function resultBox(st, ctx) {
  const last = st.results[st.results.length - 1];
  if (!last || !st.resultOpen) return null;
  const finished = st.table.status === "finished";
  const host = st.me === st.table.host;
  const v = st.view;
  return h("div", { class: "result-veil" }, h("section", { class: "result", id: "result", role: "dialog", "aria-labelledby": "result-title" },
    h("h2", { id: "result-title" }, t("table.result", { n: last.game })),
    h("table", {},
      h("thead", {}, h("tr", {}, h("th", {}, t("result.order")), h("th", {}, t("result.player")),
        h("th", {}, t("result.delta")), h("th", {}, t("result.total")))),
      h("tbody", {}, last.finish_order.map((seat, place) => h("tr", { dataset: { seat }, class: seat === st.seat ? "me" : "" },
        h("td", {}, place === 0 ? "🏆 1" : String(place + 1)), h("td", {}, nameOf(st, seat)),
        h("td", {}, (last.deltas[seat] > 0 ? "+" : "") + last.deltas[seat]),
        h("td", {}, String(last.scores[seat])))))),
    last.instant_win ? h("p", {}, words(st, { key: "log.instant", how: last.instant_win })) : null,
    finished ? standingsBox(st, "match-standings") : null,
    v && v.phase === "over" && v.hands && finished
      ? h("details", { class: "hands" }, h("summary", {}, t("table.hands")),
        v.hands.map((cards, seat) => h("div", {}, h("span", { class: "who" }, nameOf(st, seat)), cardRow(cards))))
      : null,
    h("div", { class: "result-actions" },
      finished && host ? h("button", { type: "button", id: "rematch", class: "big", onclick: () => ctx.send({ type: "rematch" }) }, t("table.rematch")) : null,
      finished && !host ? h("p", {}, t("table.waitrematch")) : null,
      last.record ? h("a", { class: "button secondary", href: `/games/${encodeURIComponent(last.record)}` }, t("table.replay")) : null,
      h("a", { class: "button secondary", href: "/" }, t("nav.lobby")),
      !finished ? h("button", { type: "button", id: "continue", class: "big", onclick: () => ctx.dispatch({ type: "result", open: false }) }, t("table.continue")) : null)));
}

// The last 60 log lines, numbered by their place in the whole log.
function logList(st) {
  const shown = st.log.slice(-60);
  const first = st.log.length - shown.length + 1;
  return h("ol", { id: "log", start: first }, shown.map((e, i) => h("li", {},
    h("span", { class: "n", "aria-hidden": "true" }, `${first + i}.`), h("span", {}, words(st, e)))));
}

function chatBox(st, ctx) {
  const input = h("input", { id: "chat-text", maxlength: 280, "aria-label": t("table.chat"), enterkeyhint: "send" });
  const form = h("form", { class: "chat-form" }, input, h("button", { type: "submit" }, t("table.say")));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (input.value.trim()) ctx.send({ type: "chat", text: input.value.trim() });
    input.value = "";
  });
  return h("section", { class: "chat" }, h("h2", {}, t("table.chat")),
    h("ul", { class: "chat-lines" }, st.chat.slice(-30).map((c) => h("li", {}, h("b", {}, c.name), " ", c.text))),
    form);
}

function inviteBox(st, ctx) {
  const link = `${location.origin}/t/${st.table.id}${ctx.invite ? `?invite=${encodeURIComponent(ctx.invite)}` : ""}`;
  const copy = h("button", { type: "button", class: "secondary" }, t("table.copy"));
  copy.addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(link); copy.textContent = t("table.copied"); } catch { /* no clipboard */ }
  });
  return h("section", { class: "invite" }, h("label", { for: "invite-link" }, t("table.invite")),
    h("div", { class: "invite-row" }, h("input", { id: "invite-link", readonly: true, value: link }), copy));
}

/** A loudspeaker, with waves when sounds are on and a cross when off. */
function speaker(on) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "speaker");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(SVG, "path");
  const waves = "M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12";
  const cross = "M16 9l5 6M21 9l-5 6";
  path.setAttribute("d", "M3 9h4l5-4v14l-5-4H3z");
  const lines = document.createElementNS(SVG, "path");
  lines.setAttribute("d", on ? waves : cross);
  lines.setAttribute("fill", "none");
  lines.setAttribute("stroke", "currentColor");
  lines.setAttribute("stroke-width", "2");
  svg.append(path, lines);
  return svg;
}

function topBar(st, ctx) {
  const tb = st.table;
  const bits = [t("preset." + tb.preset)];
  if (tb.game) bits.push(t("table.game", { n: tb.game }));
  return h("header", { class: "table-head" },
    h("h1", {}, bits.join(" · ")),
    h("div", { class: "tools" },
      h("button", { type: "button", id: "sound", class: "icon secondary", "aria-pressed": String(ctx.soundOn()), "aria-label": t("table.sound"), title: t("table.sound"), onclick: ctx.do.sound }, speaker(ctx.soundOn())),
      h("button", { type: "button", id: "drawer-toggle", class: "icon secondary", "aria-expanded": String(ctx.drawerOpen()), "aria-controls": "side", onclick: ctx.do.drawer },
        "☰ ", h("span", { class: "label" }, t("table.more")),
        st.chat.length > ctx.chatSeen() ? h("span", { class: "dot", "aria-label": t("table.newchat") }) : null)));
}

/** The whole table page. */
export function render(st, ctx) {
  if (!st.table) return h("p", { class: "error", role: "alert" }, st.fatal || "…");
  const places = seatPlaces(st);
  const host = st.me === st.table.host;
  const waiting = st.table.status === "waiting";
  const banner = st.banner ? h("div", { class: "chop-banner", role: "status", key: st.banner.version }, words(st, st.banner)) : null;
  return h("section", {
    class: "table-page", dataset: { status: st.table.status, version: st.version, seats: st.table.seats.length },
  },
  h("div", { class: "play-area" },
    topBar(st, ctx),
    h("div", { class: "felt" },
      h("ol", { class: "seats", style: `--n:${places.length}` }, places.map((p) => seatBox(st, p, ctx))),
      h("div", { class: "centre" },
        pileBox(st),
        turnLine(st),
        waiting && host ? h("button", { type: "button", id: "start", class: "big", onclick: () => ctx.send({ type: "start" }) }, t("table.start")) : null),
      banner,
      resultBox(st, ctx)),
    h("div", { class: "me" },
      handBox(st, ctx),
      h("div", { class: "messages" },
        h("p", { class: "error", id: "error", role: "alert" }, st.error ? reasonText(st.error) : ""),
        h("p", { class: "note", id: "note", role: "status" }, st.note ? words(st, st.note) + (st.note.why ? ` (${reasonText({ reason: st.note.reason, message: st.note.why })})` : "") : ""),
        legalBox(st, ctx)),
      controlBox(st, ctx))),
  h("aside", { class: "side", id: "side", "aria-label": t("table.more"), dataset: { open: String(ctx.drawerOpen()) } },
    h("button", { type: "button", class: "close icon secondary", "aria-label": t("table.close"), onclick: ctx.do.drawer }, "✕"),
    inviteBox(st, ctx),
    st.table.status !== "waiting" ? standingsBox(st, "standings") : null,
    h("section", { class: "log" }, h("h2", {}, t("table.log")), logList(st)),
    chatBox(st, ctx),
    h("p", { class: "shortcuts" }, t("table.shortcuts"))));
}
