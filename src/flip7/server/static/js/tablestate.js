// The table page's state (one object per page, see mountTable) and what it tells at a
// glance: who sits where, whose turn it is, the seat's options. The shapes are those of
// docs/protocol.md; the server works everything out, the page only reads it.
import { t } from "./i18n.js";
import { store, tokenKey } from "./util.js";

/**
 * A legal option as the server sends it in the deciding seat's view (`game.decisions`):
 * `text` is the decision string (what a move sends), `verb` its first word, and the seats
 * and card codes it names.
 * @typedef {object} Decision
 * @property {string} text
 * @property {"hit"|"stay"|"target"|"give"|"pass"|"steal"|"swap"|"discard"|"bonus"|"minus"} verb
 * @property {number} [seat]   target, give, pass, minus, steal, discard
 * @property {string} [card]   steal, discard
 * @property {number} [seat1]  swap (the lower seat)
 * @property {string} [card1]  swap
 * @property {number} [seat2]  swap
 * @property {string} [card2]  swap
 */

/**
 * One player of a game view.
 * @typedef {object} GamePlayer
 * @property {number} seat
 * @property {string} name
 * @property {string} status       "active", "stayed" or "busted"
 * @property {string[]} line
 * @property {string[]} modifiers
 * @property {number} number_sum
 * @property {number} round_score
 * @property {number} total
 */

/**
 * What one viewer sees of a game (GameView in docs/protocol.md).
 * @typedef {object} GameView
 * @property {number|null} viewer
 * @property {GamePlayer[]} players
 * @property {number|null} to_decide
 * @property {string|null} decision_kind
 * @property {string|null} pending_card
 * @property {string[]} legal_decisions
 * @property {Decision[]} [decisions]  only in the view of the seat that must decide
 * @property {number} [bust_risk]
 * @property {boolean} over
 * @property {number[]} winners
 * @property {object[]} rounds
 */

/**
 * A seat of the table (SeatModel in docs/protocol.md).
 * @typedef {object} TableSeat
 * @property {number} seat
 * @property {"empty"|"human"|"bot"} kind
 * @property {string|null} name
 * @property {string|null} [bot]
 * @property {boolean} [connected]
 * @property {boolean} [left]
 * @property {boolean} [stand_in]
 * @property {number|null} [away_since]
 * @property {number|null} [handover_at]
 * @property {boolean|null} [ready]
 * @property {boolean} [gone]
 */

/**
 * The table as the server sends it (TableState in docs/protocol.md).
 * @typedef {object} Table
 * @property {string} id
 * @property {string} name
 * @property {"waiting"|"playing"|"over"} state
 * @property {number} version
 * @property {TableSeat[]} seats
 * @property {object} rules
 * @property {number|null} turn_timer
 * @property {number|null} turn_deadline
 * @property {GameView|null} game
 * @property {string|null} game_id
 * @property {number} game_number
 * @property {string|null} [rematch_problem]
 * @property {{seat: number, expect: string|null}|null} [tutorial]
 */

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
 * @returns {TableSeat[]}
 */
export function gameSeats(S) {
  return S.table ? S.table.seats.filter((s) => s.kind !== "empty") : [];
}

/**
 * The table seat of game seat `s` (its kind, presence, readiness), or null.
 * @param {TableState} S
 * @param {number} s
 * @returns {TableSeat|null}
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
