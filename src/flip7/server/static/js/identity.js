// The player's identity in this browser (issue 16): no password, no e-mail. The server
// makes it ({id, name, key}); the browser keeps it in localStorage "flip7.player" and api.js
// sends the key as X-Player-Key on every request. Another device gets its own key through a
// one-time transfer code (/link/<code>); nothing else can recover a lost identity.
//
// Here: reading and storing it, the first-visit welcome (skippable: anonymous play stays
// possible), the top bar's player chip and leaderboard link, the "Use on another device"
// panel, renaming, and the claim page /link/<code>.
import { ApiError, api } from "./api.js";
import { errorText, formatDate, t } from "./i18n.js";
import { navigate } from "./router.js";
import { NAME_KEY, add, clear, copyText, h, icon, initial, nameCounter, store, toast } from "./util.js";

/** @typedef {import("./protocol.js").Identity} Identity */

export const PLAYER_STORE = "flip7.player";
const LATER_STORE = "flip7.player.later"; // the welcome was answered "Not now"
export const IDENTITY_EVENT = "flip7:identity"; // api.js dispatches it when the key is refused

/**
 * The identity kept by this browser, or null (anonymous).
 * @returns {Identity | null}
 */
export function getIdentity() {
  const raw = store.get(PLAYER_STORE);
  if (!raw) return null;
  try {
    const p = JSON.parse(raw);
    if (p && typeof p.id === "string" && typeof p.key === "string" && p.key) {
      return { id: p.id, name: typeof p.name === "string" ? p.name : "", key: p.key };
    }
  } catch {
    /* not ours: treated as no identity */
  }
  return null;
}

/** @type {Set<(me: Identity | null) => void>} */
const listeners = new Set();
/**
 * Call fn(identity | null) whenever the identity changes (here, in another tab, or refused).
 * @param {(me: Identity | null) => void} fn
 * @returns {() => void} stops calling it
 */
export function onIdentityChange(fn) {
  listeners.add(fn);
  return () => { listeners.delete(fn); };
}

function changed() {
  const me = getIdentity();
  for (const fn of [...listeners]) {
    try {
      fn(me);
    } catch {
      /* one listener's problem is not the others' */
    }
  }
}

/** @param {Identity} p */
function saveIdentity(p) {
  store.set(PLAYER_STORE, JSON.stringify({ id: p.id, name: p.name, key: p.key }));
  store.del(LATER_STORE);
  // The lobby's "Your name" starts from the identity's name (and an empty one on screen
  // takes it at once).
  store.set(NAME_KEY, p.name);
  const lobbyName = document.getElementById("create-player");
  if (lobbyName instanceof HTMLInputElement && !lobbyName.value.trim()) {
    lobbyName.value = p.name;
    lobbyName.dispatchEvent(new Event("input"));
  }
  changed();
}

/** Forget the identity in this browser only (the server keeps it for other devices). */
export function forgetIdentity() {
  store.del(PLAYER_STORE);
  changed();
}

window.addEventListener(IDENTITY_EVENT, changed);
window.addEventListener("storage", (ev) => {
  if (ev.key === PLAYER_STORE) changed();
});

/**
 * @param {string} name
 * @returns {Promise<Identity>}
 */
export async function createIdentity(name) {
  const data = /** @type {Identity} */ (await api("POST", "/api/players", { body: { name } }));
  saveIdentity(data);
  return data;
}

/**
 * @param {string} name
 * @returns {Promise<import("./protocol.js").Profile | null>}
 */
export async function renameIdentity(name) {
  const data = /** @type {import("./protocol.js").Profile | null} */ (await api("PATCH", "/api/players/me", { body: { name } }));
  const me = getIdentity();
  if (me) saveIdentity({ ...me, name: data && data.name ? data.name : name });
  return data;
}

/**
 * @param {string} code
 * @returns {Promise<Identity>}
 */
export async function claimIdentity(code) {
  const data = /** @type {Identity} */ (await api("POST", "/api/players/claim", { body: { code: String(code).trim() } }));
  saveIdentity(data);
  return data;
}

/**
 * The path of a player's profile: /me for this browser's own identity.
 * @param {string} playerId
 */
export function profilePath(playerId) {
  const me = getIdentity();
  return me && me.id === playerId ? "/me" : `/players/${encodeURIComponent(playerId)}`;
}

// ---- the name form (welcome strip, /me without an identity) -------------------------------

/**
 * A form asking for a display name that creates the identity; onDone(identity).
 * @param {object} options
 * @param {string} options.idPrefix its input's id starts with it
 * @param {(me: Identity) => void} [options.onDone]
 * @param {boolean} [options.compact] the welcome strip's one line
 * @param {Node | null} [options.extra] beside the Save button
 */
