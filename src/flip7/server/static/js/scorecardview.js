// A scorecard as its page shows it (everything but the entry panel, scorecardpanel.js):
// its name and rules, the winner or the tie, the totals, where the game stands, the rounds
// (each with its edit button), the totals chart and the share links.
import { cardEl } from "./cards.js";
import { playerColor, playerHue, totalsChart } from "./chart.js";
import { t } from "./i18n.js";
import { setTopbar } from "./router.js";
import { flip7Bonus, ruleBadges, ruleDefault } from "./rules.js";
import { avatarEl, plain, scorecardApi, scorecardPage, signed } from "./scorecardshared.js";
import { editable, isOver } from "./scorecardstate.js";
import { add, clear, copyText, focusKey, h, icon, listText, restoreFocus, toast } from "./util.js";

/** @typedef {import("./scorecardstate.js").ScorecardPage} ScorecardPage */
/** @typedef {import("./protocol.js").Scorecard} Scorecard */

/**
 * The page's frame, its parts empty until the scorecard comes (a "loading" line meanwhile).
 * @param {HTMLElement} root
 * @returns {import("./scorecardstate.js").Parts}
 */
export function skeleton(root) {
  const title = h("h1", { class: "table-title", dataset: { testid: "scorecard-name" } });
  const chips = h("div", { class: "sk-chips" });
  const modeChip = h("span", { class: "chip", dataset: { testid: "mode" } });
  const head = h("div", { class: "table-head sk-head" },
    h("div", { class: "table-head-main" }, title, modeChip, chips));
  const banner = h("div", { class: "sk-banner-slot", "aria-live": "polite" });
  const totals = h("section", { class: "sk-totals", "aria-label": t("scorekeeper.totals"), dataset: { testid: "totals" } });
  const status = h("p", { class: "sk-status", role: "status", dataset: { testid: "status" } });
  const entryBox = h("section", { class: "panel sk-entry", id: "entry", "aria-labelledby": "entry-title", dataset: { testid: "entry" }, hidden: true });
  const historyBox = h("section", { class: "panel sk-history", "aria-labelledby": "history-title", dataset: { testid: "history" } });
  const chartBox = h("section", { class: "panel sk-chart", "aria-labelledby": "chart-title" });
  const shareBox = h("details", { class: "panel sk-share", dataset: { testid: "share" } });
  const layout = h("div", { class: "sk-layout" },
    h("div", { class: "sk-main" }, banner, totals, status, entryBox, historyBox),
    h("div", { class: "sk-side" }, chartBox, shareBox));
  root.appendChild(h("div", { class: "scorekeeper sk-card" }, head, layout));
  root.appendChild(h("div", { class: "loading", dataset: { testid: "loading" } }, h("span", { class: "spinner", "aria-hidden": "true" }), t("scorekeeper.loading")));
  setTopbar(h("a", { href: "/scorekeeper", "data-link": true, class: "btn btn--ghost btn--small", "aria-label": t("scorekeeper.all") }, t("scorekeeper.scorecards")));
  return { root, title, chips, modeChip, banner, totals, status, entryBox, historyBox, chartBox, shareBox };
}

/**
 * The whole page, from the scorecard (the entry panel too).
 * @param {ScorecardPage} page
 */
export function renderAll(page) {
  const summary = page.summary;
  if (!summary) return;
  const { title, modeChip, chips, status } = page.parts;
  const players = summary.players;
  document.title = t("scorekeeper.title_named", { name: summary.name });
  title.textContent = summary.name;
  modeChip.textContent = editable(page) ? t("scorekeeper.keeping_score") : t("scorekeeper.read_only");
  modeChip.className = `chip ${editable(page) ? "chip--round" : "chip--watch"}`;
  clear(chips);
  const { allow_two_players: _two, ...shown } = summary.rules || {}; // not worth a badge once the players are in
  const badges = ruleBadges(shown);
  const target = summary.target;
  if (target === ruleDefault("target_score")) badges.splice(summary.rules && summary.rules.brutal ? 1 : 0, 0, { text: t("rules.badge_target", { target }) });
  if ((summary.decks || 1) > 1) badges.push({ text: t("scorekeeper.decks", { count: summary.decks }) });
  for (const b of badges) chips.appendChild(h("span", { class: `badge badge--rule${b.cls ? ` badge--${b.cls}` : ""}`, text: b.text }));
  renderBanner(page, summary, players);
  renderTotals(page, summary, players);
  status.textContent = statusLine(page, summary);
  page.ui.renderEntry();
  renderHistory(page, summary, players);
  renderChart(page);
  renderShare(page);
}

