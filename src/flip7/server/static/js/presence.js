// Players who go away: the server says who is away on their turn, from when the others may
// hand the seat to a bot (handover_at), and who is ready for a rematch or gone. Nothing
// here is worked out: the page shows it, and counts down to the hand-over.
import { t } from "./i18n.js";
import { seatEl } from "./tableanim.js";
import { gameSeats, isSeated, seatMeta } from "./tablestate.js";
import { h } from "./util.js";

/** @typedef {import("./tablestate.js").TableState} TableState */
/** @typedef {(method: import("./api.js").Method, path: string, body?: object) => Promise<object|null>} Rest  a table request (null: refused, said) */

/**
 * The hand-over button counts down to the moment the server allows it.
 * @param {HTMLButtonElement} btn  a button of handoverButton's
 */
export function tickHandover(btn) {
  const left = Math.max(0, Math.ceil(Number(btn.dataset.handoverAt) - Date.now() / 1000));
  btn.disabled = left > 0 || !!btn.dataset.sending;
  btn.textContent = left > 0 ? t("table.away.handover_in", { count: left }) : t("table.away.handover");
}

/**
 * "Let a bot play" for away seat s, counting down to when it may.
 * @param {number} s
 * @param {import("./protocol.js").Seat} meta
 * @param {Rest} rest
 * @returns {HTMLButtonElement}
 */
function handoverButton(s, meta, rest) {
  const btn = h("button", {
    type: "button", class: "btn btn--secondary btn--small", "aria-label": t("table.away.handover_label", { name: meta.name }),
    dataset: { testid: "handover", handoverAt: String(meta.handover_at), focusKey: `handover:${s}` },
    onclick: async () => {
      const el = btn;
      el.dataset.sending = "1";
      el.disabled = true;
      const ok = await rest("POST", `/seats/${s}/handover`);
      if (!ok) {
        delete el.dataset.sending;
        tickHandover(el);
      }
    },
  });
  tickHandover(btn);
  return btn;
}

/**
 * The hand-over button, unless the seat cannot be handed over at all: at a turn-based
 * table only once its player has missed decisions in a row (the server then gives
 * `handover_at`); being away is normal there.
 * @param {TableState} S
 * @param {number} s
 * @param {import("./protocol.js").Seat} meta
 * @param {Rest} rest
 * @returns {HTMLElement|null}
 */
function maybeHandover(S, s, meta, rest) {
  if (S.table && S.table.pace === "turn_based" && (meta.handover_at === null || meta.handover_at === undefined)) return null;
  return handoverButton(s, meta, rest);
}

/**
 * For the bar at the bottom that everyone sees (the seat itself may be scrolled away on a
 * phone): "Eve is away" and the hand-over button, while the seat that must decide is away
 * and a seated player looks on; null otherwise.
 * @param {TableState} S
 * @param {number} s  the game seat that must decide
 * @param {number|null} me  the viewer's game seat
 * @param {Rest} rest
 * @returns {HTMLElement|null}
 */
export function awayNote(S, s, me, rest) {
  const meta = seatMeta(S, s);
  if (!meta || meta.stand_in || meta.away_since === null || meta.away_since === undefined) return null;
  if (!isSeated(S) || me === null || me === s) return null;
  return h("span", { class: "away-note", dataset: { testid: "away-note" } },
    h("span", { text: t("table.away.is_away", { name: meta.name }) }), maybeHandover(S, s, meta, rest));
}

/**
 * A seat's badges for a player away on their turn (with the hand-over button for the
 * other players) and for a seat the stand-in bot plays until its player is back.
 * @param {HTMLElement} board  the board's host, freshly drawn
 * @param {TableState} S
 * @param {number|null} me  the viewer's game seat
 * @param {Rest} rest
 */
export function markAway(board, S, me, rest) {
  const g = S.table && S.table.game;
  if (!g || g.over) return;
  gameSeats(S).forEach((meta, s) => {
    const panel = seatEl(board, s);
    const badges = panel && panel.querySelector(".seat-badges");
    if (!badges) return;
    if (meta.stand_in) {
      badges.appendChild(h("span", { class: "badge badge--bot", dataset: { testid: "stand-in" }, text: t("table.away.bot_plays") }));
    } else if (meta.away_since !== null && meta.away_since !== undefined) {
      badges.appendChild(h("span", { class: "badge badge--offline", dataset: { testid: "away" }, text: t("table.away.away") }));
      const button = isSeated(S) && me !== null && me !== s ? maybeHandover(S, s, meta, rest) : null;
      if (button) badges.appendChild(button);
    }
  });
}

/**
 * At the end screen: whether a player is ready for the rematch (bots are), or leaving.
 * @param {TableState} S
 * @param {number} s  a game seat
 * @returns {HTMLElement|null}
 */
export function readyBadge(S, s) {
  const meta = seatMeta(S, s);
  if (!meta || meta.ready === null || meta.ready === undefined) return null;
  const [cls, text] = meta.gone ? ["badge--offline", t("table.ready.leaving")] : meta.ready ? ["badge--bot", t("table.ready.ready")]
    : meta.connected ? ["", t("table.ready.not_ready")] : ["badge--offline", t("table.away.away")];
  return h("span", { class: `badge ${cls}`.trim(), dataset: { testid: "ready-state" }, text });
}
