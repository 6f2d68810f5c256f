// A player's profile: /players/<id>, and /me for this browser's own identity (with renaming
// and "Use on another device"; without an identity, the page that makes one or takes one
// from another device). The figures come from GET /api/players/{id}: the rating and its
// history (a chart), games, wins, round score average, bust rate, Flip 7s, attack points
// given and received, favourite targets; then the finished games (history.js).
import { api } from "./api.js";
import { botAccountBadge } from "./botlevels.js";
import { niceStep, playerColor, svg } from "./chart.js";
import { historyPanel, num, percent, provisionalMark, ratingText } from "./history.js";
import { errorText, formatDate, formatNumber, t } from "./i18n.js";
import {
  claimForm, getIdentity, identityForm, onIdentityChange, renameForm, transferPanel,
} from "./identity.js";
import { navigate } from "./router.js";
import { clear, h, icon, initial } from "./util.js";
import { yourGamesPanel } from "./yourgames.js";
import { emailPanel } from "./emailalerts.js";
import { pushPanel } from "./pushalerts.js";

/** @typedef {import("./protocol.js").Profile} Profile */

/**
 * The rating after each rated game, as a line (chart.js' look: its classes and colours,
 * on a scale that fits the ratings rather than starting at 0).
 * @param {import("./protocol.js").RatingPoint[]} points
 * @param {number} [width]
 */
export function ratingChart(points, width = 640) {
  const W = Math.max(260, Math.round(width));
  const H = Math.round(Math.min(260, Math.max(170, W * 0.4)));
  const pad = { l: 46, r: 14, t: 14, b: 26 };
  const values = points.map((p) => Number(p.display));
  const first = points.length && Number.isFinite(Number(points[0].delta)) ? values[0] - Number(points[0].delta) : null;
  const series = first !== null ? [first, ...values] : values;
  let lo = Math.min(...series);
  let hi = Math.max(...series);
  if (hi - lo < 20) {
    lo -= 10;
    hi += 10;
  }
  const step = niceStep(hi - lo, 4);
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil(hi / step) * step;
  const n = Math.max(1, series.length - 1);
  const x = (/** @type {number} */ i) => pad.l + ((W - pad.l - pad.r) * i) / n;
  const y = (/** @type {number} */ v) => pad.t + ((H - pad.t - pad.b) * (hi - v)) / (hi - lo || 1);
  const last = values[values.length - 1];
  const root = svg("svg", {
    class: "chart-svg rating-chart", width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": t("players.profile.chart_label", { count: points.length, rating: ratingText(last) }),
  });
  const grid = svg("g", { class: "chart-grid" });
  for (let v = lo; v <= hi + 1e-9; v += step) {
    grid.appendChild(svg("line", { x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v) }));
    grid.appendChild(svg("text", { x: pad.l - 6, y: y(v) + 4, "text-anchor": "end", class: "chart-label", text: ratingText(v) }));
  }
  grid.appendChild(svg("text", { x: W - pad.r, y: H - 6, "text-anchor": "end", class: "chart-label chart-label--axis", text: t("players.profile.chart_axis") }));
  root.appendChild(grid);
  const color = playerColor(0);
  root.appendChild(svg("polyline", {
    points: series.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "),
    fill: "none", stroke: color, "stroke-width": 2.5, "stroke-linejoin": "round", "stroke-linecap": "round",
  }));
  const offset = series.length - values.length;
  points.forEach((p, i) => {
    const dot = svg("circle", { cx: x(i + offset), cy: y(values[i]), r: i === points.length - 1 ? 4.5 : 3, fill: color });
    const d = Math.round(Number(p.delta) || 0);
    dot.appendChild(svg("title", { text: `${formatDate(p.at, { dateStyle: "medium" })}: ${ratingText(values[i])} (${d >= 0 ? "+" : "−"}${formatNumber(Math.abs(d))})` }));
    root.appendChild(dot);
  });
  return h("figure", { class: "chart", dataset: { testid: "rating-chart" } }, root);
}

/**
 * @param {string} label
 * @param {string} value
 * @param {string} testid
 * @param {string | null} [sub] a line under it
 */
