// One scorecard's page (/scorekeeper/{id}): its state, shared by the modules that make it
// (scorecard.js wires them): the scorecard as the server last sent it, the round being
// typed and the server's check of it, the live round, and the page's parts.
//
//   scorecardstore.js   the edit key and the new round's draft, in this device's storage
//   scorecardentry.js   the round being typed: the server's check, saving, editing, undo
//   scorecardlive.js    live mode (livekeeper.js) in the entry panel
//   scorecardview.js    the scorecard: totals, banner, rounds, chart, share links
//   scorecardpanel.js   the entry panel: the lines, the card picker, the check's answer
//
// Each module reaches the others through the page's `ui` (Ui below), which scorecard.js
// fills in: no module imports another's functions.

/** @typedef {import("./protocol.js").Scorecard} Scorecard */
/** @typedef {import("./protocol.js").Flip7Choice} Flip7Choice */

/**
 * A player's line as typed: its cards and whether it busted.
 * @typedef {{cards: string[], busted: boolean}} Line
 */

/**
 * The round being typed: the next round (`new`), or an old one being corrected (`edit`,
 * from its `revision`); `selected` is the player whose cards the picker adds (-1: none).
 * @typedef {object} EntryLines
 * @property {number} number
 * @property {Line[]} lines
 * @property {Flip7Choice} choice
 * @property {number} selected
 * @typedef {EntryLines & {mode: "new", revision: null}} NewEntry
 * @typedef {EntryLines & {mode: "edit", revision: number}} EditEntry
 * @typedef {NewEntry | EditEntry} Entry
 */

/**
 * The server's check of the typed round: `pending` until it answers (what it said before
 * stays meanwhile), then its scores (`ok`), the round's `problems`, or an `error`.
 * @typedef {object} Check
 * @property {"idle" | "pending" | "ok" | "problems" | "error"} state
 * @property {import("./protocol.js").RoundCheck | null} [result]
 * @property {import("./protocol.js").Problem[]} [problems]
 */

/** A line at the top of the entry panel. @typedef {{kind: "ok" | "error", text: string}} Notice */

/**
 * The parts of the entry panel that show the server's check, one `refs` per player.
 * @typedef {object} EntryRefs
 * @property {HTMLElement} generalBox problems of no one player
 * @property {Array<{row: HTMLElement, score: HTMLElement, total: HTMLElement, badge: HTMLElement, problemsBox: HTMLElement, choiceBox: HTMLElement}>} refs
 * @property {HTMLElement} checkState
 */

/**
 * The page's parts (scorecardview.js skeleton).
 * @typedef {object} Parts
 * @property {HTMLElement} root
 * @property {HTMLElement} title
 * @property {HTMLElement} chips
 * @property {HTMLElement} modeChip
 * @property {HTMLElement} banner
 * @property {HTMLElement} totals
 * @property {HTMLElement} status
 * @property {HTMLElement} entryBox
 * @property {HTMLElement} historyBox
 * @property {HTMLElement} chartBox
 * @property {HTMLDetailsElement} shareBox
 */

/**
 * What the modules ask of each other (scorecard.js fills it in).
 * @typedef {object} Ui
 * @property {(options?: {quiet?: boolean}) => Promise<void>} load fetch the scorecard
 * @property {(data: Scorecard) => void} setSummary the server's scorecard came
 * @property {() => void} renderAll
 * @property {() => void} renderEntry
 * @property {() => void} renderChart
 * @property {() => void} applyCheck
 * @property {() => void} changed the typed round changed
 * @property {() => void} scheduleCheck
 * @property {() => void} saveRound
 * @property {(round: import("./protocol.js").ScorecardRound) => void} startEdit
 * @property {() => void} cancelEdit
 * @property {() => void} undoLast
 * @property {(state: import("./protocol.js").LiveRound | null) => void} startLive
 * @property {() => void} leaveLive
 * @property {(abandon: boolean) => void} stopLive
 * @property {(lines: Line[]) => void} liveOver
 */

/**
 * @typedef {object} ScorecardPage
 * @property {string} id
 * @property {string | null} key the edit key: null on a device that may only read
 * @property {boolean} justCreated opened from the new scorecard's own link
 * @property {boolean} destroyed
 * @property {Scorecard | null} summary the scorecard as the server last sent it
 * @property {Entry | null} entry the round being typed
 * @property {Entry | null} stash the new round's entry, kept while an old round is edited
 * @property {Check} check
 * @property {number} checkSeq the last check asked for (older answers are dropped)
 * @property {number | null} knownFlip7 the Flip 7 seat of the last round that passed the checks
 * @property {ReturnType<typeof setTimeout> | undefined} checkTimer
 * @property {boolean} saving
 * @property {Notice | null} notice shown at the top of the entry panel
 * @property {import("./livekeeper.js").LiveController | null} live the live mode, when on
 * @property {EntryRefs | null} entryRefs
 * @property {Parts} parts
 * @property {Ui} ui
 */

/**
 * `n` players' empty lines.
 * @param {number} n
 * @returns {Line[]}
 */
export function blankLines(n) {
  return Array.from({ length: n }, () => ({ cards: [], busted: false }));
}

/**
 * Lines to type into, copied (from a round, a draft or the live round).
 * @param {Array<{cards?: string[], busted?: boolean}>} lines
 * @returns {Line[]}
 */
export function copyLines(lines) {
  return lines.map((l) => ({ cards: [...(l.cards || [])], busted: !!l.busted }));
}

/**
 * @param {Flip7Choice | null | undefined} a
 * @param {Flip7Choice | null | undefined} b
 */
export function sameChoice(a, b) {
  return JSON.stringify(a || "bonus") === JSON.stringify(b || "bonus");
}

/** @param {ScorecardPage} page */
export const editable = (page) => !!page.key;

/**
 * The edit key's header for the scorecard's REST calls (none on a read-only device).
 * @param {ScorecardPage} page
 * @returns {Record<string, string>}
 */
export const keyHeaders = (page) => (page.key ? { "X-Scorecard-Key": page.key } : {});

/** @param {ScorecardPage} page */
export const isOver = (page) => !!page.summary && page.summary.status === "over";

/**
 * The number of the round to type next.
 * @param {Scorecard} summary
 */
export const nextNumber = (summary) => summary.rounds.length + 1;

/**
 * The next round's entry: empty lines, or these.
 * @param {Scorecard} summary
 * @param {Line[] | null} [lines]
 * @returns {NewEntry}
 */
export function newEntry(summary, lines = null) {
  return { mode: "new", number: nextNumber(summary), revision: null, lines: lines || blankLines(summary.players.length), choice: "bonus", selected: 0 };
}

/**
 * Whether no card is typed and no one marked busted.
 * @param {Entry} entry
 */
export const untouched = (entry) => entry.lines.every((l) => !l.cards.length && !l.busted);