/**
 * Where the game stands, in one sentence: the server's status line (its ``message``),
 * built here from the summary's fields in the page's language.
 * @param {ScorecardPage} page
 * @param {Scorecard} summary
 */
function statusLine(page, summary) {
  const players = summary.players;
  const target = summary.target;
  if (!summary.rounds.length) return t("scorekeeper.status_none", { target });
  const totals = summary.totals;
  if (isOver(page)) {
    const seats = summary.winners || [];
    if (!seats.length) return "";
    const score = plain(totals[seats[0]]);
    return seats.length === 1 ? t("scorekeeper.status_wins", { name: players[seats[0]], score })
      : t("scorekeeper.status_share", { names: listText(seats.map((s) => players[s])), score });
  }
  const lead = leaders(summary);
  if (!lead.length) return "";
  const names = listText(lead.map((s) => players[s]));
  const score = plain(totals[lead[0]]);
  if (summary.extra_round) return t("scorekeeper.status_tie", { names, score });
  return t("scorekeeper.status_leads", { names, score, target, count: lead.length });
}

/**
 * The seats with the best total (the server's, else worked out from the totals).
 * @param {Scorecard} summary
 * @returns {number[]}
 */
function leaders(summary) {
  if (Array.isArray(summary.leaders)) return summary.leaders;
  const tot = summary.totals;
  if (!summary.rounds.length) return [];
  const best = Math.max(...tot);
  return tot.map((v, s) => (v === best ? s : -1)).filter((s) => s >= 0);
}

/**
 * The winner's banner with the ranking, or the tie that asks for an extra round.
 * @param {ScorecardPage} page
 * @param {Scorecard} summary
 * @param {string[]} players
 */
function renderBanner(page, summary, players) {
  const banner = page.parts.banner;
  clear(banner);
  const winners = summary.winners || [];
  if (isOver(page) && winners.length) {
    const names = winners.map((s) => players[s]);
    const best = summary.totals[winners[0]];
    const ranking = players.map((name, s) => ({ name, s, total: summary.totals[s] })).sort((a, b) => b.total - a.total);
    banner.appendChild(h("section", { class: "sk-winner", dataset: { testid: "winner" }, "aria-labelledby": "winner-title" },
      h("div", { class: "endscreen-trophy", "aria-hidden": "true" }, icon("trophy")),
      h("p", { class: "endscreen-kicker", text: t("scorekeeper.game_over", { count: summary.rounds.length }) }),
      h("h2", { id: "winner-title", class: "endscreen-title", text: names.length > 1 ? t("scorekeeper.share_win", { names: listText(names) }) : t("scorekeeper.wins", { name: names[0] }) }),
      h("p", { class: "sk-winner-sub", text: t("scorekeeper.with_points", { score: plain(best) }) }),
      h("ol", { class: "ranking" }, ranking.map((r, i) => h("li", { class: `ranking-row${winners.includes(r.s) ? " is-winner" : ""}` },
        h("span", { class: "ranking-pos", text: String(i + 1) }),
        avatarEl(r.name, r.s, true),
        h("span", { class: "ranking-name", text: r.name }),
        h("b", { class: "ranking-total", text: plain(r.total) })))),
      editable(page) ? h("p", { class: "muted sk-winner-help", text: t("scorekeeper.mistake") }) : null));
  } else if (summary.extra_round) {
    const lead = leaders(summary);
    banner.appendChild(h("div", { class: "sk-extra", role: "status", dataset: { testid: "extra-round" } },
      h("strong", { text: t("scorekeeper.tie") }),
      h("span", { text: ` ${t("scorekeeper.tie_text", { names: listText(lead.map((s) => players[s])), score: plain(summary.totals[lead[0]]) })}` })));
  }
}

/**
 * Every player's total, the change of the last round, and who leads or won.
 * @param {ScorecardPage} page
 * @param {Scorecard} summary
 * @param {string[]} players
 */
