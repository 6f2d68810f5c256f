// The scorekeeper (/scorekeeper, /scorekeeper/{id}): keep score of a game played with real
// cards. Every score, check and total comes from the server (/api/scorecards, which uses the
// engine's own scoring): this page only collects the cards and shows the answers.
// User text (player and scorecard names, messages) reaches the page as text only.
import { api } from "./api.js";
import { cardEl, cardName } from "./cards.js";
import { playerColor, playerHue, totalsChart } from "./chart.js";
import { mountLive } from "./livekeeper.js";
import { navigate, setTopbar } from "./router.js";
import {
  cardCodes, flip7Bonus, minPlayers as fewestPlayers, playerLimits, ruleBadges, ruleDefault, ruleHelp, ruleLabel, ruleOptions, valueLabel,
} from "./rules.js";
import { add, clear, copyText, focusKey, h, icon, initial, listText, restoreFocus, store, toast } from "./util.js";

/** The kinds of card that can be in a line (RECORD.md §1: the server's deck), in picker order. */
export const lineCards = () => cardCodes("number", "modifier");
const POLL_MS = 4000;
const CHECK_DELAY_MS = 300;
const SCORING_RULES = ["lucky13_pair_flip7_count", "tie_break", "brutal_busted_scoring", "brutal_minus15_targets", "allow_two_players"];

export const keyStore = (id) => `flip7.scorecard.key.${id}`;
const draftStore = (id) => `flip7.scorecard.draft.${id}`;
const base = (id) => `/api/scorecards/${encodeURIComponent(id)}`;
const pagePath = (id) => `/scorekeeper/${encodeURIComponent(id)}`;

export function avatarEl(name, seat, small = false) {
  return h("span", { class: `avatar${small ? " avatar--small" : ""}`, style: { "--hue": String(playerHue(seat)) }, "aria-hidden": "true", text: initial(name) });
}

function signed(n) {
  if (n === null || n === undefined) return "–";
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0";
}

function plain(n) {
  return n < 0 ? `−${-n}` : String(n);
}

function when(value) {
  if (value === null || value === undefined || value === "") return "";
  const d = typeof value === "number" ? new Date(value * (value < 1e12 ? 1000 : 1)) : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  const secs = (Date.now() - d.getTime()) / 1000;
  if (secs < 60) return "just now";
  if (secs < 3600) return `${Math.floor(secs / 60)} min ago`;
  if (secs < 86400 && d.getDate() === new Date().getDate()) return `today ${d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`;
  return d.toLocaleDateString([], { day: "numeric", month: "short", year: "numeric" });
}

/** A seat number, a name, or a list of either, as a name. */
function whoText(value, players) {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return listText(value.map((v) => whoText(v, players)));
  if (typeof value === "number" && players && players[value] !== undefined) return players[value];
  if (typeof value === "object" && value.name) return value.name;
  return String(value);
}

/** A modal yes/no question in the app's dialog style; resolves to true or false. */
function confirmDialog(title, text, okLabel) {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: "dialog", "aria-labelledby": "confirm-title" });
    const form = h("form", { method: "dialog", class: "dialog-form" },
      h("h2", { id: "confirm-title", text: title }),
      h("p", { class: "muted", text }),
      h("div", { class: "dialog-actions" },
        h("button", { type: "button", class: "btn btn--ghost", onclick: () => dialog.close("cancel") }, "Cancel"),
        h("button", { type: "submit", class: "btn btn--primary", value: "ok", dataset: { testid: "confirm-ok" } }, okLabel)));
    dialog.appendChild(form);
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue === "ok");
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    form.querySelector("[data-testid=confirm-ok]").focus();
  });
}

function switchField(input, label, help) {
  return h("div", { class: "switch-field" },
    input,
    h("label", { for: input.id, class: "switch-label" },
      h("span", { class: "switch", "aria-hidden": "true" }),
      h("span", { class: "switch-text" }, h("span", { text: label }), help ? h("small", { class: "muted", text: help }) : null)));
}

// =====================================================================================
// /scorekeeper: the list and the "new scorecard" form

