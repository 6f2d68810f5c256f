// The game board: piles, every player's line, scores and the score sheet.
// Used live (table.js) and in replays (replay.js). Pure rendering from a GameView
// (flip7.view.GameView.to_json()); interaction comes in through `picks`.
import { cardBack, cardEl, cardName, kindPrompt } from "./cards.js";
import { flip7Bonus, flip7Cards, ruleValue } from "./rules.js";
import { h, initial } from "./util.js";

const STATUS_TEXT = { active: "Playing", stayed: "Stayed", busted: "Busted" };

export function seatHue(seat) {
  return (seat * 47 + 190) % 360;
}

function avatar(name, seat) {
  return h("span", { class: "avatar", style: { "--hue": String(seatHue(seat)) }, "aria-hidden": "true", text: initial(name) });
}

/** Seconds left until an epoch-seconds deadline (never negative). */
export function secondsLeft(deadline) {
  return Math.max(0, Math.ceil(deadline - Date.now() / 1000));
}

export function countdownEl(deadline) {
  const left = secondsLeft(deadline);
  return h("span", {
    class: `countdown${left <= 10 ? " countdown--low" : ""}`, dataset: { deadline: String(deadline) },
    role: "timer", "aria-label": `${left} seconds left`,
  }, h("span", { class: "countdown-dot", "aria-hidden": "true" }), `${left}s`);
}

/** Refresh every countdown on the page (called once a second). */
export function tickCountdowns(root = document) {
  for (const el of root.querySelectorAll(".countdown[data-deadline]")) {
    const left = secondsLeft(Number(el.dataset.deadline));
    el.lastChild.textContent = `${left}s`;
    el.setAttribute("aria-label", `${left} seconds left`);
    el.classList.toggle("countdown--low", left <= 10);
  }
}

/**
 * Render the board.
 *  game: GameView JSON
 *  opts.me: the viewer's game seat or null
 *  opts.seatMeta(seat) → {kind, bot, connected} or null
 *  opts.deadline: epoch seconds or null
 *  opts.picks: {seats: Map(seat → {label, onPick}), cards: Map("seat|code" → {label, onPick}),
 *               selected: "seat|code" | null}
 */
export function renderBoard(game, opts = {}) {
  const me = opts.me ?? null;
  const picks = opts.picks || { seats: new Map(), cards: new Map(), selected: null };
  const names = (s) => (game.players[s] ? game.players[s].name : `Seat ${s + 1}`);

  // Status strip: round, dealer, who decides.
  const status = h("div", { class: "board-status" },
    h("span", { class: "chip chip--round", text: `Round ${game.round}` }),
    h("span", { class: "chip" }, "Dealer ", h("b", { text: names(game.dealer) })),
    ruleValue(game.rules, "brutal") ? h("span", { class: "chip chip--brutal", text: "Brutal" }) : null,
    h("span", { class: "chip" }, "Target ", h("b", { text: String(ruleValue(game.rules, "target_score")) })));
  const mineNow = !game.over && me !== null && game.to_decide === me;
  const turn = h("div", { class: `turn-line${mineNow ? " turn-line--mine" : ""}` });
  if (game.over) {
    const w = (game.winners || []).map(names);
    turn.appendChild(h("strong", { class: "turn-winner", text: w.length > 1 ? `${w.join(" & ")} share the win` : `${w[0] || "Nobody"} wins!` }));
  } else if (game.to_decide !== null && game.to_decide !== undefined) {
    const mine = game.to_decide === me;
    turn.appendChild(avatar(names(game.to_decide), game.to_decide));
    turn.appendChild(h("span", { class: "turn-text" },
      mine ? h("strong", { text: kindPrompt(game.decision_kind, game.pending_card, true) })
        : [h("strong", { text: names(game.to_decide) }), ` is ${kindPrompt(game.decision_kind, game.pending_card, false)}`]));
    if (opts.deadline) turn.appendChild(countdownEl(opts.deadline));
  } else {
    turn.appendChild(h("span", { class: "turn-text muted", text: game.needs_card ? "Next: a card is drawn" : "…" }));
  }

  // Piles: draw, discard, the card being resolved and set-aside cards.
  const discard = game.discard_pile || [];
  const top = discard.length ? discard[discard.length - 1] : null;
  const piles = h("div", { class: "piles", role: "group", "aria-label": "Piles" },
    h("div", { class: "pile pile--draw" },
      h("div", { class: "pile-stack", dataset: { count: String(game.draw_pile_size) } },
        game.draw_pile_size > 0 ? cardBack({ label: `Draw pile, ${game.draw_pile_size} cards` })
          : h("span", { class: "card card--slot", role: "img", "aria-label": "Draw pile empty" })),
      h("div", { class: "pile-label" }, "Draw ", h("b", { class: "pile-count", dataset: { testid: "draw-count" }, text: String(game.draw_pile_size) }))),
    h("div", { class: "pile pile--discard" },
      h("div", { class: "pile-stack" },
        top ? cardEl(top, { label: `Discard pile, top card ${cardName(top)}, ${discard.length} cards` })
          : h("span", { class: "card card--slot", role: "img", "aria-label": "Discard pile empty" })),
      h("div", { class: "pile-label" }, "Discard ", h("b", { class: "pile-count", text: String(discard.length) }))));
  const inPlay = [];
  if (game.pending_card) {
    inPlay.push(h("div", { class: "pile pile--pending" },
      h("div", { class: "pile-stack" }, cardEl(game.pending_card, { extraClass: "card--glow", label: `In play: ${cardName(game.pending_card)}` })),
      h("div", { class: "pile-label", text: "In play" })));
  }
  // set_aside includes the pending card; show it once, under "In play".
  const aside = [...(game.set_aside || [])];
  if (game.pending_card) {
    const i = aside.lastIndexOf(game.pending_card);
    if (i >= 0) aside.splice(i, 1);
  }
  if (aside.length) {
    inPlay.push(h("div", { class: "pile pile--aside" },
      h("div", { class: "pile-fan" }, aside.map((c) => cardEl(c, { small: true }))),
      h("div", { class: "pile-label", text: "Set aside" })));
  }
  for (const el of inPlay) piles.appendChild(el);

  // Seats, starting with the viewer's own.
  const order = game.players.map((p) => p.seat);
  if (me !== null && me >= 0 && me < order.length) order.push(...order.splice(0, me));
  const seats = h("div", { class: `seats seats--n${Math.min(game.players.length, 9)}` },
    order.map((s) => seatPanel(game, s, { me, picks, meta: opts.seatMeta ? opts.seatMeta(s) : null, deadline: opts.deadline })));

  return h("div", { class: "board", dataset: { round: String(game.round), phase: game.phase || "" } },
    h("div", { class: "board-top" }, h("div", { class: "board-info" }, status, turn), piles),
    seats);
}

