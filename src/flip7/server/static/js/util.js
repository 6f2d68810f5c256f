// Small DOM and storage helpers shared by every view.
// User-provided text (player and table names) only ever reaches the page through
// textContent / attribute setters here: never through innerHTML.
import { api } from "./api.js";
import { formatList, t } from "./i18n.js";

/**
 * What h() and add() take as children: text, nodes, arrays of them (nested up to three
 * deep here: a JSDoc typedef cannot name itself); null, undefined and false are skipped
 * (`cond ? h(...) : null`).
 * @typedef {Node | string | number | boolean | null | undefined} Leaf
 * @typedef {Leaf | Array<Leaf | Array<Leaf | Leaf[]>>} Child
 */

/**
 * h()'s attributes: `class`, `text` (textContent), `dataset`, `style` (CSS properties),
 * `on<event>` listeners, `true` for a bare attribute; null, undefined and false are skipped.
 * @typedef {object} AttrsKnown
 * @property {string | null} [class]
 * @property {string | number | null} [text]
 * @property {Record<string, string | undefined>} [dataset]
 * @property {Record<string, string> | null} [style]
 * @property {(ev: MouseEvent) => unknown} [onclick]
 * @property {(ev: FocusEvent) => unknown} [onfocus]
 * @property {(ev: Event) => unknown} [oninput]
 * @property {(ev: Event) => unknown} [onchange]
 * @property {(ev: KeyboardEvent) => unknown} [onkeydown]
 * @property {(ev: SubmitEvent) => unknown} [onsubmit]
 * @typedef {AttrsKnown & {[attribute: string]: unknown}} Attrs
 */

/**
 * Build an element: h("button", {class: "btn", onclick: fn, "aria-label": "Hit"}, "Hit").
 * Children may be strings (text nodes), nodes, arrays, null/false (skipped).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs | null} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") el.className = String(value);
      else if (key === "text") el.textContent = String(value);
      else if (key === "dataset") Object.assign(el.dataset, value);
      else if (key === "style" && typeof value === "object") {
        for (const [prop, v] of Object.entries(value)) el.style.setProperty(prop, v);
      } else if (key.startsWith("on") && typeof value === "function") {
        el.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
      } else if (value === true) el.setAttribute(key, "");
      else el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

/**
 * Append children to el, skipping null/false and flattening arrays.
 * @template {Node} T
 * @param {T} el
 * @param {...Child} children
 * @returns {T}
 */
export function add(el, ...children) {
  append(el, children);
  return el;
}

/**
 * @param {Node} el
 * @param {Child[]} children
 */
