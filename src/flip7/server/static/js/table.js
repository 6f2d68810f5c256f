// @ts-nocheck -- TEMPORARY (jstool branch): the lead removes this line when merging the table.js/cards.js rewrite, which brings its own JSDoc types.
// The table page (/t/{id}): the WebSocket connection, the waiting room, the live game,
// decisions, the event animations and log, the score sheet and the end-of-game screen.
import { turnAlerts } from "./alerts.js";
import { api, joinTable } from "./api.js";
import { countdownEl, renderBoard, renderScoreSheet, seatHue, tickCountdowns } from "./board.js";
import { cardEl, cardName, decisionLabel, eventLine, kindPrompt, lineNodes, parseDecision, tparts } from "./cards.js";
import { setExplainRules } from "./explain.js";
import { chatPanel } from "./chat.js";
import { mountEndSummary } from "./endscreen.js"; // H6: rating changes and the game's statistics
import { errorText, formatNumber, has, t } from "./i18n.js";
import { navigate, setTopbar } from "./router.js";
import { flip7Bonus, minPlayers as fewestPlayers, ruleBadges, ruleValue } from "./rules.js";
import { mountTutorial } from "./tutorial.js";
import {
  add, askName, clear, copyText, focusKey, h, icon, initial, inviteLink, inviteWarning, loadServerInfo, restoreFocus, scrollBetween, store, toast,
  tokenKey,
} from "./util.js";

/** A bot level's name in the reader's language ("Easy" → "Leicht"); the server's name is
 * what is sent. Names the catalogue does not know (a spec) are shown as they are. */
export function levelName(name) {
  return name && has(`table.bots.level.${name}`) ? t(`table.bots.level.${name}`) : name;
}

// The bots a seat can be filled with (GET /api/bots): the levels by name, weakest first,
// with the server's default, and the technical specs for those who want them.
let botsCache = null;
async function loadBots() {
  if (botsCache) return botsCache;
  try {
    const data = await api("GET", "/api/bots");
    if (data && Array.isArray(data.levels)) {
      botsCache = { bots: Array.isArray(data.bots) ? data.bots : [], levels: data.levels, default: data.default || null };
    }
  } catch {
    /* not cached: the next render asks again; meanwhile "Add bot" sends no bot (the server's default) */
  }
  return botsCache || { bots: [], levels: [], default: null };
}

/** The add-bot control: a level (the server's default preselected), what it plays like,
 * and under "Advanced" a bot spec typed in. ``S`` keeps the choice across re-renders. */
function botPicker(S, canAdd, rest) {
  const select = h("select", { id: "bot-level", class: "select", "aria-describedby": "bot-blurb", dataset: { focusKey: "bot-level", testid: "bot-level" } });
  const blurb = h("p", { id: "bot-blurb", class: "hint bot-blurb", "aria-live": "polite", dataset: { testid: "bot-blurb" } });
  const specInput = h("input", {
    id: "bot-spec", class: "input bot-spec-input", type: "text", maxlength: "100", autocomplete: "off", spellcheck: "false",
    placeholder: t("table.bots.spec_placeholder"), "aria-describedby": "bot-spec-help", dataset: { focusKey: "bot-spec", testid: "bot-spec" },
  });
  specInput.value = S.botSpec || "";
  let info = { bots: [], levels: [], default: null };
  const describe = () => {
    const spec = specInput.value.trim();
    const level = info.levels.find((l) => l.name === select.value);
    if (spec) blurb.textContent = t("table.bots.adds_spec", { spec });
    else if (level) blurb.textContent = has(`table.bots.blurb.${level.name}`) ? t(`table.bots.blurb.${level.name}`) : level.blurb;
    else blurb.textContent = select.value ? t("table.bots.by_spec_blurb", { name: select.value }) : "";
  };
  loadBots().then((data) => {
    info = data;
    const keep = S.lastBot || data.default;
    clear(select);
    for (const l of data.levels) select.appendChild(h("option", { value: l.name, text: levelName(l.name) }));
    if (data.bots.length) select.appendChild(h("optgroup", { label: t("table.bots.by_spec") }, data.bots.map((b) => h("option", { value: b, text: b }))));
    const values = [...select.options].map((o) => o.value);
    select.value = values.includes(keep) ? keep : (data.default || values[0] || "");
    describe();
  });
  select.addEventListener("change", () => { S.lastBot = select.value; describe(); });
  specInput.addEventListener("input", () => { S.botSpec = specInput.value; describe(); });
  const addBot = h("button", {
    type: "button", class: "btn btn--secondary", disabled: !canAdd, dataset: { testid: "add-bot", focusKey: "add-bot" },
    onclick: async (ev) => {
      const btn = ev.currentTarget;
      btn.disabled = true;
      const spec = specInput.value.trim();
      const bot = spec || select.value;
      if (!spec && select.value) S.lastBot = select.value;
      const ok = await rest("POST", "/bots", bot ? { bot } : {});
      if (!ok && btn.isConnected) btn.disabled = false; // refused: the message is shown, try again
    },
  }, icon("bot"), t("table.bots.add"));
  specInput.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !addBot.disabled) { ev.preventDefault(); addBot.click(); }
  });
  const advanced = h("details", { class: "bot-advanced", open: !!(S.botSpecOpen || S.botSpec), dataset: { testid: "bot-advanced" } },
    h("summary", { text: t("table.bots.advanced"), dataset: { focusKey: "bot-advanced" } }),
    h("div", { class: "bot-spec-field" },
      h("label", { for: "bot-spec", class: "field-label", text: t("table.bots.spec") }),
      specInput,
      h("small", { id: "bot-spec-help", class: "muted", text: t("table.bots.spec_help") })));
  advanced.addEventListener("toggle", () => { S.botSpecOpen = advanced.open; });
  return [
    h("div", { class: "control-row bot-picker" }, h("label", { for: "bot-level", class: "field-label inline", text: t("table.bots.level") }), select, addBot),
    blurb,
    advanced,
  ];
}

/** WebSocket with automatic reconnection (exponential backoff with jitter). */
class Connection {
  constructor(url, { onOpen, onMessage, onState }) {
    this.url = url;
    this.onOpen = onOpen;
    this.onMessage = onMessage;
    this.onState = onState;
    this.ws = null;
    this.attempt = 0;
    this.stopped = true;
    this.retryTimer = null;
    this.pingTimer = null;
  }

  start() {
    this.stopped = false;
    this.open();
  }

  open() {
    clearTimeout(this.retryTimer);
    this.onState(this.attempt ? "reconnecting" : "connecting");
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.attempt = 0;
      this.onOpen();
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ v: 1, type: "ping" }), 25000);
    };
    ws.onmessage = (ev) => {
      if (ws !== this.ws) return;
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.onMessage(msg);
    };
    ws.onclose = () => {
      if (ws !== this.ws) return;
      clearInterval(this.pingTimer);
      if (!this.stopped) this.retry();
      else this.onState("closed");
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  retry() {
    const base = Math.min(15000, 500 * 2 ** this.attempt);
    const delay = Math.round(base * (0.75 + Math.random() * 0.5));
    this.attempt += 1;
    this.onState("offline", delay);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  /** Drop the socket and connect again at once (new token, back online). */
  restart() {
    const old = this.ws;
    this.ws = null;
    if (old) {
      old.onclose = null;
      try {
        old.close(1000);
      } catch {
        /* ignore */
      }
    }
    this.attempt = 0;
    this.stopped = false;
    this.open();
  }

  send(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(obj));
      return true;
    }
    return false;
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.onclose = null;
      try {
        ws.close(1000);
      } catch {
        /* ignore */
      }
    }
  }
}

const CONN_TEXT = {
  connecting: t("table.conn.connecting"),
  reconnecting: t("table.conn.reconnecting"),
  online: t("table.conn.online"),
  offline: t("table.conn.offline"),
  closed: t("table.conn.closed"),
};

