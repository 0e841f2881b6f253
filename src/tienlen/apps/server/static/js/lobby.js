// The lobby: open tables, live over /ws/lobby, and the form that creates a table.
import { api, ensureGuest, h, wsUrl } from "./api.js";
import { loadPhrases, t } from "./i18n.js";
import { presetWords } from "./rules.js";

function tableRow(info) {
  const humans = info.seats.filter((s) => s.player).length;
  const free = info.seats.some((s) => !s.player);
  return h("li", { class: "lobby-table", dataset: { table: info.id } },
    h("span", { class: "rules", title: info.rules_key }, info.rules_code),
    h("span", { class: "seats" }, `${t("lobby.seats")}: ${humans}/${info.players}`),
    h("span", { class: "status" }, t("status." + info.status)),
    info.status === "waiting" && free
      ? h("a", { class: "button", href: `/t/${info.id}?sit=1` }, t("lobby.join")) : null,
    h("a", { class: "button secondary", href: `/t/${info.id}` }, t("lobby.watch")),
  );
}

function knobInput(knob, value) {
  const id = `knob-${knob.name}`;
  let input;
  if (knob.type === "bool") {
    input = h("input", { type: "checkbox", id, name: knob.name });
    input.checked = Boolean(value);
  } else if (knob.type === "choice") {
    input = h("select", { id, name: knob.name }, knob.choices.map((c) => h("option", { value: c }, c)));
    input.value = value;
  } else {
    const text = knob.type === "json" ? JSON.stringify(value) : value ?? "";
    input = h("input", { type: knob.type === "int" ? "number" : "text", id, name: knob.name, value: text });
  }
  input.dataset.knob = knob.type;
  return h("label", { class: "knob", for: id }, h("span", {}, knob.name), input);
}

function knobValue(input) {
  switch (input.dataset.knob) {
    case "bool": return input.checked;
    case "int": return input.value === "" ? null : Number(input.value);
    case "json": return JSON.parse(input.value);
    default: return input.value === "" ? null : input.value;
  }
}

export async function mount(root) {
  await ensureGuest(root);
  const [{ presets, bots }, knobs, words] = await Promise.all([
    api("/api/presets"), api("/api/knobs"), api("/api/rules"), loadPhrases()]);
  const list = h("ul", { class: "lobby-list", "aria-live": "polite" });
  const empty = h("p", { class: "empty" });
  const tables = new Map();

  const preset = h("select", { name: "preset", id: "preset" },
    Object.keys(presets).map((p) => h("option", { value: p }, p)));
  const botLevel = h("select", { name: "bots", id: "bots" },
    bots.map((b) => h("option", { value: b.name, title: b.description }, b.name)));
  botLevel.value = bots.some((b) => b.name === "greedy") ? "greedy" : bots[0].name;
  const games = h("input", { type: "number", id: "games", min: 1, max: 100, value: 1 });
  const target = h("input", { type: "number", id: "target", min: 1, max: 1000 });
  const timer = h("input", { type: "number", id: "timer", min: 1, max: 600 });
  const priv = h("input", { type: "checkbox", id: "private" });
  const knobBox = h("div", { class: "knobs" });
  const error = h("p", { class: "error", role: "alert" });
  const about = h("div", { class: "about-rules", id: "about-rules" });
  const fillKnobs = () => {
    knobBox.replaceChildren(...knobs.map((k) => knobInput(k, presets[preset.value][k.name])));
    const described = words.find((w) => w.preset === preset.value);
    about.replaceChildren(...(described ? presetWords(described) : []));
  };
  preset.addEventListener("change", fillKnobs);
  fillKnobs();

  const form = h("form", { class: "create", id: "create" },
    h("h2", {}, t("lobby.create")),
    h("label", { for: "preset" }, t("lobby.preset"), preset),
    h("details", { class: "about" }, h("summary", {}, t("lobby.about")), about),
    h("label", { for: "bots" }, t("lobby.bots"), botLevel),
    h("label", { for: "games" }, t("lobby.games"), games),
    h("label", { for: "target" }, t("lobby.target"), target),
    h("label", { for: "timer" }, t("lobby.timer"), timer),
    h("label", { for: "private", class: "check" }, priv, t("lobby.private")),
    h("details", {}, h("summary", {}, t("lobby.options")), knobBox),
    h("button", { type: "submit" }, t("lobby.make")),
    error,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    try {
      const options = {};
      for (const input of knobBox.querySelectorAll("[data-knob]")) {
        const value = knobValue(input);
        if (JSON.stringify(value) !== JSON.stringify(presets[preset.value][input.name])) options[input.name] = value;
      }
      const body = { preset: preset.value, options, bots: botLevel.value, private: priv.checked };
      if (games.value) body.games = Number(games.value);
      if (target.value) body.target = Number(target.value);
      if (timer.value) body.turn_timer = Number(timer.value);
      const made = await api("/api/tables", body);
      const invite = made.invite ? `&invite=${encodeURIComponent(made.invite)}` : "";
      location.href = `/t/${made.table.id}?sit=1${invite}`;
    } catch (e) {
      error.textContent = e.message;
    }
  });

  const render = () => {
    const shown = [...tables.values()].sort((a, b) => a.id.localeCompare(b.id));
    list.replaceChildren(...shown.map(tableRow));
    empty.textContent = shown.length ? "" : t("lobby.none");
  };

  let socket = null;
  let stopped = false;
  const connect = () => {
    socket = new WebSocket(wsUrl("/ws/lobby"));
    socket.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.type === "lobby") {
        tables.clear();
        for (const info of msg.tables) tables.set(info.id, info);
      } else if (msg.type === "lobby_table") {
        if (msg.removed || msg.table.status === "finished") tables.delete(msg.table.id);
        else tables.set(msg.table.id, msg.table);
      }
      render();
    };
    socket.onclose = () => { if (!stopped) setTimeout(connect, 2000); };
  };
  connect();

  root.replaceChildren(h("section", { class: "lobby" },
    h("div", { class: "open" }, h("h2", {}, t("lobby.open")), empty, list), form));
  render();
  // A language switch draws the page again, with a fresh socket.
  return { rerender: () => { stopped = true; socket.close(); return mount(root); } };
}