function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** An inline SVG icon from a fixed, trusted set (no user data). */
const ICONS = /** @type {const} */ ({
  bell: "M12 2a1.6 1.6 0 0 1 1.6 1.6v.7A6.5 6.5 0 0 1 18.5 10.6V15l2 2.5V19h-17v-1.5l2-2.5v-4.4a6.5 6.5 0 0 1 4.9-6.3v-.7A1.6 1.6 0 0 1 12 2zm-2.4 18h4.8a2.4 2.4 0 0 1-4.8 0z",
  chat: "M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z",
  copy: "M8 8h11v12H8zM5 4h11v2H7v11H5z",
  play: "M7 4l13 8-13 8z",
  pause: "M6 4h4v16H6zM14 4h4v16h-4z",
  first: "M5 4h2v16H5zM20 4v16L9 12z",
  last: "M17 4h2v16h-2zM4 4l11 8-11 8z",
  prev: "M18 4v16L7 12z",
  next: "M6 4l11 8-11 8z",
  download: "M11 3h2v9l3.5-3.5 1.4 1.4L12 15.8 6.1 9.9l1.4-1.4L11 12zM4 18h16v2H4z",
  upload: "M11 16h2V7l3.5 3.5 1.4-1.4L12 3.2 6.1 9.1l1.4 1.4L11 7zM4 18h16v2H4z",
  bot: "M11 2h2v3h4a3 3 0 0 1 3 3v9a3 3 0 0 1-3 3H7a3 3 0 0 1-3-3V8a3 3 0 0 1 3-3h4zM8.5 10a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zm7 0a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zM8 15h8v2H8z",
  user: "M12 3a4.5 4.5 0 1 1 0 9 4.5 4.5 0 0 1 0-9zm0 11c4.4 0 8 2.2 8 5v2H4v-2c0-2.8 3.6-5 8-5z",
  close: "M6.4 5 12 10.6 17.6 5 19 6.4 13.4 12l5.6 5.6-1.4 1.4-5.6-5.6L6.4 19 5 17.6 10.6 12 5 6.4z",
  eye: "M12 5c5 0 9 4.5 10 7-1 2.5-5 7-10 7S3 14.5 2 12c1-2.5 5-7 10-7zm0 3.5a3.5 3.5 0 1 0 0 7 3.5 3.5 0 0 0 0-7z",
  trophy: "M7 3h10v2h4v3a5 5 0 0 1-4.6 5 5 5 0 0 1-3.4 3v2h3v3H8v-3h3v-2a5 5 0 0 1-3.4-3A5 5 0 0 1 3 8V5h4zm-2 4v1a3 3 0 0 0 2 2.8V7zm12 0v3.8A3 3 0 0 0 19 8V7z",
  clock: "M12 2a10 10 0 1 1 0 20 10 10 0 0 1 0-20zm-1 5v6l5 3 1-1.6-4-2.4V7z",
  link: "M10.6 13.4a1 1 0 0 0 1.4 0l4-4a3 3 0 0 0-4.2-4.2l-1.5 1.5 1.4 1.4 1.5-1.5a1 1 0 0 1 1.4 1.4l-4 4a1 1 0 0 0 0 1.4zm2.8-2.8a1 1 0 0 0-1.4 0l-4 4a3 3 0 0 0 4.2 4.2l1.5-1.5-1.4-1.4-1.5 1.5a1 1 0 0 1-1.4-1.4l4-4a1 1 0 0 0 0-1.4z",
  refresh: "M12 4a8 8 0 0 1 7.4 5H22l-3.5 4L15 9h2.2A6 6 0 1 0 18 14h2.1A8 8 0 1 1 12 4z",
});

/** @typedef {keyof typeof ICONS} IconName */

/**
 * @param {IconName} name
 * @param {string} [extraClass]
 */
export function icon(name, extraClass = "") {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.setAttribute("class", `icon ${extraClass}`.trim());
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", ICONS[name] || "");
  svg.appendChild(path);
  return svg;
}

/**
 * @template {Node} T
 * @param {T} el
 * @returns {T}
 */
export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** Scroll the page just enough that `el` lies between `top` and `bottom` (viewport
 * pixels): down to it when it is below, up to it when it is above or does not fit.
 * @param {Element} el
 * @param {number} top
 * @param {number} bottom
 */
export function scrollBetween(el, top, bottom) {
  const r = el.getBoundingClientRect();
  if (r.top < top) window.scrollBy(0, r.top - top);
  else if (r.bottom > bottom) window.scrollBy(0, Math.min(r.bottom - bottom, r.top - top));
}

