// Languages: every string the web app shows comes from a message catalogue (docs/i18n.md).
//
// The catalogues live in static/locales/<lang>/<area>.json (flat objects, keys
// "<area>.<name>"); the server merges a language's areas at GET /api/messages/{lang}.
// This module loads the chosen language (and English, the fallback) once, before any other
// module runs (top-level await below), so t() works everywhere, even at import time.
//
//   t("table.stay")                                  -> "Stay" / "Stopp"
//   t("lobby.seats", { count: 3 })                   -> plural forms chosen by Intl.PluralRules
//   t("common.greet", { name: "Ada" })               -> "Hello {name}" with {name} filled in
//
// A message is a string with {placeholders}, or an object of plural forms
// ({"one": "{count} card", "other": "{count} cards"}, optionally "=0", "=1" ... for exact
// numbers), chosen on params.count. Numbers in params are formatted with formatNumber.

export const LANGUAGES = [
  { code: "en", name: "English" },
  { code: "de", name: "Deutsch" },
];

export const DEFAULT_LANG = "en";
const STORE_KEY = "flip7.lang";
const CODES = LANGUAGES.map((l) => l.code);

/**
 * A message: a string with {placeholders}, or its plural forms ("one", "other", "=0"...).
 * @typedef {string | Record<string, string>} Message
 * @typedef {Record<string, Message>} Catalogue
 */

/** What t() fills in: {name} with params.name; params.count also picks the plural form.
 * @typedef {Record<string, unknown>} Params
 */

const current = chooseLang();
/** @type {Catalogue} */
let messages = {};
/** @type {Catalogue} */
let english = {};
/** @type {Promise<void> | null} */
let loading = null;
const warned = new Set();

function stored() {
  try {
    return window.localStorage.getItem(STORE_KEY);
  } catch {
    return null;
  }
}

/**
 * A supported code for a language tag ("de-DE" -> "de"), or null.
 * @param {string | null | undefined} tag
 * @returns {string | null}
 */
export function supported(tag) {
  if (!tag) return null;
  const lower = String(tag).toLowerCase();
  if (CODES.includes(lower)) return lower;
  const base = lower.split(/[-_]/)[0];
  return CODES.includes(base) ? base : null;
}

/** localStorage "flip7.lang", else the browser's first supported language, else English. */
function chooseLang() {
  const saved = supported(stored());
  if (saved) return saved;
  const wanted = (typeof navigator !== "undefined" && (navigator.languages || [navigator.language])) || [];
  for (const tag of wanted) {
    const code = supported(tag);
    if (code) return code;
  }
  return DEFAULT_LANG;
}

/** The current language's code ("en", "de"). */
export function lang() {
  return current;
}

/**
 * Switch language: remembered in localStorage "flip7.lang", then the page reloads.
 * @param {string} code
 */
export function setLang(code) {
  const next = supported(code) || DEFAULT_LANG;
  try {
    window.localStorage.setItem(STORE_KEY, next);
  } catch {
    /* storage unavailable: the switch lasts for this page only */
  }
  if (next === current) return;
  window.location.reload();
}

/**
 * @param {string} code
 * @returns {Promise<Catalogue>}
 */
async function fetchCatalogue(code) {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const res = await fetch(`/api/messages/${encodeURIComponent(code)}`, { headers: { Accept: "application/json" } });
      if (res.ok) return await res.json();
      if (res.status === 404) return {};
    } catch {
      /* the server is not reachable (yet): try again */
    }
    await new Promise((resolve) => { setTimeout(resolve, 300 * (attempt + 1)); });
  }
  return {};
}

/** Load the current language's messages (and English's for missing keys). Once. */
export function loadMessages() {
  if (!loading) {
    loading = (async () => {
      const [own, base] = await Promise.all([
        fetchCatalogue(current),
        current === DEFAULT_LANG ? Promise.resolve(null) : fetchCatalogue(DEFAULT_LANG),
      ]);
      messages = own || {};
      english = base || messages;
      if (typeof document !== "undefined") {
        document.documentElement.lang = current;
        // The server's own prose (GET /api/cards: the cards' words) follows this cookie.
        document.cookie = `flip7_lang=${current}; path=/; max-age=31536000; SameSite=Lax`;
      }
    })();
  }
  return loading;
}

/**
 * Whether the catalogue (or English's) has this key.
 * @param {string} key
 */
export function has(key) {
  return Object.prototype.hasOwnProperty.call(messages, key)
    || Object.prototype.hasOwnProperty.call(english, key);
}

/** @type {Intl.PluralRules | null} */
let pluralRules = null;
/**
 * @param {Record<string, string>} msg
 * @param {unknown} count
 */
function pluralForm(msg, count) {
  if (typeof count === "number" && Object.prototype.hasOwnProperty.call(msg, `=${count}`)) return msg[`=${count}`];
  if (!pluralRules) pluralRules = new Intl.PluralRules(current);
  const form = typeof count === "number" ? pluralRules.select(count) : "other";
  return msg[form] ?? msg.other ?? "";
}

/**
 * @param {string} text
 * @param {Params} params
 */
function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!Object.prototype.hasOwnProperty.call(params, name)) return whole;
    const value = params[name];
    if (typeof value === "number") return formatNumber(value);
    return value === null || value === undefined ? "" : String(value);
  });
}

