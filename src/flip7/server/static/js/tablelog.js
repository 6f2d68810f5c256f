// The table's log: a line per event of the current game, from a welcome's history (shown
// at once) and from updates (as their events play), never a line twice after a reconnect.
import { eventLine, lineNodes } from "./cards.js";
import { eventKind } from "./tableevents.js";
import { clear, h } from "./util.js";

/** @typedef {import("./tableevents.js").TableEvent} TableEvent */
/** @typedef {{version: number, events?: TableEvent[]}} Change  one stored change of the table */

// The log keeps the newest lines only.
const MOST_LINES = 400;

/** @param {Change} change */
const startsGame = (change) => (change.events || []).some((ev) => ev.type === "game_started");

/**
 * The log in list `list`.
 * @param {HTMLOListElement} list
 * @param {import("./tablestate.js").TableState} S  its logVersion is the last version logged
 * @param {(seat: number) => string} names
 * @returns {{line: (ev: TableEvent) => void, history: (history: Change[], cut?: boolean) => void}}
 */
export function tableLog(list, S, names) {
  /**
   * The log's line for an event (null for events without one); `restored`: not animated.
   * @param {TableEvent} ev0
   * @param {boolean} [restored]
   * @returns {HTMLLIElement|null}
   */
  function item(ev0, restored = false) {
    let ev = ev0;
    if (ev.type === "seat_left" && S.table) {
      // Mid-game the seat stays (a bot plays it); before the start it is emptied.
      const seat = S.table.seats.find((x) => x.seat === ev.seat);
      if (seat && seat.kind !== "empty" && seat.left) ev = { ...ev, name: seat.name };
    }
    const life = eventKind(ev.type).line;
    const line = life ? life(ev, names) : eventLine(ev, names);
    if (!line) return null;
    return h("li", { class: `log-item log--${line.tone}${restored ? " is-restored" : ""}`, dataset: { type: ev.type } },
      h("span", { class: "log-dot", "aria-hidden": "true" }), h("span", { class: "log-text" }, lineNodes(line)));
  }

  return {
    /** An event's line, at the end (the list follows it when it was scrolled to the end). */
    line(ev) {
      // The log is the current game's, as a welcome's history is: a new game starts it afresh.
      if (ev.type === "game_started") clear(list);
      const li = item(ev);
      if (!li) return;
      const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
      list.appendChild(li);
      while (list.firstElementChild && list.children.length > MOST_LINES) list.firstElementChild.remove();
      if (stick) list.scrollTop = list.scrollHeight;
    },
    /**
     * The log from a welcome's history (every change of the current game since its
     * game_started, with versions), shown at once and never animated. After a reconnect
     * only the changes past the last version already shown are added. `cut`: the history
     * holds only the newest changes of a long game (the welcome's history_cut).
     * @param {Change[]} history
     * @param {boolean} [cut]
     */
    history(history, cut = false) {
      const last = S.logVersion;
      const held = history.length > 0 && last !== null && history[0].version <= last + 1;
      let changes = held && last !== null ? history.filter((c) => c.version > last) : history;
      const restart = changes.findLastIndex(startsGame);
      if (!held || restart >= 0) {
        clear(list);
        if (restart > 0) changes = changes.slice(restart);
      }
      const lines = document.createDocumentFragment();
      if (cut && !held && restart < 0) {
        // The log starts mid-game: it says that the earlier moves are not shown.
        const note = item({ type: "_note", key: "table.history_cut_note" }, true);
        if (note) lines.appendChild(note);
      }
      for (const change of changes) {
        for (const ev of change.events || []) {
          const li = item(ev, true);
          if (li) lines.appendChild(li);
        }
      }
      list.appendChild(lines);
      while (list.firstElementChild && list.children.length > MOST_LINES) list.firstElementChild.remove();
      list.scrollTop = list.scrollHeight;
      if (history.length) S.logVersion = Math.max(S.logVersion ?? 0, history[history.length - 1].version);
    },
  };
}
