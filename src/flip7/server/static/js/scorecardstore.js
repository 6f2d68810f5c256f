// What this device keeps of a scorecard (localStorage): its edit key, and the draft of the
// round being typed (so that a reload or a dead battery loses no card).
import { copyLines, newEntry, nextNumber, untouched } from "./scorecardstate.js";
import { store } from "./util.js";

/** @typedef {import("./scorecardstate.js").ScorecardPage} ScorecardPage */

/** @param {string} id */
export const keyStore = (id) => `flip7.scorecard.key.${id}`;
/** @param {string} id */
const draftStore = (id) => `flip7.scorecard.draft.${id}`;

/**
 * The edit key of scorecard `id`: from the link (#key=…, kept here from now on and taken
 * out of the address bar), else from this device's storage; and whether it came from the
 * link (a scorecard just made: its share links open).
 * @param {string} id
 * @returns {{key: string | null, fromLink: boolean}}
 */
export function takeKey(id) {
  const hashKey = new URLSearchParams(window.location.hash.slice(1)).get("key");
  if (hashKey) {
    store.set(keyStore(id), hashKey);
    history.replaceState(history.state, "", window.location.pathname); // keep the key out of the address bar
  }
  return { key: store.get(keyStore(id)), fromLink: !!hashKey };
}

/**
 * Keep the new round's lines (an edit of an old round is not a draft); none typed: none kept.
 * @param {ScorecardPage} page
 */
export function saveDraft(page) {
  const entry = page.entry;
  if (!entry || entry.mode !== "new") return;
  if (untouched(entry)) store.del(draftStore(page.id));
  else store.set(draftStore(page.id), JSON.stringify({ number: entry.number, lines: entry.lines, choice: entry.choice }));
}

/**
 * The draft kept for the round to type next, as an entry; null when there is none (or it
 * is of another round, or does not fit the players).
 * @param {ScorecardPage} page
 * @param {import("./protocol.js").Scorecard} summary
 */
export function loadDraft(page, summary) {
  try {
    const d = JSON.parse(store.get(draftStore(page.id)) || "null");
    if (d && d.number === nextNumber(summary) && Array.isArray(d.lines) && d.lines.length === summary.players.length) {
      const e = newEntry(summary, copyLines(d.lines));
      e.choice = d.choice || "bonus";
      return e;
    }
  } catch {
    /* a broken draft is ignored */
  }
  return null;
}

/**
 * The draft goes (its round was saved).
 * @param {ScorecardPage} page
 */
export function dropDraft(page) {
  store.del(draftStore(page.id));
}
