// The rules page (/rules): how to play, in our own words: the goal, the round, every card,
// scoring, the end of the game, Brutal mode and the house-rule options. Every number on it
// (the target, the Flip 7 count and bonus, the player counts, the options' defaults) comes
// from the server (GET /api/rules), and every card's words from GET /api/cards; each card
// shown also explains itself on hover, focus or long-press (explain.js).
import { cardEl } from "./cards.js";
import { t } from "./i18n.js";
import { cardTexts } from "./explain.js";
import {
  flip7Bonus, flip7Cards, loadRules, playerLimits, ruleChanges, ruleDefault, ruleLabel, ruleOptions, valueLabel,
} from "./rules.js";
import { h } from "./util.js";

/** @typedef {import("./protocol.js").CardText} CardText */
/** @typedef {import("./util.js").Child} Child */

// The sections, in order: their titles are rules.section.<id>.
const SECTIONS = ["goal", "round", "cards", "scoring", "end", "brutal", "house"];
const sectionTitle = (/** @type {string} */ id) => t(`rules.section.${id}`);

/**
 * @param {string} id
 * @param {...Child} body
 */
function section(id, ...body) {
  const title = sectionTitle(id);
  return h("section", { class: "panel rules-section", id: `rules-${id}`, "aria-labelledby": `rules-${id}-title` },
    h("h2", { id: `rules-${id}-title`, text: title }), ...body);
}

const p = (/** @type {Child[]} */ ...parts) => h("p", null, ...parts);
const b = (/** @type {string} */ text) => h("strong", { text });

// The card groups, by what the server says each card is; The Zero, Unlucky 7 and Lucky 13
// are Number cards with a twist of their own.
const SPECIAL = new Set(["0", "U7", "L13"]);
/** @type {Array<[string, (card: CardText) => boolean]>} */
const GROUPS = [
  ["numbers", (c) => c.kind === "number" && !SPECIAL.has(c.code)],
  ["special", (c) => SPECIAL.has(c.code)],
  ["modifiers", (c) => c.kind === "modifier"],
  ["actions", (c) => c.kind === "action"],
];

/** @param {CardText} c */
const cardItem = (c) => h("li", { class: "rules-card", dataset: { code: c.code } },
  cardEl(c.code),
  h("div", { class: "rules-card-text" }, b(c.name), h("p", { text: c.text })));

/**
 * The plain Number cards at a glance, each with its copies in the deck (the server's deck);
 * their sentences, alike but for the number, folded away below.
 * @param {CardText[]} numbers
 * @param {Record<string, number>} copies
 */
function numbersAtAGlance(numbers, copies) {
  return [
    h("ul", { class: "rules-numbers", dataset: { testid: "rules-numbers" } }, numbers.map((c) => h("li", { class: "rules-number", dataset: { code: c.code } },
      cardEl(c.code), h("span", { class: "rules-number-copies", text: t("rules.copies", { count: copies[c.code] || 0 }) })))),
    h("details", { class: "rules-more" },
      h("summary", { text: t("rules.group.numbers.each") }),
      h("ul", { class: "rules-cards" }, numbers.map(cardItem))),
  ];
}

/**
 * @param {CardText[]} cards
 * @param {Record<string, number>} copies  each card's copies in a deck, by code
 */
function cardsSection(cards, copies) {
  return section("cards",
    p(t("rules.cards_intro")),
    GROUPS.map(([group, pick]) => h("div", { class: "rules-group" },
      h("h3", { text: t(`rules.group.${group}.title`) }),
      p(t(`rules.group.${group}.intro`)),
      group === "numbers" ? numbersAtAGlance(cards.filter(pick), copies)
        : h("ul", { class: "rules-cards" }, cards.filter(pick).map(cardItem)))));
}

// The options as a player reads them: their labels and words, not their code names or the
// rulebook's section numbers (those are for programmers: GET /api/rules has them).
function houseSection() {
  const rows = ruleOptions().map((o) => {
    const values = o.values ? o.values.map((v) => valueLabel(o.name, v)).join(" · ") : null;
    const changes = ruleChanges(o.name);
    return h("li", { class: "rules-option", dataset: { option: o.name } },
      h("div", { class: "rules-option-head" },
        b(ruleLabel(o.name)),
        h("span", { class: "rules-option-default", text: t("rules.option_default", { value: valueLabel(o.name, o.default) }) })),
      o.help ? p(t("rules.option_help", { help: o.help })) : null,
      changes ? p(changes) : null,
      values ? h("p", { class: "muted", text: t("rules.option_choices", { values }) }) : null);
  });
  return section("house",
    p(t("rules.house_intro")),
    h("ul", { class: "rules-options" }, rows));
}

