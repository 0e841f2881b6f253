// Every preset in words, from the engine's own explanations (/api/rules).
import { api, h } from "./api.js";
import { t } from "./i18n.js";

export async function mount(root) {
  const presets = await api("/api/rules");
  const render = () => {
    root.replaceChildren(h("section", { class: "rules" },
      h("h1", {}, t("rules.title")),
      h("nav", { class: "toc" }, h("ul", {}, presets.map((p) => h("li", {}, h("a", { href: `#${p.preset}` }, p.preset))))),
      presets.map((p) => h("article", { id: p.preset },
        h("h2", {}, p.preset), h("p", { class: "summary" }, p.summary),
        p.sections.map((s) => h("section", {}, h("h3", {}, s.heading), h("ul", {}, s.sentences.map((x) => h("li", {}, x)))))))));
  };
  render();
  return { rerender: render };
}
