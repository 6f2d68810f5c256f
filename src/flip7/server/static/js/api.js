// REST calls to /api. Errors come back as {"detail": {"code", "message"}} (protocol.md).
// An error's message is shown in the page's language: t("error.<code>") when the catalogue
// has that code (i18n.js errorText), else the server's own message (kept as serverMessage).
import { errorText, t } from "./i18n.js";

/** @typedef {"GET" | "POST" | "PUT" | "PATCH" | "DELETE"} Method  an HTTP method the client sends */

/**
 * What a `catch` caught, as words for the page: an Error's message (an ApiError's is
 * already in the page's language), else the thing itself as text.
 * @param {unknown} err
 */
export function messageOf(err) {
  return err instanceof Error ? err.message : String(err);
}

export class ApiError extends Error {
  /**
   * @param {number} status the HTTP status; 0 when the server could not be reached
   * @param {string} code
   * @param {string} message
   * @param {ApiErrorDetail | null} [detail]
   */
  constructor(status, code, message, detail = null) {
    super(errorText({ code, message, detail }));
    this.status = status;
    this.code = code;
    this.serverMessage = message; // the server's own words (English)
    this.detail = detail; // the body's whole "detail" object, for its extra fields
  }
}

/**
 * The `detail` of an error answer: its code and message, and what some errors add (a
 * scorecard's problems, the scorecard as it is now...).
 * @typedef {import("./protocol.js").ErrorDetail & Partial<import("./protocol.js").ScorecardErrorDetail>} ApiErrorDetail
 */

/**
 * FastAPI's own 422: `[{"loc": [...], "msg": "..."}]`.
 * @typedef {{loc?: unknown[], msg?: string}} ValidationProblem
 */

/**
 * @param {number} status
 * @param {{detail?: ApiErrorDetail | string | ValidationProblem[]} | null} body
 */
function describe(status, body) {
  const detail = body && body.detail;
  if (detail && typeof detail === "object" && !Array.isArray(detail)) {
    return new ApiError(status, detail.code || String(status), detail.message || t("error.status", { status }), detail);
  }
  if (typeof detail === "string") return new ApiError(status, String(status), detail);
  if (Array.isArray(detail) && detail.length) {
    // FastAPI's own 422: [{"loc": [...], "msg": "..."}]
    const first = detail[0];
    const where = Array.isArray(first.loc) ? first.loc.filter((x) => x !== "body").join(".") : "";
    return new ApiError(status, "invalid", where ? `${where}: ${first.msg}` : String(first.msg));
  }
  return new ApiError(status, String(status), t("error.status", { status }));
}

/** The browser's player key (localStorage "flip7.player": {id, name, key}), or null. */
function playerKey() {
  try {
    const saved = JSON.parse(window.localStorage.getItem("flip7.player") || "null");
    return saved && typeof saved.key === "string" && saved.key ? saved.key : null;
  } catch {
    return null;
  }
}

/**
 * @typedef {object} ApiOptions
 * @property {unknown} [body] sent as JSON (undefined: no body)
 * @property {string | null | undefined} [token] a seat's token (Authorization: Bearer)
 * @property {Record<string, string> | undefined} [headers]
 */

/**
 * A call to the server's REST API; resolves to the answer's JSON (null for none). The
 * caller says what the answer is, a type of protocol.js: the one place the wire's JSON
 * becomes a typed value.
 * @param {Method} method
 * @param {string} path
 * @param {ApiOptions} [options]
 * @returns {Promise<unknown>}
 */
export async function api(method, path, { body, token, headers: extra } = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json", ...(extra || {}) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const player = playerKey();
  if (player && !headers["X-Player-Key"]) headers["X-Player-Key"] = player;
  let res;
  try {
    res = await fetch(path, body === undefined ? { method, headers } : { method, headers, body: JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "network", t("error.network"));
  }
  /** @type {unknown} */
  let data = null;
  const text = await res.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    const err = describe(res.status, /** @type {Parameters<typeof describe>[1]} */ (data));
    if (res.status === 401 && player && err.code === "bad_player_key") {
      // The server does not know this key (any more): this browser plays anonymously from
      // now on (the old entry is kept aside), and the request goes again without it.
      try {
        window.localStorage.setItem("flip7.player.refused", window.localStorage.getItem("flip7.player") || "");
        window.localStorage.removeItem("flip7.player");
      } catch {
        /* storage unavailable */
      }
      window.dispatchEvent(new Event("flip7:identity"));
      if (playerKey() === null) return api(method, path, { body, token, headers: extra });
    }
    throw err;
  }
  return data;
}

// The seat token a join asks for, per table and name, kept until a join succeeds: a join
// whose answer was lost (a phone between networks) is sent again with the same token and
// gets its seat back instead of "someone is already called ..." (protocol.md, join).
/** @type {Map<string, string>} */
const joinTokens = new Map();

function newSeatToken() {
  const bytes = new Uint8Array(24);
  window.crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Take a seat at table `id` as `name`: {table, seat, token}. A network failure or a 5xx
 * is tried once more at once, with the same token; so is a second press of Join.
 * @param {string} id
 * @param {string} name
 * @returns {Promise<import("./protocol.js").SeatGranted>}
 */
export async function joinTable(id, name) {
  const key = `${id}\u0000${name}`;
  let token = joinTokens.get(key);
  if (!token) {
    token = newSeatToken();
    joinTokens.set(key, token);
  }
  /** @type {import("./protocol.js").JoinTable} */
  const body = { player: name, token };
  const path = `/api/tables/${encodeURIComponent(id)}/join`;
  let data;
  try {
    data = await api("POST", path, { body });
  } catch (err) {
    if (!(err instanceof ApiError) || !(err.status === 0 || err.status >= 500)) throw err;
    data = await api("POST", path, { body });
  }
  joinTokens.delete(key);
  return /** @type {import("./protocol.js").SeatGranted} */ (data);
}