/** localStorage that never throws (private mode, disabled storage). */
export const store = {
  /** @param {string} key */
  get(key) {
    try {
      return window.localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  /**
   * @param {string} key
   * @param {string} value
   */
  set(key, value) {
    try {
      window.localStorage.setItem(key, value);
    } catch {
      /* storage unavailable: the session still works until reload */
    }
  },
  /** @param {string} key */
  del(key) {
    try {
      window.localStorage.removeItem(key);
    } catch {
      /* ignore */
    }
  },
};

export const tokenKey = (/** @type {string} */ tableId) => `flip7.token.${tableId}`;

// The seat tokens the lobby's list is asked with at most (the server's SEAT_TOKENS_HELD,
// flip7.server.api.routes.tables: it reads no more).
export const SEAT_TOKENS_HELD = 100;

/**
 * The seat tokens this browser holds (those `tokenKey` keeps), at most `SEAT_TOKENS_HELD`.
 * @returns {string[]}
 */
export function heldTokens() {
  /** @type {string[]} */
  const tokens = [];
  const prefix = tokenKey("");
  try {
    const storage = window.localStorage;
    for (let i = 0; i < storage.length && tokens.length < SEAT_TOKENS_HELD; i += 1) {
      const key = storage.key(i);
      const token = key && key.startsWith(prefix) ? storage.getItem(key) : null;
      if (token) tokens.push(token);
    }
  } catch {
    /* storage unavailable: no seats held */
  }
  return tokens;
}
export const NAME_KEY = "flip7.name";

/**
 * A short notice at the bottom of the screen.
 * @param {string} message
 * @param {"error" | "info" | "ok"} [kind]
 * @param {number} [ms]
 */
export function toast(message, kind = "error", ms = 4200) {
  const box = document.getElementById("toasts");
  if (!box) return;
  /** @type {HTMLDivElement} */
  const el = h("div", { class: `toast toast--${kind}`, role: kind === "error" ? "alert" : "status" },
    h("span", { class: "toast-text", text: message }),
    h("button", {
      class: "toast-close", type: "button", "aria-label": t("common.dismiss"),
      onclick: () => el.remove(),
    }, icon("close")));
  box.appendChild(el);
  while (box.firstElementChild && box.children.length > 4) box.firstElementChild.remove();
  setTimeout(() => {
    el.classList.add("toast--out");
    setTimeout(() => el.remove(), 300);
  }, ms);
}

/**
 * Copy text to the clipboard, with a fallback for non-secure contexts; whether it worked.
 * @param {string} text
 * @returns {Promise<boolean>}
 */
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall through */
  }
  const area = h("textarea", { class: "visually-hidden", readonly: true });
  area.value = text;
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

// ---- names -------------------------------------------------------------------------

const graphemes = typeof Intl !== "undefined" && Intl.Segmenter
  ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;

/**
 * What an avatar shows of a name: its first character as a reader sees it (a whole emoji,
 * flag or accented letter, never half of a UTF-16 surrogate pair), upper-cased; "?" when
 * the name is empty.
 * @param {string | null | undefined} name
 */
export function initial(name) {
  const text = String(name || "").trim();
  if (!text) return "?";
  const segment = graphemes ? graphemes.segment(text)[Symbol.iterator]().next().value : undefined;
  const first = segment ? segment.segment : Array.from(text)[0];
  const upper = first.toUpperCase();
  // "ß" would become "SS": keep one letter.
  return Array.from(upper).length === Array.from(first).length ? upper : first;
}

/**
 * What the avatars of one table show: each name's initial, or its first two letters where
 * another name there starts with the same letter ("Mi", "Ma": two Medium bots, Mia and Max,
 * looked alike).
 * @param {string[]} names
 * @returns {string[]}
 */
export function initials(names) {
  const firsts = names.map(initial);
  return names.map((name, i) => {
    const first = firsts[i] || "?";
    if (firsts.filter((f) => f === first).length < 2) return first;
    const chars = Array.from(String(name || "").trim());
    return chars.length > 1 && /^\p{L}$/u.test(chars[0] || "") && /^\p{L}$/u.test(chars[1] || "") ? first + chars[1].toLowerCase() : first;
  });
}

/** A name's length as the server counts it: characters (code points), not UTF-16 units,
 * once its white space is collapsed.
 * @param {string | null | undefined} text
 */
export function nameLength(text) {
  return Array.from(String(text || "").trim().split(/\s+/).join(" ").normalize("NFC")).length;
}

/** @type {Promise<import("./protocol.js").Limits | null> | null} */
let limitsPromise = null;
/**
 * The server's limits (GET /api/limits), fetched once; null if it does not answer.
 * @returns {Promise<import("./protocol.js").Limits | null>}
 */
export function loadLimits() {
  if (!limitsPromise) {
    limitsPromise = api("GET", "/api/limits").then(
      (answer) => /** @type {import("./protocol.js").Limits} */ (answer),
      () => {
        limitsPromise = null; // ask again next time
        return null;
      });
  }
  return limitsPromise;
}

/**
 * A counter under a name input: "3 / 24", and how many characters too many once past the
 * server's limit (`limitName` in /api/limits). Nothing is cut: the server refuses a name
 * that is too long, with its message, and the counter says so before it is sent.
 * @param {HTMLInputElement} input
 * @param {"player_name_chars" | "table_name_chars"} limitName
 */
export function nameCounter(input, limitName) {
  const counter = h("small", { class: "muted field-count", id: `${input.id || "name"}-count`, "aria-live": "polite" });
  counter.hidden = true;
  input.setAttribute("aria-describedby", counter.id);
  /** @type {number | null} */
  let most = null;
  const update = () => {
    if (most === null) return;
    const n = nameLength(input.value);
    const over = n > most;
    counter.hidden = false;
    counter.textContent = over ? t("common.name_count_over", { n, most, count: n - most }) : t("common.name_count", { n, most });
    counter.style.setProperty("color", over ? "#ffb3aa" : "");
    counter.dataset.over = String(over);
    if (over) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  };
  input.addEventListener("input", update);
  loadLimits().then((limits) => {
    if (limits && Number.isInteger(limits[limitName])) {
      most = limits[limitName];
      update();
    }
  });
  return counter;
}

// ---- invite links ----------------------------------------------------------------------

/** @type {Promise<import("./protocol.js").ServerInfo | null> | null} */
let serverPromise = null;
/**
 * Where friends can reach this server (GET /api/server), fetched once; null if it does not answer.
 * @returns {Promise<import("./protocol.js").ServerInfo | null>}
 */
export function loadServerInfo() {
  if (!serverPromise) {
    serverPromise = api("GET", "/api/server").then(
      (answer) => /** @type {import("./protocol.js").ServerInfo} */ (answer),
      () => {
        serverPromise = null;
        return null;
      });
  }
  return serverPromise;
}

/** Whether only the machine a browser runs on can open this host: localhost, 127.x, ::1
 * (and 0.0.0.0, which browsers open as this machine).
 * @param {string | null | undefined} hostname
 */
export function isLoopbackHost(hostname) {
  const host = String(hostname || "").replace(/^\[|\]$/g, "").toLowerCase().replace(/\.$/, "");
  return host === "localhost" || host.endsWith(".localhost") || /^127\.\d+\.\d+\.\d+$/.test(host)
    || host === "::1" || host === "0.0.0.0" || host === "::";
}

/**
 * @typedef {object} Invite
 * @property {string} url
 * @property {string} host
 * @property {boolean} loopback
 * @property {string[]} others
 * @property {boolean | null} loopbackOnly
 */

/**
 * The invite link to `path` ("/t/abc"): from the operator's public URL when the server has
 * one, else from the address this page was opened at (the one the inviter actually used).
 * `loopback`: friends cannot open it; `others`: the server's network addresses to offer
 * instead; `loopbackOnly`: the server listens on this machine only (null: unknown).
 * @param {string} path
 * @param {import("./protocol.js").ServerInfo | null} info
 * @returns {Invite}
 */
export function inviteLink(path, info) {
  const base = info && info.public_url ? info.public_url : window.location.origin;
  const url = `${base}${path}`;
  let host = "";
  try {
    host = new URL(url).hostname;
  } catch {
    host = window.location.hostname;
  }
  const loopback = isLoopbackHost(host);
  const others = loopback && info && Array.isArray(info.addresses) ? info.addresses.map((a) => `${a}${path}`) : [];
  return { url, host, loopback, others, loopbackOnly: info ? !!info.loopback_only : null };
}

/**
 * The invite panel's warning when friends cannot open the link (a loopback address):
 * the network addresses the server listens on, each with a copy button, or how to restart
 * the server so that friends can reach it. null when the link is fine.
 * @param {Invite} invite
 */
export function inviteWarning(invite) {
  if (!invite.loopback) return null;
  const box = h("div", { class: "form-error invite-warning", role: "status", dataset: { testid: "invite-warning" } },
    h("p", { text: t("common.invite_loopback", { host: invite.host }) }));
  const copy = async (/** @type {string} */ link) => {
    const ok = await copyText(link);
    toast(ok ? t("common.invite_copied") : link, ok ? "ok" : "info");
  };
  if (invite.others.length) {
    add(box, h("p", { text: t("common.invite_network") }),
      invite.others.map((link) => h("div", { class: "invite-row" },
        h("input", { class: "input invite-input", type: "text", readonly: true, value: link, "aria-label": t("common.invite_network_label"), onfocus: (e) => { if (e.target instanceof HTMLInputElement) e.target.select(); } }),
        h("button", { type: "button", class: "btn btn--secondary", onclick: () => copy(link), "aria-label": t("common.copy_this", { text: link }) }, icon("copy"), t("common.copy")))));
  } else if (invite.loopbackOnly === false) {
    add(box, h("p", { text: t("common.invite_no_address") }));
  } else {
    add(box, h("p", {},
      t("common.invite_local_1"),
      h("code", { text: "make serve HOST=0.0.0.0" }), t("common.invite_local_2"), h("code", { text: "flip7 serve --host 0.0.0.0" }),
      t("common.invite_local_3")));
  }
  return box;
}

/**
 * Ask for a display name in a modal dialog; resolves to the trimmed name or null.
 * @param {string} title
 * @param {string | null} [confirmLabel]
 * @returns {Promise<string | null>}
 */
export function askName(title, confirmLabel = null) {
  return new Promise((resolve) => {
    const input = h("input", {
      id: "name-dialog-input", name: "player", type: "text", required: true,
      autocomplete: "nickname", placeholder: t("common.your_name"), "aria-label": t("common.your_display_name"),
    });
    input.value = store.get(NAME_KEY) || "";
    const counter = nameCounter(input, "player_name_chars");
    const dialog = h("dialog", { class: "dialog", "aria-labelledby": "name-dialog-title" });
    const form = h("form", { method: "dialog", class: "dialog-form" },
      h("h2", { id: "name-dialog-title", text: title }),
      h("label", { for: "name-dialog-input", class: "field-label", text: t("common.display_name") }),
      input, counter,
      h("div", { class: "dialog-actions" },
        h("button", { type: "button", class: "btn btn--ghost", value: "cancel",
          onclick: () => dialog.close("cancel") }, t("common.cancel")),
        h("button", { type: "submit", class: "btn btn--primary", value: "ok",
          "data-testid": "name-dialog-ok" }, confirmLabel || t("common.join"))));
    dialog.appendChild(form);
    form.addEventListener("submit", (ev) => {
      const name = input.value.trim();
      if (!name) {
        ev.preventDefault();
        input.focus();
        return;
      }
      dialog.returnValue = "ok";
    });
    dialog.addEventListener("close", () => {
      const name = input.value.trim();
      dialog.remove();
      if (dialog.returnValue === "ok" && name) {
        store.set(NAME_KEY, name);
        resolve(name);
      } else resolve(null);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    input.focus();
    input.select();
  });
}

/**
 * A checkbox shown as a switch, with its label and a line of help under it.
 * @param {HTMLInputElement} input its id ties the label to it
 * @param {string} label
 * @param {string | null} help
 */
export function switchField(input, label, help) {
  return h("div", { class: "switch-field" },
    input,
    h("label", { for: input.id, class: "switch-label" },
      h("span", { class: "switch", "aria-hidden": "true" }),
      h("span", { class: "switch-text" }, h("span", { text: label }), help ? h("small", { class: "muted", text: help }) : null)));
}

/**
 * A control's content when what it shows is not what it says (a card and a key hint for
 * "Swap your 5 with…"): the picture hidden from screen readers, the words for them only.
 * Better than an aria-label, which a voice user who says what they see would not match.
 * @param {Child} shown
 * @param {string} words
 * @returns {HTMLElement[]}
 */
export function spoken(shown, words) {
  return [h("span", { "aria-hidden": "true" }, shown), h("span", { class: "visually-hidden", text: words })];
}

/**
 * "a, b and c" ("a, b und c"): the current language's list.
 * @param {string[]} items
 */
export function listText(items) {
  if (items.length <= 1) return items.join("");
  return formatList(items);
}

/**
 * Keep keyboard focus across a re-render: elements carry data-focus-key.
 * @returns {string | null}
 */
export function focusKey() {
  const el = document.activeElement;
  return el instanceof HTMLElement || el instanceof SVGElement ? el.dataset.focusKey || null : null;
}

/**
 * @param {string | null} key
 * @param {ParentNode} [root]
 */
export function restoreFocus(key, root = document) {
  if (!key) return;
  const el = root.querySelector(`[data-focus-key="${CSS.escape(key)}"]`);
  if (el instanceof HTMLElement && !("disabled" in el && el.disabled)) el.focus({ preventScroll: true });
}
