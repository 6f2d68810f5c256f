// The game board: piles, every player's line, scores and the score sheet.
// Used live (table.js) and in replays (replay.js). Pure rendering from a GameView
// (flip7.view.GameView.to_json()); interaction comes in through `picks`.
import { botAccountBadge, botBadge } from "./botlevels.js";
import { cardBack, cardEl, cardName, kindPrompt, tparts } from "./cards.js";
import { formatDate, formatNumber, t } from "./i18n.js";
import { flip7Bonus, flip7Cards, ruleValue } from "./rules.js";
import { playerHue } from "./chart.js";
import { h, initials, spoken } from "./util.js";

/** @typedef {import("./protocol.js").GameView} GameView */

/** @type {Record<string, string>} */
const STATUS_TEXT = { active: t("table.board.status.active"), stayed: t("table.board.status.stayed"), busted: t("table.board.status.busted") };
const num = (/** @type {number} */ n) => formatNumber(n);

/**
 * A seat's colour: the one palette of the app (chart.js), whose neighbours stay apart (the
 * board's own turned by 47° a seat and made seats 1 and 2, two bots, blue and violet).
 * @param {number} seat
 */
export function seatHue(seat) {
  return playerHue(seat);
}

/**
 * @param {GameView} game
 * @param {number} seat
 */
function avatar(game, seat) {
  const shown = initials(game.players.map((p) => p.name))[seat] || "?";
  return h("span", { class: "avatar", style: { "--hue": String(seatHue(seat)) }, "aria-hidden": "true", text: shown });
}

/**
 * Seconds left until an epoch-seconds deadline (never negative).
 * @param {number} deadline
 */
export function secondsLeft(deadline) {
  return Math.max(0, Math.ceil(deadline - Date.now() / 1000));
}

// Past this many seconds a clock shows when it runs out, not the seconds (a turn-based
// table's hours; a live turn timer is at most 600 s).
const LONG_CLOCK = 600;

/**
 * A clock's text and its words for a screen reader: "42s", or "until Fri 14:00".
 * @param {number} deadline epoch seconds
 * @returns {{text: string, label: string}}
 */
function clockText(deadline) {
  const left = secondsLeft(deadline);
  if (left <= LONG_CLOCK) return { text: t("table.board.seconds", { count: left }), label: t("table.board.seconds_left", { count: left }) };
  const when = new Date(deadline * 1000);
  const sameDay = when.toDateString() === new Date().toDateString();
  const date = formatDate(when, sameDay ? { hour: "numeric", minute: "2-digit" } : { weekday: "short", hour: "numeric", minute: "2-digit" });
  return { text: t("table.board.until", { date }), label: t("table.board.until_label", { date }) };
}

/** @param {number} deadline epoch seconds */
export function countdownEl(deadline) {
  const left = secondsLeft(deadline);
  const clock = clockText(deadline);
  return h("span", {
    class: `countdown${left <= 10 ? " countdown--low" : ""}`, dataset: { deadline: String(deadline) },
    role: "timer", "aria-label": clock.label,
  }, h("span", { class: "countdown-dot", "aria-hidden": "true" }), clock.text);
}

/**
 * Refresh every countdown on the page (called once a second).
 * @param {ParentNode} [root]
 */
export function tickCountdowns(root = document) {
  for (const el of root.querySelectorAll(".countdown[data-deadline]")) {
    const deadline = Number(el.getAttribute("data-deadline"));
    const left = secondsLeft(deadline);
    const clock = clockText(deadline);
    // countdownEl's last child is its text
    if (el.lastChild) el.lastChild.textContent = clock.text;
    el.setAttribute("aria-label", clock.label);
    el.classList.toggle("countdown--low", left <= 10);
  }
}

/**
 * A seat or a card the viewer may pick for a decision: its words for a screen reader,
 * what picking it does; a seat's button also shows `short` and carries `decision`.
 * @typedef {object} Pick
 * @property {string} label
 * @property {() => void} onPick
 * @property {string} [decision]
 * @property {string} [short]
 */

