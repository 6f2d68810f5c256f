// The entry panel of a scorecard's page: each player's line as typed (tap a card to take
// it off), Busted, the card picker of the selected player, the server's check of the round
// (scores, new totals, problems, the Flip 7 and in Brutal its choice) and Save; or, in live
// mode, the live panel (livekeeper.js).
import { cardEl, cardName } from "./cards.js";
import { playerHue } from "./chart.js";
import { serverText, t } from "./i18n.js";
import { cardCodes, flip7Bonus } from "./rules.js";
import { avatarEl, plain, signed } from "./scorecardshared.js";
import { editable, isOver, sameChoice } from "./scorecardstate.js";
import { clear, focusKey, h, listText, restoreFocus } from "./util.js";

/** @typedef {import("./scorecardstate.js").ScorecardPage} ScorecardPage */
/** @typedef {import("./scorecardstate.js").Entry} Entry */

/** The kinds of card that can be in a line (RECORD.md §1: the server's deck), in picker order. */
export const lineCards = () => cardCodes("number", "modifier");

/**
 * A round's problem (the server's check) in the page's language: its code and params.
 * @param {import("./protocol.js").Problem} p
 */
function problemText(p) {
  if (!p.code) return p.message;
  /** @type {Record<string, unknown>} */
  const params = { ...(p.params || {}) };
  if (typeof params.card === "string") params.card = cardName(params.card);
  if (Array.isArray(params.names)) params.names = listText(params.names);
  return serverText(`scorekeeper.problem.${p.code}`, params, p.message);
}

/**
 * The entry panel, drawn anew (the focus stays where it was).
 * @param {ScorecardPage} page
 */
export function renderEntry(page) {
  const { summary, entry } = page;
  const entryBox = page.parts.entryBox;
  if (!summary) return;
  const show = editable(page) && entry && (entry.mode === "edit" || !isOver(page));
  entryBox.hidden = !show;
  if (!show || !entry) return;
  const fk = focusKey();
  clear(entryBox);
  const editing = entry.mode === "edit";
  page.entryRefs = null;
  entryBox.appendChild(entryHead(page, entry));
  if (!page.live) {
    entryBox.appendChild(h("p", { class: "muted sk-entry-help", text: editing
      ? t("scorekeeper.help_edit")
      : t("scorekeeper.help_new") }));
  }
  const notice = page.notice;
  if (notice) {
    entryBox.appendChild(h("p", { class: `sk-notice sk-notice--${notice.kind}`, role: notice.kind === "error" ? "alert" : "status", dataset: { testid: "notice" }, text: notice.text }));
  }
  if (page.live) {
    entryBox.appendChild(page.live.element);
    return; // live mode owns the panel until its round is over
  }
  const generalBox = h("div", { class: "sk-general" });
  entryBox.appendChild(generalBox);
  /** @type {import("./scorecardstate.js").EntryRefs["refs"]} */
  const refs = [];
  const rows = h("div", { class: "sk-players" });
  summary.players.forEach((name, s) => {
    const row = playerRow(page, entry, name, s);
    refs.push(row.ref);
    rows.appendChild(row.ref.row);
  });
  entryBox.appendChild(rows);

  const checkState = h("p", { class: "sk-check", dataset: { testid: "check-state" }, "aria-live": "polite" });
  entryBox.appendChild(h("div", { class: "sk-save" },
    checkState,
    h("button", {
      type: "button", class: "btn btn--primary btn--big", disabled: page.saving, dataset: { testid: "save-round", focusKey: "save" },
      "aria-label": t("scorekeeper.save_round_n", { round: entry.number }), onclick: () => page.ui.saveRound(),
    }, page.saving ? t("scorekeeper.saving") : editing ? t("scorekeeper.save_round_n", { round: entry.number }) : t("scorekeeper.save_round"))));
  page.entryRefs = { generalBox, refs, checkState };
  applyCheck(page);
  restoreFocus(fk, entryBox);
}

/**
 * The panel's heading: the round, the live switch (a new round), Cancel (an edit).
 * @param {ScorecardPage} page
 * @param {Entry} entry
 */
function entryHead(page, entry) {
  const editing = entry.mode === "edit";
  const live = !!page.live;
  const liveBtn = h("button", {
    type: "button", class: `btn btn--small ${live ? "btn--primary" : "btn--ghost"}`, "aria-pressed": live ? "true" : "false",
    dataset: { testid: "live-toggle", focusKey: "live" }, disabled: editing,
    "aria-label": t("scorekeeper.live_label"),
    onclick: () => (page.live ? page.ui.leaveLive() : page.ui.startLive(page.summary ? page.summary.live : null)),
  }, h("span", { class: "sk-live-dot", "aria-hidden": "true" }), t("scorekeeper.live"));
  return h("div", { class: "panel-head sk-entry-head" },
    h("h2", { id: "entry-title", text: editing ? t("scorekeeper.editing_round", { round: entry.number }) : t("replay.round", { round: entry.number }) }),
    h("div", { class: "sk-entry-tools" },
      editing ? null : liveBtn,
      editing ? h("button", { type: "button", class: "btn btn--ghost btn--small", onclick: () => page.ui.cancelEdit(), "aria-label": t("scorekeeper.stop_editing", { round: entry.number }), dataset: { testid: "cancel-edit" } }, t("common.cancel")) : null));
}

