// The lobby (/): create a table, list open tables, upload a record to watch, and a way to
// the scorekeeper.
import { api, joinTable, messageOf } from "./api.js";
import { formatDate, formatNumber, lang, t } from "./i18n.js";
import { botAccountsList, offersBotInvites } from "./botinvites.js";
import { localName } from "./botlevels.js";
import { cardEl } from "./cards.js";
import { pressHold } from "./presshold.js";
import { navigate } from "./router.js";
import {
  loadRules, minPlayers, moveHoursText, playerLimits, ruleBadges, ruleDefault, ruleHelp, ruleLabel, ratedByDefault, ruleOptions, rulesLoaded, valueLabel,
} from "./rules.js";
import {
  NAME_KEY, askName, clear, focusKey, h, heldTokens, icon, listText, nameCounter, restoreFocus, store, switchField, toast, tokenKey,
} from "./util.js";
import { startTutorial } from "./tutorial.js";
import { yourGamesPanel } from "./yourgames.js";

/** @typedef {import("./protocol.js").ListedTable} ListedTable */
/** @typedef {import("./protocol.js").RecentGame} RecentGame */
/** Whether the lobby is still on screen. @typedef {() => boolean} Alive */

// A turn-based table's choices of hours per decision (the server takes 1 to 168).
const MOVE_HOURS = [1, 4, 12, 24, 48, 72, 168];

/** @param {HTMLElement} root */
export function mountLobby(root) {
  document.body.dataset.view = "lobby";
  document.title = t("common.game_title");
  let destroyed = false;
  const alive = () => !destroyed;
  const tables = openTables(alive, () => recent.load());
  const recent = recentGames(alive);
  const yours = yourGamesPanel(alive);
  let polls = 0;
  const poll = setInterval(() => {
    if (document.hidden) return;
    tables.load();
    yours.load();
    polls += 1;
    if (polls % 5 === 0) recent.load(); // games finish less often than tables change
  }, 4000);

  // A returning player's games first: on a phone the rest is a scroll away.
  root.appendChild(h("div", { class: "lobby" }, yours.panel, hero(),
    h("div", { class: "lobby-grid" }, createPanel(alive),
      h("div", { class: "lobby-col" }, tables.panel, recent.panel, replayPanel(), scorekeeperPanel()))));

  return {
    destroy() {
      destroyed = true;
      clearInterval(poll);
    },
  };
}

function hero() {
  const fan = h("div", { class: "hero-fan", "aria-hidden": "true" },
    ["3", "L13", "U7", "0", "-4", "FLIP4", "12"].map((c, i) => {
      const el = cardEl(c);
      el.style.setProperty("--i", String(i - 3));
      return el;
    }));
  return h("section", { class: "hero" },
    h("div", { class: "hero-text" },
      h("h1", { class: "hero-title" }, "Flip 7 ", h("span", { text: t("common.game_subtitle") })),
      h("p", { class: "hero-sub", text: t("lobby.hero_sub") }),
      h("button", { type: "button", class: "btn btn--secondary hero-learn", dataset: { testid: "learn" }, onclick: startTutorial }, t("lobby.learn"))),
    fan);
}

/**
 * The "new table" form: the player's name, the table's, seats, target, Brutal, the turn
 * timer, and (folded) rated, bust odds and the house rules, all from the server's options.
 * @param {Alive} alive
 */
