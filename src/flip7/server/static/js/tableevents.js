// What the table page does with each kind of event, in one table keyed by the event's
// type: its share of a batch's animation, where it puts a card, which seats it changes,
// how the board shows it and, for players going and coming back, its log line (a game
// event's line is cards.js eventLine's, which the replay page shows too).
import { t } from "./i18n.js";
import { flip7Bonus } from "./rules.js";

/** @typedef {Record<string, any> & {type: string}} TableEvent  an event of docs/protocol.md */
/** @typedef {[number, "line"|"mod"|"any", string]} Arrival  a card an event brings: seat, row, code */

/**
 * What an event's effect on the board may do.
 * @typedef {object} Effects
 * @property {(seat: number, cls: string, ms: number) => void} seat  play class cls on a seat's panel
 * @property {(selector: string) => void} pile  a pile's card arrives again
 * @property {(text: string, tone: string) => void} banner  a banner across the board
 * @property {(seat: number) => string} names
 */

/**
 * @typedef {object} EventKind
 * @property {number} [weight]  its share of a batch's second (none: it takes no time)
 * @property {boolean} [allSeats]  it changes every seat's scores
 * @property {(ev: TableEvent) => Arrival[]} [arrivals]
 * @property {(ev: TableEvent, fx: Effects, landed: boolean) => void} [show]  landed: its card was found and flipped in
 * @property {(ev: TableEvent, names: (seat: number) => string) => {tone: string, text: string}} [line]
 */

/**
 * The seat named by `key` plays class `cls`.
 * @param {string} key
 * @param {string} cls
 * @param {number} ms
 * @returns {(ev: TableEvent, fx: Effects) => void}
 */
const flash = (key, cls, ms) => (ev, fx) => fx.seat(ev[key], cls, ms);

/**
 * A card dealt or drawn flips into its player's line (else the pile it went to arrives).
 * @param {TableEvent} ev
 * @param {Effects} fx
 * @param {boolean} landed
 */
function drawn(ev, fx, landed) {
  fx.seat(ev.seat, "fx-draw", 600);
  if (!landed) fx.pile(".pile--pending .card, .pile--discard .card");
}

/**
 * A line loses cards: the one it was taken from.
 * @param {TableEvent} ev
 * @param {Effects} fx
 */
const losing = (ev, fx) => fx.seat(ev.victim ?? ev.seat, "fx-bad", 900);

/** @type {(ev: TableEvent) => Arrival[]} */
const intoLine = (ev) => [[ev.seat, "line", ev.card]];

/** @type {Record<string, EventKind>} */
const EVENTS = {
  dealt: { weight: 1, arrivals: intoLine, show: drawn },
  drew: { weight: 1.2, arrivals: intoLine, show: drawn },
  busted: { weight: 1.5, show: flash("seat", "fx-bust", 900) },
  stayed: { weight: 0.8, show: flash("seat", "fx-stay", 800) },
  flip7: {
    weight: 2,
    show: (ev, fx) => {
      fx.seat(ev.seat, "fx-star", 1400);
      fx.banner(t("table.banner.flip7", { name: fx.names(ev.seat) }), "star");
    },
  },
  action_used: { weight: 1.1, show: flash("target", "fx-action", 900) },
  stolen: {
    weight: 1.3,
    arrivals: (ev) => [[ev.seat, "any", ev.card]],
    show: (ev, fx) => {
      fx.seat(ev.victim, "fx-bad", 900);
      fx.seat(ev.seat, "fx-action", 900);
    },
  },
  swapped: {
    weight: 1.3,
    arrivals: (ev) => [[ev.seat1, "any", ev.card2], [ev.seat2, "any", ev.card1]],
    show: (ev, fx) => {
      fx.seat(ev.seat1, "fx-action", 900);
      fx.seat(ev.seat2, "fx-action", 900);
    },
  },
  discarded: { weight: 1.1, show: losing },
  wiped: { weight: 1.3, show: losing },
  modifier_given: { weight: 1, arrivals: (ev) => [[ev.to, "mod", ev.card]], show: flash("to", "fx-mod", 800) },
  minus15: {
    weight: 1.2,
    show: (ev, fx) => {
      fx.seat(ev.target, "fx-bad", 900);
      fx.banner(t("table.banner.minus", { bonus: flip7Bonus(), name: fx.names(ev.target) }), "bad");
    },
  },
  bonus_taken: { weight: 1, show: (ev, fx) => fx.banner(t("table.banner.bonus", { bonus: flip7Bonus(), name: fx.names(ev.seat) }), "star") },
  round_scored: { weight: 1.5, allSeats: true, show: (ev, fx) => fx.banner(t("table.banner.round_scored", { round: ev.round }), "round") },
  game_over: { allSeats: true },
  reshuffled: { show: (ev, fx) => fx.pile(".pile--draw .card") },
  // Players going and coming back, and the ready check (the server says it all).
  stand_in: {
    line: (ev, names) => ({ tone: "table", text: typeof ev.by === "number" ? t("table.life.handed", { by: names(ev.by), name: names(ev.seat) })
      : t("table.life.stand_in", { name: names(ev.seat) }) }),
  },
  returned: { line: (ev, names) => ({ tone: "table", text: t("table.life.returned", { name: names(ev.seat) }) }) },
  ready: {
    line: (ev, names) => (ev.ready ? { tone: "table", text: t("table.life.ready", { name: names(ev.seat) }) }
      : { tone: "muted", text: t("table.life.not_ready", { name: names(ev.seat) }) }),
  },
  gone: { line: (ev, names) => ({ tone: "muted", text: t("table.life.gone", { name: names(ev.seat) }) }) },
};

/**
 * What the page does with events of type `type` (nothing for a type it does not know).
 * @param {string} type
 * @returns {EventKind}
 */
export function eventKind(type) {
  return Object.hasOwn(EVENTS, type) ? EVENTS[type] : {};
}

/**
 * The seats an event changes (whose scores must wait for it), of `seats` seats in all.
 * @param {TableEvent} ev
 * @param {number} seats
 * @returns {number[]}
 */
export function seatsOf(ev, seats) {
  if (eventKind(ev.type).allSeats) return Array.from({ length: seats }, (_, s) => s);
  return [ev.seat, ev.victim, ev.target, ev.to, ev.seat1, ev.seat2].filter((s) => typeof s === "number");
}