/**
 * The message for key in the current language, with {placeholders} filled in from params
 * (numbers formatted for the language) and the plural form chosen on params.count.
 * A missing key: English's message, else the key itself (a warning once in the console).
 * @param {string} key
 * @param {Params} [params]
 * @returns {string}
 */
export function t(key, params = {}) {
  let msg = messages[key];
  if (msg === undefined) msg = english[key];
  if (msg === undefined) {
    if (!warned.has(key)) {
      warned.add(key);
      if (typeof console !== "undefined") console.warn(`i18n: no message for "${key}"`);
    }
    return key;
  }
  if (msg && typeof msg === "object") msg = pluralForm(msg, params && params.count);
  return fill(String(msg), params || {});
}

/**
 * A server error shown to the player. err: an ApiError / error frame ({code, message}).
 * In another language than English: t("error.<code>") when the catalogue has that code.
 * In English, and for codes without a key: the server's own message (it is English and
 * often says more, e.g. the limit a name broke); else fallback, else "Something went wrong".
 * @param {unknown} err
 * @param {string} [fallback]
 */
export function errorText(err, fallback = "") {
  /** @type {{code?: unknown, message?: unknown, detail?: unknown}} */
  const e = err && typeof err === "object" ? err : {};
  const code = e.code;
  const message = typeof e.message === "string" ? e.message : "";
  if (code && current !== DEFAULT_LANG && has(`error.${code}`)) {
    return t(`error.${code}`, e.detail && typeof e.detail === "object" ? /** @type {Params} */ (e.detail) : {});
  }
  if (message) return serverSentence(message);
  if (code && has(`error.${code}`)) return t(`error.${code}`);
  return fallback || t("error.unknown");
}

/**
 * A sentence of the server's (English, written for API users) as a player reads it: the
 * API paths it names for programmers left out, its first letter capitalised.
 * @param {string} text
 * @returns {string}
 */
export function serverSentence(text) {
  const tidy = text.replace(/\s*\((?:GET|POST|PUT|PATCH|DELETE) \/[^)]*\)/g, "").trim();
  return tidy ? tidy[0].toUpperCase() + tidy.slice(1) : tidy;
}

/**
 * Prose the server sent for display (English) in the page's language: in English the
 * server's own words; else key's message (params filled in) when the catalogue has it;
 * else, still, the server's words.
 * @param {string} key
 * @param {Params | null | undefined} params
 * @param {string | null | undefined} english
 */
export function serverText(key, params, english) {
  if (current === DEFAULT_LANG && english) return english;
  if (has(key)) return t(key, params || {});
  return english || "";
}

/** @type {Map<string, Intl.NumberFormat>} */
const numberFormats = new Map();
/**
 * n formatted for the current language (Intl.NumberFormat options).
 * @param {number} n
 * @param {Intl.NumberFormatOptions} [options]
 */
export function formatNumber(n, options = {}) {
  const id = JSON.stringify(options);
  let nf = numberFormats.get(id);
  if (!nf) {
    nf = new Intl.NumberFormat(current, options);
    numberFormats.set(id, nf);
  }
  return nf.format(n);
}

/** A date (a Date, an ISO string or epoch milliseconds) for the current language.
 * options: Intl.DateTimeFormat's, by default a medium date and a short time.
 * @param {Date | string | number | null | undefined} dateOrIso
 * @param {Intl.DateTimeFormatOptions} [options]
 */
export function formatDate(dateOrIso, options = { dateStyle: "medium", timeStyle: "short" }) {
  // new Date(null) is 1970 and new Date(undefined) Invalid Date: both as before.
  const date = dateOrIso instanceof Date ? dateOrIso : new Date(/** @type {string | number} */ (dateOrIso));
  if (Number.isNaN(date.getTime())) return String(dateOrIso ?? "");
  return new Intl.DateTimeFormat(current, options).format(date);
}

/** A list "a, b and c" / "a, b und c" for the current language (the catalogue's
 * common.list_and when it has one: the app's English has no serial comma).
 * @param {Iterable<unknown>} items
 */
export function formatList(items) {
  const list = Array.from(items, String);
  if (list.length <= 1) return list.join("");
  if (has("common.list_and")) {
    return t("common.list_and", { head: list.slice(0, -1).join(t("common.list_comma")), last: list[list.length - 1] });
  }
  return new Intl.ListFormat(current, { style: "long", type: "conjunction" }).format(list);
}

/** A small <select> to switch the language, for the top bar. */
export function languageSwitch() {
  const select = document.createElement("select");
  select.className = "lang-switch";
  select.setAttribute("aria-label", t("common.language"));
  select.title = t("common.language");
  select.dataset.testid = "lang-switch";
  // On a phone the top bar is narrow: the options say "EN", "DE" there.
  const narrow = typeof window.matchMedia === "function" ? window.matchMedia("(max-width: 520px)") : null;
  const options = LANGUAGES.map(({ code, name }) => {
    const option = document.createElement("option");
    option.value = code;
    option.lang = code;
    option.title = name;
    if (code === current) option.selected = true;
    select.appendChild(option);
    return /** @type {const} */ ([option, code, name]);
  });
  const label = () => {
    for (const [option, code, name] of options) option.textContent = narrow && narrow.matches ? code.toUpperCase() : name;
  };
  label();
  if (narrow && narrow.addEventListener) narrow.addEventListener("change", label);
  select.addEventListener("change", () => setLang(select.value));
  return select;
}

// Every module that imports this one waits for the messages: t() is ready at import time.
await loadMessages();
