// The end screen's summary of the game just finished (GET /api/games/{id}/summary): each
// seat's rating change (+12 / −8) on a rated table, and the game's figures (round score
// average, busts, Flip 7s, attack points given and received), with links to the coach for
// your seat and to the profiles. tableend.js calls mountEndSummary from the end screen, which
// it redraws as players say ready: the summary is fetched once per game and kept here.
import { ApiError, api } from "./api.js";
import { localName } from "./botlevels.js";
import { num, percent, provisionalMark, ratingDeltaEl, ratingText, unratedText } from "./history.js";
import { formatNumber, t } from "./i18n.js";
import { getIdentity, profilePath } from "./identity.js";
import { add, clear, h } from "./util.js";

/** @typedef {import("./protocol.js").EndSummary} EndSummary */

/**
 * A game's summary: fetched once, or being fetched (`promise`), after `tries` asks.
 * @typedef {{data: EndSummary | null, promise: Promise<EndSummary> | null, tries: number}} Entry
 */

/** @type {Map<string, Entry>} */
const cache = new Map(); // game id -> {data, promise, tries}
const TRIES = 8; // the ratings are written as the game ends: a few short waits at most

/** @param {EndSummary} data */
function settled(data) {
  // A rated game whose ratings are not in yet (no seat has one) is asked again.
  return !data.rated || data.seats.some((s) => s.rating);
}

/**
 * @param {string} gameId
 * @returns {Entry}
 */
function fetchSummary(gameId) {
  const known = cache.get(gameId);
  if (known && (known.data || known.promise)) return known;
  /** @type {Entry} */
  const entry = known || { data: null, promise: null, tries: 0 };
  cache.set(gameId, entry);
  /** @returns {Promise<EndSummary>} */
  const attempt = async () => {
    for (;;) {
      entry.tries += 1;
      try {
        const data = /** @type {EndSummary | null} */ (await api("GET", `/api/games/${encodeURIComponent(gameId)}/summary`));
        if (data && Array.isArray(data.seats) && (settled(data) || entry.tries >= TRIES)) {
          for (const seat of data.seats) seat.name = localName(seat.name); // bots' names in the reader's language
          return data;
        }
      } catch (err) {
        // 404 / 409: the game is being written; anything else: give up.
        if (!(err instanceof ApiError && (err.status === 404 || err.status === 409 || err.status === 0)) || entry.tries >= TRIES) throw err;
      }
      await new Promise((resolve) => { setTimeout(resolve, 400 * entry.tries); });
    }
  };
  entry.promise = attempt().then((data) => {
    entry.data = data;
    return data;
  }).finally(() => { entry.promise = null; });
  entry.promise.catch(() => { /* shown as nothing; the next mount tries again */ });
  return entry;
}

/**
 * Why the game did not count for some of its players (a pair's rated games of the day used
 * up, or players from one network), the viewer's own reason first; null if it counted.
 * @param {EndSummary} data
 * @param {number | null} seat the viewer's
 */
function unratedNote(data, seat) {
  const reasons = data.seats.filter((s) => s.unrated_because).sort((a, b) => Number(b.seat === seat) - Number(a.seat === seat));
  if (!reasons.length) return null;
  const names = reasons.filter((s) => s.unrated_because === reasons[0].unrated_because).map((s) => s.name).join(", ");
  return h("p", { class: "muted end-unrated-note", dataset: { testid: "end-unrated-note" },
    text: t("players.end.not_rated_for", { names, reason: unratedText(reasons[0].unrated_because) }) });
}

/**
 * @param {HTMLElement} box
 * @param {EndSummary} data
 * @param {{gameId: string, seat: number | null}} viewer
 */
