// The scorekeeper (/scorekeeper, /scorekeeper/{id}): keep score of a game played with real
// cards. Every score, check and total comes from the server (/api/scorecards, which uses the
// engine's own scoring): these pages only collect the cards and show the answers.
// User text (player and scorecard names, messages) reaches the page as text only.
// Here: the list of scorecards and the "new scorecard" form; one scorecard's page is
// scorecard.js (and the modules scorecardstate.js names).
import { api, messageOf } from "./api.js";
import { formatDate, lang, t } from "./i18n.js";
import { cardEl } from "./cards.js";
import { pressHold } from "./presshold.js";
import { navigate, setTopbar } from "./router.js";
import {
  minPlayers as fewestPlayers, playerLimits, ruleDefault, ruleHelp, ruleLabel, ruleOptions, valueLabel,
} from "./rules.js";
import { plain, scorecardPage } from "./scorecardshared.js";
import { keyStore } from "./scorecardstore.js";
import { clear, focusKey, h, icon, listText, restoreFocus, store, switchField, toast } from "./util.js";

export { mountScorecard } from "./scorecard.js";

const SCORING_RULES = ["lucky13_pair_flip7_count", "tie_break", "brutal_busted_scoring", "brutal_minus15_targets", "allow_two_players"];

/**
 * When a scorecard last changed, as a person says it ("just now", "5 minutes ago", "today
 * at 14:05", a date).
 * @param {string | number | null | undefined} value an ISO time, or epoch seconds or milliseconds
 */
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

/**
 * A seat number, a name, or a list of either, as a name.
 * @param {unknown} value
 * @param {string[]} players
 * @returns {string}
 */
function whoText(value, players) {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return listText(value.map((v) => whoText(v, players)));
  if (typeof value === "number" && players && players[value] !== undefined) return players[value];
  if (typeof value === "object" && "name" in value && value.name) return String(value.name);
  return String(value);
}

/** @param {HTMLElement} root */
export function mountScorekeeperList(root) {
  document.body.dataset.view = "scorekeeper";
  document.title = t("scorekeeper.title");
  let destroyed = false;
  const saved = savedScorecards(() => !destroyed);
  const intro = h("section", { class: "hero sk-hero" },
    h("div", { class: "hero-text" },
      h("h1", { class: "hero-title" }, t("scorekeeper.hero_title"), " ", h("span", { text: t("scorekeeper.hero_title_sub") })),
      h("p", { class: "hero-sub", text: t("scorekeeper.hero_sub") })),
    h("div", { class: "sk-hero-cards", "aria-hidden": "true" }, ["3", "11", "5", "/2", "-4"].map((c) => cardEl(c, { small: true }))));
  const back = h("a", { href: "/", "data-link": true, class: "btn btn--ghost btn--small" }, t("scorekeeper.play_online"));
  setTopbar(back);
  root.appendChild(h("div", { class: "lobby scorekeeper" }, intro,
    h("div", { class: "lobby-grid" }, newScorecardPanel(), h("div", { class: "lobby-col" }, saved))));
  return { destroy() { destroyed = true; } };
}

/**
 * The "new scorecard" form: the players (three rows to start, more or fewer within the
 * rules' limits), the game's name, target, decks, Brutal and the scoring rules.
 */
