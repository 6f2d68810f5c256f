// The table page's lasting layout: the header (name, state, tools), the waiting room's and
// the game's places (board, decision panel, the log and score sheet tabs), the end screen's
// and the chat's. What fills them is drawn again at every change; these stay.
import { t } from "./i18n.js";
import { h, icon } from "./util.js";

/**
 * The elements of the page that its modules draw into.
 * @typedef {object} TableLayout
 * @property {HTMLElement} page  the .table-page
 * @property {HTMLElement} title
 * @property {HTMLElement} stateChip
 * @property {HTMLElement} spectatorBadge
 * @property {HTMLButtonElement} resultsBtn
 * @property {HTMLButtonElement} leaveGameBtn
 * @property {HTMLElement} keepNote  how long the game waits if everyone steps away
 * @property {HTMLElement} loading
 * @property {HTMLElement} waitingHost
 * @property {HTMLElement} gameLayout
 * @property {HTMLElement} boardHost
 * @property {HTMLElement} fxLayer
 * @property {HTMLElement} decisionHost
 * @property {HTMLOListElement} logList
 * @property {HTMLElement} scoresHost
 * @property {HTMLElement} side  the game's side column (the chat's place during a game)
 * @property {HTMLElement} chatSlot  the chat's place before a game
 * @property {HTMLElement} endHost
 * @property {HTMLElement} announcer  read out by screen readers at once
 */

/**
 * The side column: the log and the score sheet, one tab at a time.
 * @param {HTMLElement} logList
 * @param {HTMLElement} scoresHost
 */
function sideTabs(logList, scoresHost) {
  const tabLog = h("button", { type: "button", role: "tab", class: "tab", id: "tab-log", "aria-controls": "panel-log" }, t("table.tab.log"));
  const tabScores = h("button", { type: "button", role: "tab", class: "tab", id: "tab-scores", "aria-controls": "panel-scores" }, t("table.tab.scores"));
  const panelLog = h("div", { role: "tabpanel", id: "panel-log", "aria-labelledby": "tab-log", class: "tabpanel" }, logList);
  const panelScores = h("div", { role: "tabpanel", id: "panel-scores", "aria-labelledby": "tab-scores", class: "tabpanel" }, scoresHost);
  /** @param {"log" | "scores"} tab */
  const setTab = (tab) => {
    tabLog.setAttribute("aria-selected", String(tab === "log"));
    tabScores.setAttribute("aria-selected", String(tab === "scores"));
    panelLog.hidden = tab !== "log";
    panelScores.hidden = tab !== "scores";
  };
  tabLog.addEventListener("click", () => setTab("log"));
  tabScores.addEventListener("click", () => setTab("scores"));
  setTab("log");
  return h("aside", { class: "game-side panel", "aria-label": t("table.side_label") },
    h("div", { class: "tabs", role: "tablist" }, tabLog, tabScores), panelLog, panelScores);
}

/**
 * Build the page's layout in `root`.
 * @param {HTMLElement} root
 * @param {object} tools  what the header holds besides the page's own buttons
 * @param {() => void} tools.onInvite  copy the invite link
 * @param {() => void} tools.onResults  show the end screen again
 * @param {() => void} tools.onLeave  leave the game
 * @param {HTMLElement} tools.chatJump  the chat's button in the header
 * @param {HTMLElement} tools.alerts  the turn alerts' switch
 * @returns {TableLayout}
 */
export function tableLayout(root, { onInvite, onResults, onLeave, chatJump, alerts }) {
  const title = h("h1", { class: "table-title", text: t("table.table") });
  const stateChip = h("span", { class: "chip chip--state" });
  const inviteBtn = h("button", { type: "button", class: "btn btn--ghost btn--small", "aria-label": t("table.invite.copy_label"), onclick: onInvite },
    icon("link"), h("span", { class: "hide-narrow", text: t("table.invite.button") }));
  const resultsBtn = h("button", { type: "button", class: "btn btn--ghost btn--small", hidden: true, onclick: onResults },
    icon("trophy"), h("span", { class: "hide-narrow", text: t("table.results") }));
  const leaveGameBtn = h("button", { type: "button", class: "btn btn--ghost btn--small", hidden: true, "aria-label": t("table.leave_label"), onclick: onLeave },
    h("span", { text: t("table.leave") }));
  const spectatorBadge = h("span", { class: "chip chip--watch", hidden: true }, icon("eye"), t("table.watching"));
  const header = h("div", { class: "table-head" },
    h("div", { class: "table-head-main" }, title, stateChip, spectatorBadge),
    h("div", { class: "table-head-tools" }, resultsBtn, chatJump, alerts, inviteBtn, leaveGameBtn));

  const keepNote = h("p", { class: "muted table-keep-note", hidden: true, dataset: { testid: "keep-note" } });
  const waitingHost = h("div", { class: "waiting-host", hidden: true });
  const boardHost = h("div", { class: "board-host" });
  const fxLayer = h("div", { class: "fx-layer", "aria-hidden": "true" });
  const decisionHost = h("section", { id: "decision", class: "decision", "aria-label": t("table.decision.label"), dataset: { state: "idle" } });
  const logList = /** @type {HTMLOListElement} */ (h("ol", { class: "log", "aria-label": t("table.log_label"), dataset: { testid: "log" } }));
  const scoresHost = h("div", { class: "scores-host" });
  const side = sideTabs(logList, scoresHost);
  const gameMain = h("div", { class: "game-main" }, h("div", { class: "board-wrap" }, boardHost, fxLayer), decisionHost);
  const gameLayout = h("div", { class: "game-layout", hidden: true }, gameMain, side);
  const endHost = h("div", { class: "end-host" });
  const announcer = h("div", { class: "visually-hidden", role: "status", "aria-live": "assertive" });
  const loading = h("div", { class: "loading panel" }, h("span", { class: "spinner", "aria-hidden": "true" }), t("table.joining"));
  // The chat sits in the side column during a game and under the waiting room before.
  const chatSlot = h("div", { class: "chat-slot" });
  // Under the game, not above it: on a phone the board and the decision fill the screen.
  const page = h("div", { class: "table-page" }, header, loading, waitingHost, chatSlot, gameLayout, keepNote, endHost, announcer);
  root.append(page);
  return {
    page, title, stateChip, spectatorBadge, resultsBtn, leaveGameBtn, keepNote, loading, waitingHost, gameLayout,
    boardHost, fxLayer, decisionHost, logList, scoresHost, side, chatSlot, endHost, announcer,
  };
}
