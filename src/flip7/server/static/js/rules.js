// Rule options (RULES.md §13): labels, and reading GET /api/rules whatever its exact shape.

export const RULE_DEFAULTS = {
  brutal: false,
  target_score: 200,
  lucky13_pair_flip7_count: 2,
  unlucky7_triggers_on_transfer: true,
  can_stay_with_empty_line: false,
  deal_skips_inactive: true,
  tie_break: "extra_rounds",
  brutal_busted_scoring: "modifiers_only",
  brutal_minus15_targets: "any_other_player",
  swap_allow_cross_type: true,
  pass_actions: false,
  no_cards_left: "end_round",
  allow_two_players: false,
};

const FALLBACK_VALUES = {
  lucky13_pair_flip7_count: [1, 2],
  tie_break: ["extra_rounds", "shared_win"],
  brutal_busted_scoring: ["modifiers_only", "zero"],
  brutal_minus15_targets: ["any_other_player", "non_busted_others"],
  no_cards_left: ["end_round"],
};

export const RULE_TEXT = {
  brutal: { label: "Brutal mode", help: "Round scores can go below zero, Modifiers can go to busted players, and a Flip 7 may take 15 points off someone else." },
  target_score: { label: "Target score", help: "The game ends after the round in which someone reaches it." },
  lucky13_pair_flip7_count: { label: "A Lucky 13 pair counts toward Flip 7 as", values: { 1: "one card", 2: "two cards" } },
  unlucky7_triggers_on_transfer: { label: "Unlucky 7 wipes a line when it arrives by Steal or Swap" },
  can_stay_with_empty_line: { label: "Players may stay with an empty line" },
  deal_skips_inactive: { label: "The deal skips players who already stayed or busted" },
  tie_break: { label: "A tie for the lead", values: { extra_rounds: "plays extra rounds", shared_win: "is a shared win" } },
  brutal_busted_scoring: { label: "Brutal: a busted player scores", values: { modifiers_only: "their Modifiers only", zero: "zero" } },
  brutal_minus15_targets: { label: "Brutal: the Flip 7 −15 may hit", values: { any_other_player: "any other player", non_busted_others: "only players still in" } },
  swap_allow_cross_type: { label: "Swap may exchange a Number card with a Modifier" },
  pass_actions: { label: "Steal, Swap and Discard may be handed to another player" },
  no_cards_left: { label: "When no card is left anywhere", values: { end_round: "the round ends" } },
  allow_two_players: { label: "Allow two-player tables" },
};

export function ruleLabel(name) {
  return (RULE_TEXT[name] && RULE_TEXT[name].label) || name.replace(/_/g, " ");
}

export function valueLabel(name, value) {
  const values = RULE_TEXT[name] && RULE_TEXT[name].values;
  if (values && Object.prototype.hasOwnProperty.call(values, String(value))) return values[String(value)];
  if (value === true) return "on";
  if (value === false) return "off";
  return String(value).replace(/_/g, " ");
}

/**
 * Normalise GET /api/rules into [{name, default, type: "bool"|"int"|"choice", values, min}].
 * Accepts a list of objects, or an object keyed by option name, optionally wrapped in
 * {"rules": …} / {"options": …}.
 */
export function normaliseRules(data) {
  let raw = data;
  if (raw && !Array.isArray(raw) && typeof raw === "object") {
    raw = raw.rules || raw.options || raw;
  }
  let entries = [];
  if (Array.isArray(raw)) {
    entries = raw.map((o) => [o.name || o.key || o.option, o]);
  } else if (raw && typeof raw === "object") {
    entries = Object.entries(raw);
  }
  const out = [];
  for (const [name, spec0] of entries) {
    if (!name) continue;
    const spec = spec0 && typeof spec0 === "object" && !Array.isArray(spec0) ? spec0 : { default: spec0 };
    const def = "default" in spec ? spec.default : RULE_DEFAULTS[name];
    let values = spec.values || spec.allowed || spec.choices || spec.enum || null;
    if (values && !Array.isArray(values)) values = null;
    let type;
    if (typeof def === "boolean" || spec.type === "bool" || spec.type === "boolean") type = "bool";
    else if (values && values.length) type = "choice";
    else if (typeof def === "number" || spec.type === "int" || spec.type === "integer") type = "int";
    else if (FALLBACK_VALUES[name]) {
      type = "choice";
      values = FALLBACK_VALUES[name];
    } else type = "choice";
    if (type === "choice" && (!values || !values.length)) values = FALLBACK_VALUES[name] || [def];
    const min = spec.min ?? spec.minimum ?? (name === "target_score" ? 1 : undefined);
    out.push({ name, default: def, type, values, min, max: spec.max ?? spec.maximum });
  }
  return out;
}

export function fallbackRules() {
  return normaliseRules(Object.fromEntries(Object.entries(RULE_DEFAULTS).map(([k, v]) => [k, { default: v }])));
}

/** Short badges for a table's non-default rules. */
export function ruleBadges(rules, turnTimer) {
  const out = [];
  if (!rules) rules = {};
  if (rules.brutal) out.push({ text: "Brutal", cls: "brutal" });
  if (rules.target_score && rules.target_score !== 200) out.push({ text: `To ${rules.target_score}` });
  if (turnTimer) out.push({ text: `${turnTimer}s timer` });
  for (const [k, v] of Object.entries(rules)) {
    if (k === "brutal" || k === "target_score") continue;
    if (RULE_DEFAULTS[k] === v) continue;
    out.push({ text: `${ruleLabel(k)}: ${valueLabel(k, v)}`, cls: "house" });
  }
  return out;
}