function newScorecardPanel() {
  const playerList = h("ol", { class: "sk-names", "aria-label": t("scorekeeper.players_label") });
  const addPlayer = h("button", { type: "button", class: "btn btn--ghost btn--small", dataset: { testid: "add-player" } }, t("scorekeeper.add_player"));
  const nameInput = h("input", { id: "sk-name", class: "input", type: "text", placeholder: t("scorekeeper.name_placeholder"), autocomplete: "off" });
  const targetOption = ruleOptions().find((o) => o.name === "target_score");
  const targetInput = h("input", { id: "sk-target", class: "input", type: "number", min: String(targetOption?.min ?? ""), step: "1", value: String(targetOption?.default ?? ""), inputmode: "numeric" });
  const oneDeck = h("option", { value: "1", text: t("scorekeeper.decks", { count: 1 }) });
  const decksSelect = h("select", { id: "sk-decks", class: "select" },
    oneDeck, h("option", { value: "2", text: t("scorekeeper.decks", { count: 2 }) }));
  const brutalInput = h("input", { id: "sk-brutal", type: "checkbox", class: "switch-input" });
  const { ruleInputs, rulesBox } = scoringRules(() => syncPlayers());
  const formError = h("p", { class: "form-error", role: "alert", hidden: true, dataset: { testid: "create-error" } });
  const submit = h("button", { type: "submit", class: "btn btn--primary btn--big btn--block", dataset: { testid: "create-scorecard" } }, t("scorekeeper.start"));

  const allowTwo = () => { const input = ruleInputs.get("allow_two_players"); return input instanceof HTMLInputElement ? input.checked : !!ruleDefault("allow_two_players"); };
  // NaN before the rules came (as undefined was): no count is then too few or too many.
  const minPlayers = () => fewestPlayers(allowTwo()) ?? NaN;

  /** @type {Array<{li: HTMLLIElement, num: HTMLElement, input: HTMLInputElement, remove: HTMLButtonElement}>} */
  let rows = [];
  function playerRow() {
    const num = h("span", { class: "sk-name-num", "aria-hidden": "true" });
    const input = h("input", { class: "input", type: "text", autocomplete: "off", value: "", dataset: { testid: "player-name" } });
    const remove = h("button", { type: "button", class: "btn btn--icon", onclick: () => { li.remove(); syncPlayers(); } }, icon("close"));
    const li = h("li", { class: "sk-name-row" }, num, input, remove);
    rows.push({ li, num, input, remove });
    playerList.appendChild(li);
    return input;
  }

  function syncPlayers() {
    rows = rows.filter((row) => row.li.parentNode === playerList); // the removed ones go
    rows.forEach(({ num, input, remove }, i) => {
      num.textContent = String(i + 1);
      input.placeholder = t("scorekeeper.player_n", { n: i + 1 });
      input.setAttribute("aria-label", t("scorekeeper.player_n_name", { n: i + 1 }));
      remove.setAttribute("aria-label", t("scorekeeper.remove_player_n", { n: i + 1 }));
      remove.disabled = rows.length <= minPlayers();
    });
    addPlayer.disabled = rows.length >= (playerLimits().max ?? NaN);
    const need2 = rows.length > (playerLimits().one_deck_max ?? NaN);
    oneDeck.disabled = need2;
    if (need2) decksSelect.value = "2";
  }
  addPlayer.addEventListener("click", () => {
    const input = playerRow();
    syncPlayers();
    input.focus();
  });
  for (let i = 0; i < 3; i += 1) playerRow();
  syncPlayers();

  /**
   * @param {string} message
   * @param {HTMLElement} [focus]
   */
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
    const inputs = rows.map((row) => row.input);
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
    /** @type {import("./protocol.js").Rules} */
    const rules = {};
    if (brutalInput.checked) rules.brutal = true;
    if (target !== ruleDefault("target_score")) rules.target_score = target;
    for (const [name, input] of ruleInputs) {
      const value = input instanceof HTMLInputElement ? input.checked : JSON.parse(input.value);
      if (value !== ruleDefault(name)) rules[name] = value;
    }
    /** @type {import("./protocol.js").CreateScorecard} */
    const body = { name: nameInput.value.trim() || `${listText(players)}`, players, rules, decks: Number(decksSelect.value) };
    submit.disabled = true;
    try {
      const data = /** @type {import("./protocol.js").ScorecardCreated} */ (await api("POST", "/api/scorecards", { body }));
      store.set(keyStore(data.id), data.key);
      navigate(`${scorecardPage(data.id)}#key=${encodeURIComponent(data.key)}`);
    } catch (err) {
      fail(messageOf(err));
    } finally {
      submit.disabled = false;
    }
  });

  return h("section", { class: "panel create", "aria-labelledby": "sk-create-title" },
    h("h2", { id: "sk-create-title", text: t("scorekeeper.new") }), form);
}

