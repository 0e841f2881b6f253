// The first page: "Play now" (three bots, dealt at once), the open tables (live over
// /ws/lobby, newest first, a page more at a time) and the form that creates a table. Every rule is offered in the engine's own
// words (/api/options, worded from /api/descriptions); a name is asked once, inline.
import { api, currentGuest, h, setGuest, wsUrl } from "./api.js";
import { levelText, loadLevels, loadPhrases, phraseText, t } from "./i18n.js";
import { presetWords } from "./rules.js";

const LEVEL_KEY = "tienlen.level";
// The lobby's pages (the server's default) and the most lines one lobby socket shows.
const PAGE = 100;
const SHOWN_MAX = 1000;
const PRESET_KEY = "tienlen.preset";

/** A table's rules as a player reads them: the preset's name, then its house rules' codes. */
function rulesName(code) {
  const [preset, ...house] = code.split(".");
  return [t("preset." + preset), ...house].join(" · ");
}

function tableRow(info) {
  const humans = info.seats.filter((s) => s.player).length;
  const free = info.seats.some((s) => !s.player);
  return h("li", { class: "lobby-table", dataset: { table: info.id } },
    h("span", { class: "rules", title: info.rules_code }, rulesName(info.rules_code)),
    h("span", { class: "seats" }, `${t("lobby.seats")}: ${humans}/${info.players}`),
    h("span", { class: "status" }, t("status." + info.status)),
    info.status === "waiting" && free
      ? h("a", { class: "button", href: `/t/${info.id}?sit=1` }, t("lobby.join")) : null,
    h("a", { class: "button secondary", href: `/t/${info.id}` }, t("lobby.watch")),
  );
}

/** A value's sentences as one line ("" where the value adds no rule). */
function said(choice) {
  return choice.words.map((w) => phraseText(w)).join(" ");
}

/** One knob as a control worded by the engine: a checkbox where only one value has words,
 * else a list of each value's sentences after the knob's own words (its description). */
function knobInput(knob) {
  const id = `knob-${knob.name}`;
  const about = phraseText(knob.description);
  const worded = knob.choices.filter((c) => c.words.length);
  if (knob.type === "bool" && worded.length === 1) {
    const on = worded[0].value;
    const box = h("input", { type: "checkbox", id, name: knob.name, dataset: { on: String(on) } });
    box.checked = knob.value === on;
    return h("label", { class: "knob check", for: id, title: about }, box,
      h("span", {}, said(worded[0])));
  }
  const select = h("select", { id, name: knob.name },
    knob.choices.map((c) => h("option", { value: String(c.value) }, said(c) || t("lobby.ruleoff"))));
  select.value = String(knob.value);
  select.dataset.type = knob.type;
  return h("label", { class: "knob", for: id, title: about },
    h("span", { class: "knob-name" }, about), select);
}

function knobValue(input) {
  if (input.type === "checkbox") {
    const on = input.dataset.on === "true";
    return input.checked ? on : !on;
  }
  if (input.dataset.type === "bool") return input.value === "true";
  return input.dataset.type === "int" ? Number(input.value) : input.value;
}

/** The bot levels by name, and the chosen one's way of playing as help under the select (a
 * description in each option would be clipped in a narrow form). */
function levelSelect(id, levels, chosen) {
  const about = h("small", { id: `${id}-about`, class: "level-about" });
  const select = h("select", { id, name: "bots", "aria-describedby": about.id },
    levels.map((l) => h("option", { value: l.name }, levelText(l.name))));
  select.value = levels.some((l) => l.name === chosen) ? chosen : levels[1] ? levels[1].name : levels[0].name;
  const show = () => {
    const text = levelText(select.value, "about");
    about.textContent = text.charAt(0).toUpperCase() + text.slice(1);
  };
  select.addEventListener("change", show);
  show();
  return { select, about };
}

function presetSelect(id, presets, chosen) {
  const select = h("select", { id, name: "preset" }, presets.map((p) => h("option", { value: p }, t("preset." + p))));
  select.value = presets.includes(chosen) ? chosen : presets[0];
  return select;
}

