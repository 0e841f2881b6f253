// The score pad for games played with a real deck (/pads to start one, /pads/{id} to keep it).
// The page only collects what the players saw; the server scores every game with the
// engine's own scoring (tienlen.scoring) and sends the points and standings back.
import { ApiError, api, currentGuest, ensureGuest, h, setGuest } from "./api.js";
import { loadReasons, reasonText, t } from "./i18n.js";

async function send(method, path, body) {
  const r = await fetch(path, {
    method, credentials: "same-origin",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}

/** A refused request in words: an engine reason (a game that does not fit the rules, the
 * players by name) in the language in use, else the server's message. */
function errorWords(e) {
  return e instanceof ApiError ? reasonText({ ...e.body, message: e.message }) : e.message;
}

function numberInput(id, attrs = {}) {
  return h("input", { type: "number", inputmode: "numeric", id, ...attrs });
}

/** /pads: the players and the rules of a new pad. */
async function mountNew(root) {
  await ensureGuest(root);
  const { presets } = await api("/api/presets");
  let count = 4;
  const names = [];
  const render = () => {
    const countSel = h("select", { id: "pad-count" },
      [2, 3, 4, 5, 6, 7, 8].map((n) => h("option", { value: n }, String(n))));
    countSel.value = String(count);
    countSel.addEventListener("change", () => { count = Number(countSel.value); render(); });
    const inputs = Array.from({ length: count }, (_, i) =>
      h("label", { for: `pad-name-${i}` }, t("pad.name", { n: i + 1 }),
        h("input", { id: `pad-name-${i}`, maxlength: 24, required: true, value: names[i] || "",
          oninput: (ev) => { names[i] = ev.target.value; } })));
    const preset = h("select", { id: "pad-preset" }, Object.keys(presets).map((p) => h("option", { value: p }, p)));
    const code = h("input", { id: "pad-code", maxlength: 2000, placeholder: "standard.cong" });
    const target = numberInput("pad-target", { min: 1, max: 1000 });
    const error = h("p", { class: "error", role: "alert" });
    const form = h("form", { class: "create pad-new", id: "pad-new" },
      h("h1", {}, t("pad.title")), h("p", {}, t("pad.intro")),
      h("label", { for: "pad-count" }, t("lobby.players"), countSel),
      inputs,
      h("label", { for: "pad-preset" }, t("lobby.preset"), preset),
      h("label", { for: "pad-code" }, t("pad.code"), code),
      h("label", { for: "pad-target" }, t("lobby.target"), target),
      h("button", { type: "submit", id: "pad-create" }, t("pad.create")),
      error);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      error.textContent = "";
      const body = { names: names.slice(0, count).map((n) => (n || "").trim()) };
      if (code.value.trim()) body.rules = code.value.trim(); else body.preset = preset.value;
      if (target.value) body.target = Number(target.value);
      try {
        const pad = await send("POST", "/api/pads", body);
        location.href = `/pads/${pad.id}`;
      } catch (e) {
        error.textContent = e.message;
      }
    });
    root.replaceChildren(h("section", { class: "pad" }, form));
  };
  render();
  return { rerender: render };
}

function seatSelect(id, pad, label) {
  return h("select", { id, "aria-label": label },
    h("option", { value: "" }, "—"),
    pad.names.map((n, i) => h("option", { value: i }, n)));
}