/**
 * One player's part of the panel: who, the round's score (the check's), Busted, the line
 * typed, the player's problems and Flip 7 choice, and the picker when selected.
 * @param {ScorecardPage} page
 * @param {Entry} entry
 * @param {string} name
 * @param {number} s
 */
function playerRow(page, entry, name, s) {
  const line = entry.lines[s];
  const selected = entry.selected === s;
  const lineEl = h("div", { class: "sk-line", role: "group", "aria-label": t("scorekeeper.line_of", { name }) });
  if (!line.cards.length) lineEl.appendChild(h("span", { class: "seat-empty", text: line.busted ? t("scorekeeper.busted_no_cards") : t("scorekeeper.no_cards_yet") }));
  line.cards.forEach((c, i) => lineEl.appendChild(cardEl(c, {
    button: true, small: true, label: t("scorekeeper.remove_card_from", { card: cardName(c), name }), title: t("scorekeeper.remove_card", { card: cardName(c) }),
    dataset: { focusKey: `line:${s}:${i}`, index: String(i) },
    onClick: () => { line.cards.splice(i, 1); entry.selected = s; page.ui.changed(); },
  })));
  const bust = h("button", {
    type: "button", class: `btn btn--small sk-bust${line.busted ? " is-on" : ""}`, "aria-pressed": line.busted ? "true" : "false",
    "aria-label": t("scorekeeper.name_busted", { name }), dataset: { testid: "bust", focusKey: `bust:${s}` },
    onclick: () => { line.busted = !line.busted; entry.selected = s; page.ui.changed(); },
  }, t("scorekeeper.busted"));
  const total = h("small", { class: "muted sk-player-total" });
  const badge = h("span", { class: "badge sk-badge-flip7", text: t("scorekeeper.flip7"), hidden: true });
  const pick = h("button", {
    type: "button", class: "sk-player-pick", "aria-expanded": selected ? "true" : "false",
    "aria-label": t("scorekeeper.enter_cards", { name }), dataset: { focusKey: `pick:${s}` },
    onclick: () => { entry.selected = s; page.ui.renderEntry(); },
  }, avatarEl(name, s, true),
  h("span", { class: "sk-player-who" }, h("span", { class: "sk-player-name", text: name }), h("span", { class: "sk-player-meta" }, badge, total)));
  const score = h("span", { class: "sk-score", dataset: { testid: "round-score" } });
  const problemsBox = h("div", { class: "sk-player-problems" });
  const choiceBox = h("div", { class: "sk-choice-slot" });
  const row = h("div", {
    class: `sk-player${selected ? " is-selected" : ""}${line.busted ? " is-busted" : ""}`,
    dataset: { seat: String(s), testid: "player" }, style: { "--hue": String(playerHue(s)) },
  },
  h("div", { class: "sk-player-head" }, pick, score, bust),
  lineEl, problemsBox, choiceBox,
  selected ? picker(page, entry, name, s) : null);
  return { ref: { row, score, total, badge, problemsBox, choiceBox } };
}

/**
 * Show the server's answer for the typed round (scores, totals, problems, the Flip 7)
 * in place: the cards and buttons are not rebuilt, so a tap is never lost to a redraw.
 * @param {ScorecardPage} page
 */
export function applyCheck(page) {
  const { entryRefs, summary, entry, check } = page;
  const entryBox = page.parts.entryBox;
  if (!entryRefs || page.live || !entry || !summary || !entryBox.contains(entryRefs.checkState)) return;
  const fk = focusKey();
  const players = summary.players;
  const brutal = !!(summary.rules && summary.rules.brutal);
  const scores = check.result ? check.result.scores : null;
  const newTotals = check.result ? check.result.totals : null;
  const f7 = page.knownFlip7; // the Flip 7 of the last round that passed the checks
  const problems = check.problems || [];
  const pending = check.state === "pending";
  const general = problems.filter((p) => p.seat === null || p.seat === undefined);
  clear(entryRefs.generalBox);
  if (general.length) {
    entryRefs.generalBox.appendChild(h("ul", { class: "sk-problems sk-problems--general", dataset: { testid: "problems" } },
      general.map((p) => h("li", { text: problemText(p) }))));
  }
  entryRefs.refs.forEach((ref, s) => {
    const name = players[s];
    const mine = problems.filter((p) => p.seat === s);
    const score = scores ? scores[s] : null;
    ref.row.classList.toggle("is-flip7", f7 === s);
    ref.row.classList.toggle("has-problem", mine.length > 0);
    ref.badge.hidden = f7 !== s;
    const blocked = check.state === "problems" || check.state === "error";
    ref.score.className = `sk-score${pending || (blocked && !mine.length) ? " is-pending" : ""}${mine.length ? " is-problem" : ""}`;
    ref.score.textContent = mine.length ? "!" : score !== null ? signed(score) : blocked ? "–" : "…";
    ref.score.setAttribute("aria-label", mine.length ? t("scorekeeper.score_problem", { name }) : score !== null ? t("scorekeeper.scores", { name, score })
      : blocked ? t("scorekeeper.score_blocked", { name }) : t("scorekeeper.score_unchecked", { name }));
    ref.total.textContent = newTotals && !mine.length && !pending ? `→ ${plain(newTotals[s])}` : "";
    clear(ref.problemsBox);
    if (mine.length) {
      ref.problemsBox.appendChild(h("ul", { class: "sk-problems", dataset: { testid: "problems" } }, mine.map((p) => h("li", { text: problemText(p) }))));
    }
    clear(ref.choiceBox);
    if (brutal && f7 === s) ref.choiceBox.appendChild(flip7Choice(page, entry, name, s, players));
  });
  const state = check.state;
  entryRefs.checkState.className = `sk-check sk-check--${state}`;
  entryRefs.checkState.textContent = state === "pending" ? t("scorekeeper.checking")
    : state === "problems" ? t("scorekeeper.problems", { count: problems.length })
      : state === "ok" ? t("scorekeeper.checks_pass") : state === "error" ? t("scorekeeper.check_failed") : "";
  restoreFocus(fk, entryBox);
}

