// The table page (/t/{id}): it puts together the connection (connection.js), the frames it
// brings (tableframes.js), the waiting room (waitingroom.js), the board (board.js) with its
// decision panel (decisionpanel.js), the animations and log (tableanim.js, tablelog.js),
// the players who go away (presence.js), the end screen (tableend.js), the chat (chat.js)
// and a guided first game's lessons (tutorial.js), and draws them again at every change.
import { turnAlerts } from "./alerts.js";
import { ApiError, api, joinTable } from "./api.js";
import { renderBoard, renderScoreSheet, tickCountdowns } from "./board.js";
import { loadBots, localName } from "./botlevels.js";
import { kindPrompt } from "./cards.js";
import { chatPanel } from "./chat.js";
import { connectionPill, tableConnection } from "./connection.js";
import { decisionPanel } from "./decisionpanel.js";
import { setExplainRules } from "./explain.js";
import { errorText, formatDate, t } from "./i18n.js";
import { setTopbar } from "./router.js";
import { moveHoursText } from "./rules.js";
import { markAway, tickHandover } from "./presence.js";
import { pressHold } from "./presshold.js";
import { eventPlayer } from "./tableanim.js";
import { renderEnd } from "./tableend.js";
import { frameHandler } from "./tableframes.js";
import { tableLayout } from "./tablelayout.js";
import { tableLog } from "./tablelog.js";
import { gameSeats, isSeated, myGameSeat, myTurn, nameOf, newTableState, seatMeta } from "./tablestate.js";
import { mountTutorial } from "./tutorial.js";
import { askName, copyText, focusKey, h, inviteLink, loadLimits, loadServerInfo, restoreFocus, store, toast, tokenKey } from "./util.js";
import { renderWaiting } from "./waitingroom.js";

/**
 * Everything of one table page: its state, its layout and the parts that draw into it.
 * @typedef {object} TablePage
 * @property {import("./tablestate.js").TableState} S
 * @property {HTMLElement} root
 * @property {import("./tablelayout.js").TableLayout} L
 * @property {(seat: number) => string} names
 * @property {import("./util.js").Invite} invite
 * @property {ReturnType<typeof connectionPill>} pill
 * @property {ReturnType<typeof turnAlerts>} alerts
 * @property {ReturnType<typeof chatPanel>} chat
 * @property {ReturnType<typeof mountTutorial>} tutorial
 * @property {ReturnType<typeof tableLog>} log
 * @property {ReturnType<typeof eventPlayer>} player
 * @property {ReturnType<typeof decisionPanel>} decision
 * @property {import("./presshold.js").PressHold} press
 */

/** @typedef {import("./tablestate.js").Table} Table */
/** @typedef {import("./presence.js").Rest} Rest */

/**
 * A request about the table (/api/tables/{id}…): its answer, or null once the refusal is
 * shown. A newer table in the answer is applied at once.
 * @param {TablePage} page
 * @param {import("./api.js").Method} method
 * @param {string} path
 * @param {object} [body]
 * @returns {Promise<object|null>}
 */
async function rest(page, method, path, body) {
  const { S } = page;
  try {
    // Table requests answer with the table (TableAnswer, SeatGranted) or with nothing of it.
    const data = /** @type {{table?: Table} | null} */ (await api(method, `/api/tables/${encodeURIComponent(S.id)}${path}`, { body, token: S.token }));
    if (data && data.table && S.table && data.table.version > S.table.version) applyTable(page, data.table);
    return data || {};
  } catch (err) {
    toast(errorText(err, t("error.unknown")));
    if (err instanceof ApiError && err.status === 401) forgetToken(page);
    return null;
  }
}

/**
 * The seat token is no longer good (or given up): watch instead.
 * @param {TablePage} page
 */
function forgetToken(page) {
  const { S } = page;
  store.del(tokenKey(S.id));
  S.token = null;
  S.mySeat = null;
  if (S.conn) S.conn.restart();
}

/**
 * Under the header, for a seated player during a game: if everyone steps away now, until
 * when the game waits (suspended after idle_table_ttl, closed suspended_table_ttl later);
 * at a turn-based table, how long each move has (it waits as long as its clock runs).
 * @param {HTMLElement} note
 * @param {boolean} show
 * @param {number | null} moveHours a turn-based table's hours per decision
 */
