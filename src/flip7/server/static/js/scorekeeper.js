// The scorekeeper (/scorekeeper, /scorekeeper/{id}): keep score of a game played with real
// cards. Every score, check and total comes from the server (/api/scorecards, which uses the
// engine's own scoring): this page only collects the cards and shows the answers.
// User text (player and scorecard names, messages) reaches the page as text only.
import { api } from "./api.js";
import { formatDate, formatNumber, lang, serverText, t } from "./i18n.js";
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
  return n > 0 ? `+${formatNumber(n)}` : n < 0 ? `−${formatNumber(-n)}` : formatNumber(0);
}

function plain(n) {
  return n < 0 ? `−${formatNumber(-n)}` : formatNumber(n);
}

function when(value) {
  if (value === null || value === undefined || value === "") return "";
  const d = typeof value === "number" ? new Date(value * (value < 1e12 ? 1000 : 1)) : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  const secs = (Date.now() - d.getTime()) / 1000;
  if (secs < 60) return t("scorekeeper.just_now");
  if (secs < 3600) return new Intl.RelativeTimeFormat(lang(), { numeric: "auto" }).format(-Math.floor(secs / 60), "minute");
  if (secs < 86400 && d.getDate() === new Date().getDate()) return t("scorekeeper.today_at", { time: formatDate(d, { hour: "2-digit", minute: "2-digit" }) });
  return formatDate(d, { day: "numeric", month: "short", year: "numeric" });
}

/** A seat number, a name, or a list of either, as a name. */
function whoText(value, players) {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return listText(value.map((v) => whoText(v, players)));
  if (typeof value === "number" && players && players[value] !== undefined) return players[value];
  if (typeof value === "object" && value.name) return value.name;
  return String(value);
}

/** A round's problem (the server's check) in the page's language: its code and params. */
function problemText(p) {
  if (!p.code) return p.message;
  const params = { ...(p.params || {}) };
  if (typeof params.card === "string") params.card = cardName(params.card);
  if (Array.isArray(params.names)) params.names = listText(params.names);
  return serverText(`scorekeeper.problem.${p.code}`, params, p.message);
}

