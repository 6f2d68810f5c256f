// The rules page (/rules): how to play, in our own words: the goal, the round, every card,
// scoring, the end of the game, Brutal mode and the house-rule options. Every number on it
// (the target, the Flip 7 count and bonus, the player counts, the options' defaults) comes
// from the server (GET /api/rules), and every card's words from GET /api/cards; each card
// shown also explains itself on hover, focus or long-press (explain.js).
import { cardEl } from "./cards.js";
import { cardTexts } from "./explain.js";
import {
  flip7Bonus, flip7Cards, loadRules, playerLimits, ruleDefault, ruleLabel, ruleOptions, valueLabel,
} from "./rules.js";
import { h } from "./util.js";

const SECTIONS = [
  ["goal", "The goal"],
  ["round", "A round"],
  ["cards", "The cards"],
  ["scoring", "Scoring"],
  ["end", "The end of the game"],
  ["brutal", "Brutal mode"],
  ["house", "House rules"],
];

function section(id, ...body) {
  const title = SECTIONS.find(([key]) => key === id)[1];
  return h("section", { class: "panel rules-section", id: `rules-${id}`, "aria-labelledby": `rules-${id}-title` },
    h("h2", { id: `rules-${id}-title`, text: title }), ...body);
}

const p = (...parts) => h("p", null, ...parts);
const b = (text) => h("strong", { text });

// The card groups, by what the server says each card is; The Zero, Unlucky 7 and Lucky 13
// are Number cards with a twist of their own.
const SPECIAL = new Set(["0", "U7", "L13"]);
const GROUPS = [
  ["Number cards", (c) => c.kind === "number" && !SPECIAL.has(c.code),
    "Each scores its face value. One of each value is safe; a second of the same value busts you."],
  ["Special numbers", (c) => SPECIAL.has(c.code),
    "Number cards too (they sit in your line and count toward Flip 7), each with a rule of its own."],
  ["Modifiers", (c) => c.kind === "modifier",
    "They sit above your numbers, change your score at the end of the round, never bust you and never count toward Flip 7."],
  ["Actions", (c) => c.kind === "action",
    "Used as soon as they are turned over, then discarded. An Action with nobody it could be used on is simply discarded."],
];

function cardsSection(cards) {
  return section("cards",
    p("A deck has three kinds of card. Point at any card, here or at a table, to see what it does."),
    GROUPS.map(([title, pick, intro]) => h("div", { class: "rules-group" },
      h("h3", { text: title }),
      p(intro),
      h("ul", { class: "rules-cards" }, cards.filter(pick).map((c) => h("li", { class: "rules-card", dataset: { code: c.code } },
        cardEl(c.code),
        h("div", { class: "rules-card-text" }, b(c.name), h("p", { text: c.text }))))))));
}

function houseSection(about) {
  const rows = ruleOptions().map((o) => {
    const info = about[o.name] || {};
    const values = o.values ? o.values.map((v) => valueLabel(o.name, v)).join(" · ") : null;
    return h("li", { class: "rules-option", dataset: { option: o.name } },
      h("div", { class: "rules-option-head" },
        b(ruleLabel(o.name)),
        h("span", { class: "rules-option-default", text: `Default: ${valueLabel(o.name, o.default)}` })),
      o.help ? p(`${o.help}.`) : null,
      info.changes ? p(info.changes) : null,
      values ? h("p", { class: "muted", text: `Choices: ${values}` }) : null,
      h("p", { class: "muted rules-option-name" }, h("code", { text: o.name }), info.section ? ` · RULES.md ${info.section}` : ""));
  });
  return section("house",
    p("A table's host picks these when creating the table; the defaults are standard play. A table shows the options it changes as badges."),
    h("ul", { class: "rules-options" }, rows));
}

// An in-page link scrolls to its section without a navigation (which would redraw the page).
function jump(ev) {
  const target = document.getElementById(ev.currentTarget.getAttribute("href").slice(1));
  if (!target) return;
  ev.preventDefault();
  target.scrollIntoView({ block: "start" });
  history.replaceState(history.state, "", `#${target.id}`);
}