function render(box, data, { gameId, seat }) {
  clear(box);
  const me = getIdentity();
  const rows = data.seats.map((s) => {
    /** @type {Partial<import("./protocol.js").EndSeatStats>} */
    const st = s.stats || {};
    const mine = seat !== null && seat !== undefined && s.seat === seat;
    const target = st.favourite_target !== null && st.favourite_target !== undefined
      ? data.seats.find((x) => x.seat === st.favourite_target)?.name : null;
    const who = s.player_id
      ? h("a", { href: profilePath(s.player_id), "data-link": true, text: s.name })
      : h("span", { text: s.name });
    return h("tr", { class: `${mine ? "is-self" : ""}${s.winner ? " is-winner" : ""}`.trim() || null, dataset: { seat: String(s.seat), testid: "end-seat" } },
      h("th", { scope: "row", class: "end-name" }, who,
        mine ? h("span", { class: "badge badge--you", text: t("players.you") }) : null),
      !data.rated ? null : h("td", { class: "end-num" }, s.rating && Number.isFinite(Number(s.rating.delta))
        ? h("span", { class: "end-rating" }, ratingDeltaEl(s.rating.delta, { testid: "end-rating-delta" }),
          h("span", { class: "rating-with-mark" },
            h("small", { class: "muted end-rating-after", text: ratingText(s.rating.after) }), provisionalMark(s.rating)))
        : h("span", { class: "muted", title: unratedText(s.unrated_because) || null, dataset: { testid: "end-unrated" }, text: "–" })),
      h("td", { class: "end-num", text: num(st.round_score_avg) }),
      h("td", { class: "end-num", text: `${formatNumber(st.busts || 0)}`, title: percent(st.bust_rate) }),
      h("td", { class: "end-num", text: formatNumber(st.flip7s || 0) }),
      h("td", { class: "end-num", text: `${formatNumber(st.attack_points_given || 0)} / ${formatNumber(st.attack_points_received || 0)}`, title: target ? t("players.end.target", { name: target }) : null }));
  });
  const mine = data.seats.find((s) => s.seat === seat);
  const links = [];
  if (mine) {
    links.push(h("a", { class: "btn btn--secondary btn--small", href: `/coach/${encodeURIComponent(gameId)}/${seat}`, "data-link": true, dataset: { testid: "end-coach" } }, t("players.end.coach")));
  }
  if (me) links.push(h("a", { class: "btn btn--ghost btn--small", href: "/me", "data-link": true, dataset: { testid: "end-profile" } }, t("players.end.profile")));
  else if (mine) links.push(h("a", { class: "btn btn--ghost btn--small", href: "/me", "data-link": true, dataset: { testid: "end-identity" } }, t("players.end.keep")));
  // add(), not box.append(): append() would show a null (no links: a spectator without
  // an identity) as the text "null".
  add(box,
    h("p", { class: "end-summary-head" },
      h("strong", { text: t("players.end.title") }),
      h("span", { class: `badge${data.rated ? " badge--rated" : ""}`, dataset: { testid: "end-rated" }, text: data.rated ? t("players.end.rated") : t("players.end.unrated") })),
    h("div", { class: "end-table-wrap" }, h("table", { class: "end-table" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col", text: t("players.end.player") }),
        data.rated ? h("th", { scope: "col", class: "end-num", text: t("players.end.rating") }) : null,
        h("th", { scope: "col", class: "end-num", title: t("players.stats.round_avg"), text: t("players.end.round_avg") }),
        h("th", { scope: "col", class: "end-num", title: t("players.end.busts_long"), text: t("players.end.busts") }),
        h("th", { scope: "col", class: "end-num", title: t("players.stats.flip7s"), text: t("players.end.flip7s") }),
        h("th", { scope: "col", class: "end-num", title: t("players.end.attack_long"), text: t("players.end.attack") }))),
      h("tbody", {}, rows))),
    // The short column heads said what they mean only in a hover title (no hover on a phone).
    h("p", { class: "muted end-legend", dataset: { testid: "end-legend" }, text: t("players.end.legend") }),
    unratedNote(data, seat) || (data.rated ? null
      : h("p", { class: "muted end-unrated-note", dataset: { testid: "end-unrated-note" }, text: t("players.end.unrated_why") })),
    links.length ? h("div", { class: "end-summary-links" }, links) : null);
}

/**
 * Show the summary of the game `gameId` in `container` (the end screen); `seat`: the viewer's
 * seat, or null for a spectator. Safe to call on every redraw of the end screen.
 * @param {HTMLElement | null} container
 * @param {{gameId: string | null | undefined, seat?: number | null}} game
 */
export function mountEndSummary(container, { gameId, seat = null }) {
  if (gameId === null || gameId === undefined || !container) return;
  const box = h("div", { class: "end-summary", dataset: { testid: "end-figures" } });
  container.appendChild(box);
  const entry = fetchSummary(gameId);
  if (entry.data) {
    render(box, entry.data, { gameId, seat });
    return;
  }
  box.appendChild(h("p", { class: "muted end-summary-wait", text: t("players.loading") }));
  if (!entry.promise) return; // fetchSummary gives an entry with its data or its promise
  entry.promise.then((data) => {
    if (box.isConnected) render(box, data, { gameId, seat });
  }).catch(() => {
    cache.delete(gameId);
    if (box.isConnected) box.remove();
  });
}