/** A modal yes/no question in the app's dialog style; resolves to true or false. */
function confirmDialog(title, text, okLabel) {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: "dialog", "aria-labelledby": "confirm-title" });
    const form = h("form", { method: "dialog", class: "dialog-form" },
      h("h2", { id: "confirm-title", text: title }),
      h("p", { class: "muted", text }),
      h("div", { class: "dialog-actions" },
        h("button", { type: "button", class: "btn btn--ghost", onclick: () => dialog.close("cancel") }, t("common.cancel")),
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
  document.title = t("scorekeeper.title");
  let destroyed = false;

  // ---- the form ----------------------------------------------------------------------
  const playerList = h("ol", { class: "sk-names", "aria-label": t("scorekeeper.players_label") });
  const addPlayer = h("button", { type: "button", class: "btn btn--ghost btn--small", dataset: { testid: "add-player" }, "aria-label": t("scorekeeper.add_player_label") }, t("scorekeeper.add_player"));
  const nameInput = h("input", { id: "sk-name", class: "input", type: "text", placeholder: t("scorekeeper.name_placeholder"), autocomplete: "off" });
  const targetOption = ruleOptions().find((o) => o.name === "target_score") || {};
  const targetInput = h("input", { id: "sk-target", class: "input", type: "number", min: String(targetOption.min ?? ""), step: "1", value: String(targetOption.default ?? ""), inputmode: "numeric" });
  const decksSelect = h("select", { id: "sk-decks", class: "select" },
    h("option", { value: "1", text: t("scorekeeper.decks", { count: 1 }) }), h("option", { value: "2", text: t("scorekeeper.decks", { count: 2 }) }));
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
      rulesBox.appendChild(switchField(input, ruleLabel(name), name === "allow_two_players" ? t("scorekeeper.two_players_help") : null));
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
  const submit = h("button", { type: "submit", class: "btn btn--primary btn--big btn--block", dataset: { testid: "create-scorecard" } }, t("scorekeeper.start"));

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
      input.placeholder = t("scorekeeper.player_n", { n: i + 1 });
      input.setAttribute("aria-label", t("scorekeeper.player_n_name", { n: i + 1 }));
      const btn = li.querySelector("button");
      btn.setAttribute("aria-label", t("scorekeeper.remove_player_n", { n: i + 1 }));
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
      h("span", { class: "field-label", id: "sk-players-label", text: t("scorekeeper.players_heading") }),
      playerList, h("div", { class: "sk-names-tools" }, addPlayer)),
    h("div", { class: "field" }, h("label", { for: "sk-name", class: "field-label", text: t("scorekeeper.game_name") }), nameInput),
    h("div", { class: "field-grid" },
      h("div", { class: "field" }, h("label", { for: "sk-target", class: "field-label", text: t("lobby.target_score") }), targetInput),
      h("div", { class: "field" }, h("label", { for: "sk-decks", class: "field-label", text: t("scorekeeper.decks_label") }), decksSelect)),
    switchField(brutalInput, ruleLabel("brutal"), ruleHelp("brutal")),
    h("details", { class: "more-rules" }, h("summary", { text: t("scorekeeper.scoring_rules") }), rulesBox),
    formError, submit);

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    formError.hidden = true;
    const inputs = [...playerList.querySelectorAll("input")];
    const players = inputs.map((i) => i.value.trim()).filter(Boolean);
    if (players.length < minPlayers()) {
      fail(allowTwo() ? t("scorekeeper.error_players", { count: minPlayers() }) : t("scorekeeper.error_players_two", { count: minPlayers() }),
        inputs.find((i) => !i.value.trim()));
      return;
    }
    const lower = players.map((p) => p.toLowerCase());
    const dup = players.find((p, i) => lower.indexOf(p.toLowerCase()) !== i);
    if (dup) {
      fail(t("scorekeeper.error_duplicate", { name: dup }));
      return;
    }
    const target = Number(targetInput.value);
    const least = Number(targetInput.min) || 1;
    if (!Number.isInteger(target) || target < least) {
      fail(t("lobby.error_target", { least }), targetInput);
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
    h("h2", { id: "sk-create-title", text: t("scorekeeper.new") }), form);

  // ---- saved scorecards ------------------------------------------------------------
  const list = h("ul", { class: "table-list", "aria-live": "polite", dataset: { testid: "scorecards" } });
  const empty = h("p", { class: "muted empty", text: t("scorekeeper.none") });
  const refresh = h("button", { type: "button", class: "btn btn--icon", "aria-label": t("lobby.refresh"), onclick: () => load() }, icon("refresh"));
  const listPanel = h("section", { class: "panel tables", "aria-labelledby": "sk-list-title" },
    h("div", { class: "panel-head" }, h("h2", { id: "sk-list-title", text: t("scorekeeper.saved") }), refresh),
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
      const facts = [t("scorekeeper.rounds", { count: rounds })];
      const top = Array.isArray(c.totals) && c.totals.length ? Math.max(...c.totals) : null;
      const tied = Array.isArray(c.totals) ? c.totals.filter((x) => x === top).length > 1 : false;
      const winners = Array.isArray(c.winners) ? c.winners.map((s) => c.players[s]) : [];
      if (over && winners.length) {
        facts.push(top !== null ? t("scorekeeper.won_by_with", { names: listText(winners), score: plain(top) }) : t("scorekeeper.won_by", { names: listText(winners) }));
      } else if (leader) {
        const count = tied ? 2 : 1;
        facts.push(top !== null ? t("scorekeeper.leads_with", { name: leader, score: plain(top), count }) : t("scorekeeper.leads", { name: leader, count }));
      }
      if (c.updated) facts.push(t("scorekeeper.updated", { when: when(c.updated) }));
      list.appendChild(h("li", { class: "table-item", dataset: { scorecard: c.id } },
        h("div", { class: "table-item-main" },
          h("div", { class: "table-item-title" },
            h("a", { class: "table-item-name sk-list-link", href: pagePath(c.id), "data-link": true, text: c.name, dataset: { focusKey: `open:${c.id}` } }),
            h("span", { class: "chip chip--state", dataset: { state: over ? "over" : "playing" }, text: over ? t("lobby.state_finished") : t("lobby.state_playing") }),
            mine ? h("span", { class: "badge badge--you", text: t("scorekeeper.editable_here") }) : null),
          h("p", { class: "table-item-players muted", text: (c.players || []).join(", ") }),
          h("p", { class: "sk-list-facts", text: facts.join(" · ") })),
        h("div", { class: "table-item-actions" },
          h("a", { class: `btn ${mine && !over ? "btn--primary" : "btn--ghost"} btn--small`, href: pagePath(c.id), "data-link": true, "aria-label": t("scorekeeper.open_label", { name: c.name }) }, mine && !over ? t("scorekeeper.keep_score") : t("scorekeeper.open")))));
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
      h("h1", { class: "hero-title" }, t("scorekeeper.hero_title"), " ", h("span", { text: t("scorekeeper.hero_title_sub") })),
      h("p", { class: "hero-sub", text: t("scorekeeper.hero_sub") })),
    h("div", { class: "sk-hero-cards", "aria-hidden": "true" }, ["3", "11", "5", "/2", "-4"].map((c) => cardEl(c, { small: true }))));
  const back = h("a", { href: "/", "data-link": true, class: "btn btn--ghost btn--small" }, t("scorekeeper.play_online"));
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
  document.title = t("scorekeeper.title");
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
  const totals = h("section", { class: "sk-totals", "aria-label": t("scorekeeper.totals"), dataset: { testid: "totals" } });
  const status = h("p", { class: "sk-status", role: "status", dataset: { testid: "status" } });
  const entryBox = h("section", { class: "panel sk-entry", id: "entry", "aria-labelledby": "entry-title", dataset: { testid: "entry" }, hidden: true });
  const historyBox = h("section", { class: "panel sk-history", "aria-labelledby": "history-title", dataset: { testid: "history" } });
  const chartBox = h("section", { class: "panel sk-chart", "aria-labelledby": "chart-title" });
  const shareBox = h("details", { class: "panel sk-share", dataset: { testid: "share" } });
  const layout = h("div", { class: "sk-layout" },
    h("div", { class: "sk-main" }, banner, totals, status, entryBox, historyBox),
    h("div", { class: "sk-side" }, chartBox, shareBox));
  root.appendChild(h("div", { class: "scorekeeper sk-card" }, head, layout));
  root.appendChild(h("div", { class: "loading", dataset: { testid: "loading" } }, h("span", { class: "spinner", "aria-hidden": "true" }), t("scorekeeper.loading")));
  setTopbar(h("a", { href: "/scorekeeper", "data-link": true, class: "btn btn--ghost btn--small", "aria-label": t("scorekeeper.all") }, t("scorekeeper.scorecards")));

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
          h("h1", { text: t("scorekeeper.no_such") }),
          h("p", { text: t("scorekeeper.no_such_text") }),
          h("a", { href: "/scorekeeper", "data-link": true, class: "btn btn--primary" }, t("scorekeeper.all"))));
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
        notice = { kind: "error", text: t("scorekeeper.round_gone", { round: entry.number, next: nextNumber() }) };
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
        notice = { kind: "error", text: t("scorekeeper.round_saved_elsewhere", { round: entry.number, next: nextNumber() }) };
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
      toast(wasEdit ? t("scorekeeper.round_updated", { round: number }) : t("scorekeeper.round_saved", { round: number }), "ok", 2200);
      if (!wasEdit && !over()) focusFirstPlayer();
    } catch (err) {
      saving = false;
      await saveFailed(err, number, wasEdit);
    }
  }

  async function saveFailed(err, number, wasEdit) {
    if (err.code === "invalid_round" && err.detail) {
      check = { state: "problems", result: null, problems: err.detail.problems || [{ seat: null, message: err.message }] };
      notice = { kind: "error", text: t("scorekeeper.not_saved") };
    } else if (err.status === 409) {
      // Someone else changed the scorecard: take theirs, keep what is typed here.
      const fresh = err.detail && err.detail.scorecard;
      if (fresh) setSummary(fresh);
      else await load({ quiet: true });
      if (wasEdit && entry && entry.mode === "edit") {
        const r = summary.rounds.find((x) => x.number === number);
        if (r) entry.revision = r.revision;
      }
      notice = { kind: "error", text: t("scorekeeper.conflict", { message: err.message }) };
      scheduleCheck();
    } else if (err.status === 403) {
      notice = { kind: "error", text: t("scorekeeper.read_only_device") };
    } else {
      notice = { kind: "error", text: t("scorekeeper.save_failed", { message: err.message }) };
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
    const ok = await confirmDialog(t("scorekeeper.undo_title", { round: last.number }), t("scorekeeper.undo_text"), t("scorekeeper.undo_round", { round: last.number }));
    if (!ok) return;
    try {
      const data = await api("DELETE", `${base(id)}/rounds/${last.number}?revision=${last.revision}`, { headers: keyHeaders() });
      if (entry && entry.mode === "edit" && entry.number === last.number) {
        entry = stash;
        stash = null;
      }
      summary = null;
      setSummary(data);
      toast(t("scorekeeper.round_undone", { round: last.number }), "ok", 2200);
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
    notice = { kind: "ok", text: t("scorekeeper.live_over") };
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
      const ok = await confirmDialog(t("scorekeeper.stop_live_title"), t("scorekeeper.stop_live_text"), t("scorekeeper.stop_live"));
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
    document.title = t("scorekeeper.title_named", { name: summary.name });
    title.textContent = summary.name;
    modeChip.textContent = editable() ? t("scorekeeper.keeping_score") : t("scorekeeper.read_only");
    modeChip.className = `chip ${editable() ? "chip--round" : "chip--watch"}`;
    clear(chips);
    const { allow_two_players: _two, ...shown } = summary.rules || {}; // not worth a badge once the players are in
    const badges = ruleBadges(shown);
    const target = summary.target;
    if (target === ruleDefault("target_score")) badges.splice(summary.rules && summary.rules.brutal ? 1 : 0, 0, { text: t("rules.badge_target", { target }) });
    if ((summary.decks || 1) > 1) badges.push({ text: t("scorekeeper.decks", { count: summary.decks }) });
    for (const b of badges) chips.appendChild(h("span", { class: `badge badge--rule${b.cls ? ` badge--${b.cls}` : ""}`, text: b.text }));
    renderBanner(players);
    renderTotals(players);
    status.textContent = statusLine();
    renderEntry();
    renderHistory(players);
    renderChart();
    renderShare();
  }

  /** Where the game stands, in one sentence: the server's status line (its ``message``),
   * built here from the summary's fields in the page's language. */
  function statusLine() {
    const players = summary.players;
    const target = summary.target;
    if (!summary.rounds.length) return t("scorekeeper.status_none", { target });
    const totals = summary.totals;
    if (over()) {
      const seats = summary.winners || [];
      if (!seats.length) return "";
      const score = plain(totals[seats[0]]);
      return seats.length === 1 ? t("scorekeeper.status_wins", { name: players[seats[0]], score })
        : t("scorekeeper.status_share", { names: listText(seats.map((s) => players[s])), score });
    }
    const lead = leaders();
    if (!lead.length) return "";
    const names = listText(lead.map((s) => players[s]));
    const score = plain(totals[lead[0]]);
    if (summary.extra_round) return t("scorekeeper.status_tie", { names, score });
    return t("scorekeeper.status_leads", { names, score, target, count: lead.length });
  }

  function leaders() {
    if (Array.isArray(summary.leaders)) return summary.leaders;
    const tot = summary.totals;
    if (!summary.rounds.length) return [];
    const best = Math.max(...tot);
    return tot.map((v, s) => (v === best ? s : -1)).filter((s) => s >= 0);
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
        h("p", { class: "endscreen-kicker", text: t("scorekeeper.game_over", { count: summary.rounds.length }) }),
        h("h2", { id: "winner-title", class: "endscreen-title", text: names.length > 1 ? t("scorekeeper.share_win", { names: listText(names) }) : t("scorekeeper.wins", { name: names[0] }) }),
        h("p", { class: "sk-winner-sub", text: t("scorekeeper.with_points", { score: plain(best) }) }),
        h("ol", { class: "ranking" }, ranking.map((r, i) => h("li", { class: `ranking-row${winners.includes(r.s) ? " is-winner" : ""}` },
          h("span", { class: "ranking-pos", text: String(i + 1) }),
          avatarEl(r.name, r.s, true),
          h("span", { class: "ranking-name", text: r.name }),
          h("b", { class: "ranking-total", text: plain(r.total) })))),
        editable() ? h("p", { class: "muted sk-winner-help", text: t("scorekeeper.mistake") }) : null));
    } else if (summary.extra_round) {
      banner.appendChild(h("div", { class: "sk-extra", role: "status", dataset: { testid: "extra-round" } },
        h("strong", { text: t("scorekeeper.tie") }),
        h("span", { text: ` ${t("scorekeeper.tie_text", { names: listText(leaders().map((s) => players[s])), score: plain(summary.totals[leaders()[0]]) })}` })));
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
      const tot = summary.totals[s];
      const isWinner = over() && winners.includes(s);
      const isLeader = !over() && lead.length === 1 && lead[0] === s;
      totals.appendChild(h("div", {
        class: `sk-total${isLeader ? " is-leader" : ""}${isWinner ? " is-winner" : ""}`,
        style: { "--hue": String(playerHue(s)) }, dataset: { seat: String(s) },
      },
      h("div", { class: "sk-total-who" }, avatarEl(name, s, true), h("span", { class: "sk-total-name", text: name })),
      h("b", { class: "sk-total-value", dataset: { testid: "total" }, "aria-label": t("scorekeeper.total_label", { name, total: tot }), text: plain(tot) }),
      h("div", { class: "sk-total-foot" },
        last ? h("span", { class: "muted", title: t("scorekeeper.last_change") },
          signed(last.totals[s] - (summary.rounds.length > 1 ? summary.rounds[summary.rounds.length - 2].totals[s] : 0)),
          h("span", { class: "hide-narrow", text: ` ${t("scorekeeper.last_round")}` })) : h("span", { class: "muted", text: t("scorekeeper.to_win", { target }) }),
        isWinner ? h("span", { class: "badge sk-badge-win", text: t("scorekeeper.winner") }) : isLeader ? h("span", { class: "badge sk-badge-lead", text: t("scorekeeper.leader") }) : null),
      h("span", { class: "sk-total-bar", style: { width: `${Math.max(0, Math.min(100, (tot / target) * 100))}%` }, "aria-hidden": "true" })));
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
          h("button", { type: "button", class: "btn btn--secondary", "aria-label": t("scorekeeper.copy_the", { label }),
            onclick: async () => toast(await copyText(value) ? t("scorekeeper.link_copied") : t("scorekeeper.copy_by_hand"), "ok", 1800) }, icon("copy"), t("common.copy"))),
        help ? h("small", { class: "muted", text: help }) : null);
    };
    add(shareBox, h("summary", { text: editable() ? t("scorekeeper.share_edit") : t("scorekeeper.share_read") }),
      editable() ? linkRow(t("scorekeeper.edit_link"), `${readLink}#key=${encodeURIComponent(key)}`, "edit-link", t("scorekeeper.edit_link_help")) : null,
      linkRow(t("scorekeeper.read_link"), readLink, "read-link", t("scorekeeper.read_link_help")),
      h("div", { class: "sk-exports" },
        h("a", { class: "btn btn--ghost btn--small", href: `${base(id)}/export.csv`, download: "", dataset: { testid: "export-csv" }, "aria-label": t("scorekeeper.export_csv_label") }, icon("download"), t("scorekeeper.export_csv")),
        h("a", { class: "btn btn--ghost btn--small", href: `${base(id)}/export.json`, download: "", dataset: { testid: "export-json" }, "aria-label": t("scorekeeper.export_json_label") }, icon("download"), t("scorekeeper.export_json"))));
  }

  function renderChart() {
    clear(chartBox);
    add(chartBox, h("h2", { id: "chart-title", text: t("scorekeeper.chart_title") }));
    if (!summary.rounds.length) {
      chartBox.appendChild(h("p", { class: "muted", text: t("scorekeeper.chart_empty") }));
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
    const headRow = h("div", { class: "panel-head" }, h("h2", { id: "history-title", text: t("scorekeeper.rounds_title") }));
    if (editable() && rounds.length) {
      headRow.appendChild(h("button", { type: "button", class: "btn btn--ghost btn--small", dataset: { testid: "undo", focusKey: "undo" },
        "aria-label": t("scorekeeper.undo_last_label", { round: rounds.length }), onclick: undoLast }, t("scorekeeper.undo_last")));
    }
    historyBox.appendChild(headRow);
    if (!rounds.length) {
      historyBox.appendChild(h("p", { class: "muted", text: editable() ? t("scorekeeper.no_round_edit") : t("scorekeeper.no_round") }));
      return;
    }
    const list = h("ol", { class: "sk-rounds", reversed: true });
    for (const r of [...rounds].reverse()) {
      const editing = entry && entry.mode === "edit" && entry.number === r.number;
      const minus = r.flip7_choice && r.flip7_choice.minus15 !== undefined ? r.flip7_choice.minus15 : null;
      list.appendChild(h("li", { class: `sk-round${editing ? " is-editing" : ""}`, dataset: { round: String(r.number) } },
        h("div", { class: "sk-round-head" },
          h("span", { class: "chip chip--round", text: t("replay.round", { round: r.number }) }),
          r.live ? h("span", { class: "badge", text: t("scorekeeper.live") }) : null,
          r.revision > 1 ? h("span", { class: "badge", title: t("scorekeeper.revision", { revision: r.revision }), text: t("scorekeeper.edited") }) : null,
          editing ? h("span", { class: "badge badge--you", text: t("scorekeeper.editing") }) : null,
          editable() && !editing ? h("button", { type: "button", class: "btn btn--ghost btn--small sk-round-edit", dataset: { testid: "edit-round", focusKey: `edit:${r.number}` },
            "aria-label": t("scorekeeper.edit_round", { round: r.number }), onclick: () => startEdit(r) }, t("scorekeeper.edit")) : null),
        h("table", { class: "sk-round-table" },
          h("colgroup", {}, h("col", { class: "sk-col-name" }), h("col", {}), h("col", { class: "sk-col-score" }), h("col", { class: "sk-col-total" })),
          h("thead", { class: "visually-hidden" }, h("tr", {}, h("th", { scope: "col", text: t("scorekeeper.col_player") }), h("th", { scope: "col", text: t("scorekeeper.col_cards") }), h("th", { scope: "col", text: t("scorekeeper.col_score") }), h("th", { scope: "col", text: t("scorekeeper.col_total") }))),
          h("tbody", {}, players.map((name, s) => {
            const line = r.lines[s] || { cards: [] };
            const f7 = r.flip7_seat === s;
            return h("tr", { class: `${line.busted ? "is-bust" : ""}${f7 ? " is-flip7" : ""}` },
              h("th", { scope: "row", class: "sk-round-name" }, h("span", { class: "chart-swatch", style: { background: playerColor(s) }, "aria-hidden": "true" }), h("span", { text: name })),
              h("td", {}, h("div", { class: "sk-round-cards" },
                line.cards.length ? line.cards.map((c) => cardEl(c, { small: true })) : null,
                line.busted ? h("span", { class: "status status--busted", text: t("scorekeeper.bust") }) : null,
                f7 ? h("span", { class: "badge sk-badge-flip7", text: t("scorekeeper.flip7") }) : null,
                f7 && minus !== null ? h("span", { class: "badge badge--brutal", text: t("scorekeeper.minus_to", { points: flip7Bonus(), name: players[minus] }) }) : null,
                !line.cards.length && !line.busted ? h("span", { class: "muted", text: t("scorekeeper.no_cards") }) : null)),
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
      "aria-label": t("scorekeeper.live_label"),
      onclick: () => (live ? leaveLive() : startLive(summary.live)),
    }, h("span", { class: "sk-live-dot", "aria-hidden": "true" }), t("scorekeeper.live"));
    entryBox.appendChild(h("div", { class: "panel-head sk-entry-head" },
      h("h2", { id: "entry-title", text: editing ? t("scorekeeper.editing_round", { round: entry.number }) : t("replay.round", { round: entry.number }) }),
      h("div", { class: "sk-entry-tools" },
        editing ? null : liveBtn,
        editing ? h("button", { type: "button", class: "btn btn--ghost btn--small", onclick: cancelEdit, "aria-label": t("scorekeeper.stop_editing", { round: entry.number }), dataset: { testid: "cancel-edit" } }, t("common.cancel")) : null)));
    if (!live) {
      entryBox.appendChild(h("p", { class: "muted sk-entry-help", text: editing
        ? t("scorekeeper.help_edit")
        : t("scorekeeper.help_new") }));
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
      const lineEl = h("div", { class: "sk-line", role: "group", "aria-label": t("scorekeeper.line_of", { name }) });
      if (!line.cards.length) lineEl.appendChild(h("span", { class: "seat-empty", text: line.busted ? t("scorekeeper.busted_no_cards") : t("scorekeeper.no_cards_yet") }));
      line.cards.forEach((c, i) => lineEl.appendChild(cardEl(c, {
        button: true, small: true, label: t("scorekeeper.remove_card_from", { card: cardName(c), name }), title: t("scorekeeper.remove_card", { card: cardName(c) }),
        dataset: { focusKey: `line:${s}:${i}`, index: String(i) },
        onClick: () => { line.cards.splice(i, 1); entry.selected = s; changed(); },
      })));
      const bust = h("button", {
        type: "button", class: `btn btn--small sk-bust${line.busted ? " is-on" : ""}`, "aria-pressed": line.busted ? "true" : "false",
        "aria-label": t("scorekeeper.name_busted", { name }), dataset: { testid: "bust", focusKey: `bust:${s}` },
        onclick: () => { line.busted = !line.busted; entry.selected = s; changed(); },
      }, t("scorekeeper.busted"));
      const total = h("small", { class: "muted sk-player-total" });
      const badge = h("span", { class: "badge sk-badge-flip7", text: t("scorekeeper.flip7"), hidden: true });
      const pick = h("button", {
        type: "button", class: "sk-player-pick", "aria-expanded": selected ? "true" : "false",
        "aria-label": t("scorekeeper.enter_cards", { name }), dataset: { focusKey: `pick:${s}` },
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
        "aria-label": t("scorekeeper.save_round_n", { round: entry.number }), onclick: saveRound,
      }, saving ? t("scorekeeper.saving") : editing ? t("scorekeeper.save_round_n", { round: entry.number }) : t("scorekeeper.save_round"))));
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
      if (brutal && f7 === s) ref.choiceBox.appendChild(flip7Choice(name, s, players));
    });
    const state = check.state;
    entryRefs.checkState.className = `sk-check sk-check--${state}`;
    entryRefs.checkState.textContent = state === "pending" ? t("scorekeeper.checking")
      : state === "problems" ? t("scorekeeper.problems", { count: problems.length })
        : state === "ok" ? t("scorekeeper.checks_pass") : state === "error" ? t("scorekeeper.check_failed") : "";
    restoreFocus(fk, entryBox);
  }

  function flip7Choice(name, s, players) {
    const opts = [h("button", {
      type: "button", class: `btn btn--small${sameChoice(entry.choice, "bonus") ? " btn--primary" : ""}`, "aria-pressed": sameChoice(entry.choice, "bonus") ? "true" : "false",
      dataset: { focusKey: "choice:bonus" }, onclick: () => { entry.choice = "bonus"; changed(); },
    }, t("scorekeeper.plus_to", { points: flip7Bonus(), name }))];
    players.forEach((other, otherSeat) => {
      if (otherSeat === s) return;
      const on = !sameChoice(entry.choice, "bonus") && entry.choice.minus15 === otherSeat;
      opts.push(h("button", {
        type: "button", class: `btn btn--small${on ? " btn--primary" : ""}`, "aria-pressed": on ? "true" : "false",
        dataset: { focusKey: `choice:${otherSeat}` }, onclick: () => { entry.choice = { minus15: otherSeat }; changed(); },
      }, t("scorekeeper.minus_to", { points: flip7Bonus(), name: other })));
    });
    return h("div", { class: "sk-choice", role: "group", "aria-label": t("scorekeeper.choice_label", { name, points: flip7Bonus() }) },
      h("span", { class: "sk-choice-label", text: t("scorekeeper.choice") }), opts);
  }

  function picker(name, s) {
    const grid = h("div", { class: "sk-picker", role: "group", "aria-label": t("scorekeeper.picker_label", { name }), dataset: { testid: "picker" } },
      lineCards().map((c) => cardEl(c, {
        button: true, label: t("scorekeeper.add_card", { card: cardName(c), name }), title: cardName(c),
        dataset: { focusKey: `add:${s}:${c}` },
        onClick: () => { entry.lines[s].cards.push(c); changed(); },
      })));
    const n = summary.players.length;
    const tools = h("div", { class: "sk-picker-tools" },
      h("button", { type: "button", class: "btn btn--ghost btn--small", "aria-label": t("scorekeeper.clear_line", { name }), disabled: !entry.lines[s].cards.length && !entry.lines[s].busted,
        onclick: () => { entry.lines[s] = { cards: [], busted: false }; changed(); } }, t("scorekeeper.clear")),
      h("button", { type: "button", class: "btn btn--secondary btn--small", dataset: { testid: "next-player", focusKey: "next" },
        "aria-label": s + 1 < n ? t("scorekeeper.next_player", { name: summary.players[s + 1] }) : t("scorekeeper.done_label"),
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
        } }, s + 1 < n ? t("scorekeeper.next_player", { name: summary.players[s + 1] }) : t("scorekeeper.done")));
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