function renderKeepNote(note, show, moveHours) {
  if (!show) {
    note.hidden = true;
    return;
  }
  if (moveHours) {
    note.textContent = t("table.keep_note_turn_based", { time: moveHoursText(moveHours) });
    note.hidden = false;
    return;
  }
  loadLimits().then((limits) => {
    if (!limits) return;
    const until = new Date(Date.now() + (limits.idle_table_ttl + limits.suspended_table_ttl) * 1000);
    note.textContent = t("table.keep_note", { date: formatDate(until, { weekday: "short", day: "numeric", month: "short" }) });
    note.hidden = false;
  });
}

/** @param {TablePage} page */
async function leaveGame(page) {
  // eslint-disable-next-line no-alert
  if (!window.confirm(t("table.leave_confirm"))) return;
  const ok = await rest(page, "POST", "/leave");
  if (ok) {
    forgetToken(page);
    render(page);
  }
}

/** @param {TablePage} page */
async function takeSeat(page) {
  const { S } = page;
  const name = await askName(t("table.waiting.take_seat"), t("table.waiting.sit_down"));
  if (!name) return;
  try {
    const data = await joinTable(S.id, name);
    store.set(tokenKey(S.id), data.token);
    S.token = data.token;
    S.mySeat = data.seat;
    if (data.table) applyTable(page, data.table);
    if (S.conn) S.conn.restart();
  } catch (err) {
    toast(errorText(err));
  }
}

/** @param {TablePage} page */
async function copyInvite(page) {
  const { invite } = page;
  const ok = await copyText(invite.url);
  if (ok && invite.loopback) toast(t("table.invite.copied_loopback", { host: invite.host }), "info", 7000);
  else toast(ok ? t("table.invite.copied") : invite.url, ok ? "ok" : "info");
}

/**
 * A new table state from the server (with the events that led to it, to play).
 * @param {TablePage} page
 * @param {Table} table
 * @param {import("./tableevents.js").TableEvent[]} [events]
 */
function applyTable(page, table, events) {
  const { S } = page;
  if (S.destroyed) return;
  if (page.press.hold(() => applyTable(page, table, events))) return; // a tap under way
  page.player.flush();
  const prevGameId = S.table ? S.table.game_id : null;
  const prevGame = S.table && S.table.game_id === table.game_id ? S.table.game : null;
  // Bots' seat names in the reader's language, once, for every part of the page.
  for (const seat of table.seats) if (seat.name) seat.name = localName(seat.name);
  if (table.game) for (const p of table.game.players) p.name = localName(p.name);
  S.table = table;
  setExplainRules(table.rules); // the cards' words follow this table's house rules
  const g = table.game;
  if (S.pendingMove && (table.version > S.pendingMove.version || !g || g.to_decide !== g.viewer)) S.pendingMove = null;
  if (table.game_id !== prevGameId) S.swapFirst = null;
  if (!g || g.decision_kind !== "swap" || g.to_decide !== g.viewer) S.swapFirst = null;
  render(page);
  if (events && events.length) page.player.play(events, prevGame && g && prevGame.players.length === g.players.length ? prevGame : null);
}

/**
 * The game: board, score sheet, decision panel, and the turn said aloud once.
 * @param {TablePage} page
 */
function renderGame(page) {
  const { S, L } = page;
  const tb = S.table;
  const g = tb && tb.game;
  if (!tb || !g) return;
  const me = myGameSeat(S);
  const picks = page.decision.picks(g, me);
  L.boardHost.replaceChildren(renderBoard(g, { me, seatMeta: (s) => seatMeta(S, s), deadline: tb.turn_deadline && !g.over ? tb.turn_deadline : null, picks }));
  markAway(L.boardHost, S, me, (method, path, body) => rest(page, method, path, body));
  L.scoresHost.replaceChildren(renderScoreSheet(g));
  page.decision.render(g, me);
  page.decision.keepInView(g);
  L.resultsBtn.hidden = !g.over;
  const turnKey = `${tb.version}:${g.to_decide}`;
  if (me !== null && g.to_decide === me && !g.over && S.lastTurnKey !== turnKey) {
    S.lastTurnKey = turnKey;
    L.announcer.textContent = kindPrompt(g.decision_kind, g.pending_card, true);
  }
}

/** @param {TablePage} page */
function drawEnd(page) {
  renderEnd(page.L.endHost, page.S, { names: page.names, rest: (method, path, body) => rest(page, method, path, body) });
}

/**
 * Draw the page from the state.
 * @param {TablePage} page
 */
