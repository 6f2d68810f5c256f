// The table's animations: an update's events play in order over about a second (each card
// flips into place, the seats it touches flash, a banner for the big moments), their log
// lines come as they play, and the scores they change wait for them.
import { eventKind, seatsOf } from "./tableevents.js";
import { h } from "./util.js";

/** @typedef {import("./tableevents.js").TableEvent} TableEvent */
/** @typedef {{ev: TableEvent, marks: HTMLElement[], at?: number}} Played  an event and the cards it brings */

/**
 * The panel of game seat `s` on the board, or null.
 * @param {HTMLElement} board
 * @param {number} s
 * @returns {HTMLElement|null}
 */
export function seatEl(board, s) {
  return board.querySelector(`.seat[data-seat="${s}"]`);
}

/**
 * Play CSS animation class `cls` on `el` again from its start.
 * @param {HTMLElement|null} el
 * @param {string} cls
 * @param {number} [ms]
 */
function replay(el, cls, ms = 900) {
  if (!el) return;
  el.classList.remove(cls);
  void el.offsetWidth; // restart the animation
  el.classList.add(cls);
  setTimeout(() => el.classList.remove(cls), ms);
}

/**
 * The newest card of `code` in a seat's `row` not already claimed by an earlier event.
 * @param {HTMLElement} board
 * @param {number} seat
 * @param {import("./tableevents.js").Arrival[1]} row
 * @param {string} code
 * @param {Set<HTMLElement>} claimed
 * @returns {HTMLElement|null}
 */
function findCard(board, seat, row, code, claimed) {
  const panel = seatEl(board, seat);
  if (!panel) return null;
  const sel = row === "line" ? ".seat-line .card" : row === "mod" ? ".seat-mods .card" : ".card";
  /** @type {HTMLElement[]} */
  const cards = [];
  for (const c of panel.querySelectorAll(sel)) if (c instanceof HTMLElement && c.dataset.code === code && !claimed.has(c)) cards.push(c);
  return cards.length ? cards[cards.length - 1] : null;
}

/**
 * Hold a seat's round score, total and Flip 7 pips at their values of `before` until
 * `release` is called: the score changes with the card, not before it.
 * @param {HTMLElement} panel
 * @param {import("./protocol.js").SeatView} before
 * @returns {() => void} release
 */
function holdSeat(panel, before) {
  const round = panel.querySelector(".score--round b");
  const total = panel.querySelector(".seat-total");
  const pips = [...panel.querySelectorAll(".pip")];
  const now = { round: round ? round.textContent : null, total: total ? total.textContent : null, on: pips.map((p) => p.classList.contains("pip--on")) };
  const count = (before.line || []).length;
  if (round) round.textContent = String(before.round_score);
  if (total) total.textContent = String(before.total);
  pips.forEach((p, i) => p.classList.toggle("pip--on", i < count));
  panel.classList.add("is-scoring");
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (round) round.textContent = now.round;
    if (total) total.textContent = now.total;
    pips.forEach((p, i) => p.classList.toggle("pip--on", now.on[i]));
    panel.classList.remove("is-scoring");
  };
}

/**
 * Each event's cards, found on the freshly drawn board and hidden until they land.
 * @param {HTMLElement} board
 * @param {TableEvent[]} events
 * @returns {Played[]}
 */
function mark(board, events) {
  /** @type {Set<HTMLElement>} */
  const claimed = new Set();
  return events.map((ev) => {
    /** @type {HTMLElement[]} */
    const marks = [];
    for (const [seat, row, code] of eventKind(ev.type).arrivals?.(ev) || []) {
      const el = findCard(board, seat, row, code, claimed);
      if (el) {
        claimed.add(el);
        el.classList.add("incoming");
        marks.push(el);
      }
    }
    return { ev, marks };
  });
}

/**
 * An event lands: its cards arrive, its seats flash.
 * @param {Played} item
 * @param {import("./tableevents.js").Effects} fx
 */
function land(item, fx) {
  for (const el of item.marks) {
    el.classList.remove("incoming");
    replay(el, "arrive", 700);
  }
  const kind = eventKind(item.ev.type);
  if (kind.show) kind.show(item.ev, fx, item.marks.length > 0);
}

/**
 * The player of a table's event batches.
 * @param {object} opts
 * @param {HTMLElement} opts.board  the board's host
 * @param {HTMLElement} opts.fxLayer  where banners show
 * @param {(ev: TableEvent) => void} opts.log  adds an event's log line
 * @param {(seat: number) => string} opts.names
 * @param {() => number} opts.seats  how many seats play
 * @returns {{play: (events: TableEvent[], prev: import("./tablestate.js").GameView|null) => void, flush: () => void}}
 */
export function eventPlayer({ board, fxLayer, log, names, seats }) {
  /** @type {{timers: ReturnType<typeof setTimeout>[], pending: Played[], holds: (() => void)[]}} */
  const anim = { timers: [], pending: [], holds: [] };
  /** @type {import("./tableevents.js").Effects} */
  const fx = {
    seat: (s, cls, ms) => replay(seatEl(board, s), cls, ms),
    pile: (selector) => replay(board.querySelector(selector), "arrive", 700),
    banner(text, tone) {
      for (const old of fxLayer.querySelectorAll(".banner")) old.remove();
      const b = h("div", { class: `banner banner--${tone}`, text });
      fxLayer.appendChild(b);
      setTimeout(() => b.remove(), 1400);
    },
    names,
  };

  /**
   * Each seat's scores wait for the last event of the batch that touches the seat.
   * @param {Played[]} items
   * @param {import("./protocol.js").GameView} prev
   */
  function holdScores(items, prev) {
    /** @type {Map<number, Played>} */
    const last = new Map();
    for (const item of items) for (const s of seatsOf(item.ev, seats())) last.set(s, item);
    for (const [s, item] of last) {
      const before = prev.players[s];
      const panel = seatEl(board, s);
      if (!before || !panel) continue;
      const release = holdSeat(panel, before);
      anim.holds.push(release);
      // The card's arrival animation lasts 500 ms (.card.arrive in style.css).
      anim.timers.push(setTimeout(release, (item.at ?? 0) + (item.marks.length ? 450 : 0)));
    }
  }

  return {
    /** Animate a batch of events in order; the whole batch lasts at most about a second. */
    play(events, prev) {
      const items = mark(board, events);
      /** @param {Played} item */
      const weight = (item) => eventKind(item.ev.type).weight || 0;
      const total = items.reduce((acc, it) => acc + weight(it), 0);
      const unit = total > 0 ? Math.min(280, 950 / total) : 0;
      let at = 0;
      anim.pending = items.slice();
      for (const item of items) {
        item.at = at;
        anim.timers.push(setTimeout(() => {
          const i = anim.pending.indexOf(item);
          if (i >= 0) anim.pending.splice(i, 1);
          log(item.ev);
          land(item, fx);
        }, at));
        at += weight(item) * unit;
      }
      if (prev) holdScores(items, prev);
    },
    /** Play the queued events at once (a new update arrived): keeps the log in order. */
    flush() {
      for (const timer of anim.timers) clearTimeout(timer);
      anim.timers = [];
      for (const item of anim.pending) {
        log(item.ev);
        for (const el of item.marks) el.classList.remove("incoming");
      }
      anim.pending = [];
      for (const release of anim.holds) release();
      anim.holds = [];
    },
  };
}
