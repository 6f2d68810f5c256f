// Replays (/replay/game/{id} and /replay/{upload id}): step through a finished or uploaded game.
// A round selector (and PageUp / PageDown) jumps to the start of any round: the server says
// at which step each round's round_started event is (round_starts); ?round=N opens there.
// The server answers a replay in pages (offset, limit → total_steps and that page's steps):
// steps are fetched as the viewer moves, the next ones ahead of time, and only the steps
// near the current one are kept.
import { api } from "./api.js";
import { renderBoard, renderScoreSheet } from "./board.js";
import { localName } from "./botlevels.js";
import { eventLine, lineNodes } from "./cards.js";
import { t } from "./i18n.js";
import { setTopbar } from "./router.js";
import { clear, h, icon } from "./util.js";

/** @typedef {import("./protocol.js").ReplayAnswer} ReplayAnswer */
/** @typedef {import("./protocol.js").ReplayStep} ReplayStep */
/** A step's line in the log (cards.js eventLine). @typedef {NonNullable<ReturnType<typeof eventLine>>} LogLine */

/**
 * The page's parts that change as the viewer moves.
 * @typedef {object} Parts
 * @property {HTMLElement} boardHost
 * @property {HTMLElement} stepInfo
 * @property {HTMLInputElement} slider
 * @property {HTMLButtonElement} playBtn
 * @property {HTMLOListElement} log
 * @property {HTMLElement} scoresHost
 * @property {HTMLSelectElement | null} roundSelect
 */

const SPEEDS = [0.5, 1, 2, 4, 8];
const PREFETCH = 40; // steps ahead that should already be there
const KEEP = 1500; // steps kept around the current one (at least four pages)

/**
 * The round (1..N) that step i belongs to: the last round that started at or before it.
 * @param {number[]} roundStarts the step each round starts at
 * @param {number} i
 */
function roundOf(roundStarts, i) {
  let round = 0;
  for (let k = 0; k < roundStarts.length && roundStarts[k] <= i; k += 1) round = k + 1;
  return Math.max(1, round);
}

/**
 * A replay's title: its table's name and game number, else what kind of replay it is.
 * @param {boolean} finishedGame a finished game of the server (not an uploaded record)
 * @param {import("./protocol.js").GameRecord | null} record
 */
function replayTitle(finishedGame, record) {
  /** @type {NonNullable<import("./protocol.js").GameRecord["meta"]>} */
  const meta = (record && record.meta) || {};
  if (typeof meta.table_name === "string" && meta.table_name) {
    return meta.number ? t("replay.table_game", { name: meta.table_name, number: meta.number }) : meta.table_name;
  }
  return finishedGame ? t("replay.game_replay") : t("replay.uploaded_replay");
}

/**
 * A step's game with its bots' names in the reader's language (botlevels.js localName).
 * @param {import("./protocol.js").GameView} game
 */
function withLocalNames(game) {
  for (const p of game.players) p.name = localName(p.name);
  return game;
}

/**
 * @param {HTMLElement} root
 * @param {{gameId: string, uploadId?: undefined} | {uploadId: string, gameId?: undefined}} which a finished game's, or an uploaded record's
 */
