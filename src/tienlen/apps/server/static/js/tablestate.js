// The table's state and the one function that changes it: reduce(state, message) -> a new
// state. Messages are the server's frames (welcome, state, event, error) and the page's own
// actions (a card tapped, a hint received...). Nothing here touches the page, the socket or
// the clock, and nothing re-derives a rule of the game: legal plays, chops and results come
// from the server. Log lines are kept as message keys with parameters (seats, cards), worded
// when drawn, so a language switch rewords them.

/** The state before the first frame. */
export function initialState(me, { wantSit = false } = {}) {
  return {
    me, seat: null, version: 0, table: null, view: null, skew: 0,
    log: [], chat: [], results: [], selected: [], order: [], groups: null,
    error: null, note: null, fatal: "", wantSit, lost: false,
    moves: 0, // moves (and fresh states) seen: a hint asked before the last one is stale
    presence: {}, // seat -> {offline: true, until: client ms} while a grace runs
    deadline: null, // client ms by which the seat to act must act (a turn timer)
    banner: null, // {key, params, version}: a chop, shown for a moment
    resultOpen: false,
    effects: [], // what the page should do once (sounds, the slide of a play), then drop
  };
}

const ACTIONS = new Set(["play", "pass", "give", "offer", "accept", "refuse", "deal", "start", "rematch", "timeout"]);

/** A new state after one message. */
export function reduce(state, msg) {
  const handler = HANDLERS[msg.type];
  return handler ? handler({ ...state, effects: [] }, msg) : state;
}

/** The seat this player holds at ``table`` (null: watching). */
function mySeat(table, me) {
  const mine = table.seats.find((s) => s.player === me);
  return mine ? mine.seat : null;
}

function withTable(st, table) {
  return { ...st, table, seat: mySeat(table, st.me) };
}

/** The hand's order and selection kept across a new view: cards gone leave, new ones join. */
function withView(st, view) {
  const next = { ...st, view };
  if (!view) return next;
  if (view.hand) {
    const hand = new Set(view.hand);
    next.order = [...st.order.filter((c) => hand.has(c)), ...view.hand.filter((c) => !st.order.includes(c))];
    next.selected = st.selected.filter((c) => hand.has(c));
    next.groups = st.groups ? st.groups.map((g) => g.filter((c) => hand.has(c))).filter((g) => g.length) : null;
  }
  next.deadline = view.deadline ? view.deadline * 1000 - st.skew : null;
  return next;
}

function presenceOf(table, skew) {
  const out = {};
  for (const s of table.seats) {
    if (s.grace_until) out[s.seat] = { until: s.grace_until * 1000 - skew };
  }
  return out;
}

/** One log line for an event, or null. */
export function logEntry(e) {
  const seat = e.seat;
  switch (e.kind) {
    case "play": return { key: e.chop ? (e.chop.twos ? "log.chopheo" : "log.chop") : "log.play", seat, cards: e.cards, victim: e.chop ? e.chop.victim : undefined };
    case "pass": return { key: "log.pass", seat };
    case "give": return { key: "log.give", seat, cards: e.cards || null };
    case "offer": return { key: "log.offer", seat, partner: e.partner };
    case "accept": return { key: "log.accept", seat };
    case "refuse": return { key: "log.refuse", seat };
    case "ask": return { key: "log.ask", seat, partner: e.partner, n: e.count };
    case "sit": return { key: "log.sit", name: e.name, n: e.seat + 1 };
    case "stand": return { key: "log.stand", seat };
    case "start": case "rematch": return { key: "log.start" };
    case "deal": return { key: "log.deal", n: e.game };
    case "offline": return { key: "log.offline", seat };
    case "away": return { key: "log.away", seat };
    case "back": return { key: "log.back", seat };
    case "timeout": return { key: "log.timeout", seat };
    case "game_over": return { key: "log.gameover", n: e.game };
    case "match_over": return { key: "log.matchover" };
    case "closed": return { key: "log.closed" };
    default: return null;
  }
}

function onEvent(st, e) {
  const line = logEntry(e);
  let next = st;
  if (line) next = { ...next, log: [...next.log, line] };
  switch (e.kind) {
    case "chat":
      return { ...next, chat: [...next.chat, { name: e.name, text: e.text }] };
    case "play": {
      const effects = [...next.effects, { kind: "slide", seat: e.seat, cards: e.cards }, { kind: "sound", sound: "play" }];
      if (e.chop) {
        effects.push({ kind: "sound", sound: "chop" });
        return { ...next, effects, banner: { key: e.chop.twos ? "banner.chopheo" : "banner.chop", seat: e.seat, victim: e.chop.victim, version: next.version } };
      }
      return { ...next, effects };
    }
    case "game_over": {
      const extra = e.instant_win ? [{ key: "log.instant", how: e.instant_win }] : [];
      const won = e.finish_order[0] === next.seat;
      return {
        ...next, log: [...next.log, ...extra], results: [...next.results, e], resultOpen: true,
        effects: won ? [...next.effects, { kind: "sound", sound: "win" }] : next.effects,
      };
    }
    case "deal":
      return { ...next, selected: [], groups: null, order: [], banner: null, note: null };
    case "offline":
      return { ...next, presence: { ...next.presence, [e.seat]: { until: e.until * 1000 - next.skew } } };
    case "away": case "back": {
      const presence = { ...next.presence };
      delete presence[e.seat];
      return { ...next, presence };
    }
    default:
      return next;
  }
}

