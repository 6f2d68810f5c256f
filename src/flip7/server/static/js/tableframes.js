// What the table page does with each frame the server sends (docs/protocol.md), in one
// table keyed by the frame's type: a welcome (the table, what was missed, the chat), an
// update (the table and its events), chat, a move's result, and errors.
import { decisionLabel } from "./cards.js";
import { errorText, t } from "./i18n.js";
import { decisionsOf, myGameSeat } from "./tablestate.js";
import { store, toast, tokenKey } from "./util.js";

/**
 * What the frames change on the page.
 * @typedef {object} FramePage
 * @property {import("./tablestate.js").TableState} S
 * @property {(seat: number) => string} names
 * @property {ReturnType<typeof import("./tablelog.js").tableLog>} log
 * @property {{flush: () => void}} player  the event animations
 * @property {Pick<ReturnType<typeof import("./chat.js").chatPanel>, "add" | "restore" | "error">} chat
 * @property {(table: import("./tablestate.js").Table, events?: import("./tableevents.js").TableEvent[]) => void} applyTable
 * @property {() => void} render
 * @property {(state: import("./connection.js").ConnState) => void} setConn
 * @property {() => void} forgetToken
 * @property {() => void} closed  the table was closed: its page says so
 */

/** An error frame's words: the catalogue's for its code (error.<code>), the move a
 * tutorial's lesson asks for, else the server's own message.
 * @param {FramePage} page
 * @param {import("./protocol.js").ErrorFrame} msg
 * @returns {string}
 */
function errorWords(page, msg) {
  const { S } = page;
  const tut = S.table && S.table.tutorial;
  const g = S.table && S.table.game;
  if (msg.code === "tutorial_step" && tut && tut.expect && g) {
    const expected = decisionsOf(g).find((d) => d.text === tut.expect);
    if (expected) return t("tutorial.refusal", { move: decisionLabel(expected, { names: page.names, me: myGameSeat(S), pending: g.pending_card }) });
  }
  return errorText(msg, t("table.error_code", { code: String(msg.code) }));
}

/** @type {Record<string, (page: FramePage, msg: any) => void>} */
const FRAMES = {
  welcome(page, msg) {
    const { S } = page;
    page.setConn("online");
    S.mySeat = msg.seat ?? null;
    const viewer = msg.table && msg.table.game ? msg.table.game.viewer : null;
    if (S.token && msg.seat === null && (viewer === null || viewer === undefined)) {
      // The token no longer holds a seat (left, or removed): watch instead.
      store.del(tokenKey(S.id));
      S.token = null;
    }
    const before = S.table ? S.table.version : null;
    page.player.flush();
    // The whole current game: the log is rebuilt from it below, once the table (and so
    // its names) is applied. A server without it sends only what was missed.
    const history = Array.isArray(msg.history) ? msg.history : null;
    if (!history && Array.isArray(msg.missed)) {
      // Reconnected: the log catches up with what happened meanwhile.
      for (const m of msg.missed) for (const ev of m.events || []) page.log.line(ev);
    } else if (!history && before !== null && msg.table && msg.table.version !== before) {
      page.log.line({ type: "_note", key: "table.reconnected_note" });
    }
    page.applyTable(msg.table);
    // A reload, a reconnect, a late spectator; a long game's only in part (history_cut).
    if (history) page.log.history(history, msg.history_cut === true);
    page.chat.restore(msg.chat);
  },
  update(page, msg) {
    const { S } = page;
    if (msg.table && (!S.table || msg.table.version >= S.table.version)) page.applyTable(msg.table, msg.events || []);
    else if (msg.events) for (const ev of msg.events) page.log.line(ev);
    if (typeof msg.version === "number") S.logVersion = Math.max(S.logVersion ?? 0, msg.version);
  },
  chat(page, msg) {
    page.chat.add(msg.chat);
  },
  result(page, msg) {
    const { S } = page;
    if (S.pendingMove && S.pendingMove.id === msg.id) {
      S.pendingMove = null;
      if (S.table && S.table.version >= msg.version) page.render();
    }
  },
  error(page, msg) {
    const { S } = page;
    if (page.chat.error(msg)) return; // a chat refusal is shown in the chat
    if (msg.code === "closed") {
      if (S.conn) S.conn.stop();
      page.setConn("closed");
      page.closed();
      return;
    }
    if (msg.code === "no_table") {
      if (S.conn) S.conn.stop();
      page.setConn("closed");
      toast(errorText(msg, t("table.gone")));
      return;
    }
    if (msg.code === "suspended") {
      // Not reconnected by itself: a watching tab would bring the paused game back into
      // the server's memory again and again. Opening the table again resumes it.
      if (S.conn) S.conn.stop();
      page.setConn("closed");
      toast(errorText(msg, t("error.suspended")));
      return;
    }
    if (msg.code === "unauthorized") {
      toast(t("table.seat_lost"));
      page.forgetToken();
      return;
    }
    toast(errorWords(page, msg));
    if (S.pendingMove && (msg.id === S.pendingMove.id || msg.id === null)) S.pendingMove = null;
    if (msg.table) page.applyTable(msg.table);
    else page.render();
  },
};

/**
 * The page's handler of the server's frames (frames of other types are ignored).
 * @param {FramePage} page
 * @returns {(msg: any) => void}
 */
export function frameHandler(page) {
  return (msg) => {
    if (page.S.destroyed || !msg || typeof msg !== "object") return;
    if (Object.hasOwn(FRAMES, msg.type)) FRAMES[msg.type](page, msg);
  };
}
