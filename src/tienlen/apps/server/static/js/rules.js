// Every preset in words, from the engine's own explanations (/api/rules), worded in the
// page's language from the engine's catalogue (/api/descriptions).
import { api, h } from "./api.js";
import { loadPhrases, phraseText, t } from "./i18n.js";

/** One preset's summary and sections, as the rules page and the lobby form show them. */
export function presetWords(p) {
  return [
    h("p", { class: "summary" }, phraseText(p.summary)),
    ...p.sections.map((s) => h("section", {}, h("h3", {}, phraseText(s.heading)),
      h("ul", {}, s.sentences.map((x) => h("li", {}, phraseText(x)))))),
  ];
}

export async function mount(root) {
  const [presets] = await Promise.all([api("/api/rules"), loadPhrases()]);
  const render = () => {
    root.replaceChildren(h("section", { class: "rules" },
      h("h1", {}, t("rules.title")),
      h("nav", { class: "toc" }, h("ul", {}, presets.map((p) => h("li", {}, h("a", { href: `#${p.preset}` }, t("preset." + p.preset)))))),
      presets.map((p) => h("article", { id: p.preset }, h("h2", {}, t("preset." + p.preset)), presetWords(p)))));
  };
  render();
  return { rerender: render };
}
