// The rules as the server states them (GET /api/rules, built from flip7.core): every rule
// option of RULES.md §13 with its default, its values and a line of help, the player counts
// and decks of §1.3, Flip 7's cards and bonus, and the deck. This page keeps no copy of
// any of them: loadRules() fetches them once (main.js waits for it before the first page),
// and the functions below read them. Only the options' labels are the page's own.
import { api } from "./api.js";

let info = null; // the answer of GET /api/rules, once it came
let pending = null;

/** Fetch the rules once; resolves to the answer (and rejects if the server cannot say). */
export function loadRules() {
  if (info) return Promise.resolve(info);
  if (!pending) {
    pending = api("GET", "/api/rules")
      .then((data) => {
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

const LABELS = {
  brutal: "Brutal mode",
  target_score: "Target score",
  lucky13_pair_flip7_count: "A Lucky 13 pair counts toward Flip 7 as",
  unlucky7_triggers_on_transfer: "Unlucky 7 wipes a line when it arrives by Steal or Swap",
  can_stay_with_empty_line: "Players may stay with an empty line",
  deal_skips_inactive: "The deal skips players who already stayed or busted",
  tie_break: "A tie for the lead",
  brutal_busted_scoring: "Brutal: a busted player scores",
  brutal_minus15_targets: "Brutal: the Flip 7 penalty may hit",
  swap_allow_cross_type: "Swap may exchange a Number card with a Modifier",
  pass_actions: "Steal, Swap and Discard may be handed to another player",
  no_cards_left: "When no card is left anywhere",
  allow_two_players: "Allow two-player tables",
};

const about = (name) => (info && info.about && info.about[name]) || {};

export function ruleLabel(name) {
  return LABELS[name] || name.replace(/_/g, " ");
}

/** The server's line of help for an option. */
export function ruleHelp(name) {
  return about(name).help || null;
}

export function valueLabel(name, value) {
  const values = about(name).values;
  if (values && Object.prototype.hasOwnProperty.call(values, String(value))) return values[String(value)];
  if (value === true) return "on";
  if (value === false) return "off";
  return String(value).replace(/_/g, " ");
}

/** Every option: [{name, default, type: "bool"|"int"|"choice", values, min, help}]. */
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

export function ruleDefault(name) {
  const option = info && Array.isArray(info.options) ? info.options.find((o) => o.name === name) : null;
  return option ? option.default : undefined;
}

/** An option's value in a rules object that may leave the defaults out. */
export function ruleValue(rules, name) {
  return rules && Object.prototype.hasOwnProperty.call(rules, name) ? rules[name] : ruleDefault(name);
}

/** The player counts: {min, min_two_players, max, one_deck_max, table_max}. */
export function playerLimits() {
  return (info && info.players) || {};
}

/** The fewest players a game may have, with or without allow_two_players. */
export function minPlayers(allowTwo) {
  const p = playerLimits();
  return allowTwo ? p.min_two_players : p.min;
}

/** How many Number cards make a Flip 7, and its bonus (the Brutal penalty too). */
export const flip7Cards = () => (info && info.flip7 ? info.flip7.cards : undefined);
export const flip7Bonus = () => (info && info.flip7 ? info.flip7.bonus : undefined);

/** The card codes of the given kinds ("number", "modifier", "action"), in the deck's order. */
export function cardCodes(...kinds) {
  if (!info || !Array.isArray(info.cards)) return [];
  return info.cards.filter((c) => kinds.includes(c.kind)).map((c) => c.code);
}

/** Short badges for a table's or a scorecard's rules that differ from the defaults. */
export function ruleBadges(rules, turnTimer) {
  const out = [];
  if (!rules) rules = {};
  if (ruleValue(rules, "brutal")) out.push({ text: "Brutal", cls: "brutal" });
  const target = ruleValue(rules, "target_score");
  if (target !== undefined && target !== ruleDefault("target_score")) out.push({ text: `To ${target}` });
  if (turnTimer) out.push({ text: `${turnTimer}s timer` });
  for (const [k, v] of Object.entries(rules)) {
    if (k === "brutal" || k === "target_score") continue;
    if (ruleDefault(k) === v) continue;
    out.push({ text: `${ruleLabel(k)}: ${valueLabel(k, v)}`, cls: "house" });
  }
  return out;
}