/** Whether this seat's turn has just begun (``before``: the view before the frame). */
function turnBegun(st, before) {
  return myTurn(st) && !myTurn({ ...st, view: before });
}

const HANDLERS = {
  welcome: (st, msg) => ({
    ...st, seat: msg.seat ?? null, lost: false,
    // The server's clock against this one: deadlines are the server's times.
    skew: msg.now ? msg.now * 1000 - msg.received : 0,
  }),
  state: (st, msg) => {
    let next = withTable({ ...st, version: msg.version }, msg.table);
    // A state after a gap (a socket opened again, a sync) may follow moves the page never
    // saw, this seat's own among them: what a note said is about a turn that may be gone.
    if (msg.version !== st.version) next = { ...next, moves: st.moves + 1, note: null };
    next = withView(next, msg.view ?? null);
    next.presence = presenceOf(msg.table, next.skew);
    next.log = (msg.view && msg.view.history || []).map((p) =>
      p.kind === "pass" || !p.cards.length ? { key: "log.pass", seat: p.seat } : { key: p.kind === "give" ? "log.give" : "log.play", seat: p.seat, cards: p.cards });
    return next;
  },
  event: (st, msg) => {
    let next = { ...st, version: Math.max(st.version, msg.version) };
    if (msg.table) {
      next = withTable(next, msg.table);
      next.presence = presenceOf(msg.table, next.skew);
    }
    const before = next.view;
    next = onEvent(next, msg.event);
    // A hint (or any note) is about a turn: this seat's own move ends it, even where more
    // events come in the same batch (a play that ends the game is followed by its end).
    if (ACTIONS.has(msg.event.kind)) {
      next.moves = st.moves + 1;
      if (msg.event.seat === next.seat) next.note = null;
    }
    if (!msg.more) {
      if ("view" in msg) next = withView(next, msg.view);
      else if (!next.table || next.table.status === "waiting") next = withView(next, null);
      if (ACTIONS.has(msg.event.kind)) next.error = null;
      // A turn of this seat's that has just begun starts without the last turn's note.
      if (turnBegun(next, before)) next = { ...next, note: null, effects: [...next.effects, { kind: "sound", sound: "turn" }] };
    }
    return next;
  },
  error: (st, msg) => {
    // Refused for good before any state (a bad link).
    if (msg.code && msg.code !== "try_again" && st.version === 0 && !st.table) return { ...st, fatal: msg.message };
    if (msg.code === "stale") return { ...st, effects: [{ kind: "sync" }] };
    return { ...st, error: msg };
  },
  lost: (st) => ({ ...st, lost: true }),
  toggle: (st, msg) => ({
    ...st, error: null, note: null,
    selected: st.selected.includes(msg.card) ? st.selected.filter((c) => c !== msg.card) : [...st.selected, msg.card],
  }),
  select: (st, msg) => ({ ...st, selected: [...msg.cards], error: null }),
  clear: (st) => ({ ...st, selected: [], error: null, note: null }),
  // A hint answers the turn it was asked at (``asked``: the moves seen then); one that comes
  // back after a move (the seat's bot played while it was away, a sync) would select cards
  // and leave a note for a turn that is gone.
  hint: (st, msg) => msg.asked !== st.moves ? st : ({ ...st, selected: [...msg.cards], note: msg.cards.length ? { key: "note.hint", cards: msg.cards, kind: msg.kind, why: msg.why, reason: msg.reason } : { key: "note.hintpass" } }),
  note: (st, msg) => ({ ...st, note: msg.note }),
  groups: (st, msg) => ({
    ...st, groups: msg.groups,
    order: msg.groups ? msg.groups.flat() : st.view && st.view.hand ? [...st.view.hand] : st.order,
  }),
  order: (st, msg) => ({ ...st, order: msg.order }),
  result: (st, msg) => ({ ...st, resultOpen: msg.open }),
  unbanner: (st, msg) => (st.banner && st.banner.version === msg.version ? { ...st, banner: null } : st),
  sat: (st) => ({ ...st, wantSit: false }),
};

// --- questions about a state (no rules: only what the server sent) -------------------------

/** Whether it is this seat's turn with moves to choose from. */
export function myTurn(st) {
  return Boolean(st.view && st.seat !== null && st.view.turn === st.seat && st.view.legal && st.view.phase !== "over");
}

/** The legal plays (not the pass) that hold every selected card. */
export function candidates(st) {
  const legal = (st.view && st.view.legal) || [];
  return legal.filter((m) => m.length && st.selected.every((c) => m.includes(c)));
}

/** The selected cards in the hand's order. */
export function selection(st) {
  return st.order.filter((c) => st.selected.includes(c));
}

/** The seats in play order from ``seat`` (this player's, or seat 0 for a spectator):
 * ``[seat, next, ...]``; ``step`` is the rules' direction (+1 clockwise, -1 anticlockwise). */
export function playOrder(n, seat, step) {
  return Array.from({ length: n }, (_, k) => (((seat + k * step) % n) + n) % n);
}
