// The lobby (/): create a table, list open tables, upload a record to watch, and a way to
// the scorekeeper.
import { api } from "./api.js";
import { cardEl } from "./cards.js";
import { navigate } from "./router.js";
import {
  loadRules, minPlayers, playerLimits, ruleBadges, ruleDefault, ruleHelp, ruleLabel, ruleOptions, rulesLoaded, valueLabel,
} from "./rules.js";
import { NAME_KEY, askName, clear, focusKey, h, icon, nameCounter, restoreFocus, store, toast, tokenKey } from "./util.js";
import { startTutorial } from "./tutorial.js";

export function mountLobby(root) {
  document.body.dataset.view = "lobby";
  document.title = "Flip 7: With a Vengeance";
  let destroyed = false;
  let rulesSpec = [];

  // ---- hero ------------------------------------------------------------------------
  const fan = h("div", { class: "hero-fan", "aria-hidden": "true" },
    ["3", "L13", "U7", "0", "-4", "FLIP4", "12"].map((c, i) => {
      const el = cardEl(c);
      el.style.setProperty("--i", String(i - 3));
      return el;
    }));
  const hero = h("section", { class: "hero" },
    h("div", { class: "hero-text" },
      h("h1", { class: "hero-title" }, "Flip 7 ", h("span", { text: "With a Vengeance" })),
      h("p", { class: "hero-sub", text: "Push your luck, steal, swap and sabotage. Seven different numbers and the round is yours — one duplicate and you bust." }),
      h("button", { type: "button", class: "btn btn--secondary hero-learn", dataset: { testid: "learn" }, onclick: startTutorial }, "Learn to play")),
    fan);

  // ---- create form -----------------------------------------------------------------
  // No maxlength: it would cut a name (in UTF-16 units, halving an emoji); the counter
  // shows the server's limit and the server refuses a longer name with its message.
  const nameInput = h("input", { id: "create-player", class: "input", name: "player", type: "text", required: true, autocomplete: "nickname", placeholder: "e.g. Ann" });
  nameInput.value = store.get(NAME_KEY) || "";
  const tableInput = h("input", { id: "create-name", class: "input", name: "name", type: "text", placeholder: "Friday night" });
  const seatsSelect = h("select", { id: "create-seats", class: "select", name: "seats" });
  const targetInput = h("input", { id: "create-target", class: "input", name: "target_score", type: "number", step: "1", inputmode: "numeric" });
  const brutalInput = h("input", { id: "create-brutal", type: "checkbox", class: "switch-input", name: "brutal" });
  const timerOn = h("input", { id: "create-timer-on", type: "checkbox", class: "switch-input" });
  // The table option bust_odds: on unless the players want to judge the risk themselves.
  const oddsInput = h("input", { id: "create-bust-odds", type: "checkbox", class: "switch-input", name: "bust_odds", checked: true });
  const timerInput = h("input", { id: "create-timer", class: "input input--short", type: "number", min: "5", max: "600", step: "1", value: "60", disabled: true, "aria-label": "Seconds per decision", inputmode: "numeric" });
  timerOn.addEventListener("change", () => { timerInput.disabled = !timerOn.checked; });
  const houseRules = h("div", { class: "house-rules" });
  const houseInputs = new Map();
  const formError = h("p", { class: "form-error", role: "alert", hidden: true });
  const submit = h("button", { type: "submit", class: "btn btn--primary btn--big btn--block", dataset: { testid: "create" } }, "Create table");

  function fillSeats() {
    const two = houseInputs.get("allow_two_players");
    const allowTwo = two ? two.checked : !!ruleDefault("allow_two_players");
    const prev = Number(seatsSelect.value) || 4;
    const low = minPlayers(allowTwo);
    clear(seatsSelect);
    for (let n = low; n <= playerLimits().table_max; n += 1) {
      seatsSelect.appendChild(h("option", { value: String(n), text: `${n} players` }));
    }
    seatsSelect.value = String(Math.max(low, prev));
  }

  function switchField(input, label, help) {
    return h("div", { class: "switch-field" },
      input,
      h("label", { for: input.id, class: "switch-label" },
        h("span", { class: "switch", "aria-hidden": "true" }),
        h("span", { class: "switch-text" }, h("span", { text: label }), help ? h("small", { class: "muted", text: help }) : null)));
  }

  function buildHouseRules(spec) {
    clear(houseRules);
    houseInputs.clear();
    for (const r of spec) {
      if (r.name === "brutal" || r.name === "target_score") continue;
      const idAttr = `rule-${r.name}`;
      if (r.type === "bool") {
        const input = h("input", { id: idAttr, type: "checkbox", class: "switch-input", dataset: { rule: r.name } });
        input.checked = !!r.default;
        houseInputs.set(r.name, input);
        houseRules.appendChild(switchField(input, ruleLabel(r.name), null));
        if (r.name === "allow_two_players") input.addEventListener("change", fillSeats);
      } else if (r.type === "int" && !(r.values && r.values.length)) {
        const input = h("input", { id: idAttr, type: "number", class: "input input--short", min: r.min, value: String(r.default), dataset: { rule: r.name } });
        houseInputs.set(r.name, input);
        houseRules.appendChild(h("div", { class: "field field--row" }, h("label", { for: idAttr, class: "field-label", text: ruleLabel(r.name) }), input));
      } else {
        const select = h("select", { id: idAttr, class: "select", dataset: { rule: r.name } },
          (r.values || []).map((v) => h("option", { value: JSON.stringify(v), text: valueLabel(r.name, v) })));
        select.value = JSON.stringify(r.default);
        houseInputs.set(r.name, select);
        houseRules.appendChild(h("div", { class: "field field--row" }, h("label", { for: idAttr, class: "field-label", text: ruleLabel(r.name) }), select));
      }
    }
    fillSeats();
  }

  function collectRules() {
    const rules = {};
    if (brutalInput.checked) rules.brutal = true;
    const target = Number(targetInput.value);
    if (Number.isInteger(target) && target !== ruleDefault("target_score")) rules.target_score = target;
    for (const r of rulesSpec) {
      const input = houseInputs.get(r.name);
      if (!input) continue;
      let value;
      if (r.type === "bool") value = input.checked;
      else if (input.tagName === "SELECT") value = JSON.parse(input.value);
      else value = Number(input.value);
      if (JSON.stringify(value) !== JSON.stringify(r.default)) rules[r.name] = value;
    }
    return rules;
  }

  const form = h("form", { class: "create-form", novalidate: true, "aria-labelledby": "create-title" },
    h("div", { class: "field" }, h("label", { for: "create-player", class: "field-label", text: "Your name" }), nameInput,
      nameCounter(nameInput, "player_name_chars")),
    h("div", { class: "field" }, h("label", { for: "create-name", class: "field-label", text: "Table name" }), tableInput,
      nameCounter(tableInput, "table_name_chars")),
    h("div", { class: "field-grid" },
      h("div", { class: "field" }, h("label", { for: "create-seats", class: "field-label", text: "Seats" }), seatsSelect),
      h("div", { class: "field" }, h("label", { for: "create-target", class: "field-label", text: "Target score" }), targetInput)),
    switchField(brutalInput, ruleLabel("brutal"), ruleHelp("brutal")),
    h("div", { class: "switch-field switch-field--with-input" },
      timerOn,
      h("label", { for: "create-timer-on", class: "switch-label" },
        h("span", { class: "switch", "aria-hidden": "true" }),
        h("span", { class: "switch-text" }, h("span", { text: "Turn timer" }), h("small", { class: "muted", text: "A bot decides for anyone who runs out of time." }))),
      h("span", { class: "timer-input" }, timerInput, h("span", { class: "muted", text: "s" }))),
    // With the house rules, folded: the create button stays above the fold at 1366×800.
    h("details", { class: "more-rules" }, h("summary", { text: "House rules" }),
      switchField(oddsInput, "Show bust odds", "Your chance to bust on the next card, at your turn. Off: judge the risk yourself."),
      houseRules),
    formError,
    submit);

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    formError.hidden = true;
    const player = nameInput.value.trim();
    if (!player) {
      formError.textContent = "Enter your name first.";
      formError.hidden = false;
      nameInput.focus();
      return;
    }
    const target = Number(targetInput.value);
    const least = Number(targetInput.min) || 1;
    if (!Number.isInteger(target) || target < least) {
      formError.textContent = `The target score must be a whole number of at least ${least}.`;
      formError.hidden = false;
      targetInput.focus();
      return;
    }
    let turnTimer = null;
    if (timerOn.checked) {
      turnTimer = Number(timerInput.value);
      if (!Number.isInteger(turnTimer) || turnTimer < 5 || turnTimer > 600) {
        formError.textContent = "The turn timer must be between 5 and 600 seconds.";
        formError.hidden = false;
        timerInput.focus();
        return;
      }
    }
    store.set(NAME_KEY, player);
    const body = {
      name: tableInput.value.trim() || `${player}’s table`,
      player,
      seats: Number(seatsSelect.value),
      rules: collectRules(),
      turn_timer: turnTimer,
      bust_odds: oddsInput.checked,
    };
    submit.disabled = true;
    try {
      const data = await api("POST", "/api/tables", { body });
      store.set(tokenKey(data.table.id), data.token);
      navigate(`/t/${encodeURIComponent(data.table.id)}`);
    } catch (err) {
      formError.textContent = err.message;
      formError.hidden = false;
    } finally {
      submit.disabled = false;
    }
  });

  // The options, their defaults and the seat counts: from the server (rules.js).
  function applyRules() {
    rulesSpec = ruleOptions();
    buildHouseRules(rulesSpec);
    const t = rulesSpec.find((r) => r.name === "target_score");
    if (t) {
      targetInput.value = String(t.default);
      if (t.min !== undefined && t.min !== null) targetInput.min = String(t.min);
    }
  }
  applyRules();
  if (!rulesLoaded()) {
    loadRules().then(() => { if (!destroyed) applyRules(); }).catch(() => {
      formError.textContent = "The server did not send the rule options: reload the page.";
      formError.hidden = false;
    });
  }

  const createPanel = h("section", { class: "panel create", "aria-labelledby": "create-title" },
    h("h2", { id: "create-title", text: "New table" }), form);

  // ---- open tables -----------------------------------------------------------------
  const tablesList = h("ul", { class: "table-list", "aria-live": "polite", dataset: { testid: "tables" } });
  const tablesEmpty = h("p", { class: "muted empty", text: "No open tables yet — create one!" });
  const refreshBtn = h("button", { type: "button", class: "btn btn--icon", "aria-label": "Refresh the list", onclick: () => { loadTables(); loadRecent(); } }, icon("refresh"));
  const tablesPanel = h("section", { class: "panel tables", "aria-labelledby": "tables-title" },
    h("div", { class: "panel-head" }, h("h2", { id: "tables-title", text: "Open tables" }), refreshBtn),
    tablesList, tablesEmpty);

  async function join(t) {
    const name = await askName(`Join “${t.name}”`, "Join");
    if (!name) return;
    try {
      const data = await api("POST", `/api/tables/${encodeURIComponent(t.id)}/join`, { body: { player: name } });
      store.set(tokenKey(t.id), data.token);
      navigate(`/t/${encodeURIComponent(t.id)}`);
    } catch (err) {
      toast(err.message);
      loadTables();
    }
  }

  function renderTables(tables) {
    const key = focusKey();
    clear(tablesList);
    tablesEmpty.hidden = tables.length > 0;
    for (const t of tables) {
      const seated = t.seats.filter((s) => s.kind !== "empty");
      const free = t.seats.length - seated.length;
      const mine = !!store.get(tokenKey(t.id));
      const badges = ruleBadges(t.rules, t.turn_timer);
      if (t.bust_odds === false) badges.push({ text: "No bust odds", cls: "no-odds" });
      const actions = [];
      if (mine) {
        actions.push(h("a", { class: "btn btn--primary btn--small", href: `/t/${encodeURIComponent(t.id)}`, "data-link": true, dataset: { focusKey: `back:${t.id}` } }, "Back to seat"));
      } else if (t.state === "waiting" && free > 0) {
        actions.push(h("button", { type: "button", class: "btn btn--primary btn--small", "aria-label": `Join ${t.name}`, dataset: { focusKey: `join:${t.id}` }, onclick: () => join(t) }, "Join"));
      }
      actions.push(h("a", { class: "btn btn--ghost btn--small", href: `/t/${encodeURIComponent(t.id)}`, "data-link": true, "aria-label": `Watch ${t.name}`, dataset: { focusKey: `watch:${t.id}` } }, icon("eye"), "Watch"));
      tablesList.appendChild(h("li", { class: "table-item", dataset: { table: t.id, state: t.state } },
        h("div", { class: "table-item-main" },
          h("div", { class: "table-item-title" },
            h("span", { class: "table-item-name", text: t.name }),
            h("span", { class: `chip chip--state`, dataset: { state: t.state }, text: t.state === "waiting" ? "Waiting" : t.state === "playing" ? "Playing" : "Finished" })),
          h("div", { class: "seat-dots", role: "img", "aria-label": `${seated.length} of ${t.seats.length} seats taken` },
            t.seats.map((s) => h("span", { class: `seat-dot seat-dot--${s.kind}` }))),
          h("p", { class: "table-item-players muted", text: seated.map((s) => s.name).join(", ") || "Nobody yet" }),
          badges.length ? h("div", { class: "rule-badges" }, badges.map((b) => h("span", { class: `badge badge--rule ${b.cls ? `badge--${b.cls}` : ""}`, text: b.text }))) : null),
        h("div", { class: "table-item-actions" }, actions)));
    }
    restoreFocus(key, tablesList);
  }

  async function loadTables() {
    try {
      const data = await api("GET", "/api/tables");
      if (!destroyed) renderTables((data && data.tables) || []);
    } catch {
      /* keep the last list; the next refresh tries again */
    }
  }
  loadTables();

  // ---- recent games: finished games of every table, each with its replay --------------
  const recentList = h("ul", { class: "recent-list", dataset: { testid: "recent-games" } });
  const recentEmpty = h("p", { class: "muted empty", text: "No finished games yet." });
  const recentPanel = h("section", { class: "panel recent", "aria-labelledby": "recent-title" },
    h("div", { class: "panel-head" }, h("h2", { id: "recent-title", text: "Recent games" })),
    recentList, recentEmpty);

  function finishedWhen(iso) {
    const when = new Date(iso);
    const minutes = Math.round((Date.now() - when.getTime()) / 60000);
    if (!Number.isFinite(minutes)) return "";
    const say = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
    if (minutes < 60) return say.format(-Math.max(0, minutes), "minute");
    if (minutes < 24 * 60) return say.format(-Math.round(minutes / 60), "hour");
    return when.toLocaleDateString(undefined, { day: "numeric", month: "short" });
  }

  function renderRecent(games) {
    const key = focusKey();
    clear(recentList);
    recentEmpty.hidden = games.length > 0;
    for (const g of games) {
      const winners = new Set(g.winners || []);
      const totals = g.totals || [];
      const won = g.players.filter((_, i) => winners.has(i));
      const scores = g.players.map((name, i) => {
        const text = `${name} ${totals[i] ?? ""}`.trim();
        return winners.has(i) ? h("strong", { class: "recent-winner", text, title: "Won" }) : h("span", { text });
      });
      const href = `/replay/game/${encodeURIComponent(g.id)}`;
      recentList.appendChild(h("li", { class: "recent-item", dataset: { game: g.id } },
        h("div", { class: "recent-main" },
          h("div", { class: "recent-title" },
            h("span", { class: "recent-name", text: g.table_name }),
            h("time", { class: "muted recent-when", datetime: g.finished_at, text: finishedWhen(g.finished_at) })),
          h("p", { class: "recent-scores" }, scores.flatMap((el, i) => (i ? [" · ", el] : [el]))),
          won.length ? h("p", { class: "visually-hidden", text: `Won by ${won.join(" and ")}` }) : null),
        h("a", { class: "btn btn--ghost btn--small", href, "data-link": true, "aria-label": `Replay of ${g.table_name}: ${g.players.join(", ")}`, dataset: { focusKey: `replay:${g.id}`, testid: "recent-replay" } },
          icon("play"), "Replay")));
    }
    restoreFocus(key, recentList);
  }

  async function loadRecent() {
    try {
      const data = await api("GET", "/api/games");
      if (!destroyed) renderRecent((data && data.games) || []);
    } catch {
      /* keep the last list; the next refresh tries again */
    }
  }
  loadRecent();
  let polls = 0;
  const poll = setInterval(() => {
    if (document.hidden) return;
    loadTables();
    polls += 1;
    if (polls % 5 === 0) loadRecent(); // games finish less often than tables change
  }, 4000);

  // ---- replays ---------------------------------------------------------------------
  const fileInput = h("input", { id: "replay-file", type: "file", accept: ".json,application/json", class: "visually-hidden file-input" });
  const uploadError = h("p", { class: "form-error", role: "alert", hidden: true, dataset: { testid: "upload-error" } });
  fileInput.addEventListener("change", async () => {
    const file = fileInput.files && fileInput.files[0];
    uploadError.hidden = true;
    if (!file) return;
    let record;
    try {
      record = JSON.parse(await file.text());
    } catch {
      uploadError.textContent = `${file.name} is not a JSON file.`;
      uploadError.hidden = false;
      fileInput.value = "";
      return;
    }
    try {
      const data = await api("POST", "/api/replays", { body: record });
      navigate(`/replay/${encodeURIComponent(data.id)}`);
    } catch (err) {
      uploadError.textContent = err.message;
      uploadError.hidden = false;
    } finally {
      fileInput.value = "";
    }
  });
  const replayPanel = h("section", { class: "panel replays", "aria-labelledby": "replays-title" },
    h("h2", { id: "replays-title", text: "Watch a replay" }),
    h("p", { class: "muted", text: "Upload a game record (flip7-record/1 JSON) to step through it card by card." }),
    fileInput,
    h("label", { for: "replay-file", class: "btn btn--secondary btn--block upload-btn", tabindex: "-1" }, icon("upload"), "Upload a record"),
    uploadError);
  // The <label> is the visible control; keep the file input keyboard-reachable.
  fileInput.addEventListener("focus", () => replayPanel.querySelector(".upload-btn").classList.add("is-focused"));
  fileInput.addEventListener("blur", () => replayPanel.querySelector(".upload-btn").classList.remove("is-focused"));

  // ---- the scorekeeper ---------------------------------------------------------------
  const scorekeeperPanel = h("section", { class: "panel replays", "aria-labelledby": "scorekeeper-title" },
    h("h2", { id: "scorekeeper-title", text: "Playing with real cards?" }),
    h("p", { class: "muted", text: "Keep score on your phone: tap each player’s cards, and the scores, the checks and the totals are worked out for you." }),
    h("a", { href: "/scorekeeper", "data-link": true, class: "btn btn--secondary btn--block", dataset: { testid: "scorekeeper-link" } }, "Open the scorekeeper"));

  root.appendChild(h("div", { class: "lobby" }, hero,
    h("div", { class: "lobby-grid" }, createPanel, h("div", { class: "lobby-col" }, tablesPanel, recentPanel, replayPanel, scorekeeperPanel))));

  return {
    destroy() {
      destroyed = true;
      clearInterval(poll);
    },
  };
}
