// The round being typed on a scorecard's page: it follows the scorecard's round numbers,
// the server checks it as it is typed (debounced: POST .../check), and it is saved as the
// next round or as a new version of an old one; the last round can be undone. Every score
// is the server's: this module only sends the cards and keeps the answers.
import { ApiError, api, messageOf } from "./api.js";
import { t } from "./i18n.js";
import {
  copyLines, editable, isOver, keyHeaders, newEntry, nextNumber, sameChoice,
} from "./scorecardstate.js";
import { confirmDialog, scorecardApi } from "./scorecardshared.js";
import { dropDraft, loadDraft, saveDraft } from "./scorecardstore.js";
import { toast } from "./util.js";

/** @typedef {import("./scorecardstate.js").ScorecardPage} ScorecardPage */
/** @typedef {import("./protocol.js").Problem} Problem */

const CHECK_DELAY_MS = 300;

/**
 * After the scorecard changed: keep what is typed, but follow the round numbers.
 * @param {ScorecardPage} page
 */
export function reconcileEntry(page) {
  const summary = page.summary;
  if (!editable(page) || !summary) {
    page.entry = null;
    return;
  }
  const entry = page.entry;
  if (entry === null) {
    page.entry = loadDraft(page, summary) || newEntry(summary);
    page.ui.scheduleCheck();
    return;
  }
  const next = nextNumber(summary);
  if (entry.mode === "edit") {
    const r = summary.rounds.find((x) => x.number === entry.number);
    if (!r) { // the round was undone elsewhere: keep the lines as a new round
      page.notice = { kind: "error", text: t("scorekeeper.round_gone", { round: entry.number, next }) };
      page.entry = newEntry(summary, entry.lines);
      page.stash = null;
      page.ui.scheduleCheck();
    }
    return;
  }
  if (entry.number !== next) {
    const typed = entry.lines.some((l) => l.cards.length || l.busted);
    if (typed && entry.number < next) {
      page.notice = { kind: "error", text: t("scorekeeper.round_saved_elsewhere", { round: entry.number, next }) };
    }
    entry.number = next;
    saveDraft(page);
    page.ui.scheduleCheck();
  }
}

/**
 * The typed round changed: kept as a draft, checked again, drawn again.
 * @param {ScorecardPage} page
 */
export function changed(page) {
  saveDraft(page);
  page.ui.scheduleCheck();
  page.ui.renderEntry();
}

/**
 * The typed round as the server checks it (and, without `number`, saves it).
 * @param {ScorecardPage} page
 * @param {import("./scorecardstate.js").Entry} entry
 * @returns {import("./protocol.js").CheckRound}
 */
function checkBody(page, entry) {
  /** @type {import("./protocol.js").CheckRound} */
  const body = { lines: copyLines(entry.lines) };
  const rules = page.summary && page.summary.rules;
  if (rules && rules.brutal && !sameChoice(entry.choice, "bonus")) body.flip7_choice = entry.choice;
  if (entry.mode === "edit") body.number = entry.number; // checked as that round, not the next
  return body;
}

/** @param {ScorecardPage} page */
function resetCheck(page) {
  page.check = { state: "idle" };
  page.knownFlip7 = null;
}

/**
 * Ask the server to check the typed round in a moment (typing on resets the wait).
 * @param {ScorecardPage} page
 */
export function scheduleCheck(page) {
  clearTimeout(page.checkTimer);
  if (!page.entry || !editable(page)) return;
  page.check = { ...page.check, state: "pending" };
  page.checkTimer = setTimeout(() => runCheck(page), CHECK_DELAY_MS);
}

/**
 * A refused round's problems: the server's list, else its message as one problem.
 * @param {ApiError} err
 * @returns {Problem[]}
 */
function problemsOf(err) {
  return (err.detail && err.detail.problems) || [{ seat: null, message: err.message }];
}

/** @param {ScorecardPage} page */
async function runCheck(page) {
  const entry = page.entry;
  if (!entry || page.destroyed) return;
  const seq = ++page.checkSeq;
  const body = checkBody(page, entry);
  try {
    const data = /** @type {import("./protocol.js").RoundCheck} */ (
      await api("POST", `${scorecardApi(page.id)}/check`, { body, headers: keyHeaders(page) }));
    if (seq !== page.checkSeq || page.destroyed) return;
    page.check = { state: "ok", result: data, problems: [] };
  } catch (err) {
    if (seq !== page.checkSeq || page.destroyed) return;
    if (err instanceof ApiError && err.code === "invalid_round" && err.detail) page.check = { state: "problems", result: null, problems: problemsOf(err) };
    else page.check = { state: "error", result: null, problems: [{ seat: null, message: messageOf(err) }] };
  }
  const result = page.check.state === "ok" ? page.check.result : null;
  if (result) {
    page.knownFlip7 = result.flip7_seat ?? null;
    // In Brutal the Flip 7 choice follows the Flip 7: drop a penalty that no longer fits.
    const now = page.entry;
    const minus15 = now && typeof now.choice === "object" ? now.choice.minus15 : undefined;
    if (now && !sameChoice(now.choice, "bonus") && (page.knownFlip7 === null || page.knownFlip7 === minus15)) {
      now.choice = "bonus";
      saveDraft(page);
      page.ui.scheduleCheck();
    }
  }
  page.ui.applyCheck();
}

/**
 * Save the typed round: the next round, or the new version of the round being edited.
 * @param {ScorecardPage} page
 */