function page(info, cards) {
  const target = ruleDefault("target_score");
  const seven = flip7Cards();
  const bonus = flip7Bonus();
  const players = playerLimits();
  const deckSize = (info.cards || []).reduce((sum, c) => sum + (c.count || 0), 0);
  const tie = `${ruleLabel("tie_break")} ${valueLabel("tie_break", ruleDefault("tie_break"))}`;
  return [
    h("header", { class: "rules-head" },
      h("h1", { text: "How to play" }),
      p("Flip 7: With a Vengeance is a push-your-luck card game: turn over cards for points, stop before a number comes up twice, and make life hard for everyone else."),
      h("nav", { class: "rules-toc", "aria-label": "On this page" },
        h("ul", null, SECTIONS.map(([id, title]) => h("li", null, h("a", { href: `#rules-${id}`, text: title, onclick: jump })))))),
    section("goal",
      p(`Score points over several rounds. After any round in which someone has ${target} points or more, the game ends and the highest total wins.`),
      p(`It is a game for ${players.min} players or more. One deck of ${deckSize} cards serves up to ${players.one_deck_max} players; bigger groups shuffle in a second deck.`)),
    section("round",
      h("ol", { class: "rules-steps" },
        h("li", null, b("The deal. "), "The dealer gives every player one card face up, starting on their left and ending with themselves. An Action or Modifier that turns up is dealt with at once, then the deal goes on."),
        h("li", null, b("Hit or stay. "), "Starting left of the dealer and going round, each player still in chooses: hit (turn over the top card of the draw pile and take it) or stay (stop for this round and keep what you have). Staying is not safe: other players' Actions can still take or swap your cards until the round is over."),
        h("li", null, b("Bust. "), "A Number card whose value you already hold busts you: your cards go face down, you score nothing this round and sit out the rest of it. Modifiers and Actions never bust you."),
        h("li", null, b("Flip 7. "), `Holding ${seven} Number cards without busting is a Flip 7: the round ends at once for everybody, and your line scores ${bonus} extra points.`),
        h("li", null, b("End of the round. "), "Once everyone has stayed or busted (or on a Flip 7), every line is scored and added to its player's total. All the round's cards go to the discard pile, not back into the deck, and the player on the dealer's left deals next. When the draw pile runs out, the discard pile is shuffled to make a new one."))),
    cardsSection(cards),
    section("scoring",
      p("A line that has not busted scores, in this order:"),
      h("ol", { class: "rules-steps" },
        h("li", null, "Add up its Number cards (both 13s of a Lucky 13 pair count)."),
        h("li", null, "A ÷2 halves that sum, rounding down."),
        h("li", null, "Every minus card takes its points off; the score stops at 0 (in Brutal it can go below)."),
        h("li", null, `A Flip 7 then adds ${bonus}.`),
        h("li", null, "The Zero without a Flip 7 makes the round's score 0, whatever the rest.")),
      p("A busted line scores 0 (in Brutal it may score its minus cards). The log at a table says why a score is 0.")),
    section("end",
      p(`At the end of a round in which at least one player has ${target} points or more, the game is over and the highest total wins.`),
      p(`${tie} by default: tied leaders keep playing rounds until one of them is ahead (a house rule makes it a shared win instead).`)),
    section("brutal",
      p("Brutal mode is an option for the whole game. It changes three things:"),
      h("ul", { class: "rules-steps" },
        h("li", null, "Round scores can go below 0: minus cards are no longer stopped at 0 (The Zero without a Flip 7 still makes a round exactly 0)."),
        h("li", null, "A Modifier may be given to any player, even one who busted; by default a busted player then scores their minus cards, counted from 0."),
        h("li", null, `Whoever makes a Flip 7 chooses: ${bonus} points for their own line, or ${bonus} points off another player's running total.`)),
      p("Actions still cannot be used on busted players or their cards.")),
    houseSection(info.about || {}),
  ];
}

export function mountRulesPage(root) {
  document.body.dataset.view = "rules";
  document.title = "Rules · Flip 7";
  let destroyed = false;
  const loading = h("div", { class: "loading panel" }, h("span", { class: "spinner", "aria-hidden": "true" }), "Loading the rules…");
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
      h("h2", { text: "The rules cannot be shown" }),
      h("p", { class: "muted", text: err.message || "The server did not answer." }),
      h("a", { href: "/rules", class: "btn btn--primary" }, "Try again")));
  });
  return { destroy() { destroyed = true; } };
}