export function identityForm({ idPrefix, onDone, compact = false, extra = null }) {
  const input = h("input", {
    id: `${idPrefix}-name`, class: "input", type: "text", required: true, autocomplete: "nickname",
    placeholder: t("players.identity.name_placeholder"), dataset: { testid: "identity-name" },
  });
  input.value = store.get(NAME_KEY) || "";
  const counter = compact ? null : nameCounter(input, "player_name_chars");
  const error = h("p", { class: "form-error", role: "alert", hidden: true });
  const save = h("button", { type: "submit", class: "btn btn--primary btn--small", dataset: { testid: "identity-save" } }, t("players.identity.save"));
  const form = h("form", { class: `identity-form${compact ? " identity-form--compact" : ""}`, novalidate: true },
    h("label", { for: input.id, class: compact ? "visually-hidden" : "field-label", text: t("players.identity.name_label") }),
    h("div", { class: "identity-row" }, input, save, extra),
    counter, error);
  onTextSubmit(form, {
    input, button: save, error,
    empty: () => t("players.identity.name_needed"),
    run: async (name) => {
      const me = await createIdentity(name);
      toast(t("players.identity.created", { name: me.name }), "ok");
      if (onDone) onDone(me);
    },
  });
  return form;
}

/**
 * The submit of a one-field form: the field's trimmed text (through read), an empty one
 * focusing the field (and showing empty(), when given); else run(value) with the button
 * disabled, a failure shown in `error` as failText(err).
 * @param {HTMLFormElement} form
 * @param {object} parts
 * @param {HTMLInputElement} parts.input
 * @param {HTMLButtonElement} parts.button
 * @param {HTMLElement} parts.error
 * @param {(value: string) => Promise<void>} parts.run
 * @param {(text: string) => string} [parts.read]
 * @param {(() => string) | null} [parts.empty]
 * @param {(err: unknown) => string} [parts.failText]
 */
function onTextSubmit(form, { input, button, error, run, read = (text) => text, empty = null, failText = errorText }) {
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.hidden = true;
    const value = read(input.value.trim());
    if (!value) {
      input.focus();
      if (empty) {
        error.textContent = empty();
        error.hidden = false;
      }
      return;
    }
    button.disabled = true;
    try {
      await run(value);
    } catch (err) {
      error.textContent = failText(err);
      error.hidden = false;
    } finally {
      button.disabled = false;
    }
  });
}

// ---- the top bar: the welcome strip, the leaderboard link and the player chip -------------

/** @type {HTMLAnchorElement | null} */
let chip = null;
/** @type {HTMLAnchorElement | null} */
let boardLink = null;
/** @type {HTMLDivElement | null} */
let welcome = null;
let lastPath = "/";

function renderChip() {
  if (!chip) return;
  const me = getIdentity();
  clear(chip);
  if (me) {
    // Its name starts with the words one sees (a voice user says "Ann"): no aria-label.
    chip.removeAttribute("aria-label");
    chip.title = t("players.chip.profile", { name: me.name });
    chip.dataset.identity = me.id;
    chip.append(h("span", { class: "avatar avatar--small", "aria-hidden": "true", text: initial(me.name) }),
      h("span", { class: "player-chip-name", text: me.name }),
      h("span", { class: "visually-hidden", text: ` — ${t("players.chip.profile_suffix")}` }));
  } else {
    chip.removeAttribute("aria-label");
    chip.title = t("players.chip.anonymous_label");
    delete chip.dataset.identity;
    chip.append(h("span", { class: "avatar avatar--small avatar--empty", "aria-hidden": "true" }, icon("user")),
      h("span", { class: "player-chip-name", text: t("players.chip.anonymous") }),
      h("span", { class: "visually-hidden", text: ` — ${t("players.chip.anonymous_label")}` }));
  }
}

function renderWelcome() {
  if (!welcome) return;
  const show = !getIdentity() && !store.get(LATER_STORE) && lastPath.replace(/\/$/, "") === "";
  // Shown already: keep it as it is, or a name being typed would be wiped by a route
  // change or a late identity event (on a slow phone, between typing and Save).
  if (show && !welcome.hidden && welcome.firstChild) return;
  clear(welcome);
  welcome.hidden = !show;
  document.body.classList.toggle("has-welcome", show);
  if (!show) return;
  const later = h("button", {
    type: "button", class: "btn btn--ghost btn--small", dataset: { testid: "identity-later" },
    onclick: () => {
      store.set(LATER_STORE, "1");
      renderWelcome();
    },
  }, t("players.welcome.later"));
  welcome.append(
    h("p", { class: "welcome-text", id: "welcome-text", title: t("players.welcome.why") },
      h("strong", { text: t("players.welcome.title") }), " ",
      h("span", { class: "welcome-why", text: t("players.welcome.why") })),
    identityForm({ idPrefix: "welcome", compact: true, extra: later, onDone: () => renderWelcome() }));
}