/**
 * The scoring rules a scorecard may change (SCORING_RULES), each a switch or a select at
 * its default; `onTwoPlayers` when the two-player switch changes (the player count's limits).
 * @param {() => void} onTwoPlayers
 */
function scoringRules(onTwoPlayers) {
  /** @type {Map<string, HTMLInputElement | HTMLSelectElement>} */
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
      input.checked = def === true;
      ruleInputs.set(name, input);
      rulesBox.appendChild(switchField(input, ruleLabel(name), name === "allow_two_players" ? t("scorekeeper.two_players_help") : null));
      input.addEventListener("change", onTwoPlayers);
    } else {
      const values = option.values || [def];
      const select = h("select", { id: idAttr, class: "select", dataset: { rule: name } },
        values.map((v) => h("option", { value: JSON.stringify(v), text: valueLabel(name, v) })));
      select.value = JSON.stringify(def);
      ruleInputs.set(name, select);
      rulesBox.appendChild(h("div", { class: "field field--row" }, h("label", { for: idAttr, class: "field-label", text: ruleLabel(name) }), select));
    }
  }
  return { ruleInputs, rulesBox };
}

/**
 * The scorecards of every device (GET /api/scorecards): where each stands, and a way in.
 * @param {() => boolean} alive the page is still on screen
 */
function savedScorecards(alive) {
  const list = h("ul", { class: "table-list", "aria-live": "polite", dataset: { testid: "scorecards" } });
  const empty = h("p", { class: "muted empty", text: t("scorekeeper.none") });
  const refresh = h("button", { type: "button", class: "btn btn--icon", "aria-label": t("lobby.refresh"), onclick: () => load() }, icon("refresh"));
  const press = pressHold(list); // a tap while the list is drawn anew: see presshold.js

  /** @param {import("./protocol.js").ScorecardListItem[]} cards */
  function render(cards) {
    if (press.hold(() => render(cards))) return;
    const fk = focusKey();
    clear(list);
    empty.hidden = cards.length > 0;
    for (const c of cards) list.appendChild(listItem(c));
    restoreFocus(fk, list);
  }

  async function load() {
    try {
      const data = /** @type {import("./protocol.js").ScorecardList | null} */ (await api("GET", "/api/scorecards"));
      if (alive()) render((data && data.scorecards) || []);
    } catch (err) {
      if (alive()) toast(messageOf(err));
    }
  }
  load();

  return h("section", { class: "panel tables", "aria-labelledby": "sk-list-title" },
    h("div", { class: "panel-head" }, h("h2", { id: "sk-list-title", text: t("scorekeeper.saved") }), refresh),
    list, empty);
}

/**
 * One scorecard of the list: its name, state, players, rounds, who leads or won, when it
 * changed; "Keep score" where this device holds its edit key.
 * @param {import("./protocol.js").ScorecardListItem} c
 */
function listItem(c) {
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
  return h("li", { class: "table-item", dataset: { scorecard: c.id } },
    h("div", { class: "table-item-main" },
      h("div", { class: "table-item-title" },
        h("a", { class: "table-item-name sk-list-link", href: scorecardPage(c.id), "data-link": true, text: c.name, dataset: { focusKey: `open:${c.id}` } }),
        h("span", { class: "chip chip--state", dataset: { state: over ? "over" : "playing" }, text: over ? t("lobby.state_finished") : t("lobby.state_playing") }),
        mine ? h("span", { class: "badge badge--you", text: t("scorekeeper.editable_here") }) : null),
      h("p", { class: "table-item-players muted", text: (c.players || []).join(", ") }),
      h("p", { class: "sk-list-facts", text: facts.join(" · ") })),
    h("div", { class: "table-item-actions" },
      h("a", { class: `btn ${mine && !over ? "btn--primary" : "btn--ghost"} btn--small`, href: scorecardPage(c.id), "data-link": true, "aria-label": t("scorekeeper.open_label", { name: c.name }) }, mine && !over ? t("scorekeeper.keep_score") : t("scorekeeper.open"))));
}
