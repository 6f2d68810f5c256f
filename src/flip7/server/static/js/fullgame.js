// After the guided first game: "a full game" against bots of the level the player picks, at
// a new table with the usual rules (its rematch would have kept the short lesson's target).
// The table is made, the bots seated and the game started through the same REST calls as
// the lobby and the waiting room, then its page opens.
import { api } from "./api.js";
import { levelBlurb, levelName, loadBots } from "./botlevels.js";
import { errorText, t } from "./i18n.js";
import { navigate } from "./router.js";
import { h, store, tokenKey } from "./util.js";

const BOTS = 2; // as in the guided game: the player and two bots

/**
 * Make the table, seat the bots, start, and go there.
 * @param {string} player
 * @param {string} level
 */
async function startFullGame(player, level) {
  /** @type {import("./protocol.js").CreateTable} */
  const body = { player, name: t("lobby.default_table_name", { name: player }), seats: 1 + BOTS };
  const data = /** @type {import("./protocol.js").SeatGranted} */ (await api("POST", "/api/tables", { body }));
  const id = encodeURIComponent(data.table.id);
  store.set(tokenKey(data.table.id), data.token);
  for (let i = 0; i < BOTS; i += 1) await api("POST", `/api/tables/${id}/bots`, { body: { bot: level }, token: data.token });
  await api("POST", `/api/tables/${id}/start`, { token: data.token });
  navigate(`/t/${id}`);
}

/**
 * The end screen's offer after the guided game: a level to pick and "Start a full game".
 * @param {string} player the learner's name
 * @returns {HTMLElement}
 */
export function fullGamePanel(player) {
  const select = /** @type {HTMLSelectElement} */ (h("select", { id: "full-game-level", class: "select", "aria-describedby": "full-game-blurb", dataset: { testid: "full-game-level" } }));
  const blurb = h("p", { id: "full-game-blurb", class: "hint", "aria-live": "polite" });
  const error = h("p", { class: "form-error", role: "alert", hidden: true });
  const go = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "btn btn--primary btn--big", dataset: { testid: "full-game" } }, t("tutorial.full_game.start")));
  const form = h("form", { class: "full-game", dataset: { testid: "full-game-form" } },
    h("p", { class: "full-game-text", text: t("tutorial.full_game.text") }),
    h("div", { class: "full-game-row" },
      h("label", { for: "full-game-level", class: "field-label", text: t("tutorial.full_game.level") }), select),
    blurb, go, error);
  loadBots().then(({ levels, default: chosen }) => {
    const describe = () => {
      const level = levels.find((l) => l.name === select.value);
      blurb.textContent = level ? levelBlurb(level) : "";
    };
    for (const level of levels) select.append(h("option", { value: level.name, text: levelName(level.name) || level.name }));
    select.value = chosen || (levels[0] ? levels[0].name : "");
    select.addEventListener("change", describe);
    describe();
  });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    go.disabled = true;
    error.hidden = true;
    try {
      await startFullGame(player, select.value);
    } catch (err) {
      error.textContent = errorText(err);
      error.hidden = false;
      go.disabled = false;
    }
  });
  return form;
}