/**
 * What can be picked on the board: seats by number, cards by "seat|code", and the card
 * picked already ("seat|code").
 * @typedef {object} Picks
 * @property {Map<number, Pick>} seats
 * @property {Map<string, Pick>} cards
 * @property {string | null} selected
 */

/**
 * What the table knows of a seat beyond the game: bot or human, its level, whether its
 * player is connected or left.
 * @typedef {object} SeatMeta
 * @property {string} kind
 * @property {string | null} [bot]
 * @property {boolean} [connected]
 * @property {boolean} [left]
 * @property {boolean} [bot_account] a bot account's seat (the bot API)
 */

/**
 * @typedef {object} BoardOptions
 * @property {number | null} [me] the viewer's game seat
 * @property {(seat: number) => SeatMeta | null} [seatMeta]
 * @property {number | null} [deadline] epoch seconds
 * @property {Picks} [picks]
 */

/**
 * Render the board.
 * @param {GameView} game
 * @param {BoardOptions} [opts]
 */
export function renderBoard(game, opts = {}) {
  const me = opts.me ?? null;
  const picks = opts.picks || { seats: new Map(), cards: new Map(), selected: null };
  const names = (/** @type {number} */ s) => (game.players[s] ? game.players[s].name : t("table.seat_n", { n: s + 1 }));

  // Status strip: round, dealer, who decides.
  const status = h("div", { class: "board-status" },
    h("span", { class: "chip chip--round", text: t("table.board.round", { round: game.round }) }),
    h("span", { class: "chip" }, tparts("table.board.dealer", { name: h("b", { text: names(game.dealer) }) })),
    ruleValue(game.rules, "brutal") ? h("span", { class: "chip chip--brutal", text: t("table.board.brutal") }) : null,
    h("span", { class: "chip" }, tparts("table.board.target", { score: h("b", { text: num(Number(ruleValue(game.rules, "target_score"))) }) })));
  const mineNow = !game.over && me !== null && game.to_decide === me;
  const turn = h("div", { class: `turn-line${mineNow ? " turn-line--mine" : ""}` });
  if (game.over) {
    const w = (game.winners || []).map(names);
    turn.appendChild(h("strong", { class: "turn-winner", text: w.length > 1 ? t("table.board.share_win", { names: w.join(" & ") }) : t("table.board.wins", { name: w[0] || t("cards.log.nobody") }) }));
  } else if (game.to_decide !== null && game.to_decide !== undefined) {
    const mine = game.to_decide === me;
    turn.appendChild(avatar(game, game.to_decide));
    turn.appendChild(h("span", { class: "turn-text" },
      mine ? h("strong", { text: kindPrompt(game.decision_kind, game.pending_card, true) })
        : tparts("table.board.deciding", { name: h("strong", { text: names(game.to_decide) }), what: kindPrompt(game.decision_kind, game.pending_card, false) })));
    if (opts.deadline) turn.appendChild(countdownEl(opts.deadline));
  } else {
    turn.appendChild(h("span", { class: "turn-text muted", text: game.needs_card ? t("table.board.next_card") : "…" }));
  }

  // Piles: draw, discard, the card being resolved and set-aside cards.
  const discard = game.discard_pile || [];
  const top = discard.length ? discard[discard.length - 1] : null;
  const piles = h("div", { class: "piles", role: "group", "aria-label": t("table.board.piles") },
    h("div", { class: "pile pile--draw" },
      h("div", { class: "pile-stack", dataset: { count: String(game.draw_pile_size) } },
        game.draw_pile_size > 0 ? cardBack({ label: t("table.board.draw_pile", { count: game.draw_pile_size }) })
          : h("span", { class: "card card--slot", role: "img", "aria-label": t("table.board.draw_pile_empty") })),
      h("div", { class: "pile-label" }, t("table.board.draw"), " ", h("b", { class: "pile-count", dataset: { testid: "draw-count" }, text: num(game.draw_pile_size) }))),
    h("div", { class: "pile pile--discard" },
      h("div", { class: "pile-stack" },
        top ? cardEl(top, { label: t("table.board.discard_pile", { card: cardName(top), count: discard.length }) })
          : h("span", { class: "card card--slot", role: "img", "aria-label": t("table.board.discard_pile_empty") })),
      h("div", { class: "pile-label" }, t("table.board.discard"), " ", h("b", { class: "pile-count", text: num(discard.length) }))));
  const inPlay = [];
  if (game.pending_card) {
    inPlay.push(h("div", { class: "pile pile--pending" },
      h("div", { class: "pile-stack" }, cardEl(game.pending_card, { extraClass: "card--glow", label: t("table.board.in_play_card", { card: cardName(game.pending_card) }) })),
      h("div", { class: "pile-label", text: t("table.board.in_play") })));
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
      h("div", { class: "pile-label", text: t("table.board.set_aside") })));
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