function renderTotals(page, summary, players) {
  const totals = page.parts.totals;
  clear(totals);
  totals.dataset.count = String(players.length);
  const lead = leaders(summary);
  const winners = summary.winners || [];
  const last = summary.rounds[summary.rounds.length - 1];
  const target = summary.target;
  const over = isOver(page);
  players.forEach((name, s) => {
    const tot = summary.totals[s];
    const isWinner = over && winners.includes(s);
    const isLeader = !over && lead.length === 1 && lead[0] === s;
    totals.appendChild(h("div", {
      class: `sk-total${isLeader ? " is-leader" : ""}${isWinner ? " is-winner" : ""}`,
      style: { "--hue": String(playerHue(s)) }, dataset: { seat: String(s) },
    },
    h("div", { class: "sk-total-who" }, avatarEl(name, s, true), h("span", { class: "sk-total-name", text: name })),
    h("b", { class: "sk-total-value", dataset: { testid: "total" }, "aria-label": t("scorekeeper.total_label", { name, total: tot }), text: plain(tot) }),
    h("div", { class: "sk-total-foot" },
      last ? h("span", { class: "muted", title: t("scorekeeper.last_change") },
        signed(last.totals[s] - (summary.rounds.length > 1 ? summary.rounds[summary.rounds.length - 2].totals[s] : 0)),
        h("span", { class: "hide-narrow", text: ` ${t("scorekeeper.last_round")}` })) : h("span", { class: "muted", text: t("scorekeeper.to_win", { target }) }),
      isWinner ? h("span", { class: "badge sk-badge-win", text: t("scorekeeper.winner") }) : isLeader ? h("span", { class: "badge sk-badge-lead", text: t("scorekeeper.leader") }) : null),
    h("span", { class: "sk-total-bar", style: { width: `${Math.max(0, Math.min(100, (tot / target) * 100))}%` }, "aria-hidden": "true" })));
  });
}

/**
 * The links to share (to edit, on a device that may; to read) and the exports.
 * @param {ScorecardPage} page
 */
function renderShare(page) {
  const shareBox = page.parts.shareBox;
  clear(shareBox);
  if (page.justCreated) shareBox.open = true;
  const origin = window.location.origin;
  const readLink = `${origin}${scorecardPage(page.id)}`;
  /**
   * @param {string} label
   * @param {string} value
   * @param {string} testid
   * @param {string} help
   */
  const linkRow = (label, value, testid, help) => {
    const input = h("input", { class: "input", type: "text", readonly: true, value, "aria-label": label, dataset: { testid } });
    input.addEventListener("focus", () => input.select());
    return h("div", { class: "field" },
      h("span", { class: "field-label", text: label }),
      h("div", { class: "invite-row" }, input,
        h("button", { type: "button", class: "btn btn--secondary", "aria-label": t("scorekeeper.copy_the", { label }),
          onclick: async () => toast(await copyText(value) ? t("scorekeeper.link_copied") : t("scorekeeper.copy_by_hand"), "ok", 1800) }, icon("copy"), t("common.copy"))),
      help ? h("small", { class: "muted", text: help }) : null);
  };
  const base = scorecardApi(page.id);
  add(shareBox, h("summary", { text: editable(page) ? t("scorekeeper.share_edit") : t("scorekeeper.share_read") }),
    page.key ? linkRow(t("scorekeeper.edit_link"), `${readLink}#key=${encodeURIComponent(page.key)}`, "edit-link", t("scorekeeper.edit_link_help")) : null,
    linkRow(t("scorekeeper.read_link"), readLink, "read-link", t("scorekeeper.read_link_help")),
    h("div", { class: "sk-exports" },
      h("a", { class: "btn btn--ghost btn--small", href: `${base}/export.csv`, download: "", dataset: { testid: "export-csv" }, "aria-label": t("scorekeeper.export_csv_label") }, icon("download"), t("scorekeeper.export_csv")),
      h("a", { class: "btn btn--ghost btn--small", href: `${base}/export.json`, download: "", dataset: { testid: "export-json" }, "aria-label": t("scorekeeper.export_json_label") }, icon("download"), t("scorekeeper.export_json"))));
}

/**
 * The running totals' chart, as wide as its panel.
 * @param {ScorecardPage} page
 */
export function renderChart(page) {
  const summary = page.summary;
  const chartBox = page.parts.chartBox;
  if (!summary) return;
  clear(chartBox);
  add(chartBox, h("h2", { id: "chart-title", text: t("scorekeeper.chart_title") }));
  if (!summary.rounds.length) {
    chartBox.appendChild(h("p", { class: "muted", text: t("scorekeeper.chart_empty") }));
    return;
  }
  const width = chartBox.clientWidth ? chartBox.clientWidth - 32 : 600;
  chartBox.appendChild(totalsChart({
    names: summary.players,
    series: summary.rounds.map((r) => r.totals),
    target: summary.target,
    width,
    winners: isOver(page) ? summary.winners || [] : [],
  }));
}

/**
 * The rounds, newest first: each player's cards, score and total; an edit button each and
 * "undo the last round" on a device that may edit.
 * @param {ScorecardPage} page
 * @param {Scorecard} summary
 * @param {string[]} players
 */
