// HTTP helpers and the guest identity (the server keeps it in an HttpOnly cookie).
import { t } from "./i18n.js";

/** An HTTP error with the server's code and message. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body.message || `HTTP ${status}`);
    this.status = status;
    this.code = body.code;
    this.body = body;
  }
}

/** GET (or, with a body, POST) JSON. */
export async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const r = await fetch(path, { credentials: "same-origin", ...init });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}

let me = null;

/** The guest playing in this browser, or null before a name was given. */
export async function currentGuest() {
  if (me) return me;
  try {
    me = await api("/api/me");
    return me;
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 401) throw e;
    return null;
  }
}

/** Remember the guest just made (POST /api/guest). */
export function setGuest(guest) {
  me = guest;
  return me;
}

/** The guest playing in this browser; asks for a name the first time. */
export async function ensureGuest(root) {
  if (await currentGuest()) return me;
  me = await new Promise((resolve) => {
    const form = document.createElement("form");
    form.className = "guest";
    form.innerHTML = `<label>${t("guest.prompt")} <input name="name" maxlength="24" required autocomplete="nickname"></label>
      <button type="submit">${t("guest.go")}</button><p class="error" role="alert"></p>`;
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      try {
        resolve(await api("/api/guest", { name: form.elements.name.value }));
        form.remove();
      } catch (err) {
        form.querySelector(".error").textContent = err.message;
      }
    });
    root.replaceChildren(form);
    form.elements.name.focus();
  });
  return me;
}

/** The WebSocket URL of a path on this server. */
export function wsUrl(path) {
  return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
}

/** A new element: h("button", {class: "x", onclick}, "text", child...). */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "class") node.className = v;
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c !== undefined && c !== null && c !== false) node.append(c);
  }
  return node;
}