export function mountScorekeeperList(root) {
  document.body.dataset.view = "scorekeeper";
  document.title = "Scorekeeper · Flip 7";
  let destroyed = false;

  // ---- the form ----------------------------------------------------------------------
  const playerList = h("ol", { class: "sk-names", "aria-label": "Players, in seat order" });
  const addPlayer = h("button", { type: "button", class: "btn btn--ghost btn--small", dataset: { testid: "add-player" }, "aria-label": "Add a player" }, "+ Add player");
  const nameInput = h("input", { id: "sk-name", class: "input", type: "text", placeholder: "Game night", autocomplete: "off" });
  const targetOption = ruleOptions().find((o) => o.name === "target_score") || {};
  const targetInput = h("input", { id: "sk-target", class: "input", type: "number", min: String(targetOption.min ?? ""), step: "1", value: String(targetOption.default ?? ""), inputmode: "numeric" });
  const decksSelect = h("select", { id: "sk-decks", class: "select" },
    h("option", { value: "1", text: "1 deck" }), h("option", { value: "2", text: "2 decks" }));
  const brutalInput = h("input", { id: "sk-brutal", type: "checkbox", class: "switch-input" });
  const ruleInputs = new Map();
  const rulesBox = h("div", { class: "house-rules" });
  const options = new Map(ruleOptions().map((o) => [o.name, o]));
  for (const name of SCORING_RULES) {
    const option = options.get(name);
    if (!option) continue;
    const idAttr = `sk-rule-${name}`;
    const def = option.default;
    if (option.type === "bool") {
      const input = h("input", { id: idAttr, type: "checkbox", class: "switch-input", dataset: { rule: name } });
      input.checked = def;
      ruleInputs.set(name, input);
      rulesBox.appendChild(switchField(input, ruleLabel(name), name === "allow_two_players" ? "Lets you keep score of a two-player game." : null));
      input.addEventListener("change", syncPlayers);
    } else {
      const values = option.values || [def];
      const select = h("select", { id: idAttr, class: "select", dataset: { rule: name } },
        values.map((v) => h("option", { value: JSON.stringify(v), text: valueLabel(name, v) })));
      select.value = JSON.stringify(def);
      ruleInputs.set(name, select);
      rulesBox.appendChild(h("div", { class: "field field--row" }, h("label", { for: idAttr, class: "field-label", text: ruleLabel(name) }), select));
    }
  }
  const formError = h("p", { class: "form-error", role: "alert", hidden: true, dataset: { testid: "create-error" } });
  const submit = h("button", { type: "submit", class: "btn btn--primary btn--big btn--block", dataset: { testid: "create-scorecard" } }, "Start keeping score");

  const allowTwo = () => { const input = ruleInputs.get("allow_two_players"); return input ? input.checked : !!ruleDefault("allow_two_players"); };
  const minPlayers = () => fewestPlayers(allowTwo());

  function playerRow(value = "") {
    const input = h("input", { class: "input", type: "text", autocomplete: "off", value, dataset: { testid: "player-name" } });
    const remove = h("button", { type: "button", class: "btn btn--icon", onclick: () => { li.remove(); syncPlayers(); } }, icon("close"));
    const li = h("li", { class: "sk-name-row" }, h("span", { class: "sk-name-num", "aria-hidden": "true" }), input, remove);
    return li;
  }

  function syncPlayers() {
    const rows = [...playerList.children];
    rows.forEach((li, i) => {
      li.querySelector(".sk-name-num").textContent = String(i + 1);
      const input = li.querySelector("input");
      input.placeholder = `Player ${i + 1}`;
      input.setAttribute("aria-label", `Player ${i + 1} name`);
      const btn = li.querySelector("button");
      btn.setAttribute("aria-label", `Remove player ${i + 1}`);
      btn.disabled = rows.length <= minPlayers();
    });
    addPlayer.disabled = rows.length >= playerLimits().max;
    const need2 = rows.length > playerLimits().one_deck_max;
    decksSelect.querySelector('option[value="1"]').disabled = need2;
    if (need2) decksSelect.value = "2";
  }
  addPlayer.addEventListener("click", () => {
    const li = playerRow();
    playerList.appendChild(li);
    syncPlayers();
    li.querySelector("input").focus();
  });
  for (let i = 0; i < 3; i += 1) playerList.appendChild(playerRow());
  syncPlayers();

  function fail(message, focus) {
    formError.textContent = message;
    formError.hidden = false;
    if (focus) focus.focus();
  }

  const form = h("form", { class: "create-form", novalidate: true, "aria-labelledby": "sk-create-title" },
    h("div", { class: "field" },
      h("span", { class: "field-label", id: "sk-players-label", text: "Players (in seat order)" }),
      playerList, h("div", { class: "sk-names-tools" }, addPlayer)),
    h("div", { class: "field" }, h("label", { for: "sk-name", class: "field-label", text: "Name of the game" }), nameInput),
    h("div", { class: "field-grid" },
      h("div", { class: "field" }, h("label", { for: "sk-target", class: "field-label", text: "Target score" }), targetInput),
      h("div", { class: "field" }, h("label", { for: "sk-decks", class: "field-label", text: "Decks" }), decksSelect)),
    switchField(brutalInput, ruleLabel("brutal"), ruleHelp("brutal")),
    h("details", { class: "more-rules" }, h("summary", { text: "Scoring rules" }), rulesBox),
    formError, submit);

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    formError.hidden = true;
    const inputs = [...playerList.querySelectorAll("input")];
    const players = inputs.map((i) => i.value.trim()).filter(Boolean);
    if (players.length < minPlayers()) {
      fail(allowTwo() ? `Enter at least ${minPlayers()} player names.` : `Enter at least ${minPlayers()} player names (or allow two-player games in the scoring rules).`,
        inputs.find((i) => !i.value.trim()));
      return;
    }
    const lower = players.map((p) => p.toLowerCase());
    const dup = players.find((p, i) => lower.indexOf(p.toLowerCase()) !== i);
    if (dup) {
      fail(`Two players are called “${dup}”: give everyone a different name.`);
      return;
    }
    const target = Number(targetInput.value);
    const least = Number(targetInput.min) || 1;
    if (!Number.isInteger(target) || target < least) {
      fail(`The target score must be a whole number of at least ${least}.`, targetInput);
      return;
    }
    const rules = {};
    if (brutalInput.checked) rules.brutal = true;
    if (target !== ruleDefault("target_score")) rules.target_score = target;
    for (const [name, input] of ruleInputs) {
      const value = input.type === "checkbox" ? input.checked : JSON.parse(input.value);
      if (value !== ruleDefault(name)) rules[name] = value;
    }
    const body = { name: nameInput.value.trim() || `${listText(players)}`, players, rules, decks: Number(decksSelect.value) };
    submit.disabled = true;
    try {
      const data = await api("POST", "/api/scorecards", { body });
      store.set(keyStore(data.id), data.key);
      navigate(`${pagePath(data.id)}#key=${encodeURIComponent(data.key)}`);
    } catch (err) {
      fail(err.message);
    } finally {
      submit.disabled = false;
    }
  });

  const createPanel = h("section", { class: "panel create", "aria-labelledby": "sk-create-title" },
    h("h2", { id: "sk-create-title", text: "New scorecard" }), form);

  // ---- saved scorecards ------------------------------------------------------------
  const list = h("ul", { class: "table-list", "aria-live": "polite", dataset: { testid: "scorecards" } });
  const empty = h("p", { class: "muted empty", text: "No scorecards yet. Start one for your next game!" });
  const refresh = h("button", { type: "button", class: "btn btn--icon", "aria-label": "Refresh the list", onclick: () => load() }, icon("refresh"));
  const listPanel = h("section", { class: "panel tables", "aria-labelledby": "sk-list-title" },
    h("div", { class: "panel-head" }, h("h2", { id: "sk-list-title", text: "Saved scorecards" }), refresh),
    list, empty);

  function render(cards) {
    const fk = focusKey();
    clear(list);
    empty.hidden = cards.length > 0;
    for (const c of cards) {
      const mine = !!store.get(keyStore(c.id));
      const over = c.status === "over";
      const leader = whoText(c.leader, c.players);
      const rounds = Number(c.rounds) || 0;
      const facts = [`${rounds} round${rounds === 1 ? "" : "s"}`];
      const top = Array.isArray(c.totals) && c.totals.length ? Math.max(...c.totals) : null;
      const tied = Array.isArray(c.totals) ? c.totals.filter((t) => t === top).length > 1 : false;
      const winners = Array.isArray(c.winners) ? c.winners.map((s) => c.players[s]) : [];
      if (over && winners.length) facts.push(`won by ${listText(winners)}${top !== null ? ` with ${plain(top)}` : ""}`);
      else if (leader) facts.push(`${leader} ${tied ? "lead" : "leads"}${top !== null ? ` with ${plain(top)}` : ""}`);
      if (c.updated) facts.push(`updated ${when(c.updated)}`);
      list.appendChild(h("li", { class: "table-item", dataset: { scorecard: c.id } },
        h("div", { class: "table-item-main" },
          h("div", { class: "table-item-title" },
            h("a", { class: "table-item-name sk-list-link", href: pagePath(c.id), "data-link": true, text: c.name, dataset: { focusKey: `open:${c.id}` } }),
            h("span", { class: "chip chip--state", dataset: { state: over ? "over" : "playing" }, text: over ? "Finished" : "Playing" }),
            mine ? h("span", { class: "badge badge--you", text: "Editable here" }) : null),
          h("p", { class: "table-item-players muted", text: (c.players || []).join(", ") }),
          h("p", { class: "sk-list-facts", text: facts.join(" · ") })),
        h("div", { class: "table-item-actions" },
          h("a", { class: `btn ${mine && !over ? "btn--primary" : "btn--ghost"} btn--small`, href: pagePath(c.id), "data-link": true, "aria-label": `Open ${c.name}` }, mine && !over ? "Keep score" : "Open"))));
    }
    restoreFocus(fk, list);
  }

  async function load() {
    try {
      const data = await api("GET", "/api/scorecards");
      if (!destroyed) render((data && data.scorecards) || []);
    } catch (err) {
      if (!destroyed) toast(err.message);
    }
  }
  load();

  const intro = h("section", { class: "hero sk-hero" },
    h("div", { class: "hero-text" },
      h("h1", { class: "hero-title" }, "Scorekeeper ", h("span", { text: "with real cards" })),
      h("p", { class: "hero-sub", text: "Tap each player’s cards at the end of a round: the scores, the checks and the running totals are worked out for you, up to the winner." })),
    h("div", { class: "sk-hero-cards", "aria-hidden": "true" }, ["3", "11", "5", "/2", "-4"].map((c) => cardEl(c, { small: true }))));
  const back = h("a", { href: "/", "data-link": true, class: "btn btn--ghost btn--small" }, "Play online");
  setTopbar(back);
  root.appendChild(h("div", { class: "lobby scorekeeper" }, intro,
    h("div", { class: "lobby-grid" }, createPanel, h("div", { class: "lobby-col" }, listPanel))));
  return { destroy() { destroyed = true; } };
}

