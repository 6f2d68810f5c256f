// A player's finished games (GET /api/players/{id}/games, in pages), for the profile: per
// game the date, the players and their totals, the result, the rating change, and the ways
// back into it: the replay (the spectator's and "as I saw it", /replay/game/<id>?seat=S),
// the record download and the coach (/coach/<id>/<seat>). Also the small pieces the other
// players' pages share: a rating change (+12 / −8) and a rate as a percentage.
import { api } from "./api.js";
/** @typedef {import("./protocol.js").PlayerGame} PlayerGame */
import { errorText, formatDate, formatNumber, t } from "./i18n.js";
import { clear, h, icon } from "./util.js";

const PAGE = 10;

/**
 * "+12" / "−8" / "±0" with an arrow for the eye and words for a screen reader.
 * @param {number | null | undefined} delta
 * @param {{testid?: string}} [options]
 */
export function ratingDeltaEl(delta, { testid = "rating-delta" } = {}) {
  if (delta === null || delta === undefined || !Number.isFinite(Number(delta))) return null;
  const d = Math.round(Number(delta));
  const kind = d > 0 ? "up" : d < 0 ? "down" : "same";
  const text = d > 0 ? `+${formatNumber(d)}` : d < 0 ? `−${formatNumber(-d)}` : "±0";
  return h("span", {
    class: `rating-delta rating-delta--${kind}`, dataset: { testid, delta: String(d) },
    title: t(`players.rating.delta_${kind}`, { count: Math.abs(d) }),
  }, h("span", { "aria-hidden": "true", text: d > 0 ? "▲ " : d < 0 ? "▼ " : "" }),
  h("span", { "aria-hidden": "true", text }),
  h("span", { class: "visually-hidden", text: t(`players.rating.delta_${kind}`, { count: Math.abs(d) }) }));
}

/**
 * The mark of a provisional rating (its sigma still high: too few rated games to be sure
 * of), shown after its number; null for a settled one.
 * @param {{provisional?: boolean} | null | undefined} rating
 */
export function provisionalMark(rating) {
  if (!rating || !rating.provisional) return null;
  return h("span", {
    class: "rating-provisional", dataset: { testid: "rating-provisional" },
    title: t("players.rating.provisional_long"),
  }, h("span", { "aria-hidden": "true", text: t("players.rating.provisional_mark") }),
  h("span", { class: "visually-hidden", text: t("players.rating.provisional_long") }));
}

/**
 * Why a rated table's game did not rate a player ("pair_limit", "same_network"), in words.
 * @param {string | null | undefined} reason
 */
export function unratedText(reason) {
  return reason === "pair_limit" || reason === "same_network" ? t(`players.unrated.${reason}`) : "";
}

/**
 * A rating as shown ("1062": no thousands separator, whatever the language).
 * @param {number | null | undefined} x
 */
export function ratingText(x) {
  if (x === null || x === undefined || !Number.isFinite(Number(x))) return "–";
  return formatNumber(Math.round(Number(x)), { useGrouping: false });
}

/**
 * A rate (0..1) as a percentage for the language.
 * @param {number | null | undefined} rate
 * @param {number} [digits]
 */
export function percent(rate, digits = 0) {
  if (rate === null || rate === undefined || !Number.isFinite(Number(rate))) return "–";
  return formatNumber(Number(rate), { style: "percent", maximumFractionDigits: digits });
}

/**
 * A number with at most `digits` decimals, "–" when there is none.
 * @param {number | null | undefined} x
 * @param {number} [digits]
 */
export function num(x, digits = 1) {
  if (x === null || x === undefined || !Number.isFinite(Number(x))) return "–";
  return formatNumber(Number(x), { maximumFractionDigits: digits });
}

/**
 * The place of `seat` among the game's players by total (1 = best; ties share).
 * @param {PlayerGame} game
 * @param {number} seat
 */
function placeOf(game, seat) {
  const mine = game.players.find((p) => p.seat === seat);
  if (!mine) return null;
  return 1 + game.players.filter((p) => p.total > mine.total).length;
}

/**
 * The history panel of the player `playerId`; `self`: it is this browser's identity.
 * @param {{playerId: string, self?: boolean, name?: string}} options
 */