/**
 * @param {GameView} game
 * @param {number} s
 * @param {{me: number | null, picks: Picks, meta: SeatMeta | null, deadline: number | null | undefined}} options
 */
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
  if (s === me) badges.push(h("span", { class: "badge badge--you", text: t("table.you") }));
  if (game.dealer === s) badges.push(h("span", { class: "badge badge--dealer", title: t("table.board.dealer_title"), "aria-label": t("table.board.dealer_title"), text: t("table.board.dealer_mark") }));
  if (meta && meta.kind === "bot") badges.push(h("span", { class: "badge badge--bot", title: meta.bot || undefined, text: botBadge(meta.bot || null) }));
  const account = botAccountBadge(meta ? meta.bot_account : false);
  if (account) badges.push(account);
  if (meta && meta.left) badges.push(h("span", { class: "badge badge--bot", text: t("table.board.left_bot_plays") }));
  else if (meta && meta.connected === false && meta.kind === "human") badges.push(h("span", { class: "badge badge--offline", text: t("table.offline") }));

  const head = h("div", { class: "seat-head" },
    avatar(game, s),
    h("div", { class: "seat-who" },
      h("span", { class: "seat-name", text: p.name }),
      h("span", { class: "seat-badges" },
        isTurn ? h("span", { class: "seat-turn", "aria-hidden": "true" },
          h("span", { class: "seat-turn-dot" }), s === me ? t("table.board.your_move") : t("table.board.deciding_badge"),
          // A seat's badge has room for seconds; a turn-based day is in the turn line.
          deadline && secondsLeft(deadline) <= LONG_CLOCK ? countdownEl(deadline) : null) : null,
        p.status !== "active" ? h("span", { class: `status status--${p.status}`, text: statusText }) : null, badges)));

  const cardsFor = (/** @type {string[]} */ codes, /** @type {string} */ row) => codes.map((code) => {
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
  const pips = h("span", { class: "pips", role: "img", "aria-label": t("table.board.pips", { n: count, count: flip7 }) },
    Array.from({ length: flip7 || 0 }, (_, i) => h("span", { class: `pip${i < count ? " pip--on" : ""}` })));

  const lineRow = h("div", { class: "seat-line", role: "list", "aria-label": t("table.board.number_cards", { name: p.name }) },
    // An empty line's note is its one item: a list holds list items only.
    line.length ? cardsFor(line, "line").map((c) => wrapItem(c)) : h("span", { role: "listitem", class: "seat-empty", text: p.status === "busted" ? "" : t("table.board.no_cards") }));
  const modRow = mods.length
    ? h("div", { class: "seat-mods", role: "list", "aria-label": t("table.board.modifiers", { name: p.name }) }, cardsFor(mods, "mod").map((c) => wrapItem(c)))
    : null;

  const score = h("div", { class: "seat-scores" },
    pips,
    h("span", { class: "score score--round", title: t("table.board.this_round") }, h("small", { text: t("table.board.round_score") }), h("b", { text: num(p.round_score) })),
    h("span", { class: "score score--total", title: t("table.board.total") }, h("small", { text: t("table.board.total") }), h("b", { class: "seat-total", text: num(p.total) })));

  const section = h("section", {
    class: classes.join(" "),
    dataset: { seat: String(s), status: p.status, numberSum: String(p.number_sum), total: String(p.total) },
    style: { "--hue": String(seatHue(s)) },
    "aria-label": t(`table.board.seat_aria${s === me ? "_me" : ""}${isTurn ? "_turn" : ""}`, { name: p.name, status: statusText, round: p.round_score, total: p.total }),
  }, head, h("div", { class: "seat-cards" }, modRow, lineRow), score);

  // In the head's free space at its right end: never over the badges or the cards.
  if (p.status === "busted") head.appendChild(h("div", { class: "stamp stamp--bust", "aria-hidden": "true", text: t("table.board.bust_stamp") }));
  if (seatPick) {
    // The short word is seen, the whole decision read ("Flip Four! on Bob"); no aria-label,
    // which would differ from what a voice user sees and says.
    const btn = h("button", {
      type: "button", class: "seat-pick btn btn--pick",
      dataset: { decision: seatPick.decision, focusKey: `seat:${s}` }, onclick: seatPick.onPick,
    }, spoken(seatPick.short || t("table.pick.choose"), seatPick.label));
    head.appendChild(btn);
    section.addEventListener("click", (ev) => {
      if (ev.target instanceof Element && ev.target.closest("button")) return;
      seatPick.onPick();
    });
  }
  return section;
}

/** @param {Node} card */
function wrapItem(card) {
  const li = h("span", { role: "listitem", class: "card-slot" });
  li.appendChild(card);
  return li;
}

/**
 * The score sheet: one row per completed round, totals at the bottom.
 * @param {GameView} game
 */
export function renderScoreSheet(game) {
  const players = game.players;
  const rounds = game.rounds || [];
  const head = h("tr", null, h("th", { scope: "col", class: "score-rd", text: t("table.sheet.rd") }),
    players.map((p) => h("th", { scope: "col", class: "score-name", title: p.name, text: p.name })));
  const body = rounds.map((r, i) => h("tr", null,
    h("th", { scope: "row", text: num(i + 1) }),
    players.map((_, s) => {
      const busted = (r.busted || []).includes(s);
      const flip7 = r.flip7 === s;
      const minus = r.minus15 === s;
      const cls = ["score-cell", busted ? "is-bust" : "", flip7 ? "is-flip7" : "", minus ? "is-minus" : ""].filter(Boolean).join(" ");
      const label = [num(r.scores[s]), busted ? t("table.sheet.busted") : null, flip7 ? t("table.sheet.flip7") : null,
        minus ? t("table.sheet.lost", { bonus: flip7Bonus() }) : null].filter(Boolean).join(t("cards.list.sep"));
      return h("td", { class: cls, "aria-label": label },
        num(r.scores[s]),
        busted ? h("span", { class: "mark mark--bust", "aria-hidden": "true", text: "✗" }) : null,
        flip7 ? h("span", { class: "mark mark--flip7", "aria-hidden": "true", text: "★" }) : null,
        minus ? h("span", { class: "mark mark--minus", "aria-hidden": "true", text: `−${flip7Bonus()}` }) : null);
    })));
  const winners = new Set(game.winners || []);
  const foot = h("tr", { class: "score-totals" }, h("th", { scope: "row", text: t("table.board.total") }),
    players.map((p, s) => h("td", { class: winners.has(s) ? "is-winner" : "", dataset: { seat: String(s) }, text: num(p.total) })));
  return h("div", { class: "score-sheet-wrap" },
    h("table", { class: "score-sheet", dataset: { players: String(players.length) } },
      h("caption", { class: "visually-hidden", text: t("table.sheet.caption") }),
      h("thead", null, head), h("tbody", null, body.length ? body : h("tr", null,
        h("td", { colspan: String(players.length + 1), class: "muted", text: t("table.sheet.none") }))),
      h("tfoot", null, foot)),
    h("p", { class: "score-legend muted" }, t("table.sheet.legend", { bonus: flip7Bonus() })));
}