function seatPanel(game, s, { me, picks, meta, deadline }) {
  const p = game.players[s];
  const isTurn = !game.over && game.to_decide === s;
  const winner = game.over && (game.winners || []).includes(s);
  const classes = ["seat", `seat--${p.status}`];
  if (isTurn) classes.push("is-turn");
  if (s === me) classes.push("is-me");
  if (winner) classes.push("is-winner");
  const seatPick = picks.seats.get(s);
  if (seatPick) classes.push("is-pickable");
  const statusText = STATUS_TEXT[p.status] || p.status;

  const badges = [];
  if (s === me) badges.push(h("span", { class: "badge badge--you", text: "You" }));
  if (game.dealer === s) badges.push(h("span", { class: "badge badge--dealer", title: "Dealer", "aria-label": "Dealer", text: "D" }));
  if (meta && meta.kind === "bot") badges.push(h("span", { class: "badge badge--bot", text: meta.bot ? `bot · ${meta.bot}` : "bot" }));
  if (meta && meta.left) badges.push(h("span", { class: "badge badge--bot", text: "left · bot plays" }));
  else if (meta && meta.connected === false && meta.kind === "human") badges.push(h("span", { class: "badge badge--offline", text: "offline" }));

  const head = h("div", { class: "seat-head" },
    avatar(p.name, s),
    h("div", { class: "seat-who" },
      h("span", { class: "seat-name", text: p.name }),
      h("span", { class: "seat-badges" },
        isTurn ? h("span", { class: "seat-turn", "aria-hidden": "true" },
          h("span", { class: "seat-turn-dot" }), s === me ? "Your move" : "Deciding", deadline ? countdownEl(deadline) : null) : null,
        p.status !== "active" ? h("span", { class: `status status--${p.status}`, text: statusText }) : null, badges)));

  const cardsFor = (codes, row) => codes.map((code) => {
    const key = `${s}|${code}`;
    const pick = picks.cards.get(key);
    if (pick) {
      return cardEl(code, {
        button: true, label: pick.label, onClick: pick.onPick, dataset: { seat: String(s), focusKey: `card:${key}` },
        extraClass: `is-pickable${picks.selected === key ? " is-selected" : ""}`,
      });
    }
    const selected = picks.selected === key;
    return cardEl(code, { dataset: { seat: String(s), row }, extraClass: selected ? "is-selected" : "" });
  });

  const line = p.line || [];
  const mods = p.modifiers || [];
  const count = line.length;
  const flip7 = flip7Cards();
  const pips = h("span", { class: "pips", role: "img", "aria-label": `${count} of ${flip7} number cards` },
    Array.from({ length: flip7 || 0 }, (_, i) => h("span", { class: `pip${i < count ? " pip--on" : ""}` })));

  const lineRow = h("div", { class: "seat-line", role: "list", "aria-label": `${p.name}’s number cards` },
    line.length ? cardsFor(line, "line").map((c) => wrapItem(c)) : h("span", { class: "seat-empty", text: p.status === "busted" ? "" : "No cards yet" }));
  const modRow = mods.length
    ? h("div", { class: "seat-mods", role: "list", "aria-label": `${p.name}’s modifiers` }, cardsFor(mods, "mod").map((c) => wrapItem(c)))
    : null;

  const score = h("div", { class: "seat-scores" },
    pips,
    h("span", { class: "score score--round", title: "This round" }, h("small", { text: "Round" }), h("b", { text: String(p.round_score) })),
    h("span", { class: "score score--total", title: "Total" }, h("small", { text: "Total" }), h("b", { class: "seat-total", text: String(p.total) })));

  const section = h("section", {
    class: classes.join(" "),
    dataset: { seat: String(s), status: p.status, numberSum: String(p.number_sum), total: String(p.total) },
    style: { "--hue": String(seatHue(s)) },
    "aria-label": `${p.name}${s === me ? " (you)" : ""}: ${statusText}, ${p.round_score} this round, ${p.total} total${isTurn ? ", deciding now" : ""}`,
  }, head, h("div", { class: "seat-cards" }, modRow, lineRow), score);

  // In the head's free space at its right end: never over the badges or the cards.
  if (p.status === "busted") head.appendChild(h("div", { class: "stamp stamp--bust", "aria-hidden": "true", text: "Bust" }));
  if (seatPick) {
    const btn = h("button", {
      type: "button", class: "seat-pick btn btn--pick", "aria-label": seatPick.label,
      dataset: { decision: seatPick.decision, focusKey: `seat:${s}` }, onclick: seatPick.onPick,
    }, seatPick.short || "Choose");
    head.appendChild(btn);
    section.addEventListener("click", (ev) => {
      if (ev.target.closest("button")) return;
      seatPick.onPick();
    });
  }
  return section;
}