/** Put the chip, the leaderboard link and the welcome strip into the top bar (once). */
export function installPlayerBar() {
  const topbarRight = document.getElementById("topbar-right");
  const brand = document.querySelector(".topbar .brand");
  if (!topbarRight || chip) return;
  boardLink = h("a", {
    href: "/leaderboard", class: "topbar-link topbar-board", "data-link": true,
    "aria-label": t("players.leaderboard.title"), title: t("players.leaderboard.title"), dataset: { testid: "leaderboard-link" },
  }, icon("trophy"), h("span", { class: "topbar-board-text", text: t("players.leaderboard.short") }));
  chip = h("a", { href: "/me", class: "player-chip", "data-link": true, dataset: { testid: "player-chip" } });
  topbarRight.before(boardLink, chip);
  const strip = h("div", { class: "welcome-strip", role: "region", "aria-labelledby": "welcome-text", dataset: { testid: "welcome" }, hidden: true });
  welcome = strip;
  // In the bar on a wide screen; on a narrower one a strip of its own under it (which
  // scrolls away with the page).
  const header = document.querySelector(".topbar");
  const narrow = window.matchMedia("(max-width: 1099px)");
  const place = () => {
    if (narrow.matches && header) header.after(strip);
    else if (brand) brand.after(strip);
    strip.classList.toggle("welcome-strip--below", narrow.matches);
  };
  place();
  narrow.addEventListener("change", place);
  renderChip();
  renderWelcome();
  onIdentityChange(() => {
    renderChip();
    renderWelcome();
  });
}

/**
 * On every route: the welcome shows at the lobby only; the links say where we are.
 * @param {string} path
 */
export function placePlayerBar(path) {
  lastPath = path || "/";
  const clean = lastPath.replace(/\/$/, "");
  if (boardLink) {
    if (clean === "/leaderboard") boardLink.setAttribute("aria-current", "page");
    else boardLink.removeAttribute("aria-current");
  }
  if (chip) {
    const me = getIdentity();
    const mine = clean === "/me" || (me && clean === `/players/${encodeURIComponent(me.id)}`);
    if (mine) chip.setAttribute("aria-current", "page");
    else chip.removeAttribute("aria-current");
  }
  renderWelcome();
}

// ---- "Use on another device" ----------------------------------------------------------------

/** The panel of the own profile that makes a transfer code (POST /api/players/me/transfer). */
export function transferPanel() {
  const out = h("div", { class: "transfer-out", "aria-live": "polite" });
  const make = h("button", { type: "button", class: "btn btn--secondary", dataset: { testid: "transfer-make" } }, icon("link"), t("players.transfer.make"));
  make.addEventListener("click", async () => {
    make.disabled = true;
    try {
      const data = /** @type {import("./protocol.js").TransferCode} */ (await api("POST", "/api/players/me/transfer"));
      const url = data.url || `${window.location.origin}/link/${encodeURIComponent(data.code)}`;
      clear(out);
      const copy = async (/** @type {string} */ text, /** @type {string} */ done) => {
        const ok = await copyText(text);
        toast(ok ? done : text, ok ? "ok" : "info");
      };
      add(out,
        h("p", { class: "transfer-label", text: t("players.transfer.code_label") }),
        h("div", { class: "transfer-code-row" },
          h("code", { class: "transfer-code", dataset: { testid: "transfer-code" }, text: data.code }),
          h("button", { type: "button", class: "btn btn--ghost btn--small", onclick: () => copy(data.code, t("players.transfer.code_copied")) }, icon("copy"), t("players.transfer.copy"))),
        h("p", { class: "transfer-label", text: t("players.transfer.link_label") }),
        h("div", { class: "invite-row" },
          h("input", { class: "input invite-input", type: "text", readonly: true, value: url, "aria-label": t("players.transfer.link_label"), dataset: { testid: "transfer-link" }, onfocus: (e) => { if (e.target instanceof HTMLInputElement) e.target.select(); } }),
          h("button", { type: "button", class: "btn btn--ghost btn--small", onclick: () => copy(url, t("players.transfer.link_copied")) }, icon("copy"), t("players.transfer.copy"))),
        data.expires_at ? h("p", { class: "hint", text: t("players.transfer.expires", { when: formatDate(data.expires_at, { timeStyle: "short" }) }) }) : null);
      clear(make);
      make.append(icon("refresh"), t("players.transfer.again"));
    } catch (err) {
      toast(errorText(err));
    } finally {
      make.disabled = false;
    }
  });
  return h("section", { class: "panel identity-panel", "aria-labelledby": "transfer-title", dataset: { testid: "transfer-panel" } },
    h("h2", { id: "transfer-title", text: t("players.transfer.title") }),
    h("p", { class: "muted", text: t("players.transfer.how") }),
    h("p", { class: "identity-warning", dataset: { testid: "no-recovery" } }, icon("bell"), h("span", { text: t("players.identity.no_recovery") })),
    make, out);
}