function createPanel(alive) {
  /** @type {import("./rules.js").Option[]} */
  let rulesSpec = [];
  // No maxlength: it would cut a name (in UTF-16 units, halving an emoji); the counter
  // shows the server's limit and the server refuses a longer name with its message.
  const nameInput = h("input", { id: "create-player", class: "input", name: "player", type: "text", required: true, autocomplete: "nickname", placeholder: t("lobby.name_placeholder") });
  nameInput.value = store.get(NAME_KEY) || "";
  const tableInput = h("input", { id: "create-name", class: "input", name: "name", type: "text", placeholder: t("lobby.table_placeholder") });
  const seatsSelect = h("select", { id: "create-seats", class: "select", name: "seats" });
  const targetInput = h("input", { id: "create-target", class: "input", name: "target_score", type: "number", step: "1", inputmode: "numeric" });
  const brutalInput = h("input", { id: "create-brutal", type: "checkbox", class: "switch-input", name: "brutal" });
  const timerOn = h("input", { id: "create-timer-on", type: "checkbox", class: "switch-input" });
  // Live (together now) or turn-based (each decision has some hours: over days).
  const paceSelect = h("select", { id: "create-pace", class: "select select--small", name: "pace", dataset: { testid: "pace" } },
    h("option", { value: "live", text: t("lobby.pace_live") }),
    h("option", { value: "turn_based", text: t("lobby.pace_turn_based") }));
  const hoursSelect = h("select", { id: "create-move-hours", class: "select", name: "move_hours" },
    MOVE_HOURS.map((n) => h("option", { value: String(n), text: moveHoursText(n) })));
  hoursSelect.value = "24";
  // The table option bust_odds: on unless the players want to judge the risk themselves.
  const oddsInput = h("input", { id: "create-bust-odds", type: "checkbox", class: "switch-input", name: "bust_odds", checked: true });
  // Rated follows the rules (the server's ratedByDefault) until the player sets it.
  const ratedInput = h("input", { id: "create-rated", type: "checkbox", class: "switch-input", name: "rated", checked: true });
  let ratedTouched = false;
  ratedInput.addEventListener("change", () => { ratedTouched = true; });
  const timerInput = h("input", { id: "create-timer", class: "input input--short", type: "number", min: "5", max: "600", step: "1", value: "60", disabled: true, "aria-label": t("lobby.timer_seconds"), inputmode: "numeric" });
  timerOn.addEventListener("change", () => { timerInput.disabled = !timerOn.checked; });
  const timerRow = h("div", { class: "switch-field switch-field--with-input" },
    timerOn,
    h("label", { for: "create-timer-on", class: "switch-label" },
      h("span", { class: "switch", "aria-hidden": "true" }),
      h("span", { class: "switch-text" }, h("span", { text: t("lobby.turn_timer") }), h("small", { class: "muted", text: t("lobby.turn_timer_help") }))),
    h("span", { class: "timer-input" }, timerInput, h("span", { class: "muted", text: t("lobby.seconds_short") })));
  // A turn-based table has no turn timer: its clock is the hours per decision.
  const hoursRow = h("div", { class: "field field--row", hidden: true },
    h("label", { for: "create-move-hours", class: "field-label" }, h("span", { text: t("lobby.move_hours") }),
      h("small", { class: "muted", text: t("lobby.move_hours_help") })), hoursSelect);
  paceSelect.addEventListener("change", () => {
    const turnBased = paceSelect.value === "turn_based";
    timerRow.hidden = turnBased;
    hoursRow.hidden = !turnBased;
  });
  const houseRules = h("div", { class: "house-rules" });
  /** @type {Map<string, HTMLInputElement | HTMLSelectElement>} */
  const houseInputs = new Map();
  const formError = h("p", { class: "form-error", role: "alert", hidden: true });
  const submit = h("button", { type: "submit", class: "btn btn--primary btn--big btn--block", dataset: { testid: "create" } }, t("lobby.create"));

  function fillSeats() {
    const two = houseInputs.get("allow_two_players");
    const allowTwo = two instanceof HTMLInputElement ? two.checked : !!ruleDefault("allow_two_players");
    const prev = Number(seatsSelect.value) || 4;
    // Before the rules come: no seat counts (the form says the rules did not come).
    const low = minPlayers(allowTwo) ?? NaN;
    clear(seatsSelect);
    for (let n = low; n <= (playerLimits().table_max ?? NaN); n += 1) {
      seatsSelect.appendChild(h("option", { value: String(n), text: t("lobby.n_players", { count: n }) }));
    }
    seatsSelect.value = String(Math.max(low, prev));
  }

  /** @param {import("./rules.js").Option[]} spec */
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
        const input = h("input", { id: idAttr, type: "number", class: "input input--short", min: r.min ?? undefined, value: String(r.default), dataset: { rule: r.name } });
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

  /** @returns {import("./protocol.js").Rules} the options that differ from the defaults */
  function collectRules() {
    /** @type {import("./protocol.js").Rules} */
    const rules = {};
    if (brutalInput.checked) rules.brutal = true;
    const target = Number(targetInput.value);
    if (Number.isInteger(target) && target !== ruleDefault("target_score")) rules.target_score = target;
    for (const r of rulesSpec) {
      const input = houseInputs.get(r.name);
      if (!input) continue;
      /** @type {import("./rules.js").RuleValue} */
      let value;
      if (r.type === "bool" && input instanceof HTMLInputElement) value = input.checked;
      else if (input instanceof HTMLSelectElement) value = JSON.parse(input.value);
      else value = Number(input.value);
      if (JSON.stringify(value) !== JSON.stringify(r.default)) rules[r.name] = value;
    }
    return rules;
  }

  const form = h("form", { class: "create-form", novalidate: true, "aria-labelledby": "create-title" },
    h("div", { class: "field" }, h("label", { for: "create-player", class: "field-label", text: t("common.your_name") }), nameInput,
      nameCounter(nameInput, "player_name_chars")),
    h("div", { class: "field" }, h("label", { for: "create-name", class: "field-label", text: t("lobby.table_name") }), tableInput,
      nameCounter(tableInput, "table_name_chars")),
    h("div", { class: "field-grid" },
      h("div", { class: "field" }, h("label", { for: "create-seats", class: "field-label", text: t("lobby.seats") }), seatsSelect),
      h("div", { class: "field" }, h("label", { for: "create-target", class: "field-label", text: t("lobby.target_score") }), targetInput)),
    switchField(brutalInput, ruleLabel("brutal"), ruleHelp("brutal")),
    timerRow,
    hoursRow,
    // With the house rules, folded: the create button stays above the fold at 1366×800.
    h("details", { class: "more-rules" }, h("summary", { text: t("lobby.house_rules") }),
      switchField(ratedInput, t("lobby.rated"), t("lobby.rated_help")),
      switchField(oddsInput, t("lobby.bust_odds"), t("lobby.bust_odds_help")),
      houseRules),
    formError,
    submit);

  // Any rule changed: the Rated switch shows the server's default for them, unless set.
  const followRules = (/** @type {Event} */ ev) => {
    if (ev.target === ratedInput) ratedTouched = true; // its "input" comes before "change"
    if (!ratedTouched) ratedInput.checked = ratedByDefault(collectRules());
  };
  form.addEventListener("change", followRules);
  form.addEventListener("input", followRules);

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    formError.hidden = true;
    const player = nameInput.value.trim();
    if (!player) {
      formError.textContent = t("lobby.error_name");
      formError.hidden = false;
      nameInput.focus();
      return;
    }
    const target = Number(targetInput.value);
    const least = Number(targetInput.min) || 1;
    if (!Number.isInteger(target) || target < least) {
      formError.textContent = t("lobby.error_target", { least });
      formError.hidden = false;
      targetInput.focus();
      return;
    }
    const turnBased = paceSelect.value === "turn_based";
    let turnTimer = null;
    if (timerOn.checked && !turnBased) {
      turnTimer = Number(timerInput.value);
      if (!Number.isInteger(turnTimer) || turnTimer < 5 || turnTimer > 600) {
        formError.textContent = t("lobby.error_timer", { low: 5, high: 600 });
        formError.hidden = false;
        timerInput.focus();
        return;
      }
    }
    store.set(NAME_KEY, player);
    /** @type {import("./protocol.js").CreateTable} */
    const body = {
      name: tableInput.value.trim() || t("lobby.default_table_name", { name: player }),
      player,
      seats: Number(seatsSelect.value),
      rules: collectRules(),
      turn_timer: turnTimer,
      bust_odds: oddsInput.checked,
      rated: ratedTouched ? ratedInput.checked : null,
      pace: turnBased ? "turn_based" : "live",
      move_hours: turnBased ? Number(hoursSelect.value) : null,
    };
    submit.disabled = true;
    try {
      const data = /** @type {import("./protocol.js").SeatGranted} */ (await api("POST", "/api/tables", { body }));
      store.set(tokenKey(data.table.id), data.token);
      navigate(`/t/${encodeURIComponent(data.table.id)}`);
    } catch (err) {
      formError.textContent = messageOf(err);
      formError.hidden = false;
    } finally {
      submit.disabled = false;
    }
  });

  // The options, their defaults and the seat counts: from the server (rules.js).
  function applyRules() {
    rulesSpec = ruleOptions();
    buildHouseRules(rulesSpec);
    const opt = rulesSpec.find((r) => r.name === "target_score");
    if (opt) {
      targetInput.value = String(opt.default);
      if (opt.min !== undefined && opt.min !== null) targetInput.min = String(opt.min);
    }
  }
  applyRules();
  if (!rulesLoaded()) {
    loadRules().then(() => { if (alive()) applyRules(); }).catch(() => {
      formError.textContent = t("lobby.error_rules");
      formError.hidden = false;
    });
  }

  return h("section", { class: "panel create", "aria-labelledby": "create-title" },
    h("div", { class: "panel-head" }, h("h2", { id: "create-title", text: t("lobby.new_table") }),
      h("label", { class: "pace-pick" }, h("span", { class: "visually-hidden", text: t("lobby.pace") }), paceSelect)),
    form);
}