export async function mount(root) {
  const [me, { presets }, words, , levels] = await Promise.all([
    currentGuest(), api("/api/presets"), api("/api/rules"), loadPhrases(), loadLevels()]);
  const names = Object.keys(presets);
  const list = h("ul", { class: "lobby-list", "aria-live": "polite" });
  const empty = h("p", { class: "empty" });

  // The name, once: asked here beside the buttons, kept by the server's cookie.
  const nameInput = h("input", { id: "guest-name", name: "name", maxlength: 24, autocomplete: "nickname", required: true, placeholder: t("guest.prompt") });
  const nameBox = me
    ? h("p", { class: "playing-as" }, t("lobby.as", { name: me.name }))
    : h("label", { class: "name-inline", for: "guest-name" }, t("lobby.name"), nameInput);
  const named = async () => {
    const mine = await currentGuest();
    if (mine) return mine;
    if (!nameInput.value.trim()) {
      nameInput.focus();
      throw new Error(t("lobby.needname"));
    }
    return setGuest(await api("/api/guest", { name: nameInput.value.trim() }));
  };

  // Play now: this player and three bots, started at once.
  const { select: quickLevel, about: quickAbout } = levelSelect("quick-level", levels, localStorage.getItem(LEVEL_KEY) || "easy");
  const quickRules = presetSelect("quick-rules", names, localStorage.getItem(PRESET_KEY) || "standard");
  const quickError = h("p", { class: "error", role: "alert" });
  const quick = h("form", { class: "play-now", id: "play-now" },
    h("h2", {}, t("lobby.playnow")),
    h("p", { class: "help" }, t("lobby.playnowhelp")),
    nameBox,
    h("label", { for: "quick-level" }, t("lobby.level"), quickLevel, quickAbout),
    h("label", { for: "quick-rules" }, t("lobby.rules"), quickRules),
    h("button", { type: "submit", id: "play-now-go", class: "big" }, t("lobby.playnow")),
    quickError);
  quick.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    quickError.textContent = "";
    try {
      await named();
      localStorage.setItem(LEVEL_KEY, quickLevel.value);
      localStorage.setItem(PRESET_KEY, quickRules.value);
      const made = await api("/api/tables", { preset: quickRules.value, bots: quickLevel.value, games: 1, private: true });
      location.href = `/t/${made.table.id}?sit=1&start=1&invite=${encodeURIComponent(made.invite || "")}`;
    } catch (e) {
      quickError.textContent = e.message;
    }
  });

  // The create form: any preset, its rules in words, bots, match length, timer, privacy.
  const preset = presetSelect("preset", names, localStorage.getItem(PRESET_KEY) || "standard");
  const { select: botLevel, about: botAbout } = levelSelect("bots", levels, "easy");
  const games = h("input", { type: "number", id: "games", min: 1, max: 100, value: 1, inputmode: "numeric" });
  const target = h("input", { type: "number", id: "target", min: 1, max: 1000, inputmode: "numeric" });
  const timer = h("input", { type: "number", id: "timer", min: 0, max: 600, inputmode: "numeric", placeholder: t("lobby.timerauto") });
  const priv = h("input", { type: "checkbox", id: "private" });
  const knobBox = h("div", { class: "knobs" });
  const error = h("p", { class: "error", role: "alert" });
  const about = h("div", { class: "about-rules", id: "about-rules" });
  let knobs = [];
  const fillKnobs = async () => {
    const chosen = preset.value;
    const described = words.find((w) => w.preset === chosen);
    about.replaceChildren(...(described ? presetWords(described) : []));
    knobs = await api(`/api/options?preset=${encodeURIComponent(chosen)}`);
    if (preset.value === chosen) knobBox.replaceChildren(...knobs.map(knobInput));
  };
  preset.addEventListener("change", fillKnobs);
  await fillKnobs();

  const form = h("form", { class: "create", id: "create" },
    h("h2", {}, t("lobby.create")),
    h("label", { for: "preset" }, t("lobby.preset"), preset),
    h("details", { class: "about" }, h("summary", {}, t("lobby.about")), about),
    h("label", { for: "bots" }, t("lobby.bots"), botLevel, botAbout),
    h("label", { for: "games" }, t("lobby.games"), games),
    h("label", { for: "target" }, t("lobby.target"), target),
    h("label", { for: "timer" }, t("lobby.timer"), timer, h("small", {}, t("lobby.timerhelp", { n: 30 }))),
    h("label", { for: "private", class: "check" }, priv, t("lobby.private")),
    h("details", { class: "options" }, h("summary", {}, t("lobby.options")), knobBox),
    h("button", { type: "submit" }, t("lobby.make")),
    error,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    try {
      await named();
      const options = {};
      for (const input of knobBox.querySelectorAll("input, select")) {
        const knob = knobs.find((k) => k.name === input.name);
        const value = knobValue(input);
        if (knob && JSON.stringify(value) !== JSON.stringify(knob.value)) options[input.name] = value;
      }
      const body = { preset: preset.value, options, bots: botLevel.value, private: priv.checked };
      if (games.value) body.games = Number(games.value);
      if (target.value) body.target = Number(target.value);
      if (timer.value !== "") body.turn_timer = Number(timer.value);
      const made = await api("/api/tables", body);
      const invite = made.invite ? `&invite=${encodeURIComponent(made.invite)}` : "";
      location.href = `/t/${made.table.id}?sit=1${invite}`;
    } catch (e) {
      error.textContent = e.message;
    }
  });

  // The lines shown, newest first (a Map keeps its order): the pages read, and (live) the
  // new tables, each first; as the server does, a new table pushes the last line out when
  // the pages' room (PAGE lines a page) is full (docs/web-protocol.md).
  let tables = new Map();
  let pages = 1;
  let ended = false; // the last page read was short: no older table then
  const more = h("button", { type: "button", id: "more-tables", class: "secondary" }, t("lobby.more"));
  const render = () => {
    list.replaceChildren(...[...tables.values()].map(tableRow));
    empty.textContent = tables.size ? "" : t("lobby.none");
    more.hidden = ended || !tables.size || (pages + 1) * PAGE > SHOWN_MAX;
  };
  const paged = (listed, first) => {
    if (first) tables = new Map();
    for (const info of listed) tables.set(info.id, info);
    ended = listed.length < PAGE;
  };
  const lastId = () => [...tables.keys()].pop();

  let socket = null;
  let stopped = false;
  let poll = null;
  // The lobby's socket is for guests; before a name is given the pages shown are fetched
  // now and then.
  const fetchList = async () => {
    if (stopped) return;
    clearTimeout(poll);
    try {
      let listed = await api("/api/tables");
      paged(listed, true);
      for (let page = 1; page < pages && listed.length === PAGE; page++) {
        listed = await api(`/api/tables?after=${encodeURIComponent(lastId())}`);
        paged(listed, false);
      }
      render();
    } catch { /* the next try */ }
    poll = setTimeout(fetchList, 2000);
  };
  const connect = () => {
    socket = new WebSocket(wsUrl("/ws/lobby"));
    socket.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.type === "lobby") { // the room grows as the server's does: with the page
        pages = msg.after === undefined ? 1 : pages + 1;
        paged(msg.tables, msg.after === undefined);
      } else if (msg.type === "lobby_table") {
        if (msg.removed) tables.delete(msg.table.id);
        else tables.set(msg.table.id, msg.table);
      } else if (msg.type === "lobby_new") { // newest first: they go first
        tables = new Map([...msg.tables.map((info) => [info.id, info]), ...tables]);
        while (tables.size > pages * PAGE) { // the last lines are pushed out, as the server's
          tables.delete(lastId());
          ended = false;
        }
      }
      render();
    };
    socket.onclose = () => { if (!stopped) setTimeout(connect, 2000); };
  };
  more.addEventListener("click", () => {
    more.hidden = true;
    if (socket) { // (a socket reconnecting sends the first page again, and the button)
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "more", after: lastId() }));
    } else {
      pages += 1;
      fetchList();
    }
  });
  if (me) connect();
  else fetchList();

  root.replaceChildren(h("section", { class: "lobby" },
    quick,
    h("div", { class: "open" }, h("h2", {}, t("lobby.open")), empty, list, more),
    form));
  render();
  // A language switch draws the page again, with a fresh socket.
  return {
    rerender: () => {
      stopped = true;
      clearTimeout(poll);
      if (socket) socket.close();
      return mount(root);
    },
  };
}
