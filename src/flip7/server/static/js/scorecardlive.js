// Live mode on a scorecard's page: the entry panel hands itself to livekeeper.js, which
// enters the round card by card; when that round is over its final lines come back to the
// entry panel, ready to save.
import { t } from "./i18n.js";
import { mountLive } from "./livekeeper.js";
import { confirmDialog } from "./scorecardshared.js";
import { copyLines, keyHeaders, newEntry } from "./scorecardstate.js";

/** @typedef {import("./scorecardstate.js").ScorecardPage} ScorecardPage */

/**
 * The live round is over: its final lines go into the entry panel, ready to save.
 * @param {ScorecardPage} page
 * @param {import("./scorecardstate.js").Line[]} lines
 */
export function liveOver(page, lines) {
  if (page.entry && page.entry.mode === "edit") return;
  if (!page.entry) {
    if (!page.summary) return;
    page.entry = newEntry(page.summary);
  }
  page.entry.lines = copyLines(lines);
  page.entry.selected = -1;
  page.notice = { kind: "ok", text: t("scorekeeper.live_over") };
  stopLive(page, false);
  page.ui.changed();
}

/**
 * Live mode on: resuming the live round `state` (null: a new one).
 * @param {ScorecardPage} page
 * @param {import("./protocol.js").LiveRound | null} state
 */
export function startLive(page, state) {
  const summary = page.summary;
  if (!summary) return;
  page.live = mountLive({
    id: page.id, summary, keyHeaders: () => keyHeaders(page), state,
    onLines: (lines) => liveOver(page, lines),
    onClose: () => leaveLive(page),
    onState: (data) => page.ui.setSummary(data),
  });
  page.notice = null;
  page.ui.renderEntry();
}

/**
 * The user turns live mode off: the live round's cards are dropped (after asking).
 * @param {ScorecardPage} page
 */
export async function leaveLive(page) {
  const l = page.summary && page.summary.live;
  if (l && !l.over && l.events && l.events.length) {
    const ok = await confirmDialog(t("scorekeeper.stop_live_title"), t("scorekeeper.stop_live_text"), t("scorekeeper.stop_live"));
    if (!ok) return;
  }
  stopLive(page, true);
}

/**
 * Live mode off; `abandon`: the live round is dropped on the server too.
 * @param {ScorecardPage} page
 * @param {boolean} abandon
 */
export function stopLive(page, abandon) {
  const l = page.live;
  if (!l) return;
  page.live = null;
  l.destroy(abandon);
  if (abandon && page.summary) page.summary.live = null;
  page.ui.renderEntry();
}