/**
 * The tables waiting for players and playing (GET /api/tables): join, back to my seat,
 * watch. The refresh button also refreshes `alsoRefresh` (the recent games).
 * @param {Alive} alive
 * @param {() => void} alsoRefresh
 * @returns {{panel: HTMLElement, load: () => Promise<void>}}
 */
function openTables(alive, alsoRefresh) {
  const tablesList = h("ul", { class: "table-list", "aria-live": "polite", dataset: { testid: "tables" } });
  const tablesEmpty = h("p", { class: "muted empty", text: t("lobby.no_tables") });
  const refreshBtn = h("button", { type: "button", class: "btn btn--icon", "aria-label": t("lobby.refresh"), onclick: () => { loadTables(); alsoRefresh(); } }, icon("refresh"));
  // Turn-based tables apart (issue "Tables that wait"): their players come and go over days.
  const slowList = h("ul", { class: "table-list", "aria-live": "polite", dataset: { testid: "turn-based-tables" } });
  const slowPanel = h("section", { class: "panel tables", "aria-labelledby": "turn-based-title", hidden: true },
    h("div", { class: "panel-head" }, h("h2", { id: "turn-based-title", text: t("lobby.turn_based_tables") })), slowList);
  const tablesPanel = h("div", { class: "lobby-col" },
    h("section", { class: "panel tables", "aria-labelledby": "tables-title" },
      h("div", { class: "panel-head" }, h("h2", { id: "tables-title", text: t("lobby.open_tables") }), refreshBtn),
      tablesList, tablesEmpty),
    slowPanel);
  const press = pressHold(tablesPanel); // a Join tapped while the list is drawn anew

  // The tables whose bot invitations are open, kept open when the list is drawn again.
  /** @type {Set<string>} */
  const invitesOpen = new Set();

  /**
   * The host's bot invitations at a table of the list (the waiting room's list, with the
   * seat's token this browser holds): loaded when opened.
   * @param {ListedTable} tbl
   * @param {string} token
   */
  function botInvites(tbl, token) {
    /** @param {string} bot */
    async function invite(bot) {
      try {
        await api("POST", `/api/tables/${encodeURIComponent(tbl.id)}/invitations`, { body: { bot }, token });
        return true;
      } catch (err) {
        toast(messageOf(err));
        return false;
      }
    }
    const seated = new Set(tbl.seats.map((s) => s.player_id || ""));
    const box = h("details", { class: "bot-invites", open: invitesOpen.has(tbl.id), dataset: { testid: "lobby-bot-invites" } },
      h("summary", { text: t("table.bot_accounts.title"), dataset: { focusKey: `bots:${tbl.id}` } }));
    const fill = () => {
      if (box.open && box.childElementCount === 1) box.appendChild(botAccountsList(invite, seated));
    };
    box.addEventListener("toggle", () => {
      if (box.open) invitesOpen.add(tbl.id);
      else invitesOpen.delete(tbl.id);
      fill();
    });
    fill();
    return box;
  }

  /** @param {ListedTable} tbl */
  async function join(tbl) {
    const name = await askName(t("lobby.join_title", { name: tbl.name }), t("common.join"));
    if (!name) return;
    try {
      const data = await joinTable(tbl.id, name);
      store.set(tokenKey(tbl.id), data.token);
      navigate(`/t/${encodeURIComponent(tbl.id)}`);
    } catch (err) {
      toast(messageOf(err));
      loadTables();
    }
  }

  /** @param {ListedTable[]} tables */
  function renderTables(tables) {
    if (press.hold(() => renderTables(tables))) return;
    const key = focusKey();
    const live = tables.filter((tbl) => tbl.pace !== "turn_based");
    const slow = tables.filter((tbl) => tbl.pace === "turn_based");
    clear(tablesList);
    clear(slowList);
    tablesEmpty.hidden = live.length > 0;
    slowPanel.hidden = slow.length === 0;
    for (const tbl of live) tablesList.appendChild(tableItem(tbl));
    for (const tbl of slow) slowList.appendChild(tableItem(tbl));
    restoreFocus(key, tablesPanel);
  }

  /**
   * One table of the lobby's lists, with its rules' badges and what one may do there.
   * @param {ListedTable} tbl
   */
  function tableItem(tbl) {
    const seated = tbl.seats.filter((s) => s.kind !== "empty");
    const free = tbl.seats.length - seated.length;
    const token = store.get(tokenKey(tbl.id));
    const mine = !!token;
    const badges = ruleBadges(tbl.rules, tbl.turn_timer);
    if (tbl.bust_odds === false) badges.push({ text: t("lobby.no_bust_odds"), cls: "no-odds" });
    if (tbl.rated === false) badges.push({ text: t("lobby.unrated"), cls: "unrated" });
    if (tbl.pace === "turn_based" && tbl.move_hours) badges.unshift({ text: moveHoursText(tbl.move_hours), cls: "pace" });
    const actions = [];
    if (mine) {
      actions.push(h("a", { class: "btn btn--primary btn--small", href: `/t/${encodeURIComponent(tbl.id)}`, "data-link": true, dataset: { focusKey: `back:${tbl.id}` } }, t("lobby.back_to_seat")));
    } else if (tbl.state === "waiting" && free > 0) {
      actions.push(h("button", { type: "button", class: "btn btn--primary btn--small", "aria-label": t("lobby.join_label", { name: tbl.name }), dataset: { focusKey: `join:${tbl.id}` }, onclick: () => join(tbl) }, t("common.join")));
    }
    actions.push(h("a", { class: "btn btn--ghost btn--small", href: `/t/${encodeURIComponent(tbl.id)}`, "data-link": true, "aria-label": t("lobby.watch_label", { name: tbl.name }), dataset: { focusKey: `watch:${tbl.id}` } }, icon("eye"), t("lobby.watch")));
    return h("li", { class: "table-item", dataset: { table: tbl.id, state: tbl.state } },
      h("div", { class: "table-item-main" },
        h("div", { class: "table-item-title" },
          h("span", { class: "table-item-name", text: tbl.name }),
          h("span", { class: `chip chip--state`, dataset: { state: tbl.state }, text: tbl.state === "waiting" ? t("lobby.state_waiting") : tbl.state === "playing" ? t("lobby.state_playing") : t("lobby.state_finished") })),
        h("div", { class: "seat-dots", role: "img", "aria-label": t("lobby.seats_taken", { taken: seated.length, count: tbl.seats.length }) },
          tbl.seats.map((s) => h("span", { class: `seat-dot seat-dot--${s.kind}` }))),
        h("p", { class: "table-item-players muted", text: seated.map((s) => localName(s.name || "")).join(", ") || t("lobby.nobody_yet") }),
        badges.length ? h("div", { class: "rule-badges" }, badges.map((b) => h("span", { class: `badge badge--rule ${b.cls ? `badge--${b.cls}` : ""}`, text: b.text }))) : null,
        token && offersBotInvites(tbl) ? botInvites(tbl, token) : null),
      h("div", { class: "table-item-actions" }, actions));
  }

  async function loadTables() {
    try {
      // With the seat tokens held here: the list says at which tables this browser hosts.
      const held = heldTokens();
      const asked = held.length ? { headers: { "X-Seat-Tokens": held.join(",") } } : {};
      const data = /** @type {import("./protocol.js").TableList | null} */ (await api("GET", "/api/tables", asked));
      if (alive()) renderTables((data && data.tables) || []);
    } catch {
      /* keep the last list; the next refresh tries again */
    }
  }
  loadTables();
  return { panel: tablesPanel, load: loadTables };
}