export function historyPanel({ playerId, self = false, name = "" }) {
  const list = h("ol", { class: "history-list", dataset: { testid: "history" } });
  const empty = h("p", { class: "muted empty", hidden: true, text: t("players.history.empty") });
  const status = h("p", { class: "muted history-status", "aria-live": "polite" });
  const prev = h("button", { type: "button", class: "btn btn--ghost btn--small", dataset: { testid: "history-newer" } }, t("players.history.newer"));
  const next = h("button", { type: "button", class: "btn btn--ghost btn--small", dataset: { testid: "history-older" } }, t("players.history.older"));
  const pager = h("div", { class: "history-pager", hidden: true }, prev, status, next);
  let offset = 0;
  let total = 0;

  /** @param {PlayerGame} g */
  function item(g) {
    const winners = new Set(g.winners || []);
    const won = winners.has(g.seat);
    const place = placeOf(g, g.seat);
    const result = won ? t("players.history.won") : place ? t("players.history.place", { place, count: g.players.length }) : "";
    const gid = encodeURIComponent(g.game_id);
    const players = g.players.map((p) => {
      const label = `${p.name} ${formatNumber(p.total)}`;
      const cls = `history-player${winners.has(p.seat) ? " is-winner" : ""}${p.seat === g.seat ? " is-self" : ""}`;
      return p.player_id && p.seat !== g.seat
        ? h("a", { class: cls, href: `/players/${encodeURIComponent(p.player_id)}`, "data-link": true, text: label })
        : h("span", { class: cls, text: label });
    });
    return h("li", { class: `history-item${won ? " is-won" : ""}`, dataset: { game: g.game_id } },
      h("div", { class: "history-main" },
        h("div", { class: "history-title" },
          h("span", { class: "history-name", text: g.table_name || t("players.history.game") }),
          h("time", { class: "muted history-when", datetime: g.finished_at, text: formatDate(g.finished_at) })),
        h("p", { class: "history-players" }, players.flatMap((el, i) => (i ? [" · ", el] : [el]))),
        h("p", { class: "history-result" },
          h("span", { class: `history-outcome${won ? " is-won" : ""}`, dataset: { testid: "history-result" } }, won ? icon("trophy") : null, result),
          g.rated && g.rating_delta !== null && g.rating_delta !== undefined
            ? ratingDeltaEl(g.rating_delta)
            : h("span", { class: "badge", title: unratedText(g.unrated_because) || null, text: g.rated ? t("players.history.rated") : t("players.history.unrated") }))),
      h("div", { class: "history-actions" },
        h("a", { class: "btn btn--ghost btn--small", href: `/replay/game/${gid}`, "data-link": true, dataset: { testid: "history-replay" }, "aria-label": t("players.history.replay_label", { table: g.table_name || "" }) }, icon("play"), t("players.history.replay")),
        h("a", { class: "btn btn--ghost btn--small", href: `/replay/game/${gid}?seat=${g.seat}`, "data-link": true, dataset: { testid: "history-seat-replay" } }, icon("eye"), self ? t("players.history.as_i_saw_it") : t("players.history.as_they_saw_it", { name })),
        h("a", { class: "btn btn--ghost btn--small", href: `/api/games/${gid}/record`, download: `flip7-game-${g.game_id}.json`, dataset: { testid: "history-record" } }, icon("download"), t("players.history.record")),
        h("a", { class: "btn btn--secondary btn--small", href: `/coach/${gid}/${g.seat}`, "data-link": true, dataset: { testid: "history-coach" } }, t("players.history.coach"))));
  }

  async function load() {
    status.textContent = t("players.loading");
    try {
      const data = /** @type {import("./protocol.js").PlayerGames | null} */ (
        await api("GET", `/api/players/${encodeURIComponent(playerId)}/games?offset=${offset}&limit=${PAGE}`));
      const games = (data && data.games) || [];
      total = (data && Number.isInteger(data.total)) ? data.total : offset + games.length;
      clear(list);
      for (const g of games) list.appendChild(item(g));
      empty.hidden = games.length > 0 || offset > 0;
      pager.hidden = total <= PAGE;
      prev.disabled = offset === 0;
      next.disabled = offset + PAGE >= total;
      status.textContent = games.length ? t("players.history.range", { from: offset + 1, to: offset + games.length, count: total }) : "";
    } catch (err) {
      status.textContent = errorText(err);
    }
  }
  prev.addEventListener("click", () => { offset = Math.max(0, offset - PAGE); load(); });
  next.addEventListener("click", () => { offset += PAGE; load(); });
  load();
  return h("section", { class: "panel history", "aria-labelledby": "history-title" },
    h("h2", { id: "history-title", text: t("players.history.title") }), list, empty, pager);
}