export function mountReplay(root, { gameId, uploadId }) {
  document.body.dataset.view = "replay";
  document.title = t("replay.title");
  /**
   * @type {{record: import("./protocol.js").GameRecord | null, total: number, pageSize: number,
   *   steps: Map<number, ReplayStep>, lines: Map<number, LogLine[]>, index: number, want: number,
   *   loading: boolean, lastMiss: number, failed: unknown, playing: boolean,
   *   timer: ReturnType<typeof setTimeout> | undefined, speed: number, destroyed: boolean,
   *   blobUrl: string | null, roundStarts: number[]}}
   */
  const S = {
    record: null, total: 0, pageSize: 1, steps: new Map(), lines: new Map(),
    index: 0, want: 0, loading: false, lastMiss: -1, failed: null,
    playing: false, timer: undefined, speed: 1, destroyed: false, blobUrl: null,
    roundStarts: [],
  };

  const loading = h("div", { class: "loading panel" }, h("span", { class: "spinner", "aria-hidden": "true" }), t("replay.loading"));
  const page = h("div", { class: "replay-page" }, loading);
  root.appendChild(page);

  const url = gameId !== undefined ? `/api/games/${encodeURIComponent(gameId)}/replay` : `/api/replays/${encodeURIComponent(String(uploadId))}`;
  // ?seat=S (a finished game): the game as that seat saw it live, only what it could see.
  const query = new URLSearchParams(window.location.search);
  const seatView = gameId !== undefined && /^\d+$/.test(query.get("seat") || "") ? Number(query.get("seat")) : null;
  const fetchPage = (/** @type {number} */ offset) => api("GET", `${url}?${seatView !== null ? `seat=${seatView}&` : ""}offset=${offset}`).then((answer) => {
    const data = /** @type {ReplayAnswer | null} */ (answer);
    if (!data || !Array.isArray(data.steps) || !data.steps.length) throw new Error(t("replay.no_steps"));
    return data;
  });
  fetchPage(0).then((data) => {
    if (S.destroyed) return;
    S.record = data.record;
    S.total = data.total_steps;
    S.pageSize = data.steps.length;
    S.roundStarts = Array.isArray(data.round_starts) ? data.round_starts.filter((n) => Number.isInteger(n) && n >= 0 && n < S.total) : [];
    build();
    store(data);
    const asked = Number(new URLSearchParams(window.location.search).get("round"));
    const askedStep = Number(query.get("step")); // ?step=N: the coach's link to a decision
    if (query.has("step") && Number.isInteger(askedStep) && askedStep >= 0 && askedStep < S.total) go(askedStep);
    else go(Number.isInteger(asked) && asked >= 1 && asked <= S.roundStarts.length ? S.roundStarts[asked - 1] : 0);
  }).catch((err) => {
    if (S.destroyed) return;
    loading.remove();
    page.appendChild(h("section", { class: "panel notfound" },
      h("h2", { text: t("replay.cannot_show") }),
      h("p", { class: "muted", text: err.message || t("error.unknown") }),
      h("a", { href: "/", "data-link": true, class: "btn btn--primary" }, t("common.back_to_lobby"))));
  });

  /** @type {Parts | null} */
  let els = null;
  let names = (/** @type {number} */ s) => t("replay.seat", { seat: s + 1 });

  /**
   * A page's steps join the ones kept; those far from the current step are let go.
   * @param {ReplayAnswer} data
   */
  function store(data) {
    data.steps.forEach((st, k) => {
      const i = data.offset + k;
      S.steps.set(i, st);
      S.lines.set(i, (st.events || []).map((ev) => eventLine(ev, names)).filter((line) => line !== null && line !== undefined));
    });
    if (S.steps.size > KEEP) {
      const far = [...S.steps.keys()].sort((a, b) => Math.abs(b - S.want) - Math.abs(a - S.want));
      for (const i of far.slice(0, S.steps.size - KEEP)) { S.steps.delete(i); S.lines.delete(i); }
    }
  }

  // One request at a time: first the step wanted, then the steps ahead, then the step
  // before (for the log and "… decided").
  function pump() {
    if (S.loading || S.destroyed || S.failed) return;
    const i = S.want;
    let offset = null;
    if (!S.steps.has(i)) {
      // Jumping back or far: a page around the step, so that the log has what led to it.
      // A page the server cut short may still miss it: then from the step itself.
      const ahead = i > S.index && i <= S.index + PREFETCH;
      offset = S.lastMiss === i || ahead ? i : Math.max(0, i - Math.floor(S.pageSize / 2));
      S.lastMiss = i;
    } else {
      for (let k = i + 1; k < Math.min(S.total, i + 1 + PREFETCH); k += 1) {
        if (!S.steps.has(k)) { offset = k; break; }
      }
      if (offset === null && i > 0 && !S.steps.has(i - 1) && S.lastMiss !== -(i + 1)) {
        offset = Math.max(0, i - S.pageSize);
        S.lastMiss = -(i + 1); // tried once for this step
      }
    }
    if (offset === null) return;
    S.loading = true;
    fetchPage(offset).then((data) => {
      if (S.destroyed) return;
      S.loading = false;
      store(data);
      if (S.steps.has(S.want)) show(S.want);
      pump();
    }).catch((err) => {
      if (S.destroyed) return;
      S.loading = false;
      S.failed = err;
      if (els) els.stepInfo.textContent = t("replay.step_failed", { step: S.want + 1, total: S.total, message: err.message || t("error.unknown") });
      if (S.playing) togglePlay(false);
    });
  }

  function build() {
    loading.remove();
    const record = S.record;
    const players = ((record && record.players) || []).map(localName);
    document.title = t("replay.title_players", { players: players.join(", ") });
    names = (s) => players[s] ?? t("replay.seat", { seat: s + 1 });
    const last = S.total - 1;

    // Download the record as a file.
    /** @type {HTMLAnchorElement} */
    let download;
    if (gameId !== undefined) {
      download = h("a", { class: "btn btn--secondary btn--small", href: `/api/games/${encodeURIComponent(gameId)}/record`, download: `flip7-game-${gameId}.json`, dataset: { testid: "download" } }, icon("download"), t("replay.download"));
    } else {
      S.blobUrl = URL.createObjectURL(new Blob([JSON.stringify(record, null, 2)], { type: "application/json" }));
      download = h("a", { class: "btn btn--secondary btn--small", href: S.blobUrl, download: `flip7-replay-${uploadId}.json`, dataset: { testid: "download" } }, icon("download"), t("replay.download"));
    }
    setTopbar(h("a", { class: "btn btn--ghost btn--small", href: "/", "data-link": true }, t("common.lobby")));

    const boardHost = h("div", { class: "board-host" });
    const stepInfo = h("p", { class: "replay-step", "aria-live": "polite", dataset: { testid: "step-info" } });
    const slider = h("input", { type: "range", class: "replay-slider", min: "0", max: String(last), step: "1", value: "0", "aria-label": t("replay.step"), dataset: { testid: "slider" } });
    slider.addEventListener("input", () => go(Number(slider.value)));
    /**
     * @param {import("./util.js").IconName} name
     * @param {string} label
     * @param {() => void} fn
     * @param {string} testid
     */
    const ctl = (name, label, fn, testid) => h("button", { type: "button", class: "btn btn--icon btn--control", "aria-label": label, title: label, onclick: fn, dataset: { testid } }, icon(name));
    const playBtn = ctl("play", t("replay.play"), () => togglePlay(), "play");
    const speed = h("select", { class: "select select--small", "aria-label": t("replay.speed") },
      SPEEDS.map((s) => h("option", { value: String(s), text: t("replay.speed_value", { speed: s }) })));
    speed.value = "1";
    speed.addEventListener("change", () => { S.speed = Number(speed.value); if (S.playing) schedule(); });
    // Jump to a round: Round 1..N, the steps of the replay's own round_started events.
    const roundSelect = S.roundStarts.length ? h("select", {
      id: "replay-round", class: "select select--small replay-round", title: t("replay.jump_title"),
      dataset: { testid: "round-select" },
    }, S.roundStarts.map((_, k) => h("option", { value: String(k + 1), text: t("replay.round", { round: k + 1 }) }))) : null;
    if (roundSelect) roundSelect.addEventListener("change", () => jumpToRound(Number(roundSelect.value)));
    const controls = h("div", { class: "replay-controls panel", role: "group", "aria-label": t("replay.controls") },
      h("div", { class: "replay-buttons" },
        ctl("first", t("replay.first"), () => go(0), "first"),
        ctl("prev", t("replay.prev"), () => go(S.want - 1), "prev"),
        playBtn,
        ctl("next", t("replay.next"), () => go(S.want + 1), "next"),
        ctl("last", t("replay.last"), () => go(S.total - 1), "last"),
        speed,
        roundSelect ? h("label", { for: "replay-round", class: "visually-hidden", text: t("replay.jump") }) : null,
        roundSelect),
      slider, stepInfo);
    const log = h("ol", { class: "log log--replay", "aria-label": t("replay.log_label"), dataset: { testid: "replay-log" } });
    const scoresHost = h("div", { class: "scores-host" });
    const side = h("aside", { class: "game-side panel", "aria-label": t("replay.side_label") },
      h("h2", { class: "side-title", text: t("replay.events") }), log,
      h("h2", { class: "side-title", text: t("replay.scores") }), scoresHost);
    const head = h("div", { class: "table-head" },
      h("div", { class: "table-head-main" },
        h("h1", { class: "table-title", text: replayTitle(gameId !== undefined, record) }),
        h("span", { class: "chip", text: players.join(" · ") }),
        seatView !== null ? h("span", { class: "chip chip--watch", dataset: { testid: "seat-view" }, text: t("players.replay.seat_view", { name: names(seatView) }) }) : null),
      h("div", { class: "table-head-tools" }, download));
    page.append(head, h("div", { class: "game-layout game-layout--replay" },
      h("div", { class: "game-main" }, boardHost, controls), side));
    els = { boardHost, stepInfo, slider, playBtn, log, scoresHost, roundSelect };
  }

  /**
   * Straight to the start of round n (its round_started step); the address says which.
   * @param {number} n
   */
  function jumpToRound(n) {
    if (!S.roundStarts.length) return;
    const round = Math.max(1, Math.min(S.roundStarts.length, n));
    const params = new URLSearchParams(window.location.search);
    params.set("round", String(round));
    history.replaceState(history.state, "", `${window.location.pathname}?${params}`);
    go(S.roundStarts[round - 1]);
  }

  /**
   * Move to step i: shown at once when it is there, else once its page has come.
   * @param {number} i
   */
  function go(i) {
    if (!els) return; // not built yet: nothing to move
    const idx = Math.max(0, Math.min(S.total - 1, i));
    S.want = idx;
    S.failed = null;
    els.slider.value = String(idx);
    if (els.roundSelect) els.roundSelect.value = String(roundOf(S.roundStarts, idx));
    if (S.steps.has(idx)) show(idx);
    else els.stepInfo.textContent = t("replay.step_loading", { step: idx + 1, total: S.total });
    pump();
  }

  /** @param {number} idx a step that is kept */
  function show(idx) {
    const step = S.steps.get(idx);
    if (!els || !step) return;
    S.index = idx;
    clear(els.boardHost);
    els.boardHost.appendChild(renderBoard(withLocalNames(step.game), { me: seatView }));
    clear(els.scoresHost);
    els.scoresHost.appendChild(renderScoreSheet(step.game));
    els.slider.value = String(idx);
    const now = S.lines.get(idx) || [];
    let what = now.length ? now[now.length - 1].text : "";
    const before = idx > 0 ? S.steps.get(idx - 1) : undefined;
    if (!what && before) {
      const decider = before.game.to_decide;
      if (decider !== null && decider !== undefined) what = t("replay.decided", { name: names(decider) });
    }
    els.stepInfo.textContent = what ? t("replay.step_what", { step: idx + 1, total: S.total, what }) : t("replay.step_of", { step: idx + 1, total: S.total });
    els.stepInfo.dataset.index = String(idx);
    // The log: earlier steps' lines (most recent 150), this step's lines highlighted.
    clear(els.log);
    /** @type {Array<[LogLine, boolean]>} */
    const items = [];
    for (let k = idx; k >= 0 && items.length < 150; k -= 1) {
      const lines = S.lines.get(k);
      if (!lines) break;
      for (let j = lines.length - 1; j >= 0 && items.length < 150; j -= 1) items.push([lines[j], k === idx]);
    }
    items.reverse();
    for (const [line, current] of items) {
      els.log.appendChild(h("li", { class: `log-item log--${line.tone}${current ? " is-current" : ""}` },
        h("span", { class: "log-dot", "aria-hidden": "true" }), h("span", { class: "log-text" }, lineNodes(line))));
    }
    els.log.scrollTop = els.log.scrollHeight;
    if (idx >= S.total - 1 && S.playing) togglePlay(false);
  }

  function schedule() {
    clearTimeout(S.timer);
    if (!S.playing) return;
    S.timer = setTimeout(() => {
      if (S.destroyed || !S.playing) return;
      go(S.index + 1);
      schedule();
    }, 700 / S.speed);
  }

  /** @param {boolean} [force] play (true) or pause (false); else the other of the two */
  function togglePlay(force) {
    if (!els) return;
    S.playing = force === undefined ? !S.playing : force;
    if (S.playing && S.index >= S.total - 1) go(0);
    const btn = els.playBtn;
    clear(btn);
    btn.appendChild(icon(S.playing ? "pause" : "play"));
    btn.setAttribute("aria-label", S.playing ? t("replay.pause") : t("replay.play"));
    btn.title = S.playing ? t("replay.pause_key") : t("replay.play_key");
    schedule();
  }

  /** @param {KeyboardEvent} ev */
  function onKey(ev) {
    if (!els || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const target = ev.target instanceof Element ? ev.target : null;
    const tag = target && target.tagName;
    if (target instanceof HTMLInputElement && target.type !== "range") return;
    if (tag === "SELECT" || tag === "TEXTAREA") return;
    let handled = true;
    // From the step asked for, not the one shown: presses while a page loads still count.
    if (ev.key === "ArrowRight") go(S.want + 1);
    else if (ev.key === "ArrowLeft") go(S.want - 1);
    else if (ev.key === "Home") go(0);
    else if (ev.key === "End") go(S.total - 1);
    else if (ev.key === "PageDown" && S.roundStarts.length) jumpToRound(roundOf(S.roundStarts, S.want) + 1);
    else if (ev.key === "PageUp" && S.roundStarts.length) {
      // Back to this round's start, or from there to the round before.
      const round = roundOf(S.roundStarts, S.want);
      jumpToRound(S.want > S.roundStarts[round - 1] ? round : round - 1);
    }
    else if (ev.key === " " && tag !== "BUTTON" && tag !== "A") togglePlay();
    else handled = false;
    if (handled) ev.preventDefault();
  }
  document.addEventListener("keydown", onKey);

  return {
    destroy() {
      S.destroyed = true;
      clearTimeout(S.timer);
      document.removeEventListener("keydown", onKey);
      if (S.blobUrl) URL.revokeObjectURL(S.blobUrl);
    },
  };
}