/**
 * The finished games of every table (GET /api/games), each with its replay.
 * @param {Alive} alive
 * @returns {{panel: HTMLElement, load: () => Promise<void>}}
 */
function recentGames(alive) {
  const recentList = h("ul", { class: "recent-list", dataset: { testid: "recent-games" } });
  const recentEmpty = h("p", { class: "muted empty", text: t("lobby.no_recent") });
  const recentPanel = h("section", { class: "panel recent", "aria-labelledby": "recent-title" },
    h("div", { class: "panel-head" }, h("h2", { id: "recent-title", text: t("lobby.recent_games") })),
    recentList, recentEmpty);
  const press = pressHold(recentPanel);

  /** @param {string} iso */
  function finishedWhen(iso) {
    const when = new Date(iso);
    const minutes = Math.round((Date.now() - when.getTime()) / 60000);
    if (!Number.isFinite(minutes)) return "";
    const say = new Intl.RelativeTimeFormat(lang(), { numeric: "auto" });
    if (minutes < 60) return say.format(-Math.max(0, minutes), "minute");
    if (minutes < 24 * 60) return say.format(-Math.round(minutes / 60), "hour");
    return formatDate(when, { day: "numeric", month: "short" });
  }

  /** @param {RecentGame[]} games */
  function renderRecent(games) {
    if (press.hold(() => renderRecent(games))) return;
    const key = focusKey();
    clear(recentList);
    recentEmpty.hidden = games.length > 0;
    for (const g of games) {
      const winners = new Set(g.winners || []);
      const totals = g.totals || [];
      const won = g.players.filter((_, i) => winners.has(i));
      const scores = g.players.map(localName).map((name, i) => {
        const text = `${name} ${totals[i] === undefined || totals[i] === null ? "" : formatNumber(totals[i])}`.trim();
        return winners.has(i) ? h("strong", { class: "recent-winner", text, title: t("lobby.won") }) : h("span", { text });
      });
      const href = `/replay/game/${encodeURIComponent(g.id)}`;
      recentList.appendChild(h("li", { class: "recent-item", dataset: { game: g.id } },
        h("div", { class: "recent-main" },
          h("div", { class: "recent-title" },
            h("span", { class: "recent-name", text: g.table_name }),
            h("time", { class: "muted recent-when", datetime: g.finished_at, text: finishedWhen(g.finished_at) })),
          h("p", { class: "recent-scores" }, scores.flatMap((el, i) => (i ? [" · ", el] : [el]))),
          won.length ? h("p", { class: "visually-hidden", text: t("lobby.won_by", { names: listText(won) }) }) : null),
        h("a", { class: "btn btn--ghost btn--small", href, "data-link": true, "aria-label": t("lobby.replay_label", { name: g.table_name, players: g.players.join(", ") }), dataset: { focusKey: `replay:${g.id}`, testid: "recent-replay" } },
          icon("play"), t("lobby.replay"))));
    }
    restoreFocus(key, recentList);
  }

  async function loadRecent() {
    try {
      const data = /** @type {import("./protocol.js").RecentGames | null} */ (await api("GET", "/api/games"));
      if (alive()) renderRecent((data && data.games) || []);
    } catch {
      /* keep the last list; the next refresh tries again */
    }
  }
  loadRecent();
  return { panel: recentPanel, load: loadRecent };
}

