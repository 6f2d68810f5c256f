// REST calls to /api. Errors come back as {"detail": {"code", "message"}} (protocol.md).
// An error's message is shown in the page's language: t("error.<code>") when the catalogue
// has that code (i18n.js errorText), else the server's own message (kept as serverMessage).
import { errorText, t } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, code, message, detail = null) {
    super(errorText({ code, message, detail }));
    this.status = status;
    this.code = code;
    this.serverMessage = message; // the server's own words (English)
    this.detail = detail; // the body's whole "detail" object, for its extra fields
  }
}

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

export async function api(method, path, { body, token, headers: extra } = {}) {
  const headers = { Accept: "application/json", ...(extra || {}) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const player = playerKey();
  if (player && !headers["X-Player-Key"]) headers["X-Player-Key"] = player;
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "network", t("error.network"));
  }
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
    const err = describe(res.status, data);
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
const joinTokens = new Map();

function newSeatToken() {
  const bytes = new Uint8Array(24);
  window.crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Take a seat at table `id` as `name`: {table, seat, token}. A network failure or a 5xx
 * is tried once more at once, with the same token; so is a second press of Join. */
export async function joinTable(id, name) {
  const key = `${id}\u0000${name}`;
  if (!joinTokens.has(key)) joinTokens.set(key, newSeatToken());
  const body = { player: name, token: joinTokens.get(key) };
  const path = `/api/tables/${encodeURIComponent(id)}/join`;
  let data;
  try {
    data = await api("POST", path, { body });
  } catch (err) {
    if (!(err instanceof ApiError) || !(err.status === 0 || err.status >= 500)) throw err;
    data = await api("POST", path, { body });
  }
  joinTokens.delete(key);
  return data;
}