/**
 * Rename the own identity (PATCH /api/players/me); onDone(name).
 * @param {string} currentName
 * @param {(name: string) => void} [onDone]
 */
export function renameForm(currentName, onDone) {
  const input = h("input", { id: "rename-name", class: "input", type: "text", required: true, autocomplete: "nickname", dataset: { testid: "rename-name" } });
  input.value = currentName || "";
  const counter = nameCounter(input, "player_name_chars");
  const error = h("p", { class: "form-error", role: "alert", hidden: true });
  const save = h("button", { type: "submit", class: "btn btn--secondary btn--small", dataset: { testid: "rename-save" } }, t("players.rename.save"));
  const form = h("form", { class: "identity-form", novalidate: true },
    h("label", { for: "rename-name", class: "field-label", text: t("players.rename.label") }),
    h("div", { class: "identity-row" }, input, save), counter, error);
  onTextSubmit(form, {
    input, button: save, error,
    run: async (name) => {
      await renameIdentity(name);
      toast(t("players.rename.done", { name }), "ok");
      if (onDone) onDone(name);
    },
  });
  return form;
}

/**
 * A form taking a transfer code typed by hand (the /me page without an identity).
 * @param {(me: Identity) => void} [onDone]
 */
export function claimForm(onDone) {
  const input = h("input", { id: "claim-code", class: "input", type: "text", required: true, autocomplete: "off", autocapitalize: "characters", spellcheck: "false", dataset: { testid: "claim-code" } });
  const error = h("p", { class: "form-error", role: "alert", hidden: true });
  const go = h("button", { type: "submit", class: "btn btn--secondary btn--small", dataset: { testid: "claim-go" } }, t("players.claim.use"));
  const form = h("form", { class: "identity-form", novalidate: true },
    h("label", { for: "claim-code", class: "field-label", text: t("players.claim.code_label") }),
    h("div", { class: "identity-row" }, input, go), error);
  onTextSubmit(form, {
    input, button: go, error, failText: claimErrorText,
    read: (code) => {
      const m = code.match(/\/link\/([^/?#\s]+)/); // a whole link pasted
      return m ? decodeURIComponent(m[1]) : code;
    },
    run: async (code) => {
      const me = await claimIdentity(code);
      toast(t("players.claim.done", { name: me.name }), "ok");
      if (onDone) onDone(me);
    },
  });
  return form;
}

/**
 * Why a transfer code was refused, in words.
 * @param {unknown} err
 */
function claimErrorText(err) {
  return err instanceof ApiError && err.code === "bad_code" ? t("players.claim.bad_code") : errorText(err);
}

// ---- /link/<code>: take the identity onto this device ---------------------------------------

/**
 * @param {HTMLElement} root
 * @param {{code: string}} link
 * @returns {null} nothing to take down
 */
export function mountClaim(root, { code }) {
  document.body.dataset.view = "claim";
  document.title = `${t("players.claim.title")} · Flip 7`;
  const me = getIdentity();
  const error = h("p", { class: "form-error", role: "alert", hidden: true, dataset: { testid: "claim-error" } });
  const use = h("button", { type: "button", class: "btn btn--primary btn--big", dataset: { testid: "claim-accept" } }, t("players.claim.use"));
  use.addEventListener("click", async () => {
    use.disabled = true;
    error.hidden = true;
    try {
      const data = await claimIdentity(code);
      toast(t("players.claim.done", { name: data.name }), "ok");
      navigate("/me", { replace: true });
    } catch (err) {
      error.textContent = claimErrorText(err);
      error.hidden = false;
      use.disabled = false;
    }
  });
  root.appendChild(h("section", { class: "panel identity-page claim-page", "aria-labelledby": "claim-title", dataset: { testid: "claim-page" } },
    h("h1", { id: "claim-title", text: t("players.claim.title") }),
    h("p", { text: t("players.claim.intro") }),
    me ? h("p", { class: "identity-warning", dataset: { testid: "claim-replaces" } }, icon("bell"),
      h("span", { text: t("players.claim.replaces", { name: me.name }) })) : null,
    h("p", { class: "muted", text: t("players.identity.no_recovery") }),
    error,
    h("div", { class: "identity-actions" }, use,
      h("a", { class: "btn btn--ghost", href: "/", "data-link": true }, t("players.claim.cancel")))));
  return null;
}