/**
 * An in-page link scrolls to its section without a navigation (which would redraw the page).
 * @param {MouseEvent} ev
 */
function jump(ev) {
  const link = ev.currentTarget;
  const target = link instanceof Element ? document.getElementById((link.getAttribute("href") || "").slice(1)) : null;
  if (!target) return;
  ev.preventDefault();
  target.scrollIntoView({ block: "start" });
  history.replaceState(history.state, "", `#${target.id}`);
}

/**
 * @param {import("./protocol.js").RulesAnswer} info
 * @param {CardText[]} cards
 */
function page(info, cards) {
  const target = ruleDefault("target_score");
  const seven = flip7Cards();
  const bonus = flip7Bonus();
  const players = playerLimits();
  const deckSize = (info.cards || []).reduce((sum, c) => sum + (c.count || 0), 0);
  const tie = t("rules.end_tie_default", { label: ruleLabel("tie_break"), value: valueLabel("tie_break", ruleDefault("tie_break")) });
  return [
    h("header", { class: "rules-head" },
      h("h1", { text: t("rules.how_to_play") }),
      p(t("rules.intro")),
      h("nav", { class: "rules-toc", "aria-label": t("rules.on_this_page") },
        h("ul", null, SECTIONS.map((id) => h("li", null, h("a", { href: `#rules-${id}`, text: sectionTitle(id), onclick: jump })))))),
    section("goal",
      p(t("rules.goal_1", { target })),
      p(t("rules.goal_2", { min: players.min, cards: deckSize, max: players.one_deck_max }))),
    section("round",
      h("ol", { class: "rules-steps" },
        h("li", null, b(t("rules.step.deal.title")), t("rules.step.deal.text")),
        h("li", null, b(t("rules.step.hit.title")), t("rules.step.hit.text")),
        h("li", null, b(t("rules.step.bust.title")), t("rules.step.bust.text")),
        h("li", null, b(t("rules.step.flip7.title")), t("rules.step.flip7.text", { seven, bonus })),
        h("li", null, b(t("rules.step.end.title")), t("rules.step.end.text")))),
    cardsSection(cards, Object.fromEntries((info.cards || []).map((c) => [c.code, c.count || 0]))),
    section("scoring",
      p(t("rules.scoring_intro")),
      h("ol", { class: "rules-steps" },
        h("li", null, t("rules.scoring_1")),
        h("li", null, t("rules.scoring_2")),
        h("li", null, t("rules.scoring_3")),
        h("li", null, t("rules.scoring_4", { bonus })),
        h("li", null, t("rules.scoring_5"))),
      p(t("rules.scoring_bust"))),
    section("end",
      p(t("rules.end_1", { target })),
      p(t("rules.end_2", { tie }))),
    section("brutal",
      p(t("rules.brutal_intro")),
      h("ul", { class: "rules-steps" },
        h("li", null, t("rules.brutal_1")),
        h("li", null, t("rules.brutal_2")),
        h("li", null, t("rules.brutal_3", { bonus }))),
      p(t("rules.brutal_4"))),
    houseSection(),
  ];
}

/** @param {HTMLElement} root */
export function mountRulesPage(root) {
  document.body.dataset.view = "rules";
  document.title = t("rules.title");
  let destroyed = false;
  const loading = h("div", { class: "loading panel" }, h("span", { class: "spinner", "aria-hidden": "true" }), t("rules.loading"));
  const host = h("div", { class: "rules-page", dataset: { testid: "rules-page" } }, loading);
  root.appendChild(host);
  Promise.all([loadRules(), cardTexts()]).then(([info, cards]) => {
    if (destroyed) return;
    loading.remove();
    host.append(...page(info, cards));
    // A link to a section (/rules#rules-cards) lands on it once the page is there.
    const wanted = window.location.hash && document.getElementById(window.location.hash.slice(1));
    if (wanted) wanted.scrollIntoView();
  }).catch((err) => {
    if (destroyed) return;
    loading.remove();
    host.appendChild(h("section", { class: "panel notfound" },
      h("h2", { text: t("rules.cannot_show") }),
      h("p", { class: "muted", text: err.message || t("rules.no_answer") }),
      h("a", { href: "/rules", class: "btn btn--primary" }, t("common.try_again"))));
  });
  return { destroy() { destroyed = true; } };
}