/** The form for one more game: the finishing order, and what the rules count. */
function gameForm(pad, onAdd) {
  const n = pad.names.length;
  const fields = new Set(pad.fields);
  const places = Array.from({ length: n }, (_, k) => seatSelect(`place-${k + 1}`, pad, t("pad.place", { n: k + 1 })));
  // A player already placed cannot be chosen for another place.
  const exclusive = () => {
    const taken = new Set(places.map((sel) => sel.value).filter((v) => v !== ""));
    for (const sel of places) {
      for (const opt of sel.options) opt.disabled = opt.value !== "" && opt.value !== sel.value && taken.has(opt.value);
    }
  };
  for (const sel of places) sel.addEventListener("change", exclusive);
  const parts = [h("fieldset", { class: "pad-order" }, h("legend", {}, t("pad.order")),
    places.map((sel, k) => h("label", { for: sel.id }, t("pad.place", { n: k + 1 }), sel)))];
  const perSeat = (key, legend, make) => {
    if (!fields.has(key)) return [];
    const inputs = pad.names.map((_, i) => make(i));
    parts.push(h("fieldset", { class: `pad-${key}` }, h("legend", {}, legend),
      inputs.map((input, i) => h("label", { for: input.id, class: input.type === "checkbox" ? "check" : "" },
        input.type === "checkbox" ? [input, pad.names[i]] : [pad.names[i], input]))));
    return inputs;
  };
  const left = perSeat("cards_left", t("pad.cardsleft"), (i) => numberInput(`left-${i}`, { min: 0, max: pad.cards_per_hand }));
  const cong = perSeat("cong", t("pad.cong"), (i) => h("input", { type: "checkbox", id: `cong-${i}` }));
  const hands = perSeat("hands", t("pad.hands"), (i) => h("input", { id: `hand-${i}`, maxlength: 200, placeholder: "2h 2c", autocapitalize: "off" }));
  const chops = [];
  const chopList = h("ol", { class: "pad-chops" });
  if (fields.has("chops")) {
    const addChop = h("button", { type: "button", id: "add-chop", class: "secondary" }, t("pad.addchop"));
    addChop.addEventListener("click", () => {
      const k = chops.length;
      const row = {
        by: seatSelect(`chop-${k}-by`, pad, t("pad.chopby")),
        of: seatSelect(`chop-${k}-of`, pad, t("pad.chopof")),
        cut: h("input", { type: "checkbox", id: `chop-${k}-cut` }),
        red: numberInput(`chop-${k}-red`, { min: 0, max: 8, value: 0 }),
        black: numberInput(`chop-${k}-black`, { min: 0, max: 8, value: 0 }),
        on: h("select", { id: `chop-${k}-on` }, h("option", { value: "" }, "—"),
          chops.map((_, j) => h("option", { value: j }, t("pad.chopn", { n: j + 1 })))),
      };
      chops.push(row);
      chopList.append(h("li", { class: "pad-chop" },
        h("label", { for: row.by.id }, t("pad.chopby"), row.by),
        h("label", { for: row.of.id }, t("pad.chopof"), row.of),
        h("label", { for: row.cut.id, class: "check" }, row.cut, t("pad.chopcut")),
        h("label", { for: row.red.id }, t("pad.redtwos"), row.red),
        h("label", { for: row.black.id }, t("pad.blacktwos"), row.black),
        h("label", { for: row.on.id }, t("pad.chopon"), row.on)));
    });
    parts.push(h("fieldset", { class: "pad-chops-box" }, h("legend", {}, t("pad.chops")), chopList, addChop));
  }
  const flag = (key, id, words) => {
    if (!fields.has(key)) return null;
    const box = h("input", { type: "checkbox", id });
    parts.push(h("label", { for: id, class: "check" }, box, words));
    return box;
  };
  const spades = flag("three_spades_last", "three-spades", t("pad.threespades"));
  const instant = flag("instant_win", "instant-win", t("pad.instant"));
  const guarantees = perSeat("guarantees", t("pad.guarantees"), (i) => h("select", { id: `guarantee-${i}` },
    h("option", { value: "" }, t("pad.noguarantee")),
    h("option", { value: "open" }, t("pad.guarantee")),
    h("option", { value: "blind" }, t("pad.blind"))));
  const error = h("p", { class: "error", role: "alert", id: "pad-error" });
  const form = h("form", { class: "create pad-game", id: "pad-game" },
    h("h2", {}, t("pad.add", { n: pad.games.length + 1 })), parts,
    h("button", { type: "submit", id: "pad-add" }, t("pad.save")), error);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    const seat = (sel) => (sel.value === "" ? -1 : Number(sel.value));
    // What is missing or impossible, in players' names, before the server is asked.
    const empty = places.findIndex((sel) => sel.value === "");
    if (empty >= 0) {
      error.textContent = t("pad.needplace", { n: empty + 1 });
      return;
    }
    const self = chops.find((c) => c.by.value !== "" && c.by.value === c.of.value);
    if (self) {
      error.textContent = t("pad.selfchop", { name: pad.names[Number(self.by.value)] });
      return;
    }
    // Places left empty are left out: the engine says what the order lacks.
    const entry = { order: places.map(seat).filter((s) => s >= 0) };
    if (left.length) entry.cards_left = left.map((i) => Number(i.value || 0));
    const congSeats = cong.flatMap((box, i) => (box.checked ? [i] : []));
    if (congSeats.length) entry.cong = congSeats;
    if (hands.length) entry.hands = hands.map((i) => i.value.trim());
    if (chops.length) {
      entry.chops = chops.map((c) => ({
        by: seat(c.by), of: seat(c.of), cut: c.cut.checked,
        red_twos: Number(c.red.value || 0), black_twos: Number(c.black.value || 0),
        on: c.on.value === "" ? null : Number(c.on.value),
      }));
    }
    if (spades && spades.checked) entry.three_spades_last = true;
    if (instant && instant.checked) entry.instant_win = true;
    const made = guarantees.flatMap((sel, i) => (sel.value ? [{ seat: i, blind: sel.value === "blind" }] : []));
    if (made.length) entry.guarantees = made;
    try {
      onAdd(await send("POST", `/api/pads/${pad.id}/games`, entry));
    } catch (e) {
      error.textContent = errorWords(e);
    }
  });
  return form;
}