function render(page) {
  const { S, L } = page;
  const tb = S.table;
  if (!tb) return;
  if (page.press.hold(() => render(page))) return; // a tap under way: see presshold.js
  const key = focusKey();
  L.loading.hidden = true;
  // A guided first game's table is named by the server, in English: its title is the
  // reader's "Learn to play" while its lessons run.
  const name = tb.tutorial ? t("tutorial.learn") : tb.name || t("table.table");
  L.title.textContent = name;
  document.title = t("table.page_title", { name });
  L.stateChip.textContent = tb.state === "waiting" ? t("table.state.waiting")
    : tb.state === "playing" ? (tb.game_number ? t("table.state.playing_game", { number: tb.game_number }) : t("table.state.playing")) : t("table.state.over");
  L.stateChip.dataset.state = tb.state;
  L.spectatorBadge.hidden = isSeated(S);
  L.leaveGameBtn.hidden = !(isSeated(S) && tb.state === "playing");
  renderKeepNote(L.keepNote, isSeated(S) && tb.state === "playing" && !tb.tutorial, tb.move_hours ?? null);
  L.page.dataset.state = tb.state;
  const waiting = tb.state === "waiting" || !tb.game;
  L.waitingHost.hidden = !waiting;
  L.gameLayout.hidden = waiting;
  if (waiting) {
    renderWaiting(L.waitingHost, S, {
      rest: (method, path, body) => rest(page, method, path, body), invite: page.invite, copyInvite: () => copyInvite(page), takeSeat: () => takeSeat(page),
    });
  } else renderGame(page);
  const chatHome = waiting ? L.chatSlot : L.side;
  if (page.chat.element.parentNode !== chatHome) chatHome.appendChild(page.chat.element);
  page.chat.setTable(tb, { seat: S.mySeat, seated: isSeated(S) });
  drawEnd(page);
  const g = tb.game;
  const mine = myTurn(g, myGameSeat(S));
  page.alerts.update({
    mine,
    title: document.title,
    body: mine && g ? t("table.alert_body", { name, prompt: kindPrompt(g.decision_kind, g.pending_card, true) }) : "",
  });
  page.tutorial.update(tb);
  restoreFocus(key, page.root);
}

/**
 * The page's parts, put together in `root` (its modules draw into the layout).
 * @param {HTMLElement} root
 * @param {import("./tablestate.js").TableState} S
 * @returns {TablePage}
 */
function buildPage(root, S) {
  /** @param {number} s */
  const names = (s) => nameOf(S, s);
  const page = /** @type {TablePage} */ ({ S, root, names, invite: inviteLink(`/t/${encodeURIComponent(S.id)}`, null) });
  page.press = pressHold(root);
  page.pill = connectionPill();
  page.alerts = turnAlerts(); // "your turn" in the tab title, a sound, a notification
  page.chat = chatPanel({ send: (frame) => !!S.conn && S.conn.send(frame) }); // the table chat (chat.js)
  page.L = tableLayout(root, {
    onInvite: () => copyInvite(page),
    onResults: () => { S.endClosedFor = null; drawEnd(page); },
    onLeave: () => leaveGame(page),
    chatJump: page.chat.jump,
    alerts: page.alerts.element,
  });
  page.tutorial = mountTutorial(page.L.page, S.id); // a guided first game's lessons
  page.log = tableLog(page.L.logList, S, names);
  page.player = eventPlayer({ board: page.L.boardHost, fxLayer: page.L.fxLayer, log: page.log.line, names, seats: () => gameSeats(S).length });
  page.decision = decisionPanel({ S, host: page.L.decisionHost, board: page.L.boardHost, render: () => render(page), names,
    rest: (method, path, body) => rest(page, method, path, body) });
  return page;
}

/**
 * The table's own page when the table does not exist.
 * @param {TablePage} page
 */
function notFound(page) {
  page.L.loading.hidden = true;
  page.L.page.appendChild(h("section", { class: "panel notfound", dataset: { testid: "table-unknown" } },
    h("h2", { text: t("table.not_found") }),
    h("p", { class: "muted", text: t("table.not_found_text") }),
    h("a", { href: "/", "data-link": true, class: "btn btn--primary" }, t("common.back_to_lobby"))));
}

/**
 * The table's own page once the table is closed: what happened, its finished games'
 * replays and the way back to the lobby, in the page's language (never the spinner,
 * never the server's English with an API path).
 * @param {TablePage} page
 */
