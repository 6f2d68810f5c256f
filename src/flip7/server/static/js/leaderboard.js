// The leaderboard (/leaderboard): the players with at least one rated game and the bot
// levels, by rating (GET /api/leaderboard): rank, name, rating, games, wins. The server lists
// settled ratings first; a provisional one carries its mark.
import { api } from "./api.js";
import { botAccountBadge, levelName } from "./botlevels.js";
import { errorText, formatNumber, t } from "./i18n.js";
import { provisionalMark, ratingText } from "./history.js";
import { getIdentity, profilePath } from "./identity.js";
import { clear, h, icon, initial } from "./util.js";

/** @typedef {import("./protocol.js").LeaderboardPlayer} LeaderboardPlayer */
/** @typedef {import("./protocol.js").LeaderboardBot} LeaderboardBot */

/**
 * One table of the leaderboard: the players' or the bot levels'.
 * @param {object} board
 * @param {string} board.id the heading's id
 * @param {string} board.title
 * @param {Array<LeaderboardPlayer | LeaderboardBot>} board.rows
 * @param {"players" | "bots"} board.kind
 * @param {{id: string} | null} board.me this browser's identity
 */
function board({ id, title, rows, kind, me }) {
  const body = h("tbody", {}, rows.map((r) => {
    const player = "id" in r ? r : null;
    const mine = kind === "players" && me && player && player.id === me.id;
    const name = player
      ? h("a", { href: profilePath(player.id), "data-link": true, class: "standings-name", text: player.name })
      : h("span", { class: "standings-name", text: t("players.leaderboard.bot_level", { level: "level" in r ? levelName(r.level) || r.level : "" }) });
    return h("tr", { class: mine ? "is-self" : null, dataset: { testid: `board-${kind}-row`, id: player ? player.id : "level" in r ? r.level : "" } },
      h("td", { class: "standings-rank", text: formatNumber(r.rank) }),
      h("th", { scope: "row", class: "standings-who" },
        h("span", { class: `avatar avatar--small${kind === "bots" ? " avatar--bot" : ""}`, "aria-hidden": "true" }, player ? initial(player.name) : icon("bot")),
        name, mine ? h("span", { class: "badge badge--you", text: t("players.you") }) : null,
        player && "bot_account" in player ? botAccountBadge(player.bot_account) : null),
      h("td", { class: "standings-num standings-rating" },
        h("span", { dataset: { testid: "board-rating" }, text: ratingText(r.display) }), provisionalMark(r)),
      h("td", { class: "standings-num", text: formatNumber(r.games) }),
      h("td", { class: "standings-num", text: formatNumber(r.wins) }));
  }));
  return h("section", { class: "panel standings", "aria-labelledby": id, dataset: { testid: `board-${kind}` } },
    h("h2", { id, text: title }),
    rows.length
      ? h("div", { class: "standings-wrap" }, h("table", { class: "standings-table" },
        h("caption", { class: "visually-hidden", text: title }),
        h("thead", {}, h("tr", {},
          h("th", { scope: "col", class: "standings-rank", text: t("players.leaderboard.rank") }),
          h("th", { scope: "col", text: t("players.leaderboard.name") }),
          h("th", { scope: "col", class: "standings-num", text: t("players.leaderboard.rating") }),
          h("th", { scope: "col", class: "standings-num", text: t("players.leaderboard.games") }),
          h("th", { scope: "col", class: "standings-num", text: t("players.leaderboard.wins") }))),
        body))
      : h("p", { class: "muted empty", text: kind === "players" ? t("players.leaderboard.no_players") : t("players.leaderboard.no_bots") }));
}

/** @param {HTMLElement} root */
export function mountLeaderboard(root) {
  document.body.dataset.view = "leaderboard";
  document.title = `${t("players.leaderboard.title")} · Flip 7`;
  let destroyed = false;
  const host = h("div", { class: "standings-grid" },
    h("div", { class: "loading panel" }, h("span", { class: "spinner", "aria-hidden": "true" }), t("players.loading")));
  const me = getIdentity();
  root.appendChild(h("div", { class: "players-page leaderboard-page", dataset: { testid: "leaderboard" } },
    h("div", { class: "page-head" },
      h("h1", { class: "page-title" }, icon("trophy"), t("players.leaderboard.title")),
      h("p", { class: "muted", text: t("players.leaderboard.about") }),
      h("p", { class: "muted", text: t("players.leaderboard.provisional") }),
      me ? null : h("p", { class: "hint" }, h("a", { href: "/me", "data-link": true, text: t("players.leaderboard.join") }))),
    host));
  api("GET", "/api/leaderboard?limit=100").then((answer) => {
    const data = /** @type {import("./protocol.js").Leaderboard | null} */ (answer);
    if (destroyed) return;
    clear(host);
    host.append(
      board({ id: "board-players-title", title: t("players.leaderboard.players"), rows: (data && data.players) || [], kind: "players", me }),
      board({ id: "board-bots-title", title: t("players.leaderboard.bots"), rows: (data && data.bots) || [], kind: "bots", me }));
  }).catch((err) => {
    if (destroyed) return;
    clear(host);
    host.appendChild(h("p", { class: "form-error", role: "alert", text: errorText(err) }));
  });
  return { destroy() { destroyed = true; } };
}