/** /pads/{id}: the standings, every game's points, and the form for the next game. Someone
 * opening a shared link sees the pad at once and gives a name (inline) to add games; every
 * open copy follows the games added or deleted elsewhere. */
async function mountPad(root, id) {
  await loadReasons();
  let pad = await api(`/api/pads/${encodeURIComponent(id)}`);
  let me = await currentGuest();
  let form = null;
  const path = `/api/pads/${encodeURIComponent(id)}`;
  const signature = (p) => JSON.stringify([p.games.map((g) => g.number), p.totals]);

  const nameForm = () => {
    const input = h("input", { id: "pad-guest", maxlength: 24, required: true, autocomplete: "nickname" });
    const error = h("p", { class: "error", role: "alert" });
    const f = h("form", { class: "create pad-join", id: "pad-join" },
      h("p", {}, t("pad.readonly")),
      h("label", { for: "pad-guest" }, t("lobby.name"), input),
      h("button", { type: "submit" }, t("pad.join")), error);
    f.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      try {
        me = setGuest(await api("/api/guest", { name: input.value.trim() }));
        form = null;
        render();
      } catch (e) {
        error.textContent = e.message;
      }
    });
    return f;
  };

  const tables = () => {
    const standings = h("section", { class: "pad-standings", id: "pad-standings" },
      h("h2", {}, pad.over ? t("table.matchover") : t("table.standings")),
      h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, t("result.player")), h("th", {}, t("result.total")))),
        h("tbody", {}, pad.standings.map((s, i) => h("tr", { dataset: { seat: s.seat } },
          h("td", {}, String(i + 1)), h("td", {}, s.name), h("td", { class: "points" }, String(s.points)))))));
    const del = async (number) => {
      try { pad = await send("DELETE", `${path}/games/${number}`); render(); } catch (e) { alert(e.message); }
    };
    const games = h("section", { class: "pad-games" }, h("h2", {}, t("pad.games")),
      pad.games.length
        ? h("div", { class: "scroll" }, h("table", { id: "pad-games" },
          h("thead", {}, h("tr", {}, h("th", {}, "#"), pad.names.map((n) => h("th", {}, n)), h("th", {}, ""))),
          h("tbody", {}, pad.games.map((g) => h("tr", {},
            h("td", {}, String(g.number)),
            g.deltas.map((d) => h("td", { class: "points" }, d > 0 ? `+${d}` : String(d))),
            h("td", {}, me ? h("button", { type: "button", class: "secondary small", "aria-label": t("pad.delete", { n: g.number }),
              onclick: () => del(g.number) }, "✕") : null)))),
          h("tfoot", {}, h("tr", {}, h("th", {}, t("result.total")), pad.totals.map((x) => h("th", { class: "points" }, String(x))), h("th", {}, "")))))
        : h("p", {}, t("pad.nogames")));
    return h("div", { class: "pad-grid", id: "pad-grid" }, standings, games);
  };

  const render = () => {
    const link = h("input", { id: "pad-link", readonly: true, value: location.origin + location.pathname, "aria-label": t("pad.link") });
    const copy = h("button", { type: "button", class: "secondary" }, t("table.copy"));
    copy.addEventListener("click", async () => {
      link.select();
      try { await navigator.clipboard.writeText(link.value); copy.textContent = t("table.copied"); } catch { /* selected: copy by hand */ }
    });
    if (me && !form) form = gameForm(pad, (fresh) => { pad = fresh; form = null; render(); });
    root.replaceChildren(h("section", { class: "pad", "data-games": pad.games.length },
      h("h1", {}, t("pad.title")),
      h("p", { class: "pad-rules" }, t("pad.rules", { rules: pad.rules, scoring: pad.scoring })),
      h("div", { class: "invite" }, h("span", {}, t("pad.link")), link, copy),
      tables(),
      me ? form : nameForm()));
  };

  // Live: another copy's new or deleted game shows here within seconds; a form being
  // filled in is kept as it is (only its heading's game number moves on).
  const follow = async () => {
    try {
      const fresh = await api(path);
      if (signature(fresh) !== signature(pad)) {
        pad = fresh;
        const section = root.querySelector(".pad");
        if (section) {
          section.dataset.games = String(pad.games.length);
          root.querySelector("#pad-grid").replaceWith(tables());
          const heading = root.querySelector("#pad-game h2");
          if (heading) heading.textContent = t("pad.add", { n: pad.games.length + 1 });
        }
      }
    } catch { /* the next look */ }
    setTimeout(follow, 2000);
  };
  render();
  setTimeout(follow, 2000);
  return { rerender: () => { form = null; render(); } };
}

export async function mount(root, id) {
  return id === undefined ? mountNew(root) : mountPad(root, id);
}