export async function saveRound(page) {
  const entry = page.entry;
  if (page.saving || !entry) return;
  clearTimeout(page.checkTimer);
  page.saving = true;
  page.notice = null;
  page.ui.renderEntry();
  const { lines, flip7_choice: choice } = checkBody(page, entry);
  const body = choice === undefined ? { lines } : { lines, flip7_choice: choice };
  const wasEdit = entry.mode === "edit";
  const number = entry.number;
  const headers = keyHeaders(page);
  try {
    /** @type {unknown} */
    let data;
    if (entry.mode === "edit") {
      /** @type {import("./protocol.js").EditRound} */
      const edit = { revision: entry.revision, ...body };
      data = await api("PUT", `${scorecardApi(page.id)}/rounds/${number}`, { body: edit, headers });
    } else {
      /** @type {import("./protocol.js").NewRound} */
      const round = { number, ...body };
      data = await api("POST", `${scorecardApi(page.id)}/rounds`, { body: round, headers });
    }
    page.saving = false;
    if (wasEdit) {
      page.entry = page.stash || null;
      page.stash = null;
    } else {
      page.entry = null;
      dropDraft(page);
    }
    if (page.live) page.ui.stopLive(false);
    resetCheck(page);
    page.summary = null; // force a full render
    page.ui.setSummary(/** @type {import("./protocol.js").Scorecard} */ (data));
    toast(wasEdit ? t("scorekeeper.round_updated", { round: number }) : t("scorekeeper.round_saved", { round: number }), "ok", 2200);
    if (!wasEdit && !isOver(page)) focusFirstPlayer(page);
  } catch (err) {
    page.saving = false;
    await saveFailed(page, err, number, wasEdit);
  }
}

/**
 * Why the round was not saved, at the top of the entry panel; on a conflict the
 * scorecard as it is now (what is typed here stays).
 * @param {ScorecardPage} page
 * @param {unknown} err
 * @param {number} number the round's
 * @param {boolean} wasEdit
 */
async function saveFailed(page, err, number, wasEdit) {
  const refusal = err instanceof ApiError ? err : null;
  if (refusal && refusal.code === "invalid_round" && refusal.detail) {
    page.check = { state: "problems", result: null, problems: problemsOf(refusal) };
    page.notice = { kind: "error", text: t("scorekeeper.not_saved") };
  } else if (refusal && refusal.status === 409) {
    // Someone else changed the scorecard: take theirs, keep what is typed here.
    const fresh = refusal.detail && refusal.detail.scorecard;
    if (fresh) page.ui.setSummary(fresh);
    else await page.ui.load({ quiet: true });
    const entry = page.entry;
    if (wasEdit && entry && entry.mode === "edit" && page.summary) {
      const r = page.summary.rounds.find((x) => x.number === number);
      if (r) entry.revision = r.revision;
    }
    page.notice = { kind: "error", text: t("scorekeeper.conflict", { message: refusal.message }) };
    page.ui.scheduleCheck();
  } else if (refusal && refusal.status === 403) {
    page.notice = { kind: "error", text: t("scorekeeper.read_only_device") };
  } else {
    page.notice = { kind: "error", text: t("scorekeeper.save_failed", { message: messageOf(err) }) };
  }
  page.ui.renderEntry();
  const box = page.parts.entryBox.querySelector(".sk-notice");
  if (box) box.scrollIntoView({ block: "nearest" });
}

/**
 * Correct an old round: the entry panel takes its lines (the new round's are kept aside).
 * @param {ScorecardPage} page
 * @param {import("./protocol.js").ScorecardRound} round
 */
export function startEdit(page, round) {
  if (page.entry && page.entry.mode === "new") page.stash = page.entry;
  page.entry = { mode: "edit", number: round.number, revision: round.revision, lines: copyLines(round.lines), choice: round.flip7_choice || "bonus", selected: 0 };
  page.notice = null;
  resetCheck(page);
  if (page.live) page.ui.stopLive(false);
  page.ui.renderAll();
  page.ui.scheduleCheck();
  page.parts.entryBox.scrollIntoView({ block: "start" });
  focusFirstPlayer(page);
}

/**
 * Back to the new round (as it was typed).
 * @param {ScorecardPage} page
 */
export function cancelEdit(page) {
  const summary = page.summary;
  if (!summary) return;
  page.entry = page.stash || newEntry(summary);
  page.stash = null;
  page.notice = null;
  resetCheck(page);
  page.ui.renderAll();
  page.ui.scheduleCheck();
}

/**
 * Undo the last round (after asking).
 * @param {ScorecardPage} page
 */
export async function undoLast(page) {
  const summary = page.summary;
  const last = summary ? summary.rounds[summary.rounds.length - 1] : undefined;
  if (!last) return;
  const ok = await confirmDialog(t("scorekeeper.undo_title", { round: last.number }), t("scorekeeper.undo_text"), t("scorekeeper.undo_round", { round: last.number }));
  if (!ok) return;
  try {
    const data = /** @type {import("./protocol.js").Scorecard} */ (
      await api("DELETE", `${scorecardApi(page.id)}/rounds/${last.number}?revision=${last.revision}`, { headers: keyHeaders(page) }));
    if (page.entry && page.entry.mode === "edit" && page.entry.number === last.number) {
      page.entry = page.stash;
      page.stash = null;
    }
    page.summary = null;
    page.ui.setSummary(data);
    toast(t("scorekeeper.round_undone", { round: last.number }), "ok", 2200);
  } catch (err) {
    toast(messageOf(err));
    if (err instanceof ApiError && err.status === 409) {
      const fresh = err.detail && err.detail.scorecard;
      if (fresh) page.ui.setSummary(fresh);
      else page.ui.load({ quiet: true });
    }
  }
}

/** @param {ScorecardPage} page */
function focusFirstPlayer(page) {
  const btn = page.parts.entryBox.querySelector(".sk-player-pick");
  if (btn instanceof HTMLElement) btn.focus({ preventScroll: true });
}