function stat(label, value, testid, sub = null) {
  return h("div", { class: "stat", dataset: { testid } },
    h("span", { class: "stat-value", text: value }),
    h("span", { class: "stat-label", text: label }),
    sub ? h("span", { class: "stat-sub muted", text: sub }) : null);
}

/**
 * @param {HTMLElement} root
 * @param {{id?: string | null, me?: boolean}} who a player's id, or `me`: this browser's identity
 */
export function mountProfile(root, { id = null, me = false }) {
  document.body.dataset.view = "profile";
  document.title = `${t("players.profile.title")} · Flip 7`;
  let destroyed = false;
  const page = h("div", { class: "players-page profile-page", dataset: { testid: "profile" } });
  root.appendChild(page);

  function loading() {
    clear(page);
    page.appendChild(h("div", { class: "loading panel" }, h("span", { class: "spinner", "aria-hidden": "true" }), t("players.loading")));
  }

  /** @param {string} message */
  function failed(message) {
    clear(page);
    page.appendChild(h("section", { class: "panel notfound" },
      h("h1", { text: t("players.profile.not_found") }),
      h("p", { class: "muted", text: message }),
      h("a", { href: "/leaderboard", "data-link": true, class: "btn btn--primary" }, t("players.leaderboard.title"))));
  }

  // /me without an identity: make one, or take one from another device (the page follows
  // the identity: onIdentityChange below shows the profile once there is one).
  function anonymous() {
    clear(page);
    document.title = `${t("players.identity.title")} · Flip 7`;
    page.appendChild(h("section", { class: "panel identity-page", "aria-labelledby": "identity-title", dataset: { testid: "identity-page" } },
      h("h1", { id: "identity-title", text: t("players.identity.title") }),
      h("p", { text: t("players.identity.intro") }),
      identityForm({ idPrefix: "identity" }),
      h("p", { class: "identity-warning", dataset: { testid: "no-recovery" } }, icon("bell"), h("span", { text: t("players.identity.no_recovery") })),
      h("h2", { class: "identity-sub", text: t("players.claim.have_code") }),
      h("p", { class: "muted", text: t("players.claim.have_code_how") }),
      claimForm(),
      h("p", { class: "muted", text: t("players.identity.anonymous_ok") }),
      h("p", {}, h("a", { href: "/leaderboard", "data-link": true, text: t("players.leaderboard.title") }))));
  }

  /**
   * @param {Profile} p
   * @param {boolean} self this browser's own
   */
  function render(p, self) {
    clear(page);
    document.title = `${p.name} · Flip 7`;
    /** @type {Partial<import("./protocol.js").PlayerStats>} */
    const s = p.stats || {};
    const r = p.rating;
    const head = h("section", { class: "panel profile-head" },
      h("span", { class: "avatar avatar--big", "aria-hidden": "true", text: initial(p.name) }),
      h("div", { class: "profile-who" },
        h("h1", { class: "profile-name", dataset: { testid: "profile-name" } }, h("span", { text: p.name }),
          self ? h("span", { class: "badge badge--you", text: t("players.you") }) : null,
          botAccountBadge(p.bot_account)),
        p.created_at ? h("p", { class: "muted", text: t("players.profile.since", { date: formatDate(p.created_at, { dateStyle: "long" }) }) }) : null),
      h("div", { class: "profile-rating", dataset: { testid: "profile-rating" } },
        h("span", { class: "rating-with-mark" },
          h("span", { class: "profile-rating-value", text: r ? ratingText(r.display) : "–" }), provisionalMark(r)),
        h("span", { class: "stat-label", text: !r ? t("players.rating.none") : r.provisional ? t("players.rating.label_provisional") : t("players.rating.label") }),
        h("a", { class: "profile-board-link", href: "/leaderboard", "data-link": true, dataset: { testid: "profile-leaderboard" } }, icon("trophy"), t("players.leaderboard.title"))));

    const targets = Array.isArray(s.favourite_targets) ? s.favourite_targets : [];
    const stats = h("section", { class: "panel", "aria-labelledby": "stats-title" },
      h("h2", { id: "stats-title", text: t("players.profile.stats") }),
      h("div", { class: "stats-grid", dataset: { testid: "stats" } },
        stat(t("players.stats.games"), formatNumber(s.games || 0), "stat-games"),
        stat(t("players.stats.wins"), formatNumber(s.wins || 0), "stat-wins", s.games ? percent((s.wins || 0) / s.games) : null),
        stat(t("players.stats.round_avg"), num(s.round_score_avg), "stat-round-avg", s.rounds ? t("players.stats.rounds", { count: s.rounds }) : null),
        stat(t("players.stats.bust_rate"), percent(s.bust_rate), "stat-bust-rate"),
        stat(t("players.stats.flip7s"), formatNumber(s.flip7s || 0), "stat-flip7s"),
        stat(t("players.stats.attack_given"), formatNumber(s.attack_points_given || 0), "stat-attack-given"),
        stat(t("players.stats.attack_received"), formatNumber(s.attack_points_received || 0), "stat-attack-received")),
      h("h3", { class: "stats-sub", text: t("players.stats.favourite_targets") }),
      targets.length
        ? h("ol", { class: "targets", dataset: { testid: "favourite-targets" } }, targets.map((x) => h("li", {},
          x.player_id ? h("a", { href: `/players/${encodeURIComponent(x.player_id)}`, "data-link": true, text: x.name }) : h("span", { text: x.name }),
          h("span", { class: "muted", text: ` ${t("players.stats.times", { count: x.count })}` }))))
        : h("p", { class: "muted", text: t("players.stats.no_targets") }));

    const history = Array.isArray(p.rating_history) ? p.rating_history : [];
    const chartHost = h("div", { class: "chart-host" });
    const chartPanel = h("section", { class: "panel", "aria-labelledby": "chart-title" },
      h("h2", { id: "chart-title", text: t("players.profile.chart") }),
      history.length ? chartHost : h("p", { class: "muted", text: t("players.profile.chart_empty") }),
      history.length ? h("ol", { class: "rating-steps visually-hidden" }, history.map((x) => h("li", { text: `${formatDate(x.at)}: ${ratingText(x.display)}` }))) : null);

    const left = [head, stats, chartPanel];
    if (self) {
      left.push(h("section", { class: "panel identity-panel", "aria-labelledby": "rename-title" },
        h("h2", { id: "rename-title", text: t("players.rename.title") }),
        renameForm(p.name)), emailPanel(() => !destroyed), pushPanel(() => !destroyed), transferPanel());
    }
    page.append(h("div", { class: "profile-grid" },
      h("div", { class: "profile-col" }, left),
      h("div", { class: "profile-col" }, self ? yourGamesPanel(() => !destroyed).panel : null,
        historyPanel({ playerId: p.id, self, name: p.name }))));
    if (history.length) {
      // The chart's width is its column's, once laid out.
      requestAnimationFrame(() => {
        if (destroyed) return;
        chartHost.appendChild(ratingChart(history, Math.min(640, chartHost.clientWidth || 320)));
      });
    }
  }

  async function show() {
    if (destroyed) return;
    loading();
    const mine = getIdentity();
    if (me) {
      if (!mine) {
        anonymous();
        return;
      }
      try {
        const p = /** @type {Profile} */ (await api("GET", "/api/players/me"));
        if (!destroyed) render(p, true);
      } catch (err) {
        if (destroyed) return;
        if (!getIdentity()) anonymous(); // the key was refused (api.js let it go)
        else failed(errorText(err));
      }
      return;
    }
    if (mine && mine.id === id) {
      navigate("/me", { replace: true });
      return;
    }
    try {
      // The routes give an id whenever `me` is false.
      const p = /** @type {Profile} */ (await api("GET", `/api/players/${encodeURIComponent(String(id))}`));
      if (!destroyed) render(p, false);
    } catch (err) {
      if (!destroyed) failed(errorText(err));
    }
  }
  show();
  const off = me ? onIdentityChange(() => show()) : () => {};
  return {
    destroy() {
      destroyed = true;
      off();
    },
  };
}
