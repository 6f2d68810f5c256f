// The end of a game at the table: who won, the ranking, the ready check for the next game
// (the server's call), the game's replay and, from endscreen.js, the rating changes and
// statistics of the game just finished.
import { seatHue } from "./board.js";
import { mountEndSummary } from "./endscreen.js";
import { fullGamePanel } from "./fullgame.js";
import { formatNumber, t } from "./i18n.js";
import { readyBadge } from "./presence.js";
import { gameSeats, isSeated, myGameSeat, seatMeta } from "./tablestate.js";
import { clear, h, icon, initials } from "./util.js";

/** @typedef {import("./tablestate.js").TableState} TableState */

/**
 * H6's hook (endscreen.js): mountEndSummary fills its container once per finished game;
 * the end screen, redrawn as players say ready, keeps showing the same container.
 * @param {TableState} S
 * @param {string|null|undefined} gameId
 * @param {number|null} seat
 * @returns {HTMLElement|null}
 */
function endSummary(S, gameId, seat) {
  if (gameId === null || gameId === undefined) return null;
  if (!S.endSummary || S.endSummary.gameId !== gameId) {
    const container = h("div", { class: "endscreen-summary", dataset: { testid: "end-summary" } });
    S.endSummary = { gameId, container };
    try {
      mountEndSummary(container, { gameId, seat });
    } catch (err) {
      console.error(err); // the end screen works without it
    }
  }
  return S.endSummary.container;
}

/**
 * The rematch button (for a seated player staying) and who the next game waits for.
 * @param {TableState} S
 * @param {number|null} me
 * @param {import("./presence.js").Rest} rest
 */
function readyCheck(S, me, rest) {
  const tb = S.table;
  const mine = me !== null ? seatMeta(S, me) : null;
  const iAmReady = !!(mine && mine.ready);
  const rematch = isSeated(S) && mine && !mine.gone ? h("button", {
    type: "button", class: `btn ${iAmReady ? "btn--secondary" : "btn--primary"} btn--big`, "aria-pressed": String(iAmReady),
    dataset: { testid: "rematch", focusKey: "rematch" },
    onclick: async (ev) => {
      const btn = ev.currentTarget;
      if (!(btn instanceof HTMLButtonElement)) return;
      btn.disabled = true;
      const ok = await rest("POST", "/ready", { ready: !iAmReady });
      if (!ok) btn.disabled = false;
    },
  }, iAmReady ? t("table.end.not_ready") : t("table.end.ready")) : null;
  const seats = gameSeats(S);
  const unready = seats.filter((x) => x.kind === "human" && !x.gone && !x.ready).map((x) => x.name);
  // The server's reason is English prose: the page says it in its own words.
  const note = tb && tb.rematch_problem ? h("p", { class: "hint", dataset: { testid: "ready-wait" }, text: t("table.end.rematch_problem") })
    : unready.length && seats.some((x) => x.kind === "human" && x.ready)
      ? h("p", { class: "hint", dataset: { testid: "ready-wait" }, text: t("table.end.waiting_for", { names: unready.join(t("cards.list.sep")), count: unready.length }) }) : null;
  return { rematch, note };
}

/**
 * A player's place in the ranking: equal totals share a place, and the next one is counted
 * past them (179, 179, 150: 1, 1, 3), as the end screen of any scoring app does.
 * @param {number[]} totals every player's total
 * @param {number} total this player's
 * @returns {number}
 */
export function placeOf(totals, total) {
  return 1 + totals.filter((x) => x > total).length;
}

/**
 * The final ranking, best total first.
 * @param {TableState} S
 * @param {import("./protocol.js").GameView} g
 * @param {number|null} me
 * @param {boolean} readyCheck  whether the ready check is on (not after the guided game)
 */