export function mountTable(root, { id }) {
  const S = {
    id,
    token: store.get(tokenKey(id)),
    mySeat: null, // table seat from welcome
    table: null,
    conn: null,
    connState: "connecting",
    pendingMove: null,
    moveCounter: 0,
    swapFirst: null,
    endClosedFor: null,
    tab: "log",
    lastTurnKey: null,
    logVersion: null, // the last table version whose events are in the log
    destroyed: false,
  };
  document.body.dataset.view = "table";
  document.title = t("table.page_title", { name: t("table.table") });

  // ---- persistent layout -------------------------------------------------------------
  const title = h("h1", { class: "table-title", text: t("table.table") });
  const stateChip = h("span", { class: "chip chip--state" });
  const connPill = h("span", { class: "conn conn--connecting", role: "status", "aria-live": "polite", dataset: { testid: "conn" } },
    h("span", { class: "conn-dot", "aria-hidden": "true" }), h("span", { class: "conn-text", text: CONN_TEXT.connecting }));
  // From the address this page was opened at until the server says whether it has a
  // public URL (and, for a loopback address, where friends can reach it instead).
  let invite = inviteLink(`/t/${encodeURIComponent(id)}`, null);
  loadServerInfo().then((info) => {
    if (!info || S.destroyed) return;
    invite = inviteLink(`/t/${encodeURIComponent(id)}`, info);
    if (S.table) render();
  });
  const inviteBtn = h("button", { type: "button", class: "btn btn--ghost btn--small", "aria-label": t("table.invite.copy_label"), onclick: copyInvite },
    icon("link"), h("span", { class: "hide-narrow", text: t("table.invite.button") }));
  const resultsBtn = h("button", { type: "button", class: "btn btn--ghost btn--small", hidden: true, onclick: () => { S.endClosedFor = null; renderEnd(); } },
    icon("trophy"), h("span", { class: "hide-narrow", text: t("table.results") }));
  const leaveGameBtn = h("button", { type: "button", class: "btn btn--ghost btn--small", hidden: true, "aria-label": t("table.leave_label"), onclick: leaveGame },
    h("span", { text: t("table.leave") }));
  const spectatorBadge = h("span", { class: "chip chip--watch", hidden: true }, icon("eye"), t("table.watching"));
  const alerts = turnAlerts(); // "your turn" in the tab title, a sound, a notification
  const chat = chatPanel({ send: (frame) => S.conn.send(frame) }); // the table chat (chat.js)
  const header = h("div", { class: "table-head" },
    h("div", { class: "table-head-main" }, title, stateChip, spectatorBadge),
    h("div", { class: "table-head-tools" }, resultsBtn, chat.jump, alerts.element, inviteBtn, leaveGameBtn));
  setTopbar(connPill);

  const waitingHost = h("div", { class: "waiting-host" });
  const boardHost = h("div", { class: "board-host" });
  const fxLayer = h("div", { class: "fx-layer", "aria-hidden": "true" });
  const decisionHost = h("section", { id: "decision", class: "decision", "aria-label": t("table.decision.label"), dataset: { state: "idle" } });
  const logList = h("ol", { class: "log", "aria-label": t("table.log_label"), dataset: { testid: "log" } });
  const scoresHost = h("div", { class: "scores-host" });
  const tabLog = h("button", { type: "button", role: "tab", class: "tab", id: "tab-log", "aria-controls": "panel-log", onclick: () => setTab("log") }, t("table.tab.log"));
  const tabScores = h("button", { type: "button", role: "tab", class: "tab", id: "tab-scores", "aria-controls": "panel-scores", onclick: () => setTab("scores") }, t("table.tab.scores"));
  const panelLog = h("div", { role: "tabpanel", id: "panel-log", "aria-labelledby": "tab-log", class: "tabpanel" }, logList);
  const panelScores = h("div", { role: "tabpanel", id: "panel-scores", "aria-labelledby": "tab-scores", class: "tabpanel" }, scoresHost);
  const side = h("aside", { class: "game-side panel", "aria-label": t("table.side_label") },
    h("div", { class: "tabs", role: "tablist" }, tabLog, tabScores), panelLog, panelScores);
  const gameMain = h("div", { class: "game-main" }, h("div", { class: "board-wrap" }, boardHost, fxLayer), decisionHost);
  const gameLayout = h("div", { class: "game-layout" }, gameMain, side);
  const endHost = h("div", { class: "end-host" });
  const announcer = h("div", { class: "visually-hidden", role: "status", "aria-live": "assertive" });
  const loading = h("div", { class: "loading panel" }, h("span", { class: "spinner", "aria-hidden": "true" }), t("table.joining"));
  // The chat sits in the side column during a game and under the waiting room before.
  const chatSlot = h("div", { class: "chat-slot" });
  root.append(h("div", { class: "table-page" }, header, loading, waitingHost, chatSlot, gameLayout, endHost, announcer));
  const tutorial = mountTutorial(root.querySelector(".table-page"), id); // a guided first game's lessons
  waitingHost.hidden = true;
  gameLayout.hidden = true;

  function setTab(tab) {
    S.tab = tab;
    tabLog.setAttribute("aria-selected", String(tab === "log"));
    tabScores.setAttribute("aria-selected", String(tab === "scores"));
    panelLog.hidden = tab !== "log";
    panelScores.hidden = tab !== "scores";
  }
  setTab("log");

  async function copyInvite() {
    const ok = await copyText(invite.url);
    if (ok && invite.loopback) toast(t("table.invite.copied_loopback", { host: invite.host }), "info", 7000);
    else toast(ok ? t("table.invite.copied") : invite.url, ok ? "ok" : "info");
  }

  // ---- helpers ---------------------------------------------------------------------
  const game = () => (S.table ? S.table.game : null);
  const playerSeats = () => (S.table ? S.table.seats.filter((s) => s.kind !== "empty") : []);
  const seatMeta = (gs) => playerSeats()[gs] || null;
  const nameOf = (s) => {
    const g = game();
    if (g && g.players[s]) return g.players[s].name;
    const seat = S.table && S.table.seats.find((x) => x.seat === s);
    return seat && seat.name ? seat.name : t("table.seat_n", { n: s + 1 });
  };
  const myGameSeat = () => {
    const g = game();
    if (g && g.viewer !== null && g.viewer !== undefined) return g.viewer;
    return null;
  };
  const isSeated = () => !!S.token && (S.mySeat !== null || myGameSeat() !== null);

  /** An error frame's words: the catalogue's for its code (error.<code>), the move a
   * tutorial's lesson asks for, else the server's own message. */
  function errorFrame(msg) {
    const tut = S.table && S.table.tutorial;
    if (msg.code === "tutorial_step" && tut && tut.expect && S.table.game) {
      const move = decisionLabel(tut.expect, { names: nameOf, me: myGameSeat(), pending: S.table.game.pending_card });
      return t("tutorial.refusal", { move });
    }
    return errorText(msg, t("table.error_code", { code: String(msg.code) }));
  }

  function setConn(state, delay) {
    S.connState = state;
    connPill.className = `conn conn--${state}`;
    const text = state === "offline" && delay ? t("table.conn.retrying", { count: Math.ceil(delay / 1000) }) : CONN_TEXT[state] || state;
    connPill.querySelector(".conn-text").textContent = text;
    decisionHost.classList.toggle("is-offline", state !== "online");
  }

  async function rest(method, path, body) {
    try {
      const data = await api(method, `/api/tables/${encodeURIComponent(id)}${path}`, { body, token: S.token });
      if (data && data.table && S.table && data.table.version > S.table.version) applyTable(data.table);
      return data || {};
    } catch (err) {
      toast(errorText(err, t("error.unknown")));
      if (err.status === 401) forgetToken();
      return null;
    }
  }

  function forgetToken() {
    store.del(tokenKey(id));
    S.token = null;
    S.mySeat = null;
    S.conn.restart();
  }

  // ---- animations and the log --------------------------------------------------------
  const anim = { timers: [], pending: [], holds: [] };

  /** The log's line for an event (null for events without one); `restored`: not animated. */
  function logItem(ev0, restored = false) {
    let ev = ev0;
    if (ev.type === "seat_left" && S.table) {
      // Mid-game the seat stays (a bot plays it); before the start it is emptied.
      const seat = S.table.seats.find((x) => x.seat === ev.seat);
      if (seat && seat.kind !== "empty" && seat.left) ev = { ...ev, name: seat.name };
    }
    const line = lifeLine(ev) || eventLine(ev, nameOf);
    if (!line) return null;
    return h("li", { class: `log-item log--${line.tone}${restored ? " is-restored" : ""}`, dataset: { type: ev.type } },
      h("span", { class: "log-dot", "aria-hidden": "true" }), h("span", { class: "log-text" }, lineNodes(line)));
  }

  const startsGame = (change) => (change.events || []).some((ev) => ev.type === "game_started");

  /**
   * The log from a welcome's history (every change of the current game since its
   * game_started, with versions), shown at once and never animated. After a reconnect only
   * the changes past the last version already shown are added, so no line comes twice.
   */
  function logHistory(history) {
    const held = history.length > 0 && S.logVersion !== null && history[0].version <= S.logVersion + 1;
    let changes = held ? history.filter((c) => c.version > S.logVersion) : history;
    const restart = changes.findLastIndex(startsGame);
    if (!held || restart >= 0) {
      clear(logList);
      if (restart > 0) changes = changes.slice(restart);
    }
    const lines = document.createDocumentFragment();
    for (const change of changes) {
      for (const ev of change.events || []) {
        const li = logItem(ev, true);
        if (li) lines.appendChild(li);
      }
    }
    logList.appendChild(lines);
    while (logList.children.length > 400) logList.firstElementChild.remove();
    logList.scrollTop = logList.scrollHeight;
    if (history.length) S.logVersion = Math.max(S.logVersion ?? 0, history[history.length - 1].version);
  }

  function logLine(ev) {
    // The log is the current game's, as a welcome's history is: a new game starts it afresh.
    if (ev.type === "game_started") clear(logList);
    const li = logItem(ev);
    if (!li) return;
    const stick = logList.scrollHeight - logList.scrollTop - logList.clientHeight < 40;
    logList.appendChild(li);
    while (logList.children.length > 400) logList.firstElementChild.remove();
    if (stick) logList.scrollTop = logList.scrollHeight;
  }

  function seatEl(s) {
    return boardHost.querySelector(`.seat[data-seat="${s}"]`);
  }

  function fx(el, cls, ms = 900) {
    if (!el) return;
    el.classList.remove(cls);
    void el.offsetWidth; // restart the animation
    el.classList.add(cls);
    setTimeout(() => el.classList.remove(cls), ms);
  }

  function banner(text, tone) {
    for (const old of fxLayer.querySelectorAll(".banner")) old.remove();
    const b = h("div", { class: `banner banner--${tone}`, text });
    fxLayer.appendChild(b);
    setTimeout(() => b.remove(), 1400);
  }

  /** Where each event puts a card: [seat, row, code] — used to flip the card in. */
  function arrivals(ev) {
    switch (ev.type) {
      case "dealt":
      case "drew":
        return [[ev.seat, "line", ev.card]];
      case "stolen":
        return [[ev.seat, "any", ev.card]];
      case "swapped":
        return [[ev.seat1, "any", ev.card2], [ev.seat2, "any", ev.card1]];
      case "modifier_given":
        return [[ev.to, "mod", ev.card]];
      default:
        return [];
    }
  }

  function findCard(seat, row, code, claimed) {
    const panel = seatEl(seat);
    if (!panel) return null;
    const sel = row === "line" ? ".seat-line .card" : row === "mod" ? ".seat-mods .card" : ".card";
    const cards = [...panel.querySelectorAll(sel)].filter((c) => c.dataset.code === code && !claimed.has(c));
    return cards.length ? cards[cards.length - 1] : null;
  }

  function visual(ev, marks) {
    for (const el of marks) {
      el.classList.remove("incoming");
      fx(el, "arrive", 700);
    }
    switch (ev.type) {
      case "dealt":
      case "drew":
        fx(seatEl(ev.seat), "fx-draw", 600);
        if (!marks.length) fx(boardHost.querySelector(".pile--pending .card, .pile--discard .card"), "arrive", 700);
        break;
      case "busted":
        fx(seatEl(ev.seat), "fx-bust", 900);
        break;
      case "stayed":
        fx(seatEl(ev.seat), "fx-stay", 800);
        break;
      case "flip7":
        fx(seatEl(ev.seat), "fx-star", 1400);
        banner(t("table.banner.flip7", { name: nameOf(ev.seat) }), "star");
        break;
      case "action_used":
        fx(seatEl(ev.target), "fx-action", 900);
        break;
      case "stolen":
        fx(seatEl(ev.victim), "fx-bad", 900);
        fx(seatEl(ev.seat), "fx-action", 900);
        break;
      case "swapped":
        fx(seatEl(ev.seat1), "fx-action", 900);
        fx(seatEl(ev.seat2), "fx-action", 900);
        break;
      case "discarded":
      case "wiped":
        fx(seatEl(ev.victim ?? ev.seat), "fx-bad", 900);
        break;
      case "modifier_given":
        fx(seatEl(ev.to), "fx-mod", 800);
        break;
      case "minus15":
        fx(seatEl(ev.target), "fx-bad", 900);
        banner(t("table.banner.minus", { bonus: flip7Bonus(), name: nameOf(ev.target) }), "bad");
        break;
      case "bonus_taken":
        banner(t("table.banner.bonus", { bonus: flip7Bonus(), name: nameOf(ev.seat) }), "star");
        break;
      case "round_scored":
        banner(t("table.banner.round_scored", { round: ev.round }), "round");
        break;
      case "reshuffled":
        fx(boardHost.querySelector(".pile--draw .card"), "arrive", 700);
        break;
      default:
        break;
    }
  }

  /** Play the queued events at once (a new update arrived): keeps the log in order. */
  function flushAnimations() {
    for (const timer of anim.timers) clearTimeout(timer);
    anim.timers = [];
    for (const item of anim.pending) {
      logLine(item.ev);
      for (const el of item.marks) el.classList.remove("incoming");
    }
    anim.pending = [];
    for (const release of anim.holds) release();
    anim.holds = [];
  }

  /** The seats an event changes (whose scores must wait for it). */
  function seatsOf(ev) {
    if (ev.type === "round_scored" || ev.type === "game_over") return playerSeats().map((_, s) => s);
    return [ev.seat, ev.victim, ev.target, ev.to, ev.seat1, ev.seat2].filter((s) => typeof s === "number");
  }

  /**
   * A seat's round score, total and Flip 7 pips keep their old values until the last event
   * of the batch that touches the seat has landed (its card animation included): the score
   * changes with the card, not before it.
   */
  function holdScores(items, prev) {
    const last = new Map();
    for (const item of items) for (const s of seatsOf(item.ev)) last.set(s, item);
    for (const [s, item] of last) {
      const before = prev.players[s];
      const panel = seatEl(s);
      if (!before || !panel) continue;
      const round = panel.querySelector(".score--round b");
      const total = panel.querySelector(".seat-total");
      const pips = [...panel.querySelectorAll(".pip")];
      const now = { round: round ? round.textContent : null, total: total ? total.textContent : null, on: pips.map((p) => p.classList.contains("pip--on")) };
      const count = (before.line || []).length;
      if (round) round.textContent = String(before.round_score);
      if (total) total.textContent = String(before.total);
      pips.forEach((p, i) => p.classList.toggle("pip--on", i < count));
      panel.classList.add("is-scoring");
      let done = false;
      const release = () => {
        if (done) return;
        done = true;
        if (round) round.textContent = now.round;
        if (total) total.textContent = now.total;
        pips.forEach((p, i) => p.classList.toggle("pip--on", now.on[i]));
        panel.classList.remove("is-scoring");
      };
      anim.holds.push(release);
      // The card's arrival animation lasts 500 ms (.card.arrive in style.css).
      anim.timers.push(setTimeout(release, item.at + (item.marks.length ? 450 : 0)));
    }
  }

  const WEIGHT = { dealt: 1, drew: 1.2, busted: 1.5, flip7: 2, stolen: 1.3, swapped: 1.3, discarded: 1.1, wiped: 1.3,
    action_used: 1.1, modifier_given: 1, stayed: 0.8, round_scored: 1.5, minus15: 1.2, bonus_taken: 1 };

  /** Animate a batch of events in order; the whole batch lasts at most about a second. */
  function playEvents(events, prev) {
    const claimed = new Set();
    const items = events.map((ev) => {
      const marks = [];
      for (const [seat, row, code] of arrivals(ev)) {
        const el = findCard(seat, row, code, claimed);
        if (el) {
          claimed.add(el);
          el.classList.add("incoming");
          marks.push(el);
        }
      }
      return { ev, marks };
    });
    const total = items.reduce((acc, it) => acc + (WEIGHT[it.ev.type] || 0), 0);
    const unit = total > 0 ? Math.min(280, 950 / total) : 0;
    let at = 0;
    anim.pending = items.slice();
    for (const item of items) {
      item.at = at;
      const timer = setTimeout(() => {
        const i = anim.pending.indexOf(item);
        if (i >= 0) anim.pending.splice(i, 1);
        logLine(item.ev);
        visual(item.ev, item.marks);
      }, at);
      anim.timers.push(timer);
      at += (WEIGHT[item.ev.type] || 0) * unit;
    }
    if (prev) holdScores(items, prev);
  }

  // ---- state updates ---------------------------------------------------------------
  function applyTable(table, events) {
    if (S.destroyed) return;
    flushAnimations();
    const prevGameId = S.table ? S.table.game_id : null;
    const prevGame = S.table && S.table.game_id === table.game_id ? S.table.game : null;
    S.table = table;
    setExplainRules(table.rules); // the cards' words follow this table's house rules
    const g = table.game;
    if (S.pendingMove && (table.version > S.pendingMove.version || !g || g.to_decide !== g.viewer)) S.pendingMove = null;
    if (g && g.viewer !== null && g.viewer !== undefined) {
      /* seated in this game */
    }
    if (table.game_id !== prevGameId) S.swapFirst = null;
    if (!g || g.decision_kind !== "swap" || g.to_decide !== g.viewer) S.swapFirst = null;
    render();
    if (events && events.length) playEvents(events, prevGame && table.game && prevGame.players.length === table.game.players.length ? prevGame : null);
  }

  function render() {
    const tb = S.table;
    if (!tb) return;
    const key = focusKey();
    loading.hidden = true;
    // A guided first game's table is named by the server, in English: its title is the
    // reader's "Learn to play" while its lessons run.
    const name = tb.tutorial ? t("tutorial.learn") : tb.name || t("table.table");
    title.textContent = name;
    document.title = t("table.page_title", { name });
    const stateText = tb.state === "waiting" ? t("table.state.waiting")
      : tb.state === "playing" ? (tb.game_number ? t("table.state.playing_game", { number: tb.game_number }) : t("table.state.playing")) : t("table.state.over");
    stateChip.textContent = stateText;
    stateChip.dataset.state = tb.state;
    spectatorBadge.hidden = isSeated();
    leaveGameBtn.hidden = !(isSeated() && tb.state === "playing");
    root.querySelector(".table-page").dataset.state = tb.state;
    if (tb.state === "waiting" || !tb.game) {
      waitingHost.hidden = false;
      gameLayout.hidden = true;
      renderWaiting();
    } else {
      waitingHost.hidden = true;
      gameLayout.hidden = false;
      renderGame();
    }
    const chatHome = gameLayout.hidden ? chatSlot : side;
    if (chat.element.parentNode !== chatHome) chatHome.appendChild(chat.element);
    chat.setTable(tb, { seat: S.mySeat, seated: isSeated() });
    renderEnd();
    const g = tb.game;
    const mine = myTurn(g, myGameSeat());
    alerts.update({
      mine,
      title: document.title,
      body: mine ? t("table.alert_body", { name, prompt: kindPrompt(g.decision_kind, g.pending_card, true) }) : "",
    });
    tutorial.update(tb);
    restoreFocus(key, root);
  }

  // ---- waiting room ------------------------------------------------------------------
  function renderWaiting() {
    const tb = S.table;
    clear(waitingHost);
    const seated = tb.seats.filter((s) => s.kind !== "empty");
    const empty = tb.seats.filter((s) => s.kind === "empty");
    const minPlayers = fewestPlayers(ruleValue(tb.rules, "allow_two_players"));
    const me = S.token ? S.mySeat : null;

    const list = h("ol", { class: "seat-list", "aria-label": t("table.waiting.seats") }, tb.seats.map((seat) => {
      const mine = seat.seat === me;
      const remove = seat.kind === "bot" && isSeated()
        ? h("button", { type: "button", class: "btn btn--icon", "aria-label": t("table.waiting.remove", { name: seat.name || t("table.bot") }), dataset: { focusKey: `rm:${seat.seat}` },
          onclick: () => rest("DELETE", `/seats/${seat.seat}`) }, icon("close")) : null;
      return h("li", { class: `seat-row seat-row--${seat.kind}${mine ? " is-me" : ""}`, dataset: { seat: String(seat.seat), kind: seat.kind } },
        h("span", { class: "seat-row-num", text: formatNumber(seat.seat + 1) }),
        seat.kind === "empty" ? h("span", { class: "avatar avatar--empty", "aria-hidden": "true" })
          : h("span", { class: "avatar", style: { "--hue": String(seatHue(seat.seat)) }, "aria-hidden": "true" },
            seat.kind === "bot" ? icon("bot") : initial(seat.name)),
        h("span", { class: "seat-row-name" },
          seat.kind === "empty" ? h("span", { class: "muted", text: t("table.waiting.empty_seat") }) : h("span", { text: seat.name }),
          mine ? h("span", { class: "badge badge--you", text: t("table.you") }) : null,
          seat.kind === "bot" ? h("span", { class: "badge badge--bot", text: t("table.bot_level", { level: seat.bot ? levelName(seat.bot) : t("table.waiting.basic") }) }) : null,
          seat.kind === "human" && !seat.connected ? h("span", { class: "badge badge--offline", text: t("table.offline") }) : null),
        remove);
    }));

    const controls = h("div", { class: "waiting-controls" });
    if (isSeated()) {
      const canStart = seated.length >= minPlayers;
      const start = h("button", {
        type: "button", class: "btn btn--primary btn--big", disabled: !canStart, dataset: { testid: "start", focusKey: "start" },
        onclick: async (ev) => {
          ev.currentTarget.disabled = true;
          await rest("POST", "/start");
        },
      }, t("table.waiting.start"));
      const leave = h("button", {
        type: "button", class: "btn btn--ghost", dataset: { focusKey: "leave" },
        onclick: async () => {
          const ok = await rest("POST", "/leave");
          if (ok) {
            store.del(tokenKey(id));
            S.token = null;
            S.mySeat = null;
            navigate("/");
          }
        },
      }, t("table.waiting.leave"));
      add(controls, 
        botPicker(S, empty.length > 0, rest),
        h("div", { class: "control-row" }, start, leave),
        canStart ? null : h("p", { class: "hint", text: t("table.waiting.need_players", { count: minPlayers }) }));
    } else {
      add(controls, h("p", { class: "hint" }, icon("eye"), " ", t("table.waiting.watching")));
      if (empty.length) {
        add(controls, h("button", {
          type: "button", class: "btn btn--primary btn--big", dataset: { testid: "take-seat", focusKey: "take-seat" },
          onclick: takeSeat,
        }, t("table.waiting.take_seat")));
      }
    }

    const badges = ruleBadges(tb.rules, tb.turn_timer);
    add(waitingHost, 
      h("section", { class: "panel waiting" },
        h("div", { class: "waiting-head" },
          h("h2", { text: t("table.state.waiting") }),
          h("span", { class: "chip", text: t("table.waiting.seated", { n: seated.length, count: tb.seats.length }) })),
        badges.length ? h("div", { class: "rule-badges" }, badges.map((b) => h("span", { class: `badge badge--rule ${b.cls ? `badge--${b.cls}` : ""}`, text: b.text }))) : null,
        list, controls),
      h("section", { class: "panel invite" },
        h("h2", { text: t("table.invite.title") }),
        h("p", { class: "muted", text: t("table.invite.text") }),
        inviteWarning(invite),
        h("div", { class: "invite-row" },
          h("input", { class: "input invite-input", type: "text", readonly: true, value: invite.url, "aria-label": t("table.invite.link"), dataset: { testid: "invite-url" }, onfocus: (e) => e.target.select() }),
          h("button", { type: "button", class: "btn btn--secondary", onclick: copyInvite, "aria-label": t("table.invite.copy_label") }, icon("copy"), t("table.invite.copy")))));
  }

  async function leaveGame() {
    // eslint-disable-next-line no-alert
    if (!window.confirm(t("table.leave_confirm"))) return;
    const ok = await rest("POST", "/leave");
    if (ok) {
      store.del(tokenKey(id));
      S.token = null;
      S.mySeat = null;
      S.conn.restart();
      render();
    }
  }

  async function takeSeat() {
    const name = await askName(t("table.waiting.take_seat"), t("table.waiting.sit_down"));
    if (!name) return;
    try {
      const data = await joinTable(id, name);
      store.set(tokenKey(id), data.token);
      S.token = data.token;
      S.mySeat = data.seat;
      if (data.table) applyTable(data.table);
      S.conn.restart();
    } catch (err) {
      toast(errorText(err));
    }
  }

  // ---- the game ----------------------------------------------------------------------
  function renderGame() {
    const tb = S.table;
    const g = tb.game;
    const me = myGameSeat();
    const picks = buildPicks(g, me);
    clear(boardHost);
    boardHost.appendChild(renderBoard(g, { me, seatMeta, deadline: tb.turn_deadline && !g.over ? tb.turn_deadline : null, picks }));
    markAway(g, me);
    clear(scoresHost);
    scoresHost.appendChild(renderScoreSheet(g));
    renderDecision(g, me);
    keepTargetsInView(g);
    resultsBtn.hidden = !g.over;
    const turnKey = `${tb.version}:${g.to_decide}`;
    if (me !== null && g.to_decide === me && !g.over && S.lastTurnKey !== turnKey) {
      S.lastTurnKey = turnKey;
      announcer.textContent = kindPrompt(g.decision_kind, g.pending_card, true);
    }
  }

  const narrow = window.matchMedia("(max-width: 720px)");

  /**
   * The decision panel sticks to the bottom of the screen: the page's scroll padding leaves
   * room for it (so focus and scrolling never put a card under it), and on a phone, when a
   * new decision asks for a pick on the board, the first card or player to pick is scrolled
   * into the part of the screen the panel leaves free.
   */
  function keepTargetsInView(g) {
    const height = decisionHost.hidden ? 0 : decisionHost.offsetHeight;
    document.documentElement.style.setProperty("--decision-h", `${height}px`);
    if (decisionHost.dataset.state !== "ready" || !narrow.matches) return;
    const key = `${S.table.version}:${g.decision_kind}:${S.swapFirst ? "2" : "1"}`;
    if (S.scrolledFor === key) return;
    S.scrolledFor = key;
    const target = boardHost.querySelector(".card.is-pickable, .seat.is-pickable");
    if (!target) return;
    const topbar = document.querySelector(".topbar");
    const top = (topbar ? topbar.getBoundingClientRect().bottom : 0) + 8;
    const bottom = window.innerHeight - height - 8;
    scrollBetween(target, top, bottom);
  }

  function myTurn(g, me) {
    return !!g && me !== null && g.to_decide === me && !g.over && (g.legal_decisions || []).length > 0;
  }

  /** "your 5" / "Bob’s 5" (cards.whose). */
  function whoseCard(s, code, me) {
    return s === me ? t("cards.whose.mine", { card: cardName(code) }) : t("cards.whose.other", { name: nameOf(s), card: cardName(code) });
  }

  function labelFor(g, me, d) {
    return decisionLabel(d, { names: nameOf, me, pending: g.pending_card });
  }

  /** Clickable seats and cards on the board for the current decision. */
  function buildPicks(g, me) {
    const picks = { seats: new Map(), cards: new Map(), selected: null };
    if (!myTurn(g, me) || S.pendingMove) return picks;
    const legal = g.legal_decisions;
    const kind = g.decision_kind;
    for (const d of legal) {
      const p = parseDecision(d);
      if (["target", "give", "pass", "minus"].includes(p.verb)) {
        const short = p.verb === "minus" ? t("table.pick.minus", { bonus: flip7Bonus() }) : p.verb === "give" ? (p.seat === me ? t("table.pick.keep") : t("table.pick.give")) : p.seat === me ? t("table.pick.me") : t("table.pick.choose");
        picks.seats.set(p.seat, { decision: d, label: labelFor(g, me, d), short, onPick: () => sendMove(d) });
      } else if ((p.verb === "steal" || p.verb === "discard") && kind !== "swap") {
        picks.cards.set(`${p.seat}|${p.card}`, { label: labelFor(g, me, d), onPick: () => sendMove(d) });
      }
    }
    if (kind === "swap") {
      const pairs = legal.map(parseDecision).filter((p) => p.verb === "swap");
      if (!S.swapFirst) {
        for (const p of pairs) {
          for (const [s, c] of [[p.seat, p.card], [p.seat2, p.card2]]) {
            const key = `${s}|${c}`;
            if (!picks.cards.has(key)) {
              picks.cards.set(key, {
                label: t("table.swap.pick_first_label", { card: whoseCard(s, c, me) }),
                onPick: () => { S.swapFirst = { seat: s, card: c }; render(); },
              });
            }
          }
        }
      } else {
        const f = S.swapFirst;
        const fKey = `${f.seat}|${f.card}`;
        picks.selected = fKey;
        picks.cards.set(fKey, { label: t("table.swap.unselect", { card: cardName(f.card) }), onPick: () => { S.swapFirst = null; render(); } });
        for (const p of pairs) {
          let other = null;
          if (p.seat === f.seat && p.card === f.card) other = [p.seat2, p.card2];
          else if (p.seat2 === f.seat && p.card2 === f.card) other = [p.seat, p.card];
          if (other) picks.cards.set(`${other[0]}|${other[1]}`, { label: labelFor(g, me, p.text), onPick: () => sendMove(p.text) });
        }
      }
    }
    return picks;
  }

  function optionButton(g, me, d, { cls = "", label, content, hint } = {}) {
    const text = label || labelFor(g, me, d);
    return h("button", {
      type: "button", class: `btn opt ${cls}`.trim(), dataset: { decision: d, focusKey: `opt:${cls.includes("opt-fallback") ? "f" : "m"}:${d}` },
      "aria-label": text, disabled: !!S.pendingMove,
      onclick: () => sendMove(d),
    }, hint ? h("kbd", { class: "key", "aria-hidden": "true", text: hint }) : null, content || h("span", { text }));
  }

  function renderDecision(g, me) {
    clear(decisionHost);
    decisionHost.removeAttribute("data-kind");
    decisionHost.classList.remove("is-collapsed");
    if (g.over) {
      decisionHost.dataset.state = "over";
      decisionHost.hidden = true;
      return;
    }
    decisionHost.hidden = false;
    if (!myTurn(g, me)) {
      decisionHost.dataset.state = "idle";
      const who = g.to_decide !== null && g.to_decide !== undefined ? nameOf(g.to_decide) : null;
      decisionHost.appendChild(h("div", { class: "decision-idle" },
        me === null ? h("span", { class: "chip chip--watch" }, icon("eye"), t("table.decision.watching_live")) : null,
        h("span", { class: "muted", text: who ? t("table.decision.waiting_for", { name: who }) : t("table.decision.waiting") })));
      return;
    }
    const legal = g.legal_decisions;
    const kind = g.decision_kind;
    decisionHost.dataset.kind = kind || "";
    decisionHost.dataset.state = S.pendingMove ? "sending" : "ready";
    const prompt = h("div", { class: "decision-prompt" },
      g.pending_card ? cardEl(g.pending_card, { small: true }) : null,
      h("strong", { text: kindPrompt(kind, g.pending_card, true) }),
      S.table.turn_deadline ? countdownEl(S.table.turn_deadline) : null);
    // A panel that asks for a pick on the board can fold down to its prompt, so that on a
    // phone the cards and players it asks about are in full view.
    const decisionKey = `${S.table.version}:${kind}`;
    if (kind !== "hit_or_stay") {
      const collapsed = S.collapsedFor === decisionKey;
      decisionHost.classList.toggle("is-collapsed", collapsed);
      prompt.appendChild(h("button", {
        type: "button", class: "btn btn--ghost btn--small decision-toggle", "aria-expanded": String(!collapsed),
        "aria-label": collapsed ? t("table.decision.show_options") : t("table.decision.hide_options_label"),
        dataset: { focusKey: "decision-toggle", testid: "decision-toggle" },
        onclick: () => { S.collapsedFor = collapsed ? null : decisionKey; render(); },
      }, collapsed ? t("table.decision.options") : t("table.decision.hide")));
    }
    const main = h("div", { class: `decision-main decision-main--${kind}` });
    let n = 0;
    const nextHint = () => (n < 9 ? String(++n) : null);

    if (kind === "hit_or_stay") {
      const hasHit = legal.includes("hit");
      const hasStay = legal.includes("stay");
      add(main, 
        hasHit ? optionButton(g, me, "hit", { cls: "opt-main btn--hit", hint: "H", content: h("span", { class: "opt-big", text: t("cards.decision.hit") }) }) : null,
        hasStay ? optionButton(g, me, "stay", { cls: "opt-main btn--stay", hint: "S", content: h("span", { class: "opt-big", text: t("cards.decision.stay") }) })
          : h("button", { type: "button", class: "btn opt btn--stay", disabled: true, "aria-label": t("table.decision.stay_not_allowed_label") }, h("span", { class: "opt-big", text: t("cards.decision.stay") }), h("small", { text: t("table.decision.not_allowed") })));
      const p = g.players[me];
      // The server works out the bust risk (flip7.analysis.advisor.bust_risk): shown as sent.
      const risk = typeof g.bust_risk === "number" ? g.bust_risk : null;
      prompt.appendChild(h("span", { class: "decision-facts" },
        h("span", null, tparts("table.decision.sum", { n: h("b", { text: formatNumber(p.number_sum) }) })),
        h("span", null, tparts("table.decision.score", { n: h("b", { text: formatNumber(p.round_score) }) })),
        risk !== null ? h("span", { class: risk >= 0.3 ? "risk risk--high" : "risk" }, tparts("table.decision.risk", { n: h("b", { text: formatNumber(Math.round(risk * 100) / 100, { style: "percent" }) }) })) : null));
    } else if (["target", "give", "pass"].includes(kind) || kind === "flip7_choice") {
      for (const d of legal) {
        const p = parseDecision(d);
        const content = p.verb === "bonus" ? h("span", { class: "opt-big", text: t("table.decision.bonus_me", { bonus: flip7Bonus() }) })
          : h("span", { class: "opt-player" },
            h("span", { class: "avatar avatar--small", style: { "--hue": String(seatHue(p.seat)) }, "aria-hidden": "true", text: initial(nameOf(p.seat)) }),
            h("span", { text: p.verb === "minus" ? t("cards.decision.minus", { bonus: flip7Bonus(), name: nameOf(p.seat) }) : p.seat === me ? (p.verb === "give" ? t("cards.decision.keep") : t("table.decision.me")) : nameOf(p.seat) }),
            g.players[p.seat] && g.players[p.seat].status !== "active" ? h("small", { class: "muted", text: t(`table.decision.status.${g.players[p.seat].status === "busted" ? "busted" : "stayed"}`) }) : null);
        main.appendChild(optionButton(g, me, d, { cls: `opt-main${p.verb === "bonus" ? " btn--hit" : ""}`, hint: nextHint(), content }));
      }
      main.appendChild(h("p", { class: "hint hint--inline", text: t("table.decision.or_click_player") }));
    } else if (kind === "steal" || kind === "discard") {
      const bySeat = new Map();
      for (const d of legal) {
        const p = parseDecision(d);
        if (!bySeat.has(p.seat)) bySeat.set(p.seat, []);
        bySeat.get(p.seat).push([d, p]);
      }
      for (const [s, items] of bySeat) {
        main.appendChild(h("div", { class: "opt-group" },
          h("span", { class: "opt-group-label", text: s === me ? t("table.decision.your_line") : nameOf(s) }),
          h("div", { class: "opt-cards" }, items.map(([d, p]) => optionButton(g, me, d, {
            cls: "opt-main opt-card", hint: nextHint(), content: cardEl(p.card, { small: true, label: cardName(p.card) }),
          })))));
      }
      main.appendChild(h("p", { class: "hint hint--inline", text: t("table.decision.or_click_card") }));
    } else if (kind === "swap") {
      const pairs = legal.map(parseDecision).filter((p) => p.verb === "swap");
      if (!S.swapFirst) {
        const seen = new Map();
        for (const p of pairs) {
          for (const [s, c] of [[p.seat, p.card], [p.seat2, p.card2]]) {
            const key = `${s}|${c}`;
            if (!seen.has(key)) seen.set(key, [s, c]);
          }
        }
        const bySeat = new Map();
        for (const [s, c] of seen.values()) {
          if (!bySeat.has(s)) bySeat.set(s, []);
          bySeat.get(s).push(c);
        }
        main.appendChild(h("p", { class: "opt-step", text: t("table.swap.step1") }));
        for (const [s, codes] of [...bySeat.entries()].sort((a, b) => a[0] - b[0])) {
          main.appendChild(h("div", { class: "opt-group" },
            h("span", { class: "opt-group-label", text: s === me ? t("table.decision.your_line") : nameOf(s) }),
            h("div", { class: "opt-cards" }, codes.map((c) => h("button", {
              type: "button", class: "btn opt opt-main opt-card", disabled: !!S.pendingMove,
              dataset: { swapFirst: `${s}|${c}`, focusKey: `swap1:${s}|${c}` },
              "aria-label": t("table.swap.pick_first", { card: whoseCard(s, c, me) }),
              onclick: () => { S.swapFirst = { seat: s, card: c }; render(); },
            }, n < 9 ? h("kbd", { class: "key", "aria-hidden": "true", text: nextHint() }) : null, cardEl(c, { small: true, label: cardName(c) }))))));
        }
      } else {
        const f = S.swapFirst;
        main.appendChild(h("p", { class: "opt-step" }, tparts("table.swap.step2", { card: h("b", { text: whoseCard(f.seat, f.card, me) }) })));
        for (const p of pairs) {
          let other = null;
          if (p.seat === f.seat && p.card === f.card) other = [p.seat2, p.card2];
          else if (p.seat2 === f.seat && p.card2 === f.card) other = [p.seat, p.card];
          if (!other) continue;
          main.appendChild(optionButton(g, me, p.text, {
            cls: "opt-main opt-card opt-card--wide", hint: nextHint(),
            content: h("span", { class: "opt-player" }, cardEl(other[1], { small: true, label: cardName(other[1]) }),
              h("span", { text: other[0] === me ? t("table.swap.yours") : nameOf(other[0]) })),
          }));
        }
        main.appendChild(h("button", {
          type: "button", class: "btn btn--ghost", dataset: { focusKey: "swap-cancel" }, "aria-label": t("table.swap.back_label"),
          onclick: () => { S.swapFirst = null; render(); },
        }, t("table.swap.back")));
      }
    } else {
      for (const d of legal) main.appendChild(optionButton(g, me, d, { cls: "opt-main", hint: nextHint() }));
    }

    const all = h("details", { class: "decision-all" },
      h("summary", { text: t("table.decision.all_options", { count: legal.length }) }),
      h("div", { class: "option-list" }, legal.map((d) => optionButton(g, me, d, { cls: "opt-fallback btn--small" }))));
    if (S.allOpen) all.open = true;
    all.addEventListener("toggle", () => { S.allOpen = all.open; });
    add(decisionHost, prompt, main, all);
  }

  function sendMove(decision) {
    const tb = S.table;
    const g = tb && tb.game;
    if (!g || S.pendingMove) return;
    if (!(g.legal_decisions || []).includes(decision)) {
      toast(t("table.move_not_allowed"));
      return;
    }
    S.moveCounter += 1;
    const mid = `m${Date.now().toString(36)}${S.moveCounter}${Math.random().toString(36).slice(2, 6)}`;
    const ok = S.conn.send({ v: 1, type: "move", id: mid, version: tb.version, decision });
    if (!ok) {
      toast(t("table.not_connected"));
      return;
    }
    S.pendingMove = { id: mid, decision, version: tb.version };
    S.swapFirst = null;
    render();
    setTimeout(() => {
      if (S.pendingMove && S.pendingMove.id === mid) {
        S.pendingMove = null;
        render();
      }
    }, 8000);
  }

  // ---- players who go away ----------------------------------------------------------
  // The server says who is away on their turn, from when the others may hand the seat to a
  // bot (handover_at), and who is ready for a rematch or gone: nothing here is worked out.

  /** A seat's badges for a player away on their turn (with the hand-over button for the
   *  other players) and for a seat the stand-in bot plays until its player is back. */
  function markAway(g, me) {
    if (g.over) return;
    playerSeats().forEach((meta, s) => {
      const panel = seatEl(s);
      const badges = panel && panel.querySelector(".seat-badges");
      if (!badges) return;
      if (meta.stand_in) {
        badges.appendChild(h("span", { class: "badge badge--bot", dataset: { testid: "stand-in" }, text: t("table.away.bot_plays") }));
      } else if (meta.away_since !== null && meta.away_since !== undefined) {
        badges.appendChild(h("span", { class: "badge badge--offline", dataset: { testid: "away" }, text: t("table.away.away") }));
        if (isSeated() && me !== null && me !== s) badges.appendChild(handoverButton(s, meta));
      }
    });
  }

  function handoverButton(s, meta) {
    const btn = h("button", {
      type: "button", class: "btn btn--secondary btn--small", "aria-label": t("table.away.handover_label", { name: meta.name }),
      dataset: { testid: "handover", handoverAt: String(meta.handover_at), focusKey: `handover:${s}` },
      onclick: async (ev) => {
        const el = ev.currentTarget;
        el.dataset.sending = "1";
        el.disabled = true;
        const ok = await rest("POST", `/seats/${s}/handover`);
        if (!ok) {
          delete el.dataset.sending;
          tickHandover(el);
        }
      },
    });
    tickHandover(btn);
    return btn;
  }

  /** The hand-over button counts down to the moment the server allows it. */
  function tickHandover(btn) {
    const left = Math.max(0, Math.ceil(Number(btn.dataset.handoverAt) - Date.now() / 1000));
    btn.disabled = left > 0 || !!btn.dataset.sending;
    btn.textContent = left > 0 ? t("table.away.handover_in", { count: left }) : t("table.away.handover");
  }

  /** At the end screen: whether a player is ready for the rematch (bots are), or leaving. */
  function readyBadge(s) {
    const meta = seatMeta(s);
    if (!meta || meta.ready === null || meta.ready === undefined) return null;
    const [cls, text] = meta.gone ? ["badge--offline", t("table.ready.leaving")] : meta.ready ? ["badge--bot", t("table.ready.ready")]
      : meta.connected ? ["", t("table.ready.not_ready")] : ["badge--offline", t("table.away.away")];
    return h("span", { class: `badge ${cls}`.trim(), dataset: { testid: "ready-state" }, text });
  }

  /** Log lines of the events of players going and coming back, and of the ready check. */
  function lifeLine(ev) {
    switch (ev.type) {
      case "stand_in":
        return { tone: "table", text: typeof ev.by === "number" ? t("table.life.handed", { by: nameOf(ev.by), name: nameOf(ev.seat) })
          : t("table.life.stand_in", { name: nameOf(ev.seat) }) };
      case "returned": return { tone: "table", text: t("table.life.returned", { name: nameOf(ev.seat) }) };
      case "ready": return { tone: ev.ready ? "table" : "muted", text: ev.ready ? t("table.life.ready", { name: nameOf(ev.seat) }) : t("table.life.not_ready", { name: nameOf(ev.seat) }) };
      case "gone": return { tone: "muted", text: t("table.life.gone", { name: nameOf(ev.seat) }) };
      default: return null;
    }
  }

  // ---- end of the game ---------------------------------------------------------------
  /**
   * H6's hook (endscreen.js): the rating changes and the statistics of the game just
   * finished. mountEndSummary fills its container once per finished game; the end screen,
   * redrawn as players say ready, keeps showing the same container.
   */
  function endSummary(gameId, seat) {
    if (gameId === null || gameId === undefined) return null;
    if (!S.endSummary || S.endSummary.gameId !== gameId) {
      const container = h("div", { class: "endscreen-summary", dataset: { testid: "end-summary" } });
      S.endSummary = { gameId, container };
      try {
        mountEndSummary(container, { gameId, seat });
      } catch (err) {
        console.error(err); // the end screen works without it
      }
    }
    return S.endSummary.container;
  }

  function renderEnd() {
    clear(endHost);
    const tb = S.table;
    const g = tb && tb.game;
    if (!g || !g.over || S.endClosedFor === tb.game_id) return;
    const winners = g.winners || [];
    const me = myGameSeat();
    const names = winners.map(nameOf);
    const headline = winners.length > 1 ? t("table.end.share_win", { names: names.join(" & ") })
      : winners[0] === me && me !== null ? t("table.end.you_win") : t("table.board.wins", { name: names[0] || t("cards.log.nobody") });
    const ranking = g.players.map((p) => p).sort((a, b) => b.total - a.total);
    const close = () => {
      S.endClosedFor = tb.game_id;
      renderEnd();
    };
    // The ready check: the next game starts once everyone staying is ready (the server's call).
    const mine = me !== null ? seatMeta(me) : null;
    const iAmReady = !!(mine && mine.ready);
    const rematch = isSeated() && mine && !mine.gone ? h("button", {
      type: "button", class: `btn ${iAmReady ? "btn--secondary" : "btn--primary"} btn--big`, "aria-pressed": String(iAmReady),
      dataset: { testid: "rematch", focusKey: "rematch" },
      onclick: async (ev) => {
        ev.currentTarget.disabled = true;
        const ok = await rest("POST", "/ready", { ready: !iAmReady });
        if (!ok) ev.currentTarget.disabled = false;
      },
    }, iAmReady ? t("table.end.not_ready") : t("table.end.ready")) : null;
    const unready = playerSeats().filter((x) => x.kind === "human" && !x.gone && !x.ready).map((x) => x.name);
    // The server's reason is English prose: the page says it in its own words.
    const readyNote = tb.rematch_problem ? h("p", { class: "hint", dataset: { testid: "ready-wait" }, text: t("table.end.rematch_problem") })
      : unready.length && playerSeats().some((x) => x.kind === "human" && x.ready)
        ? h("p", { class: "hint", dataset: { testid: "ready-wait" }, text: t("table.end.waiting_for", { names: unready.join(t("cards.list.sep")), count: unready.length }) }) : null;
    const replayLink = tb.game_id !== null && tb.game_id !== undefined
      ? h("a", { class: "btn btn--secondary btn--big", href: `/replay/game/${encodeURIComponent(tb.game_id)}`, "data-link": true, dataset: { testid: "replay-link" } }, icon("play"), t("table.end.replay"))
      : null;
    // The ready check redraws the end screen as players say ready: it rises in only once.
    const again = S.endShownFor === tb.game_id;
    S.endShownFor = tb.game_id;
    const dialog = h("div", { class: "endscreen", role: "dialog", "aria-modal": "false", "aria-labelledby": "end-title", dataset: { testid: "endscreen" } },
      h("div", { class: "endscreen-card", style: again ? { animation: "none" } : null },
        h("button", { type: "button", class: "btn btn--icon endscreen-close", "aria-label": t("table.end.close"), onclick: close }, icon("close")),
        h("div", { class: "endscreen-trophy", "aria-hidden": "true" }, icon("trophy")),
        h("p", { class: "endscreen-kicker", text: t("table.end.kicker", { count: g.rounds.length }) }),
        h("h2", { id: "end-title", class: "endscreen-title", text: headline }),
        h("ol", { class: "ranking" }, ranking.map((p, i) => h("li", { class: `ranking-row${winners.includes(p.seat) ? " is-winner" : ""}`, dataset: { seat: String(p.seat) } },
          h("span", { class: "ranking-pos", text: formatNumber(i + 1) }),
          h("span", { class: "avatar avatar--small", style: { "--hue": String(seatHue(p.seat)) }, "aria-hidden": "true", text: initial(p.name) }),
          h("span", { class: "ranking-name", text: p.name }),
          p.seat === me ? h("span", { class: "badge badge--you", text: t("table.you") }) : null,
          readyBadge(p.seat),
          h("b", { class: "ranking-total", dataset: { testid: "final-total" }, text: formatNumber(p.total) })))),
        readyNote,
        endSummary(tb.game_id, me),
        h("div", { class: "endscreen-actions" }, rematch, replayLink,
          h("a", { class: "btn btn--ghost", href: "/", "data-link": true }, t("common.back_to_lobby")))));
    endHost.appendChild(dialog);
  }

  // ---- messages ----------------------------------------------------------------------
  function onMessage(msg) {
    if (S.destroyed || !msg || typeof msg !== "object") return;
    switch (msg.type) {
      case "welcome": {
        setConn("online");
        S.mySeat = msg.seat ?? null;
        if (S.token && msg.seat === null && !(msg.table && msg.table.game && msg.table.game.viewer !== null && msg.table.game.viewer !== undefined)) {
          // The token no longer holds a seat (left, or removed): watch instead.
          store.del(tokenKey(id));
          S.token = null;
        }
        const before = S.table ? S.table.version : null;
        flushAnimations();
        // The whole current game: the log is rebuilt from it below, once the table (and so
        // its names) is applied. A server without it sends only what was missed.
        const history = Array.isArray(msg.history) ? msg.history : null;
        if (!history && Array.isArray(msg.missed)) {
          // Reconnected: the log catches up with what happened meanwhile.
          for (const m of msg.missed) for (const ev of m.events || []) logLine(ev);
        } else if (!history && before !== null && msg.table && msg.table.version !== before) {
          logLine({ type: "_note", key: "table.reconnected_note" });
        }
        applyTable(msg.table);
        if (history) logHistory(history); // a reload, a reconnect, a late spectator
        chat.restore(msg.chat);
        break;
      }
      case "update":
        if (msg.table && (!S.table || msg.table.version >= S.table.version)) applyTable(msg.table, msg.events || []);
        else if (msg.events) for (const ev of msg.events) logLine(ev);
        if (typeof msg.version === "number") S.logVersion = Math.max(S.logVersion ?? 0, msg.version);
        break;
      case "chat":
        chat.add(msg.chat);
        break;
      case "result":
        if (S.pendingMove && S.pendingMove.id === msg.id) {
          S.pendingMove = null;
          if (S.table && S.table.version >= msg.version) render();
        }
        break;
      case "error":
        if (chat.error(msg)) break; // a chat refusal is shown in the chat
        if (msg.code === "no_table" || msg.code === "closed") {
          S.conn.stop();
          setConn("closed");
          toast(errorText(msg, t("table.gone")));
          return;
        }
        if (msg.code === "unauthorized") {
          toast(t("table.seat_lost"));
          forgetToken();
          return;
        }
        toast(errorFrame(msg));
        if (S.pendingMove && (msg.id === S.pendingMove.id || msg.id === null)) S.pendingMove = null;
        if (msg.table) applyTable(msg.table);
        else render();
        break;
      default:
        break;
    }
  }

  function onKey(ev) {
    if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = ev.target && ev.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || document.querySelector("dialog[open]")) return;
    const key = ev.key.toLowerCase();
    if (key === "escape" && S.swapFirst) {
      S.swapFirst = null;
      render();
      ev.preventDefault();
      return;
    }
    if (decisionHost.dataset.state !== "ready") return;
    let btn = null;
    if (key === "h") btn = decisionHost.querySelector('.decision-main [data-decision="hit"]');
    else if (key === "s") btn = decisionHost.querySelector('.decision-main [data-decision="stay"]');
    else if (/^[1-9]$/.test(key)) {
      const opts = [...decisionHost.querySelectorAll(".decision-main .opt-main:not(:disabled)")];
      btn = opts[Number(key) - 1] || null;
    }
    if (btn && !btn.disabled) {
      ev.preventDefault();
      btn.click();
    }
  }

  // ---- start -------------------------------------------------------------------------
  const wsUrl = `${window.location.protocol === "https:" ? "wss" : "ws"}://${window.location.host}/ws/tables/${encodeURIComponent(id)}`;
  S.conn = new Connection(wsUrl, {
    onOpen: () => S.conn.send({ v: 1, type: "hello", token: S.token || null, last_version: S.table ? S.table.version : null }),
    onMessage,
    onState: setConn,
  });

  api("GET", `/api/tables/${encodeURIComponent(id)}`).then((data) => {
    if (S.destroyed) return;
    // The answer is {"table": TableState} (protocol.md shows a bare TableState).
    const table = data && data.table && data.table.seats ? data.table : data;
    if (!S.table && table && table.seats) applyTable(table);
    S.conn.start();
  }).catch((err) => {
    if (S.destroyed) return;
    if (err.status === 404) {
      loading.hidden = true;
      setConn("closed");
      root.querySelector(".table-page").appendChild(h("section", { class: "panel notfound" },
        h("h2", { text: t("table.not_found") }),
        h("p", { class: "muted", text: t("table.not_found_text") }),
        h("a", { href: "/", "data-link": true, class: "btn btn--primary" }, t("common.back_to_lobby"))));
      return;
    }
    S.conn.start();
  });

  const ticker = setInterval(() => {
    tickCountdowns(root);
    for (const btn of root.querySelectorAll("[data-testid=handover]")) tickHandover(btn);
  }, 1000);
  const onOnline = () => { if (S.connState !== "online") S.conn.restart(); };
  document.addEventListener("keydown", onKey);
  window.addEventListener("online", onOnline);

  return {
    destroy() {
      S.destroyed = true;
      flushAnimations();
      alerts.destroy();
      chat.destroy();
      tutorial.destroy();
      document.documentElement.style.removeProperty("--decision-h");
      clearInterval(ticker);
      document.removeEventListener("keydown", onKey);
      window.removeEventListener("online", onOnline);
      if (S.conn) S.conn.stop();
    },
  };
}
