// The table page's state (one object per page, see mountTable) and what it tells at a
// glance: who sits where, whose turn it is, the seat's options. The shapes are those of
// docs/protocol.md; the server works everything out, the page only reads it.
import { t } from "./i18n.js";
import { store, tokenKey } from "./util.js";

/** @typedef {import("./protocol.js").Decision} Decision */
/** @typedef {import("./protocol.js").GameView} GameView */
/** @typedef {import("./protocol.js").Seat} Seat */
/** @typedef {import("./protocol.js").TableState} Table  the table as the server sends it */

/**
 * The page's state. Every module of the table page reads it; a change is followed by a
 * render (mountTable's).
 * @typedef {object} TableState
 * @property {string} id                 the table's id
 * @property {string|null} token         this browser's seat token
 * @property {number|null} mySeat        the table seat of the token (the welcome's)
 * @property {Table|null} table
 * @property {import("./connection.js").Connection|null} conn
 * @property {string} connState
 * @property {{id: string, decision: string, version: number}|null} pendingMove
 * @property {number} moveCounter
 * @property {{seat: number, card: string}|null} swapFirst  a swap's first card, picked
 * @property {string|null} endClosedFor  the game whose end screen was closed
 * @property {string|null} endShownFor   the game whose end screen has risen in
 * @property {{gameId: string, container: HTMLElement}|null} endSummary
 * @property {string|null} lastTurnKey  the turn last announced
 * @property {string|null} scrolledFor  the decision whose pick was last scrolled into view
 * @property {string|null} collapsedFor the decision whose panel is folded down
 * @property {boolean} allOpen          "All options" stays open
 * @property {number|null} logVersion   the last table version whose events are in the log
 * @property {string|null} lastBot      the bot level last chosen
 * @property {string} botSpec           the bot spec typed in
 * @property {boolean} botSpecOpen
 * @property {boolean} destroyed
 */

/**
 * A new page's state for table `id`, with the seat token this browser holds for it.
 * @param {string} id
 * @returns {TableState}
 */
export function newTableState(id) {
  return {
    id,
    token: store.get(tokenKey(id)),
    mySeat: null,
    table: null,
    conn: null,
    connState: "connecting",
    pendingMove: null,
    moveCounter: 0,
    swapFirst: null,
    endClosedFor: null,
    endShownFor: null,
    endSummary: null,
    lastTurnKey: null,
    scrolledFor: null,
    collapsedFor: null,
    allOpen: false,
    logVersion: null,
    lastBot: null,
    botSpec: "",
    botSpecOpen: false,
    destroyed: false,
  };
}

/**
 * The seats that play (not empty), in order: a game's seat s is the s-th of them.
 * @param {TableState} S
 * @returns {Seat[]}
 */
export function gameSeats(S) {
  return S.table ? S.table.seats.filter((s) => s.kind !== "empty") : [];
}

/**
 * The table seat of game seat `s` (its kind, presence, readiness), or null.
 * @param {TableState} S
 * @param {number} s
 * @returns {Seat|null}
 */
export function seatMeta(S, s) {
  return gameSeats(S)[s] || null;
}

/**
 * A seat's name: the game's player, else the table seat's, else "Seat n".
 * @param {TableState} S
 * @param {number} s
 * @returns {string}
 */
export function nameOf(S, s) {
  const g = S.table ? S.table.game : null;
  if (g && g.players[s]) return g.players[s].name;
  const seat = S.table && S.table.seats.find((x) => x.seat === s);
  return seat && seat.name ? seat.name : t("table.seat_n", { n: s + 1 });
}

/**
 * The viewer's seat in the game, or null (a spectator, or no game).
 * @param {TableState} S
 * @returns {number|null}
 */
export function myGameSeat(S) {
  const g = S.table ? S.table.game : null;
  return g && g.viewer !== null && g.viewer !== undefined ? g.viewer : null;
}

/**
 * Whether this browser holds a seat at the table (or in its game).
 * @param {TableState} S
 * @returns {boolean}
 */
export function isSeated(S) {
  return !!S.token && (S.mySeat !== null || myGameSeat(S) !== null);
}

/**
 * The seat's options when it must decide, as the server sends them (none otherwise).
 * @param {GameView|null} g
 * @returns {Decision[]}
 */
export function decisionsOf(g) {
  return (g && g.decisions) || [];
}

/**
 * Whether seat `me` must decide now.
 * @param {GameView|null} g
 * @param {number|null} me
 * @returns {boolean}
 */
export function myTurn(g, me) {
  return !!g && me !== null && g.to_decide === me && !g.over && decisionsOf(g).length > 0;
}