/**
 * In Brutal: the Flip 7 player's choice, the bonus or a penalty for another player.
 * @param {ScorecardPage} page
 * @param {Entry} entry
 * @param {string} name the Flip 7 player's
 * @param {number} s their seat
 * @param {string[]} players
 */
function flip7Choice(page, entry, name, s, players) {
  const opts = [h("button", {
    type: "button", class: `btn btn--small${sameChoice(entry.choice, "bonus") ? " btn--primary" : ""}`, "aria-pressed": sameChoice(entry.choice, "bonus") ? "true" : "false",
    dataset: { focusKey: "choice:bonus" }, onclick: () => { entry.choice = "bonus"; page.ui.changed(); },
  }, t("scorekeeper.plus_to", { points: flip7Bonus(), name }))];
  players.forEach((other, otherSeat) => {
    if (otherSeat === s) return;
    const on = typeof entry.choice === "object" && entry.choice.minus15 === otherSeat;
    opts.push(h("button", {
      type: "button", class: `btn btn--small${on ? " btn--primary" : ""}`, "aria-pressed": on ? "true" : "false",
      dataset: { focusKey: `choice:${otherSeat}` }, onclick: () => { entry.choice = { minus15: otherSeat }; page.ui.changed(); },
    }, t("scorekeeper.minus_to", { points: flip7Bonus(), name: other })));
  });
  return h("div", { class: "sk-choice", role: "group", "aria-label": t("scorekeeper.choice_label", { name, points: flip7Bonus() }) },
    h("span", { class: "sk-choice-label", text: t("scorekeeper.choice") }), opts);
}

/**
 * The selected player's card picker, with Clear and Next player (Done after the last).
 * @param {ScorecardPage} page
 * @param {Entry} entry
 * @param {string} name
 * @param {number} s
 */
function picker(page, entry, name, s) {
  const entryBox = page.parts.entryBox;
  const grid = h("div", { class: "sk-picker", role: "group", "aria-label": t("scorekeeper.picker_label", { name }), dataset: { testid: "picker" } },
    lineCards().map((c) => cardEl(c, {
      button: true, label: t("scorekeeper.add_card", { card: cardName(c), name }), title: cardName(c),
      dataset: { focusKey: `add:${s}:${c}` },
      onClick: () => { entry.lines[s].cards.push(c); page.ui.changed(); },
    })));
  const players = page.summary ? page.summary.players : [];
  const n = players.length;
  const tools = h("div", { class: "sk-picker-tools" },
    h("button", { type: "button", class: "btn btn--ghost btn--small", "aria-label": t("scorekeeper.clear_line", { name }), disabled: !entry.lines[s].cards.length && !entry.lines[s].busted,
      onclick: () => { entry.lines[s] = { cards: [], busted: false }; page.ui.changed(); } }, t("scorekeeper.clear")),
    h("button", { type: "button", class: "btn btn--secondary btn--small", dataset: { testid: "next-player", focusKey: "next" },
      "aria-label": s + 1 < n ? t("scorekeeper.next_player", { name: players[s + 1] }) : t("scorekeeper.done_label"),
      onclick: () => {
        if (s + 1 < n) {
          entry.selected = s + 1;
          page.ui.renderEntry();
          const next = entryBox.querySelector(`.sk-player[data-seat="${s + 1}"]`);
          if (next) next.scrollIntoView({ block: "nearest" });
        } else {
          entry.selected = -1;
          page.ui.renderEntry();
          const save = entryBox.querySelector("[data-testid=save-round]");
          if (save instanceof HTMLElement) { save.focus(); save.scrollIntoView({ block: "nearest" }); }
        }
      } }, s + 1 < n ? t("scorekeeper.next_player", { name: players[s + 1] }) : t("scorekeeper.done")));
  return h("div", { class: "sk-picker-wrap" }, grid, tools);
}