function renderHistory(page, summary, players) {
  const historyBox = page.parts.historyBox;
  const fk = focusKey();
  clear(historyBox);
  const rounds = summary.rounds;
  const headRow = h("div", { class: "panel-head" }, h("h2", { id: "history-title", text: t("scorekeeper.rounds_title") }));
  if (editable(page) && rounds.length) {
    headRow.appendChild(h("button", { type: "button", class: "btn btn--ghost btn--small", dataset: { testid: "undo", focusKey: "undo" },
      "aria-label": t("scorekeeper.undo_last_label", { round: rounds.length }), onclick: () => page.ui.undoLast() }, t("scorekeeper.undo_last")));
  }
  historyBox.appendChild(headRow);
  if (!rounds.length) {
    historyBox.appendChild(h("p", { class: "muted", text: editable(page) ? t("scorekeeper.no_round_edit") : t("scorekeeper.no_round") }));
    return;
  }
  const list = h("ol", { class: "sk-rounds", reversed: true });
  for (const r of [...rounds].reverse()) list.appendChild(roundItem(page, r, players));
  historyBox.appendChild(list);
  restoreFocus(fk, historyBox);
}

/**
 * One round of the history.
 * @param {ScorecardPage} page
 * @param {import("./protocol.js").ScorecardRound} r
 * @param {string[]} players
 */
function roundItem(page, r, players) {
  const entry = page.entry;
  const editing = entry && entry.mode === "edit" && entry.number === r.number;
  const minus = r.flip7_choice && typeof r.flip7_choice === "object" && r.flip7_choice.minus15 !== undefined ? r.flip7_choice.minus15 : null;
  return h("li", { class: `sk-round${editing ? " is-editing" : ""}`, dataset: { round: String(r.number) } },
    h("div", { class: "sk-round-head" },
      h("span", { class: "chip chip--round", text: t("replay.round", { round: r.number }) }),
      r.live ? h("span", { class: "badge", text: t("scorekeeper.live") }) : null,
      r.revision > 1 ? h("span", { class: "badge", title: t("scorekeeper.revision", { revision: r.revision }), text: t("scorekeeper.edited") }) : null,
      editing ? h("span", { class: "badge badge--you", text: t("scorekeeper.editing") }) : null,
      editable(page) && !editing ? h("button", { type: "button", class: "btn btn--ghost btn--small sk-round-edit", dataset: { testid: "edit-round", focusKey: `edit:${r.number}` },
        "aria-label": t("scorekeeper.edit_round", { round: r.number }), onclick: () => page.ui.startEdit(r) }, t("scorekeeper.edit")) : null),
    h("table", { class: "sk-round-table" },
      h("colgroup", {}, h("col", { class: "sk-col-name" }), h("col", {}), h("col", { class: "sk-col-score" }), h("col", { class: "sk-col-total" })),
      h("thead", { class: "visually-hidden" }, h("tr", {}, h("th", { scope: "col", text: t("scorekeeper.col_player") }), h("th", { scope: "col", text: t("scorekeeper.col_cards") }), h("th", { scope: "col", text: t("scorekeeper.col_score") }), h("th", { scope: "col", text: t("scorekeeper.col_total") }))),
      h("tbody", {}, players.map((name, s) => {
        const line = r.lines[s] || { cards: [] };
        const f7 = r.flip7_seat === s;
        return h("tr", { class: `${line.busted ? "is-bust" : ""}${f7 ? " is-flip7" : ""}` },
          h("th", { scope: "row", class: "sk-round-name" }, h("span", { class: "chart-swatch", style: { background: playerColor(s) }, "aria-hidden": "true" }), h("span", { text: name })),
          h("td", {}, h("div", { class: "sk-round-cards" },
            line.cards.length ? line.cards.map((c) => cardEl(c, { small: true })) : null,
            line.busted ? h("span", { class: "status status--busted", text: t("scorekeeper.bust") }) : null,
            f7 ? h("span", { class: "badge sk-badge-flip7", text: t("scorekeeper.flip7") }) : null,
            f7 && minus !== null ? h("span", { class: "badge badge--brutal", text: t("scorekeeper.minus_to", { points: flip7Bonus(), name: players[minus] }) }) : null,
            !line.cards.length && !line.busted ? h("span", { class: "muted", text: t("scorekeeper.no_cards") }) : null)),
          h("td", { class: "sk-round-score", text: signed(r.scores[s]) }),
          h("td", { class: "sk-round-total", text: plain(r.totals[s]) }));
      }))));
}
