// REST calls to /api. Errors come back as {"detail": {"code", "message"}} (protocol.md).

export class ApiError extends Error {
  constructor(status, code, message, detail = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.detail = detail; // the body's whole "detail" object, for its extra fields
  }
}

function describe(status, body) {
  const detail = body && body.detail;
  if (detail && typeof detail === "object" && !Array.isArray(detail)) {
    return new ApiError(status, detail.code || String(status), detail.message || `Error ${status}`, detail);
  }
  if (typeof detail === "string") return new ApiError(status, String(status), detail);
  if (Array.isArray(detail) && detail.length) {
    // FastAPI's own 422: [{"loc": [...], "msg": "..."}]
    const first = detail[0];
    const where = Array.isArray(first.loc) ? first.loc.filter((x) => x !== "body").join(".") : "";
    return new ApiError(status, "invalid", where ? `${where}: ${first.msg}` : String(first.msg));
  }
  return new ApiError(status, String(status), `The server answered ${status}`);
}

export async function api(method, path, { body, token, headers: extra } = {}) {
  const headers = { Accept: "application/json", ...(extra || {}) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "network", "Cannot reach the server. Check your connection.");
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
  if (!res.ok) throw describe(res.status, data);
  return data;
}