// =====================================================================================
// /scorekeeper/{id}: one scorecard

function blankLines(n) {
  return Array.from({ length: n }, () => ({ cards: [], busted: false }));
}

function copyLines(lines) {
  return lines.map((l) => ({ cards: [...(l.cards || [])], busted: !!l.busted }));
}

function sameChoice(a, b) {
  return JSON.stringify(a || "bonus") === JSON.stringify(b || "bonus");
}

export function mountScorecard(root, { id }) {
  document.body.dataset.view = "scorekeeper";
  document.title = "Scorekeeper · Flip 7";
  let destroyed = false;
  let summary = null;
  let entry = null; // the round being typed: {mode, number, revision, lines, choice, selected}
  let stash = null; // the new-round draft, kept while an old round is edited
  let check = { state: "idle" }; // the server's answer for the typed round
  let checkSeq = 0;
  let knownFlip7 = null;
  let checkTimer = null;
  let saving = false;
  let notice = null; // {kind, text} shown at the top of the entry panel
  let live = null; // the live-mode controller, when on
  let entryRefs = null; // the parts of the entry panel that show the server's check

  // The edit key: from the link (#key=…), else from this device's storage.
  const hashKey = new URLSearchParams(window.location.hash.slice(1)).get("key");
  const justCreated = !!hashKey;
  if (hashKey) {
    store.set(keyStore(id), hashKey);
    history.replaceState(history.state, "", window.location.pathname); // keep the key out of the address bar
  }
  let key = store.get(keyStore(id));
  const editable = () => !!key;
  const keyHeaders = () => (key ? { "X-Scorecard-Key": key } : {});

  // ---- page skeleton ---------------------------------------------------------------
  const title = h("h1", { class: "table-title", dataset: { testid: "scorecard-name" } });
  const chips = h("div", { class: "sk-chips" });
  const modeChip = h("span", { class: "chip", dataset: { testid: "mode" } });
  const head = h("div", { class: "table-head sk-head" },
    h("div", { class: "table-head-main" }, title, modeChip, chips));
  const banner = h("div", { class: "sk-banner-slot", "aria-live": "polite" });
  const totals = h("section", { class: "sk-totals", "aria-label": "Totals", dataset: { testid: "totals" } });
  const status = h("p", { class: "sk-status", role: "status", dataset: { testid: "status" } });
  const entryBox = h("section", { class: "panel sk-entry", id: "entry", "aria-labelledby": "entry-title", dataset: { testid: "entry" }, hidden: true });
  const historyBox = h("section", { class: "panel sk-history", "aria-labelledby": "history-title", dataset: { testid: "history" } });
  const chartBox = h("section", { class: "panel sk-chart", "aria-labelledby": "chart-title" });
  const shareBox = h("details", { class: "panel sk-share", dataset: { testid: "share" } });
  const layout = h("div", { class: "sk-layout" },
    h("div", { class: "sk-main" }, banner, totals, status, entryBox, historyBox),
    h("div", { class: "sk-side" }, chartBox, shareBox));
  root.appendChild(h("div", { class: "scorekeeper sk-card" }, head, layout));
  root.appendChild(h("div", { class: "loading", dataset: { testid: "loading" } }, h("span", { class: "spinner", "aria-hidden": "true" }), "Loading the scorecard…"));
  setTopbar(h("a", { href: "/scorekeeper", "data-link": true, class: "btn btn--ghost btn--small", "aria-label": "All scorecards" }, "Scorecards"));

  // ---- loading and polling ---------------------------------------------------------
  async function load({ quiet = false } = {}) {
    try {
      const data = await api("GET", base(id));
      if (destroyed) return;
      setSummary(data);
    } catch (err) {
      if (destroyed) return;
      if (err.status === 404) {
        clear(root);
        root.appendChild(h("section", { class: "panel notfound" },
          h("h1", { text: "No such scorecard" }),
          h("p", { text: "This scorecard does not exist (or the link is incomplete)." }),
          h("a", { href: "/scorekeeper", "data-link": true, class: "btn btn--primary" }, "All scorecards")));
        destroyed = true;
      } else if (!quiet) toast(err.message);
    }
  }

  function setSummary(data) {
    const first = summary === null;
    const changed = first || data.version !== summary.version || data.updated !== summary.updated;
    summary = data;
    const loading = root.querySelector("[data-testid=loading]");
    if (loading) loading.remove();
    if (!changed) return;
    reconcileEntry();
    renderAll();
    if (first && live === null && summary.live && editable()) {
      if (!summary.live.over) startLive(summary.live);
      else if (entry && entry.mode === "new" && entry.lines.every((l) => !l.cards.length && !l.busted)) {
        liveOver(summary.live.lines); // a live round finished on this or another device
      }
    }
    if (live) live.update(summary);
  }

  const poll = setInterval(() => { if (!document.hidden && !saving) load({ quiet: true }); }, POLL_MS);
  const onFocus = () => { if (!destroyed) load({ quiet: true }); };
  window.addEventListener("focus", onFocus);
  document.addEventListener("visibilitychange", onFocus);
  let resizeTimer = null;
  const onResize = () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(() => summary && renderChart(), 150); };
  window.addEventListener("resize", onResize);

  // ---- the entry state -------------------------------------------------------------
  const over = () => summary && summary.status === "over";
  const nextNumber = () => summary.rounds.length + 1;

  function newEntry(lines = null) {
    return { mode: "new", number: nextNumber(), revision: null, lines: lines || blankLines(summary.players.length), choice: "bonus", selected: 0 };
  }

  function saveDraft() {
    if (!entry || entry.mode !== "new") return;
    const empty = entry.lines.every((l) => !l.cards.length && !l.busted);
    if (empty) store.del(draftStore(id));
    else store.set(draftStore(id), JSON.stringify({ number: entry.number, lines: entry.lines, choice: entry.choice }));
  }

  function loadDraft() {
    try {
      const d = JSON.parse(store.get(draftStore(id)) || "null");
      if (d && d.number === nextNumber() && Array.isArray(d.lines) && d.lines.length === summary.players.length) {
        const e = newEntry(copyLines(d.lines));
        e.choice = d.choice || "bonus";
        return e;
      }
    } catch {
      /* a broken draft is ignored */
    }
    return null;
  }

  /** After the summary changes: keep what is typed, but follow the round numbers. */
  function reconcileEntry() {
    if (!editable()) {
      entry = null;
      return;
    }
    if (entry === null) {
      entry = loadDraft() || newEntry();
      scheduleCheck();
      return;
    }
    if (entry.mode === "edit") {
      const r = summary.rounds.find((x) => x.number === entry.number);
      if (!r) { // the round was undone elsewhere: keep the lines as a new round
        notice = { kind: "error", text: `Round ${entry.number} is gone (undone on another device). Your lines are kept as round ${nextNumber()}.` };
        const lines = entry.lines;
        entry = newEntry(lines);
        stash = null;
        scheduleCheck();
      }
      return;
    }
    if (entry.number !== nextNumber()) {
      const typed = entry.lines.some((l) => l.cards.length || l.busted);
      if (typed && entry.number < nextNumber()) {
        notice = { kind: "error", text: `Round ${entry.number} was saved from another device. Your lines are kept as round ${nextNumber()}: clear them if they were for round ${entry.number}.` };
      }
      entry.number = nextNumber();
      saveDraft();
      scheduleCheck();
    }
  }

  function changed() {
    saveDraft();
    scheduleCheck();
    renderEntry();
  }

  // ---- the server's check (debounced) ----------------------------------------------
  function checkBody() {
    const body = { lines: copyLines(entry.lines) };
    if (summary.rules && summary.rules.brutal && !sameChoice(entry.choice, "bonus")) body.flip7_choice = entry.choice;
    if (entry.mode === "edit") body.number = entry.number; // checked as that round, not the next
    return body;
  }

  function resetCheck() {
    check = { state: "idle" };
    knownFlip7 = null;
  }

  function scheduleCheck() {
    clearTimeout(checkTimer);
    if (!entry || !editable()) return;
    check = { ...check, state: "pending" };
    checkTimer = setTimeout(runCheck, CHECK_DELAY_MS);
  }

  async function runCheck() {
    if (!entry || destroyed) return;
    const seq = ++checkSeq;
    const body = checkBody();
    try {
      const data = await api("POST", `${base(id)}/check`, { body, headers: keyHeaders() });
      if (seq !== checkSeq || destroyed) return;
      check = { state: "ok", result: data, problems: [] };
    } catch (err) {
      if (seq !== checkSeq || destroyed) return;
      if (err.code === "invalid_round" && err.detail) check = { state: "problems", result: null, problems: err.detail.problems || [{ seat: null, message: err.message }] };
      else check = { state: "error", result: null, problems: [{ seat: null, message: err.message }] };
    }
    if (check.state === "ok") {
      const r = check.result;
      knownFlip7 = r.flip7_seat ?? null;
      // In Brutal the Flip 7 choice follows the Flip 7: drop a penalty that no longer fits.
      if (!sameChoice(entry.choice, "bonus") && (knownFlip7 === null || knownFlip7 === entry.choice.minus15)) {
        entry.choice = "bonus";
        saveDraft();
        scheduleCheck();
      }
    }
    applyCheck();
  }

  /** The Flip 7 seat of the last round that passed the checks (kept while a problem shows). */
  function flip7Seat() {
    return knownFlip7;
  }

  function checkScores() {
    return check.result ? check.result.scores : null;
  }

  function checkTotals() {
    return check.result ? check.result.totals : null;
  }

  // ---- saving ----------------------------------------------------------------------
  async function saveRound() {
    if (saving || !entry) return;
    clearTimeout(checkTimer);
    saving = true;
    notice = null;
    renderEntry();
    const body = checkBody();
    delete body.number;
    const wasEdit = entry.mode === "edit";
    const number = entry.number;
    try {
      let data;
      if (wasEdit) {
        data = await api("PUT", `${base(id)}/rounds/${number}`, { body: { revision: entry.revision, ...body }, headers: keyHeaders() });
      } else {
        data = await api("POST", `${base(id)}/rounds`, { body: { number, ...body }, headers: keyHeaders() });
      }
      saving = false;
      if (wasEdit) {
        entry = stash || null;
        stash = null;
      } else {
        entry = null;
        store.del(draftStore(id));
      }
      if (live) stopLive(false);
      resetCheck();
      summary = null; // force a full render
      setSummary(data);
      toast(wasEdit ? `Round ${number} updated` : `Round ${number} saved`, "ok", 2200);
      if (!wasEdit && !over()) focusFirstPlayer();
    } catch (err) {
      saving = false;
      await saveFailed(err, number, wasEdit);
    }
  }

  async function saveFailed(err, number, wasEdit) {
    if (err.code === "invalid_round" && err.detail) {
      check = { state: "problems", result: null, problems: err.detail.problems || [{ seat: null, message: err.message }] };
      notice = { kind: "error", text: "The round was not saved: correct the problems below and save again." };
    } else if (err.status === 409) {
      // Someone else changed the scorecard: take theirs, keep what is typed here.
      const fresh = err.detail && err.detail.scorecard;
      if (fresh) setSummary(fresh);
      else await load({ quiet: true });
      if (wasEdit && entry && entry.mode === "edit") {
        const r = summary.rounds.find((x) => x.number === number);
        if (r) entry.revision = r.revision;
      }
      notice = { kind: "error", text: `${err.message} Your lines are kept: check them and save again.` };
      scheduleCheck();
    } else if (err.status === 403) {
      notice = { kind: "error", text: "This device cannot change this scorecard: open the edit link (with its key) to keep score here." };
    } else {
      notice = { kind: "error", text: `${err.message} Nothing you typed is lost: try again.` };
    }
    renderEntry();
    const box = entryBox.querySelector(".sk-notice");
    if (box) box.scrollIntoView({ block: "nearest" });
  }

  function startEdit(round) {
    if (entry && entry.mode === "new") stash = entry;
    entry = { mode: "edit", number: round.number, revision: round.revision, lines: copyLines(round.lines), choice: round.flip7_choice || "bonus", selected: 0 };
    notice = null;
    resetCheck();
    if (live) stopLive(false);
    renderAll();
    scheduleCheck();
    entryBox.scrollIntoView({ block: "start" });
    focusFirstPlayer();
  }

  function cancelEdit() {
    entry = stash || newEntry();
    stash = null;
    notice = null;
    resetCheck();
    renderAll();
    scheduleCheck();
  }

  async function undoLast() {
    const last = summary.rounds[summary.rounds.length - 1];
    if (!last) return;
    const ok = await confirmDialog(`Undo round ${last.number}?`, "The round’s cards and scores are removed; the totals go back to what they were before it.", `Undo round ${last.number}`);
    if (!ok) return;
    try {
      const data = await api("DELETE", `${base(id)}/rounds/${last.number}?revision=${last.revision}`, { headers: keyHeaders() });
      if (entry && entry.mode === "edit" && entry.number === last.number) {
        entry = stash;
        stash = null;
      }
      summary = null;
      setSummary(data);
      toast(`Round ${last.number} undone`, "ok", 2200);
    } catch (err) {
      toast(err.message);
      if (err.status === 409) {
        const fresh = err.detail && err.detail.scorecard;
        if (fresh) setSummary(fresh);
        else load({ quiet: true });
      }
    }
  }

  function focusFirstPlayer() {
    const btn = entryBox.querySelector(".sk-player-pick");
    if (btn) btn.focus({ preventScroll: true });
  }

  // ---- live mode -------------------------------------------------------------------
  /** The live round is over: its final lines go into the entry panel, ready to save. */
  function liveOver(lines) {
    if (entry && entry.mode === "edit") return;
    if (!entry) entry = newEntry();
    entry.lines = copyLines(lines);
    entry.selected = -1;
    notice = { kind: "ok", text: "The live round is over: its lines are below. Check them and save the round." };
    stopLive(false);
    changed();
  }

  function startLive(state) {
    live = mountLive({
      id, summary, keyHeaders, state,
      onLines: liveOver,
      onClose: () => leaveLive(),
      onState: (data) => setSummary(data),
    });
    notice = null;
    renderEntry();
  }

  /** The user turns live mode off: the live round's cards are dropped (after asking). */
  async function leaveLive() {
    const l = summary.live;
    if (l && !l.over && l.events && l.events.length) {
      const ok = await confirmDialog("Stop live mode?", "The cards entered live for this round are dropped. The lines typed in the entry panel stay.", "Stop live mode");
      if (!ok) return;
    }
    stopLive(true);
  }

  function stopLive(abandon) {
    if (!live) return;
    const l = live;
    live = null;
    l.destroy(abandon);
    if (abandon && summary) summary.live = null;
    renderEntry();
  }

  // ---- rendering -------------------------------------------------------------------
  function renderAll() {
    if (!summary) return;
    const players = summary.players;
    document.title = `${summary.name} · Scorekeeper`;
    title.textContent = summary.name;
    modeChip.textContent = editable() ? "Keeping score" : "Read-only";
    modeChip.className = `chip ${editable() ? "chip--round" : "chip--watch"}`;
    clear(chips);
    const { allow_two_players: _two, ...shown } = summary.rules || {}; // not worth a badge once the players are in
    const badges = ruleBadges(shown);
    const target = summary.target;
    if (target === ruleDefault("target_score")) badges.splice(summary.rules && summary.rules.brutal ? 1 : 0, 0, { text: `To ${target}` });
    if ((summary.decks || 1) > 1) badges.push({ text: `${summary.decks} decks` });
    for (const b of badges) chips.appendChild(h("span", { class: `badge badge--rule${b.cls ? ` badge--${b.cls}` : ""}`, text: b.text }));
    renderBanner(players);
    renderTotals(players);
    status.textContent = summary.message || "";
    renderEntry();
    renderHistory(players);
    renderChart();
    renderShare();
  }

  function leaders() {
    if (Array.isArray(summary.leaders)) return summary.leaders;
    const t = summary.totals;
    if (!summary.rounds.length) return [];
    const best = Math.max(...t);
    return t.map((v, s) => (v === best ? s : -1)).filter((s) => s >= 0);
  }

  function renderBanner(players) {
    clear(banner);
    const winners = summary.winners || [];
    if (over() && winners.length) {
      const names = winners.map((s) => players[s]);
      const best = summary.totals[winners[0]];
      const ranking = players.map((name, s) => ({ name, s, total: summary.totals[s] })).sort((a, b) => b.total - a.total);
      banner.appendChild(h("section", { class: "sk-winner", dataset: { testid: "winner" }, "aria-labelledby": "winner-title" },
        h("div", { class: "endscreen-trophy", "aria-hidden": "true" }, icon("trophy")),
        h("p", { class: "endscreen-kicker", text: `Game over after ${summary.rounds.length} round${summary.rounds.length === 1 ? "" : "s"}` }),
        h("h2", { id: "winner-title", class: "endscreen-title", text: names.length > 1 ? `${listText(names)} share the win!` : `${names[0]} wins!` }),
        h("p", { class: "sk-winner-sub", text: `with ${plain(best)} points` }),
        h("ol", { class: "ranking" }, ranking.map((r, i) => h("li", { class: `ranking-row${winners.includes(r.s) ? " is-winner" : ""}` },
          h("span", { class: "ranking-pos", text: String(i + 1) }),
          avatarEl(r.name, r.s, true),
          h("span", { class: "ranking-name", text: r.name }),
          h("b", { class: "ranking-total", text: plain(r.total) })))),
        editable() ? h("p", { class: "muted sk-winner-help", text: "A mistake? Edit any round below, or undo the last one, and the game goes on." }) : null));
    } else if (summary.extra_round) {
      banner.appendChild(h("div", { class: "sk-extra", role: "status", dataset: { testid: "extra-round" } },
        h("strong", { text: "Tie at the top: extra round!" }),
        h("span", { text: ` ${listText(leaders().map((s) => players[s]))} are level on ${plain(summary.totals[leaders()[0]])}; play another round until one of them leads.` })));
    }
  }

  function renderTotals(players) {
    clear(totals);
    totals.dataset.count = String(players.length);
    const lead = leaders();
    const winners = summary.winners || [];
    const last = summary.rounds[summary.rounds.length - 1];
    const target = summary.target;
    players.forEach((name, s) => {
      const t = summary.totals[s];
      const isWinner = over() && winners.includes(s);
      const isLeader = !over() && lead.length === 1 && lead[0] === s;
      totals.appendChild(h("div", {
        class: `sk-total${isLeader ? " is-leader" : ""}${isWinner ? " is-winner" : ""}`,
        style: { "--hue": String(playerHue(s)) }, dataset: { seat: String(s) },
      },
      h("div", { class: "sk-total-who" }, avatarEl(name, s, true), h("span", { class: "sk-total-name", text: name })),
      h("b", { class: "sk-total-value", dataset: { testid: "total" }, "aria-label": `${name}: ${t} points`, text: plain(t) }),
      h("div", { class: "sk-total-foot" },
        last ? h("span", { class: "muted", title: "Change in the last round" },
          signed(last.totals[s] - (summary.rounds.length > 1 ? summary.rounds[summary.rounds.length - 2].totals[s] : 0)),
          h("span", { class: "hide-narrow", text: " last round" })) : h("span", { class: "muted", text: `${target} to win` }),
        isWinner ? h("span", { class: "badge sk-badge-win", text: "Winner" }) : isLeader ? h("span", { class: "badge sk-badge-lead", text: "Leader" }) : null),
      h("span", { class: "sk-total-bar", style: { width: `${Math.max(0, Math.min(100, (t / target) * 100))}%` }, "aria-hidden": "true" })));
    });
  }

  function renderShare() {
    clear(shareBox);
    if (justCreated) shareBox.open = true;
    const origin = window.location.origin;
    const readLink = `${origin}${pagePath(id)}`;
    const linkRow = (label, value, testid, help) => {
      const input = h("input", { class: "input", type: "text", readonly: true, value, "aria-label": label, dataset: { testid } });
      input.addEventListener("focus", () => input.select());
      return h("div", { class: "field" },
        h("span", { class: "field-label", text: label }),
        h("div", { class: "invite-row" }, input,
          h("button", { type: "button", class: "btn btn--secondary", "aria-label": `Copy the ${label.toLowerCase()}`,
            onclick: async () => toast(await copyText(value) ? "Link copied" : "Copy the link by hand", "ok", 1800) }, icon("copy"), "Copy")),
        help ? h("small", { class: "muted", text: help }) : null);
    };
    add(shareBox, h("summary", { text: editable() ? "Share: edit and watch links" : "Share the read-only link" }),
      editable() ? linkRow("Edit link", `${readLink}#key=${encodeURIComponent(key)}`, "edit-link", "Anyone with this link can change the scores: keep it among the scorekeepers.") : null,
      linkRow("Read-only link", readLink, "read-link", "For everyone else: it shows the totals and refreshes by itself."),
      h("div", { class: "sk-exports" },
        h("a", { class: "btn btn--ghost btn--small", href: `${base(id)}/export.csv`, download: "", dataset: { testid: "export-csv" }, "aria-label": "Export the scores as CSV" }, icon("download"), "Export CSV"),
        h("a", { class: "btn btn--ghost btn--small", href: `${base(id)}/export.json`, download: "", dataset: { testid: "export-json" }, "aria-label": "Export the scorecard as JSON" }, icon("download"), "Export JSON")));
  }

  function renderChart() {
    clear(chartBox);
    add(chartBox, h("h2", { id: "chart-title", text: "Totals over the rounds" }));
    if (!summary.rounds.length) {
      chartBox.appendChild(h("p", { class: "muted", text: "The chart appears after the first round." }));
      return;
    }
    const width = chartBox.clientWidth ? chartBox.clientWidth - 32 : 600;
    chartBox.appendChild(totalsChart({
      names: summary.players,
      series: summary.rounds.map((r) => r.totals),
      target: summary.target,
      width,
      winners: over() ? summary.winners || [] : [],
    }));
  }

  function renderHistory(players) {
    const fk = focusKey();
    clear(historyBox);
    const rounds = summary.rounds;
    const headRow = h("div", { class: "panel-head" }, h("h2", { id: "history-title", text: "Rounds" }));
    if (editable() && rounds.length) {
      headRow.appendChild(h("button", { type: "button", class: "btn btn--ghost btn--small", dataset: { testid: "undo", focusKey: "undo" },
        "aria-label": `Undo the last round (round ${rounds.length})`, onclick: undoLast }, "Undo last round"));
    }
    historyBox.appendChild(headRow);
    if (!rounds.length) {
      historyBox.appendChild(h("p", { class: "muted", text: editable() ? "No round yet: enter the first one above." : "No round yet." }));
      return;
    }
    const list = h("ol", { class: "sk-rounds", reversed: true });
    for (const r of [...rounds].reverse()) {
      const editing = entry && entry.mode === "edit" && entry.number === r.number;
      const minus = r.flip7_choice && r.flip7_choice.minus15 !== undefined ? r.flip7_choice.minus15 : null;
      list.appendChild(h("li", { class: `sk-round${editing ? " is-editing" : ""}`, dataset: { round: String(r.number) } },
        h("div", { class: "sk-round-head" },
          h("span", { class: "chip chip--round", text: `Round ${r.number}` }),
          r.live ? h("span", { class: "badge", text: "Live" }) : null,
          r.revision > 1 ? h("span", { class: "badge", title: `Revision ${r.revision}`, text: "Edited" }) : null,
          editing ? h("span", { class: "badge badge--you", text: "Editing" }) : null,
          editable() && !editing ? h("button", { type: "button", class: "btn btn--ghost btn--small sk-round-edit", dataset: { testid: "edit-round", focusKey: `edit:${r.number}` },
            "aria-label": `Edit round ${r.number}`, onclick: () => startEdit(r) }, "Edit") : null),
        h("table", { class: "sk-round-table" },
          h("colgroup", {}, h("col", { class: "sk-col-name" }), h("col", {}), h("col", { class: "sk-col-score" }), h("col", { class: "sk-col-total" })),
          h("thead", { class: "visually-hidden" }, h("tr", {}, h("th", { scope: "col", text: "Player" }), h("th", { scope: "col", text: "Cards" }), h("th", { scope: "col", text: "Score" }), h("th", { scope: "col", text: "Total" }))),
          h("tbody", {}, players.map((name, s) => {
            const line = r.lines[s] || { cards: [] };
            const f7 = r.flip7_seat === s;
            return h("tr", { class: `${line.busted ? "is-bust" : ""}${f7 ? " is-flip7" : ""}` },
              h("th", { scope: "row", class: "sk-round-name" }, h("span", { class: "chart-swatch", style: { background: playerColor(s) }, "aria-hidden": "true" }), h("span", { text: name })),
              h("td", {}, h("div", { class: "sk-round-cards" },
                line.cards.length ? line.cards.map((c) => cardEl(c, { small: true })) : null,
                line.busted ? h("span", { class: "status status--busted", text: "Bust" }) : null,
                f7 ? h("span", { class: "badge sk-badge-flip7", text: "Flip 7" }) : null,
                f7 && minus !== null ? h("span", { class: "badge badge--brutal", text: `−${flip7Bonus()} to ${players[minus]}` }) : null,
                !line.cards.length && !line.busted ? h("span", { class: "muted", text: "no cards" }) : null)),
              h("td", { class: "sk-round-score", text: signed(r.scores[s]) }),
              h("td", { class: "sk-round-total", text: plain(r.totals[s]) }));
          })))));
    }
    historyBox.appendChild(list);
    restoreFocus(fk, historyBox);
  }

  function renderEntry() {
    if (!summary) return;
    const show = editable() && entry && (entry.mode === "edit" || !over());
    entryBox.hidden = !show;
    if (!show) return;
    const fk = focusKey();
    clear(entryBox);
    const players = summary.players;
    const editing = entry.mode === "edit";
    entryRefs = null;

    // header
    const liveBtn = h("button", {
      type: "button", class: `btn btn--small ${live ? "btn--primary" : "btn--ghost"}`, "aria-pressed": live ? "true" : "false",
      dataset: { testid: "live-toggle", focusKey: "live" }, disabled: editing,
      "aria-label": "Live: enter cards as they are flipped",
      onclick: () => (live ? leaveLive() : startLive(summary.live)),
    }, h("span", { class: "sk-live-dot", "aria-hidden": "true" }), "Live");
    entryBox.appendChild(h("div", { class: "panel-head sk-entry-head" },
      h("h2", { id: "entry-title", text: editing ? `Editing round ${entry.number}` : `Round ${entry.number}` }),
      h("div", { class: "sk-entry-tools" },
        editing ? null : liveBtn,
        editing ? h("button", { type: "button", class: "btn btn--ghost btn--small", onclick: cancelEdit, "aria-label": `Stop editing round ${entry.number}`, dataset: { testid: "cancel-edit" } }, "Cancel") : null)));
    if (!live) {
      entryBox.appendChild(h("p", { class: "muted sk-entry-help", text: editing
        ? "Change the lines and save: the totals after this round are recomputed."
        : "Tap a player, then the cards of their final line (tap a card in the line to take it out). Mark busted players as busted." }));
    }
    if (notice) {
      entryBox.appendChild(h("p", { class: `sk-notice sk-notice--${notice.kind}`, role: notice.kind === "error" ? "alert" : "status", dataset: { testid: "notice" }, text: notice.text }));
    }
    if (live) {
      entryBox.appendChild(live.element);
      return; // live mode owns the panel until its round is over
    }
    const generalBox = h("div", { class: "sk-general" });
    entryBox.appendChild(generalBox);
    const refs = [];
    const rows = h("div", { class: "sk-players" });
    players.forEach((name, s) => {
      const line = entry.lines[s];
      const selected = entry.selected === s;
      const lineEl = h("div", { class: "sk-line", role: "group", "aria-label": `${name}’s line` });
      if (!line.cards.length) lineEl.appendChild(h("span", { class: "seat-empty", text: line.busted ? "Busted (no cards listed)" : "No cards yet" }));
      line.cards.forEach((c, i) => lineEl.appendChild(cardEl(c, {
        button: true, small: true, label: `Remove ${cardName(c)} from ${name}’s line`, title: `Remove ${cardName(c)}`,
        dataset: { focusKey: `line:${s}:${i}`, index: String(i) },
        onClick: () => { line.cards.splice(i, 1); entry.selected = s; changed(); },
      })));
      const bust = h("button", {
        type: "button", class: `btn btn--small sk-bust${line.busted ? " is-on" : ""}`, "aria-pressed": line.busted ? "true" : "false",
        "aria-label": `${name} busted`, dataset: { testid: "bust", focusKey: `bust:${s}` },
        onclick: () => { line.busted = !line.busted; entry.selected = s; changed(); },
      }, "Busted");
      const total = h("small", { class: "muted sk-player-total" });
      const badge = h("span", { class: "badge sk-badge-flip7", text: "Flip 7", hidden: true });
      const pick = h("button", {
        type: "button", class: "sk-player-pick", "aria-expanded": selected ? "true" : "false",
        "aria-label": `Enter ${name}’s cards`, dataset: { focusKey: `pick:${s}` },
        onclick: () => { entry.selected = s; renderEntry(); },
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
      selected ? picker(name, s) : null);
      refs.push({ row, score, total, badge, problemsBox, choiceBox });
      rows.appendChild(row);
    });
    entryBox.appendChild(rows);

    const checkState = h("p", { class: "sk-check", dataset: { testid: "check-state" }, "aria-live": "polite" });
    entryBox.appendChild(h("div", { class: "sk-save" },
      checkState,
      h("button", {
        type: "button", class: "btn btn--primary btn--big", disabled: saving, dataset: { testid: "save-round", focusKey: "save" },
        "aria-label": `Save round ${entry.number}`, onclick: saveRound,
      }, saving ? "Saving…" : editing ? `Save round ${entry.number}` : "Save round")));
    entryRefs = { generalBox, refs, checkState };
    applyCheck();
    restoreFocus(fk, entryBox);
  }

  /**
   * Show the server's answer for the typed round (scores, totals, problems, the Flip 7)
   * in place: the cards and buttons are not rebuilt, so a tap is never lost to a redraw.
   */
  function applyCheck() {
    if (!entryRefs || live || !entry || !entryBox.contains(entryRefs.checkState)) return;
    const fk = focusKey();
    const players = summary.players;
    const brutal = !!(summary.rules && summary.rules.brutal);
    const scores = checkScores();
    const newTotals = checkTotals();
    const f7 = flip7Seat();
    const problems = check.problems || [];
    const pending = check.state === "pending";
    const general = problems.filter((p) => p.seat === null || p.seat === undefined);
    clear(entryRefs.generalBox);
    if (general.length) {
      entryRefs.generalBox.appendChild(h("ul", { class: "sk-problems sk-problems--general", dataset: { testid: "problems" } },
        general.map((p) => h("li", { text: p.message }))));
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
      ref.score.setAttribute("aria-label", mine.length ? `${name}: problem` : score !== null ? `${name} scores ${score}`
        : blocked ? `${name}: scored once the problems are fixed` : `${name}: not checked yet`);
      ref.total.textContent = newTotals && !mine.length && !pending ? `→ ${plain(newTotals[s])}` : "";
      clear(ref.problemsBox);
      if (mine.length) {
        ref.problemsBox.appendChild(h("ul", { class: "sk-problems", dataset: { testid: "problems" } }, mine.map((p) => h("li", { text: p.message }))));
      }
      clear(ref.choiceBox);
      if (brutal && f7 === s) ref.choiceBox.appendChild(flip7Choice(name, s, players));
    });
    const state = check.state;
    entryRefs.checkState.className = `sk-check sk-check--${state}`;
    entryRefs.checkState.textContent = state === "pending" ? "Checking…"
      : state === "problems" ? `${problems.length} problem${problems.length === 1 ? "" : "s"} to fix before saving`
        : state === "ok" ? "All checks pass" : state === "error" ? "Could not check the round" : "";
    restoreFocus(fk, entryBox);
  }

  function flip7Choice(name, s, players) {
    const opts = [h("button", {
      type: "button", class: `btn btn--small${sameChoice(entry.choice, "bonus") ? " btn--primary" : ""}`, "aria-pressed": sameChoice(entry.choice, "bonus") ? "true" : "false",
      dataset: { focusKey: "choice:bonus" }, onclick: () => { entry.choice = "bonus"; changed(); },
    }, `+${flip7Bonus()} to ${name}`)];
    players.forEach((other, t) => {
      if (t === s) return;
      const on = !sameChoice(entry.choice, "bonus") && entry.choice.minus15 === t;
      opts.push(h("button", {
        type: "button", class: `btn btn--small${on ? " btn--primary" : ""}`, "aria-pressed": on ? "true" : "false",
        dataset: { focusKey: `choice:${t}` }, onclick: () => { entry.choice = { minus15: t }; changed(); },
      }, `−${flip7Bonus()} to ${other}`));
    });
    return h("div", { class: "sk-choice", role: "group", "aria-label": `${name}’s Flip 7: +${flip7Bonus()}, or −${flip7Bonus()} to another player` },
      h("span", { class: "sk-choice-label", text: "Flip 7 bonus:" }), opts);
  }

  function picker(name, s) {
    const grid = h("div", { class: "sk-picker", role: "group", "aria-label": `Cards to add to ${name}’s line`, dataset: { testid: "picker" } },
      lineCards().map((c) => cardEl(c, {
        button: true, label: `Add ${cardName(c)} to ${name}’s line`, title: cardName(c),
        dataset: { focusKey: `add:${s}:${c}` },
        onClick: () => { entry.lines[s].cards.push(c); changed(); },
      })));
    const n = summary.players.length;
    const tools = h("div", { class: "sk-picker-tools" },
      h("button", { type: "button", class: "btn btn--ghost btn--small", "aria-label": `Clear ${name}’s line`, disabled: !entry.lines[s].cards.length && !entry.lines[s].busted,
        onclick: () => { entry.lines[s] = { cards: [], busted: false }; changed(); } }, "Clear"),
      h("button", { type: "button", class: "btn btn--secondary btn--small", dataset: { testid: "next-player", focusKey: "next" },
        "aria-label": s + 1 < n ? `Next: ${summary.players[s + 1]}` : "Done: go to Save",
        onclick: () => {
          if (s + 1 < n) {
            entry.selected = s + 1;
            renderEntry();
            const next = entryBox.querySelector(`.sk-player[data-seat="${s + 1}"]`);
            if (next) next.scrollIntoView({ block: "nearest" });
          } else {
            entry.selected = -1;
            renderEntry();
            const save = entryBox.querySelector("[data-testid=save-round]");
            if (save) { save.focus(); save.scrollIntoView({ block: "nearest" }); }
          }
        } }, s + 1 < n ? `Next: ${summary.players[s + 1]}` : "Done"));
    return h("div", { class: "sk-picker-wrap" }, grid, tools);
  }

  load();

  return {
    destroy() {
      destroyed = true;
      clearInterval(poll);
      clearTimeout(checkTimer);
      clearTimeout(resizeTimer);
      window.removeEventListener("focus", onFocus);
      document.removeEventListener("visibilitychange", onFocus);
      window.removeEventListener("resize", onResize);
      if (live) live.destroy(false);
    },
  };
}
