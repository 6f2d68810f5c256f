// The table page's WebSocket (/ws/tables/{id}, docs/protocol.md): it reconnects by itself,
// says hello with the seat token and the last table version seen (so that the welcome
// carries only what was missed), and shows its state in the top bar's pill.
import { t } from "./i18n.js";
import { h } from "./util.js";

/** @typedef {"connecting"|"reconnecting"|"online"|"offline"|"closed"} ConnState */

/** WebSocket with automatic reconnection (exponential backoff with jitter). */
export class Connection {
  /**
   * @param {string} url
   * @param {object} hooks
   * @param {() => void} hooks.onOpen  the socket is open: say hello
   * @param {(msg: any) => void} hooks.onMessage  a frame, parsed
   * @param {(state: ConnState, delay?: number) => void} hooks.onState  delay: ms to the next try
   */
  constructor(url, { onOpen, onMessage, onState }) {
    this.url = url;
    this.onOpen = onOpen;
    this.onMessage = onMessage;
    this.onState = onState;
    /** @type {WebSocket|null} */
    this.ws = null;
    this.attempt = 0;
    this.stopped = true;
    /** @type {ReturnType<typeof setTimeout>|undefined} */
    this.retryTimer = undefined;
    /** @type {ReturnType<typeof setInterval>|undefined} */
    this.pingTimer = undefined;
  }

  /** Connect, and keep connecting until stopped. */
  start() {
    this.stopped = false;
    this.open();
  }

  /** @private */
  open() {
    clearTimeout(this.retryTimer);
    this.onState(this.attempt ? "reconnecting" : "connecting");
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.attempt = 0;
      this.onOpen();
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ v: 1, type: "ping" }), 25000);
    };
    ws.onmessage = (ev) => {
      if (ws !== this.ws) return;
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.onMessage(msg);
    };
    ws.onclose = () => {
      if (ws !== this.ws) return;
      clearInterval(this.pingTimer);
      if (!this.stopped) this.retry();
      else this.onState("closed");
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  /** @private */
  retry() {
    const base = Math.min(15000, 500 * 2 ** this.attempt);
    const delay = Math.round(base * (0.75 + Math.random() * 0.5));
    this.attempt += 1;
    this.onState("offline", delay);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  /** Drop the socket and connect again at once (new token, back online). */
  restart() {
    const old = this.ws;
    this.ws = null;
    if (old) {
      old.onclose = null;
      try {
        old.close(1000);
      } catch {
        /* ignore */
      }
    }
    this.attempt = 0;
    this.stopped = false;
    this.open();
  }

  /**
   * Send a frame if the socket is open.
   * @param {object} obj
   * @returns {boolean} whether it was sent
   */
  send(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(obj));
      return true;
    }
    return false;
  }

  /** Close for good (the page is left, or the table is gone). */
  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.onclose = null;
      try {
        ws.close(1000);
      } catch {
        /* ignore */
      }
    }
  }
}

/**
 * The connection to table `id`: its hello carries the seat token and the last version of
 * the table this page holds, both read when the socket opens.
 * @param {string} id
 * @param {object} hooks
 * @param {() => {token: string|null, version: number|null}} hooks.hello
 * @param {(msg: any) => void} hooks.onMessage
 * @param {(state: ConnState, delay?: number) => void} hooks.onState
 * @returns {Connection}
 */
export function tableConnection(id, { hello, onMessage, onState }) {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const url = `${scheme}://${window.location.host}/ws/tables/${encodeURIComponent(id)}`;
  const conn = new Connection(url, {
    onOpen: () => {
      const { token, version } = hello();
      conn.send({ v: 1, type: "hello", token: token || null, last_version: version });
    },
    onMessage,
    onState,
  });
  return conn;
}

/**
 * The connection's pill for the top bar.
 * @returns {{element: HTMLElement, show: (state: ConnState, delay?: number) => void}}
 */
export function connectionPill() {
  const texts = {
    connecting: t("table.conn.connecting"),
    reconnecting: t("table.conn.reconnecting"),
    online: t("table.conn.online"),
    offline: t("table.conn.offline"),
    closed: t("table.conn.closed"),
  };
  const text = h("span", { class: "conn-text", text: texts.connecting });
  const element = h("span", { class: "conn conn--connecting", role: "status", "aria-live": "polite", dataset: { testid: "conn" } },
    h("span", { class: "conn-dot", "aria-hidden": "true" }), text);
  return {
    element,
    show(state, delay) {
      element.className = `conn conn--${state}`;
      text.textContent = state === "offline" && delay ? t("table.conn.retrying", { count: Math.ceil(delay / 1000) }) : texts[state] || state;
    },
  };
}