function wrapItem(card) {
  const li = h("span", { role: "listitem", class: "card-slot" });
  li.appendChild(card);
  return li;
}

/** The score sheet: one row per completed round, totals at the bottom. */
export function renderScoreSheet(game) {
  const players = game.players;
  const rounds = game.rounds || [];
  const head = h("tr", null, h("th", { scope: "col", class: "score-rd", text: "Rd" }),
    players.map((p) => h("th", { scope: "col", class: "score-name", title: p.name, text: p.name })));
  const body = rounds.map((r, i) => h("tr", null,
    h("th", { scope: "row", text: String(i + 1) }),
    players.map((_, s) => {
      const busted = (r.busted || []).includes(s);
      const flip7 = r.flip7 === s;
      const minus = r.minus15 === s;
      const cls = ["score-cell", busted ? "is-bust" : "", flip7 ? "is-flip7" : "", minus ? "is-minus" : ""].filter(Boolean).join(" ");
      const label = `${r.scores[s]}${busted ? ", busted" : ""}${flip7 ? ", Flip 7" : ""}${minus ? `, lost ${flip7Bonus()}` : ""}`;
      return h("td", { class: cls, "aria-label": label },
        String(r.scores[s]),
        busted ? h("span", { class: "mark mark--bust", "aria-hidden": "true", text: "✗" }) : null,
        flip7 ? h("span", { class: "mark mark--flip7", "aria-hidden": "true", text: "★" }) : null,
        minus ? h("span", { class: "mark mark--minus", "aria-hidden": "true", text: `−${flip7Bonus()}` }) : null);
    })));
  const winners = new Set(game.winners || []);
  const foot = h("tr", { class: "score-totals" }, h("th", { scope: "row", text: "Total" }),
    players.map((p, s) => h("td", { class: winners.has(s) ? "is-winner" : "", dataset: { seat: String(s) }, text: String(p.total) })));
  return h("div", { class: "score-sheet-wrap" },
    h("table", { class: "score-sheet", dataset: { players: String(players.length) } },
      h("caption", { class: "visually-hidden", text: "Scores by round" }),
      h("thead", null, head), h("tbody", null, body.length ? body : h("tr", null,
        h("td", { colspan: String(players.length + 1), class: "muted", text: "No round finished yet" }))),
      h("tfoot", null, foot)),
    h("p", { class: "score-legend muted" }, `✗ busted · ★ Flip 7 · −${flip7Bonus()} lost to a Brutal Flip 7`));
}
