// "Your games": the tables this browser's identity holds a seat at (GET
// /api/players/me/tables), whichever device took the seat; the lobby and /me show them.
import { api } from "./api.js";
import { localName } from "./botlevels.js";
import { formatDate, t } from "./i18n.js";
import { getIdentity } from "./identity.js";
import { pressHold } from "./presshold.js";
import { clear, focusKey, h, restoreFocus, store, tokenKey } from "./util.js";

/** @typedef {import("./protocol.js").YourTable} YourTable */

/**
 * What the game waits for, in words: your turn, someone's turn, the start, a rematch.
 * @param {YourTable} tbl
 * @returns {{text: string, mine: boolean}}
 */
export function yourTableState(tbl) {
  if (tbl.to_decide !== null && tbl.to_decide === tbl.seat) return { text: t("lobby.your_turn"), mine: true };
  if (tbl.state === "waiting") return { text: t("lobby.state_waiting"), mine: false };
  if (tbl.state === "over") return { text: t("lobby.state_finished"), mine: false };
  const decider = tbl.seats.find((s) => s.seat === tbl.to_decide);
  if (decider) return { text: t("lobby.turn_of", { name: localName(decider.name) }), mine: false };
  return { text: t("lobby.state_playing"), mine: false };
}

/**
 * A bot's seat name in the list: a level's bot names its level already ("Mia (Medium
 * bot)"); another gets "(bot)".
 * @param {string} name
 */
function botName(name) {
  const shown = localName(name);
  return shown !== name || /\bbot\b/i.test(name) ? shown : t("lobby.bot_in_list", { name });
}

/**
 * The panel of your games (hidden while there are none, or there is no identity);
 * `load` fetches them again.
 * @param {() => boolean} alive whether the page is still on screen
 * @returns {{panel: HTMLElement, load: () => Promise<void>}}
 */
export function yourGamesPanel(alive) {
  const list = h("ul", { class: "table-list your-games-list" });
  const panel = h("section", { class: "panel your-games", "aria-labelledby": "your-games-title", hidden: true, dataset: { testid: "your-games" } },
    h("div", { class: "panel-head" }, h("h2", { id: "your-games-title", text: t("lobby.your_games") })),
    list);
  const press = pressHold(panel); // a tap while the list is drawn anew: see presshold.js

  /** @param {YourTable[]} tables */
  function render(tables) {
    if (press.hold(() => render(tables))) return;
    const key = focusKey();
    clear(list);
    panel.hidden = tables.length === 0;
    for (const tbl of tables) {
      const href = `/t/${encodeURIComponent(tbl.id)}`;
      const seated = !!store.get(tokenKey(tbl.id));
      const state = yourTableState(tbl);
      const players = tbl.seats.map((s) => (s.seat === tbl.seat ? t("lobby.you_in_list", { name: s.name })
        : s.kind === "bot" ? botName(s.name) : s.name)).join(", ");
      const notes = [];
      if (tbl.deadline && tbl.to_decide !== null) {
        const who = state.mine ? t("lobby.you_decide_until", { date: formatDate(tbl.deadline, { weekday: "short", hour: "numeric", minute: "2-digit" }) })
          : t("lobby.they_decide_until", { date: formatDate(tbl.deadline, { weekday: "short", hour: "numeric", minute: "2-digit" }) });
        notes.push(h("p", { class: "muted your-game-note", dataset: { testid: "decide-until" }, text: who }));
      }
      if (tbl.state === "suspended" && tbl.waits_until) {
        notes.push(h("p", { class: "muted your-game-note", dataset: { testid: "waits-until" }, text: t("lobby.waits_until", { date: formatDate(tbl.waits_until, { dateStyle: "medium", timeStyle: "short" }) }) }));
      }
      if (!seated) notes.push(h("p", { class: "muted your-game-note", text: t("lobby.seat_elsewhere") }));
      list.appendChild(h("li", { class: `table-item your-game${state.mine ? " your-game--turn" : ""}`, dataset: { table: tbl.id, state: tbl.state } },
        h("div", { class: "table-item-main" },
          h("div", { class: "table-item-title" },
            h("span", { class: "table-item-name", text: tbl.name }),
            h("span", { class: `chip chip--state${state.mine ? " chip--turn" : ""}`, dataset: { state: tbl.state, testid: "your-game-state" }, text: state.text }),
            tbl.state === "suspended" ? h("span", { class: "chip chip--state", dataset: { state: "suspended" }, text: t("lobby.state_suspended") }) : null),
          h("p", { class: "table-item-players muted", text: players }),
          notes),
        h("div", { class: "table-item-actions" },
          h("a", { class: `btn btn--small ${seated ? "btn--primary" : "btn--ghost"}`, href, "data-link": true, dataset: { focusKey: `yours:${tbl.id}` } },
            seated ? t("lobby.back_to_seat") : t("lobby.watch")))));
    }
    restoreFocus(key, list);
  }

  async function load() {
    if (!getIdentity()) {
      if (alive()) render([]);
      return;
    }
    try {
      const data = /** @type {import("./protocol.js").YourTables | null} */ (await api("GET", "/api/players/me/tables"));
      if (alive()) render((data && data.tables) || []);
    } catch {
      /* keep the last list; the next refresh tries again */
    }
  }
  load();
  return { panel, load };
}