function ranking(S, g, me, readyCheck) {
  const winners = g.winners || [];
  const rows = g.players.map((p) => p).sort((a, b) => b.total - a.total);
  const totals = rows.map((p) => p.total);
  const shown = initials(g.players.map((p) => p.name));
  return h("ol", { class: "ranking" }, rows.map((p) => h("li", { class: `ranking-row${winners.includes(p.seat) ? " is-winner" : ""}`, dataset: { seat: String(p.seat) } },
    h("span", { class: "ranking-pos", dataset: { testid: "ranking-place" }, text: formatNumber(placeOf(totals, p.total)) }),
    h("span", { class: "avatar avatar--small", style: { "--hue": String(seatHue(p.seat)) }, "aria-hidden": "true", text: shown[p.seat] || "?" }),
    // The name before its badges, which go under it when the row is short of room (a
    // phone cut "Ben" to "B" behind "You" and "not ready").
    h("span", { class: "ranking-who" },
      h("span", { class: "ranking-name", text: p.name }),
      h("span", { class: "ranking-badges" },
        p.seat === me ? h("span", { class: "badge badge--you", text: t("table.you") }) : null,
        readyCheck ? readyBadge(S, p.seat) : null)),
    h("b", { class: "ranking-total", dataset: { testid: "final-total" }, text: formatNumber(p.total) }))));
}

/**
 * The end screen of a finished game in `host` (empty while the game runs, or once closed).
 * @param {HTMLElement} host
 * @param {TableState} S
 * @param {object} deps
 * @param {(seat: number) => string} deps.names
 * @param {import("./presence.js").Rest} deps.rest
 */
export function renderEnd(host, S, { names, rest }) {
  clear(host);
  const tb = S.table;
  const g = tb && tb.game;
  if (!tb || !g || !g.over || S.endClosedFor === tb.game_id) return;
  // The guided game's closing lessons first: the end screen covered them.
  if (tb.tutorial && tb.tutorial.lesson && !tb.tutorial.skipped) return;
  const winners = g.winners || [];
  const me = myGameSeat(S);
  const winnerNames = winners.map(names);
  const headline = winners.length > 1 ? t("table.end.share_win", { names: winnerNames.join(" & ") })
    : winners[0] === me && me !== null ? t("table.end.you_win") : t("table.board.wins", { name: winnerNames[0] || t("cards.log.nobody") });
  const close = () => {
    S.endClosedFor = tb.game_id;
    renderEnd(host, S, { names, rest });
  };
  // After the guided game its rematch (the lesson's short target) is not what to offer:
  // a full game against bots of a level the player picks is.
  const guided = !!tb.tutorial && me !== null;
  const { rematch, note } = guided ? { rematch: fullGamePanel(names(me)), note: null } : readyCheck(S, me, rest);
  const replayLink = tb.game_id !== null && tb.game_id !== undefined
    ? h("a", { class: "btn btn--secondary btn--big", href: `/replay/game/${encodeURIComponent(tb.game_id)}`, "data-link": true, dataset: { testid: "replay-link" } }, icon("play"), t("table.end.replay"))
    : null;
  // The ready check redraws the end screen as players say ready: it rises in only once.
  const again = S.endShownFor === tb.game_id;
  S.endShownFor = tb.game_id;
  host.appendChild(h("div", { class: "endscreen", role: "dialog", "aria-modal": "false", "aria-labelledby": "end-title", dataset: { testid: "endscreen" } },
    h("div", { class: "endscreen-card", style: again ? { animation: "none" } : null },
      h("button", { type: "button", class: "btn btn--icon endscreen-close", "aria-label": t("table.end.close"), onclick: close }, icon("close")),
      h("div", { class: "endscreen-trophy", "aria-hidden": "true" }, icon("trophy")),
      h("p", { class: "endscreen-kicker", text: t("table.end.kicker", { count: g.rounds.length }) }),
      h("h2", { id: "end-title", class: "endscreen-title", text: headline }),
      ranking(S, g, me, !guided),
      note,
      // The ready check before the figures: on a laptop's 800 px the card scrolled it away.
      h("div", { class: "endscreen-actions" }, rematch, replayLink,
        h("a", { class: "btn btn--ghost", href: "/", "data-link": true }, t("common.back_to_lobby"))),
      endSummary(S, tb.game_id, me))));
}