function closedPage(page) {
  const { S, L } = page;
  if (L.page.querySelector(".closed-table")) return;
  const header = L.title.closest(".table-head");
  for (const child of L.page.children) if (child instanceof HTMLElement && child !== header) child.hidden = true;
  // Nothing to invite to or be alerted of: the title alone stays.
  L.stateChip.hidden = true;
  const tools = header && header.querySelector(".table-head-tools");
  if (tools instanceof HTMLElement) tools.hidden = true;
  const note = h("p", { class: "muted", text: t("table.closed_games_loading") });
  const games = h("ul", { class: "closed-games" });
  L.page.appendChild(h("section", { class: "panel notfound closed-table", dataset: { testid: "table-closed" } },
    h("h2", { text: t("table.closed_title") }),
    h("p", { text: t("table.closed_text") }),
    note, games,
    h("a", { href: "/", "data-link": true, class: "btn btn--primary" }, t("common.back_to_lobby"))));
  api("GET", `/api/tables/${encodeURIComponent(S.id)}/games`).then((answer) => {
    const data = /** @type {import("./protocol.js").GameList | null} */ (answer);
    const over = data ? data.games.filter((g) => g.over) : [];
    note.textContent = over.length ? t("table.closed_games") : t("table.closed_no_games");
    for (const g of over) {
      games.appendChild(h("li", {}, h("a", { href: `/replay/game/${encodeURIComponent(g.id)}`, "data-link": true, dataset: { testid: "closed-replay" } },
        t("table.closed_game", { n: g.number }))));
    }
  }).catch(() => {
    note.textContent = t("table.closed_no_games");
  });
}

/**
 * Mount the table page of table `id` in `root`.
 * @param {HTMLElement} root
 * @param {{id: string}} params
 * @returns {{destroy: () => void}}
 */
export function mountTable(root, { id }) {
  const S = newTableState(id);
  document.body.dataset.view = "table";
  document.title = t("table.page_title", { name: t("table.table") });
  const page = buildPage(root, S);
  setTopbar(page.pill.element);
  // The bots' levels for their seats' badges ("bot · Easy", not the spec): drawn again
  // once known.
  loadBots().then(() => {
    if (!S.destroyed && S.table) render(page);
  });
  // From the address this page was opened at until the server says whether it has a
  // public URL (and, for a loopback address, where friends can reach it instead).
  loadServerInfo().then((info) => {
    if (!info || S.destroyed) return;
    page.invite = inviteLink(`/t/${encodeURIComponent(id)}`, info);
    if (S.table) render(page);
  });
  /** @type {(state: import("./connection.js").ConnState, delay?: number) => void} */
  const setConn = (state, delay) => {
    S.connState = state;
    page.pill.show(state, delay);
    page.L.decisionHost.classList.toggle("is-offline", state !== "online");
  };
  const onMessage = frameHandler({
    S, names: page.names, log: page.log, player: page.player, chat: page.chat, setConn,
    applyTable: (table, events) => applyTable(page, table, events), render: () => render(page), forgetToken: () => forgetToken(page),
    closed: () => closedPage(page),
  });
  const conn = tableConnection(id, { hello: () => ({ token: S.token, version: S.table ? S.table.version : null }), onMessage, onState: setConn });
  S.conn = conn;

  api("GET", `/api/tables/${encodeURIComponent(id)}`).then((answer) => {
    if (S.destroyed) return;
    // The answer is {"table": TableState} (protocol.md shows a bare TableState).
    const data = /** @type {import("./protocol.js").TableAnswer | Table | null} */ (answer);
    const table = data && "table" in data ? data.table : data;
    if (!S.table && table && table.seats) applyTable(page, table);
    conn.start();
  }).catch((err) => {
    if (S.destroyed) return;
    if (err instanceof ApiError && err.status === 404) {
      setConn("closed");
      notFound(page);
      return;
    }
    if (err instanceof ApiError && err.status === 410) {
      setConn("closed");
      closedPage(page);
      return;
    }
    conn.start();
  });

  const ticker = setInterval(() => {
    tickCountdowns(root);
    for (const btn of root.querySelectorAll("[data-testid=handover]")) if (btn instanceof HTMLButtonElement) tickHandover(btn);
  }, 1000);
  const onOnline = () => { if (S.connState !== "online") conn.restart(); };
  const onKey = page.decision.onKey;
  document.addEventListener("keydown", onKey);
  window.addEventListener("online", onOnline);

  return {
    destroy() {
      S.destroyed = true;
      page.player.flush();
      page.alerts.destroy();
      page.chat.destroy();
      page.tutorial.destroy();
      document.documentElement.style.removeProperty("--decision-h");
      clearInterval(ticker);
      document.removeEventListener("keydown", onKey);
      window.removeEventListener("online", onOnline);
      if (S.conn) S.conn.stop();
    },
  };
}