/** Upload a record (flip7-record/1) to watch its replay (POST /api/replays). */
function replayPanel() {
  const fileInput = h("input", { id: "replay-file", type: "file", accept: ".json,application/json", class: "visually-hidden file-input" });
  const uploadError = h("p", { class: "form-error", role: "alert", hidden: true, dataset: { testid: "upload-error" } });
  fileInput.addEventListener("change", async () => {
    const file = fileInput.files && fileInput.files[0];
    uploadError.hidden = true;
    if (!file) return;
    /** @type {unknown} */
    let record;
    try {
      record = JSON.parse(await file.text());
    } catch {
      uploadError.textContent = t("lobby.not_json", { name: file.name });
      uploadError.hidden = false;
      fileInput.value = "";
      return;
    }
    try {
      const data = /** @type {import("./protocol.js").ReplayCreated} */ (await api("POST", "/api/replays", { body: record }));
      navigate(`/replay/${encodeURIComponent(data.id)}`);
    } catch (err) {
      uploadError.textContent = messageOf(err);
      uploadError.hidden = false;
    } finally {
      fileInput.value = "";
    }
  });
  const uploadLabel = h("label", { for: "replay-file", class: "btn btn--secondary btn--block upload-btn", tabindex: "-1" }, icon("upload"), t("lobby.upload"));
  // The <label> is the visible control; keep the file input keyboard-reachable.
  fileInput.addEventListener("focus", () => uploadLabel.classList.add("is-focused"));
  fileInput.addEventListener("blur", () => uploadLabel.classList.remove("is-focused"));
  return h("section", { class: "panel replays", "aria-labelledby": "replays-title" },
    h("h2", { id: "replays-title", text: t("lobby.watch_replay") }),
    h("p", { class: "muted", text: t("lobby.upload_help") }),
    fileInput, uploadLabel, uploadError);
}

/** The way to the scorekeeper (a game played with real cards). */
function scorekeeperPanel() {
  return h("section", { class: "panel replays", "aria-labelledby": "scorekeeper-title" },
    h("h2", { id: "scorekeeper-title", text: t("lobby.real_cards") }),
    h("p", { class: "muted", text: t("lobby.real_cards_help") }),
    h("a", { href: "/scorekeeper", "data-link": true, class: "btn btn--secondary btn--block", dataset: { testid: "scorekeeper-link" } }, t("lobby.open_scorekeeper")));
}
