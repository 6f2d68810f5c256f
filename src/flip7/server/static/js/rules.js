// The rules as the server states them (GET /api/rules, built from flip7.core): every rule
// option of RULES.md §13 with its default, its values and a line of help, the player counts
// and decks of §1.3, Flip 7's cards and bonus, and the deck. This page keeps no copy of
// any of them: loadRules() fetches them once (main.js waits for it before the first page),
// and the functions below read them. The options' words come from the catalogues (i18n.js).
import { api } from "./api.js";
import { has, t } from "./i18n.js";

/** @typedef {import("./protocol.js").RulesAnswer} RulesAnswer */
/** @typedef {import("./protocol.js").Rules} Rules */
/** @typedef {boolean | number | string} RuleValue */

/** @type {RulesAnswer | null} */
let info = null; // the answer of GET /api/rules, once it came
/** @type {Promise<RulesAnswer> | null} */
let pending = null;

/**
 * Fetch the rules once; resolves to the answer (and rejects if the server cannot say).
 * @returns {Promise<RulesAnswer>}
 */
export function loadRules() {
  if (info) return Promise.resolve(info);
  if (!pending) {
    pending = api("GET", "/api/rules")
      .then((answer) => {
        const data = /** @type {RulesAnswer} */ (answer);
        info = data;
        return data;
      })
      .finally(() => {
        pending = null;
      });
  }
  return pending;
}

export const rulesLoaded = () => info !== null;

// The options' words are the catalogue's (rules.option.<name>.label|help|changes and
// rules.option.<name>.value.<value>, docs/i18n.md); the server's English (GET /api/rules)
// is the fallback for an option the catalogue does not know yet.
/**
 * @param {string} name
 * @returns {import("./protocol.js").RuleAbout}
 */
const about = (name) => (info && info.about && info.about[name]) || {};
/**
 * @param {string} name
 * @param {string} part
 */
const optionKey = (name, part) => `rules.option.${name}.${part}`;

/** @param {string} name */
export function ruleLabel(name) {
  return has(optionKey(name, "label")) ? t(optionKey(name, "label")) : name.replace(/_/g, " ");
}

/**
 * An option's line of help.
 * @param {string} name
 */
export function ruleHelp(name) {
  if (has(optionKey(name, "help"))) return t(optionKey(name, "help"));
  return about(name).help || null;
}

/**
 * What play is like away from an option's default.
 * @param {string} name
 */
export function ruleChanges(name) {
  if (has(optionKey(name, "changes"))) return t(optionKey(name, "changes"));
  return about(name).changes || null;
}

/**
 * @param {string} name
 * @param {RuleValue | undefined} value undefined: the rules have not come
 */
export function valueLabel(name, value) {
  const key = optionKey(name, `value.${value}`);
  if (has(key)) return t(key);
  const values = about(name).values;
  if (values && Object.prototype.hasOwnProperty.call(values, String(value))) return values[String(value)];
  if (value === true) return t("rules.value_on");
  if (value === false) return t("rules.value_off");
  return String(value).replace(/_/g, " ");
}

/**
 * An option as the pages use it: `values` are a choice's (null for others).
 * @typedef {object} Option
 * @property {string} name
 * @property {RuleValue} default
 * @property {"bool" | "int" | "choice"} type
 * @property {RuleValue[] | null} values
 * @property {number | null | undefined} min
 * @property {string | null} help
 */

/**
 * Every option.
 * @returns {Option[]}
 */
export function ruleOptions() {
  if (!info || !Array.isArray(info.options)) return [];
  return info.options.map((o) => ({
    name: o.name,
    default: o.default,
    type: o.type,
    values: o.choices || null,
    min: o.min,
    help: ruleHelp(o.name),
  }));
}

/**
 * @param {string} name
 * @returns {RuleValue | undefined}
 */
export function ruleDefault(name) {
  const option = info && Array.isArray(info.options) ? info.options.find((o) => o.name === name) : null;
  return option ? option.default : undefined;
}

/**
 * An option's value in a rules object that may leave the defaults out.
 * @param {Rules | null | undefined} rules
 * @param {string} name
 */
export function ruleValue(rules, name) {
  return rules && Object.prototype.hasOwnProperty.call(rules, name) ? rules[name] : ruleDefault(name);
}

/**
 * The player counts (none before the rules came).
 * @returns {Partial<RulesAnswer["players"]>}
 */
export function playerLimits() {
  return (info && info.players) || {};
}

/**
 * The fewest players a game may have, with or without allow_two_players.
 * @param {boolean} allowTwo
 */
export function minPlayers(allowTwo) {
  const p = playerLimits();
  return allowTwo ? p.min_two_players : p.min;
}

/** Whether a table with these rules (the options that differ from the defaults) is rated
 * when its creator does not say: no option outside the server's neutral ones.
 * @param {Rules | null | undefined} rules
 */
export function ratedByDefault(rules) {
  const neutral = (info && info.rated && info.rated.neutral_options) || [];
  return Object.keys(rules || {}).every((name) => neutral.includes(name));
}

/** How many Number cards make a Flip 7, and its bonus (the Brutal penalty too). */
export const flip7Cards = () => (info && info.flip7 ? info.flip7.cards : undefined);
export const flip7Bonus = () => (info && info.flip7 ? info.flip7.bonus : undefined);

/**
 * The card codes of the given kinds, in the deck's order.
 * @param {...("number" | "modifier" | "action")} kinds
 */
export function cardCodes(...kinds) {
  if (!info || !Array.isArray(info.cards)) return [];
  return info.cards.filter((c) => kinds.includes(c.kind)).map((c) => c.code);
}

/**
 * A badge: its words, and its kind (a class `badge--<cls>`).
 * @typedef {{text: string, cls?: string}} Badge
 */

/**
 * "24 hours per move", "7 days per move".
 * @param {number} hours
 */
export function moveHoursText(hours) {
  return hours % 24 === 0 && hours >= 48 ? t("lobby.move_days", { count: hours / 24 }) : t("lobby.move_hours_n", { count: hours });
}

/**
 * Short badges for a table's or a scorecard's rules that differ from the defaults.
 * @param {Rules | null | undefined} rules
 * @param {number | null} [turnTimer]
 * @returns {Badge[]}
 */
export function ruleBadges(rules, turnTimer) {
  /** @type {Badge[]} */
  const out = [];
  if (!rules) rules = {};
  if (ruleValue(rules, "brutal")) out.push({ text: t("rules.badge_brutal"), cls: "brutal" });
  const target = ruleValue(rules, "target_score");
  if (target !== undefined && target !== ruleDefault("target_score")) out.push({ text: t("rules.badge_target", { target }) });
  if (turnTimer) out.push({ text: t("rules.badge_timer", { seconds: turnTimer }) });
  for (const [k, v] of Object.entries(rules)) {
    if (k === "brutal" || k === "target_score") continue;
    if (ruleDefault(k) === v) continue;
    out.push({ text: t("rules.badge_house", { label: ruleLabel(k), value: valueLabel(k, v) }), cls: "house" });
  }
  return out;
}
