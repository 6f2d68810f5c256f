// A line chart of running totals, drawn as inline SVG (no library): one coloured line per
// player, a dashed target line, and an HTML legend. Names only ever reach the page as text.
import { formatNumber, t } from "./i18n.js";
import { h } from "./util.js";

const NS = "http://www.w3.org/2000/svg";
const HUES = [200, 35, 335, 125, 270, 12, 175, 55, 300, 90, 230, 0];

/**
 * A colour per player that stays apart from its neighbours (avatars use the same hue).
 * @param {number} seat
 */
export function playerHue(seat) {
  return seat < HUES.length ? HUES[seat] : (seat * 47 + 190) % 360;
}

/** @param {number} seat */
export function playerColor(seat) {
  return `hsl(${playerHue(seat)} 78% 62%)`;
}

/**
 * An SVG element: attrs (null and undefined left out; "text" is its text), then children.
 * @param {string} tag
 * @param {Record<string, string | number | null | undefined> | null} attrs
 * @param {...(Node | null | undefined | false)} children
 * @returns {SVGElement}
 */
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "text") el.textContent = String(v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children) if (c) el.appendChild(c);
  return el;
}

/**
 * A round number that makes a good grid step for a range of `span` points.
 * @param {number} span
 * @param {number} lines
 */
export function niceStep(span, lines) {
  const raw = Math.max(1, span / lines);
  const mag = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

/**
 * The chart. names: player names; series: for each round, the totals after it (one per
 * player); target: the target score (a dashed line); width: drawing width in pixels.
 * Returns a <figure> holding the SVG and its legend.
 * @param {object} chart
 * @param {string[]} chart.names
 * @param {number[][]} chart.series
 * @param {number} chart.target
 * @param {number} [chart.width]
 * @param {number[]} [chart.winners] their lines are drawn thicker
 */
export function totalsChart({ names, series, target, width = 600, winners = [] }) {
  const W = Math.max(260, Math.round(width));
  const H = Math.round(Math.min(340, Math.max(210, W * 0.52)));
  const pad = { l: 40, r: 14, t: 14, b: 30 };
  const rows = [names.map(() => 0), ...series]; // round 0: everyone on 0
  const all = rows.flat();
  let lo = Math.min(0, ...all);
  let hi = Math.max(target || 0, ...all, 10);
  const step = niceStep(hi - lo, H < 260 ? 4 : 5);
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil((hi * 1.04) / step) * step;
  const n = Math.max(1, rows.length - 1);
  const x = (/** @type {number} */ i) => pad.l + ((W - pad.l - pad.r) * i) / n;
  const y = (/** @type {number} */ v) => pad.t + ((H - pad.t - pad.b) * (hi - v)) / (hi - lo);

  const root = svg("svg", {
    class: "chart-svg", width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": target ? t("scorekeeper.chart_label_target", { target }) : t("scorekeeper.chart_label"),
  });
  const grid = svg("g", { class: "chart-grid" });
  for (let v = lo; v <= hi + 1e-9; v += step) {
    grid.appendChild(svg("line", { x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v), class: v === 0 ? "chart-zero" : "" }));
    grid.appendChild(svg("text", { x: pad.l - 6, y: y(v) + 4, "text-anchor": "end", class: "chart-label", text: formatNumber(Math.round(v)) }));
  }
  const every = Math.max(1, Math.ceil(n / Math.floor((W - pad.l - pad.r) / 28)));
  for (let i = 0; i <= n; i += 1) {
    if (i % every && i !== n) continue;
    grid.appendChild(svg("text", { x: x(i), y: H - pad.b + 18, "text-anchor": "middle", class: "chart-label", text: String(i) }));
  }
  grid.appendChild(svg("text", { x: W - pad.r, y: H - 4, "text-anchor": "end", class: "chart-label chart-label--axis", text: t("scorekeeper.chart_round") }));
  root.appendChild(grid);

  if (target && target >= lo && target <= hi) {
    root.appendChild(svg("line", { class: "chart-target", x1: pad.l, x2: W - pad.r, y1: y(target), y2: y(target) }));
    root.appendChild(svg("text", { class: "chart-target-label", x: pad.l + 6, y: y(target) - 6, text: t("scorekeeper.chart_target", { target }) }));
  }

  names.forEach((name, s) => {
    const color = playerColor(s);
    const pts = rows.map((r, i) => `${x(i).toFixed(1)},${y(r[s]).toFixed(1)}`).join(" ");
    const g = svg("g", { class: `chart-series${winners.includes(s) ? " is-winner" : ""}`, "data-seat": s });
    g.appendChild(svg("polyline", { points: pts, fill: "none", stroke: color, "stroke-width": winners.includes(s) ? 3.5 : 2.5, "stroke-linejoin": "round", "stroke-linecap": "round" }));
    rows.forEach((r, i) => {
      if (i === 0) return;
      const dot = svg("circle", { cx: x(i), cy: y(r[s]), r: i === rows.length - 1 ? 4.5 : 3, fill: color });
      dot.appendChild(svg("title", { text: t("scorekeeper.chart_point", { name, total: r[s], round: i }) }));
      g.appendChild(dot);
    });
    root.appendChild(g);
  });

  const last = rows[rows.length - 1];
  const legend = h("ul", { class: "chart-legend", "aria-label": t("scorekeeper.chart_legend") },
    names.map((name, s) => h("li", { class: `chart-legend-item${winners.includes(s) ? " is-winner" : ""}` },
      h("span", { class: "chart-swatch", style: { background: playerColor(s) }, "aria-hidden": "true" }),
      h("span", { class: "chart-legend-name", text: name }),
      h("b", { class: "chart-legend-total", text: formatNumber(last[s]) }))));
  return h("figure", { class: "chart", dataset: { testid: "chart" } }, root, legend);
}
