// The decision panel: what the seat that must decide can do, as buttons (with keys 1-9, H
// and S) and as picks on the board (a player, a card, a swap's two cards one after the
// other), and the move sent. The options are the server's (game.decisions): the page reads
// their seats and cards, never their text.
import { countdownEl, seatHue } from "./board.js";
import { cardEl, cardName, decisionLabel, kindPrompt, tparts, whoseCard } from "./cards.js";
import { formatNumber, t } from "./i18n.js";
import { flip7Bonus } from "./rules.js";
import { awayNote } from "./presence.js";
import { decisionsOf, myTurn } from "./tablestate.js";
import { add, clear, h, icon, initial, scrollBetween, spoken, toast } from "./util.js";

/** @typedef {import("./tablestate.js").Decision} Decision */
/** @typedef {import("./tablestate.js").GameView} GameView */
/** @typedef {import("./tablestate.js").TableState} TableState */
/** @typedef {{decision?: string, label: string, short?: string, onPick: () => void}} Pick */
/** @typedef {{seats: Map<number, Pick>, cards: Map<string, Pick>, selected: string|null}} Picks  board.js renderBoard's */
/** @typedef {[number, string]} SeatCard  a card in a seat's line: seat, code */

const SEAT_VERBS = ["target", "give", "pass", "minus"];
// How long a move may go unanswered before its buttons come back.
const MOVE_WAIT_MS = 8000;

/** A swap's two cards. @param {Decision} d */
const swapEnds = (d) => /** @type {SeatCard[]} */ ([[d.seat1, d.card1], [d.seat2, d.card2]]);

/**
 * The other card of swap `d` when `first` is one of its two, else null.
 * @param {Decision} d
 * @param {{seat: number, card: string}} first
 * @returns {SeatCard|null}
 */
function otherEnd(d, first) {
  const [[seat1, card1], [seat2, card2]] = swapEnds(d);
  if (seat1 === first.seat && card1 === first.card) return [seat2, card2];
  if (seat2 === first.seat && card2 === first.card) return [seat1, card1];
  return null;
}

/**
 * Items grouped by seat, in the order the seats first come.
 * @template T
 * @param {Iterable<T>} items
 * @param {(item: T) => number} seatOf
 * @returns {Map<number, T[]>}
 */
function bySeat(items, seatOf) {
  /** @type {Map<number, T[]>} */
  const groups = new Map();
  for (const item of items) {
    const s = seatOf(item);
    const group = groups.get(s);
    if (group) group.push(item);
    else groups.set(s, [item]);
  }
  return groups;
}

/**
 * What the panel's functions share.
 * @typedef {object} Panel
 * @property {TableState} S
 * @property {HTMLElement} host  the #decision section
 * @property {HTMLElement} board  the board's host: its pickable cards and players
 * @property {() => void} render  draws the page again after a change of S
 * @property {(seat: number) => string} names
 * @property {import("./presence.js").Rest} [rest]  a table request (the hand-over)
 */

/** @type {(P: Panel, g: GameView, me: number|null, d: Decision) => string} */
const label = (P, g, me, d) => decisionLabel(d, { names: P.names, me, pending: g.pending_card });
/** @type {(P: Panel, s: number, code: string, me: number|null) => string} */
const whose = (P, s, code, me) => whoseCard(s, code, { names: P.names, me });
/** @type {(P: Panel, s: number, card: string) => void} */
const pickFirst = (P, s, card) => { P.S.swapFirst = { seat: s, card }; P.render(); };
/** @type {(P: Panel) => void} */
const unpick = (P) => { P.S.swapFirst = null; P.render(); };

/**
 * Send decision `d` (one of the current view's), once: its buttons wait for the answer.
 * @param {Panel} P
 * @param {Decision} d
 */
function send(P, d) {
  const { S } = P;
  const tb = S.table;
  const g = tb && tb.game;
  if (!tb || !g || S.pendingMove) return;
  if (!decisionsOf(g).some((x) => x.text === d.text)) {
    toast(t("table.move_not_allowed"));
    return;
  }
  S.moveCounter += 1;
  const mid = `m${Date.now().toString(36)}${S.moveCounter}${Math.random().toString(36).slice(2, 6)}`;
  const ok = !!S.conn && S.conn.send({ v: 1, type: "move", id: mid, version: tb.version, decision: d.text });
  if (!ok) {
    toast(t("table.not_connected"));
    return;
  }
  S.pendingMove = { id: mid, decision: d.text, version: tb.version };
  S.swapFirst = null;
  P.render();
  setTimeout(() => {
    if (S.pendingMove && S.pendingMove.id === mid) {
      S.pendingMove = null;
      P.render();
    }
  }, MOVE_WAIT_MS);
}

/**
 * A swap's picks on the board: any of its cards first, then those it swaps with.
 * @param {Panel} P
 * @param {Picks} out
 * @param {GameView} g
 * @param {number|null} me
 */
function swapPicks(P, out, g, me) {
  const pairs = decisionsOf(g).filter((d) => d.verb === "swap");
  const f = P.S.swapFirst;
  if (!f) {
    for (const d of pairs) {
      for (const [s, c] of swapEnds(d)) {
        const key = `${s}|${c}`;
        if (!out.cards.has(key)) out.cards.set(key, { label: t("table.swap.pick_first_label", { card: whose(P, s, c, me) }), onPick: () => pickFirst(P, s, c) });
      }
    }
    return;
  }
  const fKey = `${f.seat}|${f.card}`;
  out.selected = fKey;
  out.cards.set(fKey, { label: t("table.swap.unselect", { card: cardName(f.card) }), onPick: () => unpick(P) });
  for (const d of pairs) {
    const other = otherEnd(d, f);
    if (other) out.cards.set(`${other[0]}|${other[1]}`, { label: label(P, g, me, d), onPick: () => send(P, d) });
  }
}

/**
 * Clickable seats and cards on the board for the current decision.
 * @param {Panel} P
 * @param {GameView} g
 * @param {number|null} me
 * @returns {Picks}
 */
function boardPicks(P, g, me) {
  /** @type {Picks} */
  const out = { seats: new Map(), cards: new Map(), selected: null };
  if (!myTurn(g, me) || P.S.pendingMove) return out;
  const kind = g.decision_kind;
  for (const d of decisionsOf(g)) {
    if (SEAT_VERBS.includes(d.verb) && d.seat !== undefined) {
      const short = d.verb === "minus" ? t("table.pick.minus", { bonus: flip7Bonus() })
        : d.verb === "give" ? (d.seat === me ? t("table.pick.keep") : t("table.pick.give")) : d.seat === me ? t("table.pick.me") : t("table.pick.choose");
      out.seats.set(d.seat, { decision: d.text, label: label(P, g, me, d), short, onPick: () => send(P, d) });
    } else if ((d.verb === "steal" || d.verb === "discard") && kind !== "swap") {
      out.cards.set(`${d.seat}|${d.card}`, { label: label(P, g, me, d), onPick: () => send(P, d) });
    }
  }
  if (kind === "swap") swapPicks(P, out, g, me);
  return out;
}

/**
 * A button that sends `d`.
 * @param {Panel} P
 * @param {GameView} g
 * @param {number|null} me
 * @param {Decision} d
 * @param {{cls?: string, content?: HTMLElement|null, hint?: string|null}} [opts]
 */
function option(P, g, me, d, { cls = "", content = null, hint = null } = {}) {
  const text = label(P, g, me, d);
  // Where the words shown are not the decision's (a player's avatar and name for "Give
  // the card to Ann"), a screen reader reads the decision and the picture is hidden from
  // it; no aria-label, which would differ from what a voice user sees and says.
  const shown = content && content.textContent !== text ? spoken(content, text) : [content || h("span", { text })];
  return h("button", {
    type: "button", class: `btn opt ${cls}`.trim(), dataset: { decision: d.text, focusKey: `opt:${cls.includes("opt-fallback") ? "f" : "m"}:${d.text}` },
    disabled: !!P.S.pendingMove,
    onclick: () => send(P, d),
  }, hint ? h("kbd", { class: "key", "aria-hidden": "true", text: hint }) : null, ...shown);
}

/**
 * Hit and Stay (a Stay that is not allowed yet says so), and the facts that weigh.
 * @param {Panel} P
 * @param {HTMLElement} main
 * @param {HTMLElement} prompt
 * @param {GameView} g
 * @param {number} me
 */
function hitOrStay(P, main, prompt, g, me) {
  const ds = decisionsOf(g);
  const hit = ds.find((d) => d.verb === "hit");
  const stay = ds.find((d) => d.verb === "stay");
  add(main,
    hit ? option(P, g, me, hit, { cls: "opt-main btn--hit", hint: "H", content: h("span", { class: "opt-big", text: t("cards.decision.hit") }) }) : null,
    stay ? option(P, g, me, stay, { cls: "opt-main btn--stay", hint: "S", content: h("span", { class: "opt-big", text: t("cards.decision.stay") }) })
      : h("button", { type: "button", class: "btn opt btn--stay", disabled: true },
        spoken([h("span", { class: "opt-big", text: t("cards.decision.stay") }), h("small", { text: t("table.decision.not_allowed") })], t("table.decision.stay_not_allowed_label"))));
  const p = g.players[me];
  // The server works out the bust risk (flip7.analysis.advisor.bust_risk): shown as sent.
  const risk = typeof g.bust_risk === "number" ? g.bust_risk : null;
  prompt.appendChild(h("span", { class: "decision-facts" },
    h("span", null, tparts("table.decision.sum", { n: h("b", { text: formatNumber(p.number_sum) }) })),
    h("span", null, tparts("table.decision.score", { n: h("b", { text: formatNumber(p.round_score) }) })),
    risk !== null ? h("span", { class: risk >= 0.3 ? "risk risk--high" : "risk" }, tparts("table.decision.risk", { n: h("b", { text: formatNumber(Math.round(risk * 100) / 100, { style: "percent" }) }) })) : null));
}

/**
 * A player to choose (target, give, pass), or Brutal's bonus for me / penalty for a player.
 * @param {Panel} P
 * @param {HTMLElement} main
 * @param {GameView} g
 * @param {number} me
 * @param {() => string|null} hint
 */
function playerOptions(P, main, g, me, hint) {
  const { names } = P;
  for (const d of decisionsOf(g)) {
    // Every option here names its seat but bonus, whose button shows none.
    const { seat = -1 } = d;
    const player = g.players[seat];
    const content = d.verb === "bonus" ? h("span", { class: "opt-big", text: t("table.decision.bonus_me", { bonus: flip7Bonus() }) })
      : h("span", { class: "opt-player" },
        h("span", { class: "avatar avatar--small", style: { "--hue": String(seatHue(seat)) }, "aria-hidden": "true", text: initial(names(seat)) }),
        h("span", { text: d.verb === "minus" ? t("cards.decision.minus", { bonus: flip7Bonus(), name: names(seat) }) : seat === me ? (d.verb === "give" ? t("cards.decision.keep") : t("table.decision.me")) : names(seat) }),
        player && player.status !== "active" ? h("small", { class: "muted", text: t(`table.decision.status.${player.status === "busted" ? "busted" : "stayed"}`) }) : null);
    main.appendChild(option(P, g, me, d, { cls: `opt-main${d.verb === "bonus" ? " btn--hit" : ""}`, hint: hint(), content }));
  }
  main.appendChild(h("p", { class: "hint hint--inline", text: t("table.decision.or_click_player") }));
}

/**
 * The cards to steal or discard, by the line they are in.
 * @param {Panel} P
 * @param {HTMLElement} main
 * @param {GameView} g
 * @param {number} me
 * @param {() => string|null} hint
 */
function cardOptions(P, main, g, me, hint) {
  for (const [s, ds] of bySeat(decisionsOf(g), (d) => d.seat ?? -1)) {
    main.appendChild(h("div", { class: "opt-group" },
      h("span", { class: "opt-group-label", text: s === me ? t("table.decision.your_line") : P.names(s) }),
      h("div", { class: "opt-cards" }, ds.map((d) => option(P, g, me, d, {
        cls: "opt-main opt-card", hint: hint(), content: cardEl(d.card ?? "", { small: true, label: cardName(d.card) }),
      })))));
  }
  main.appendChild(h("p", { class: "hint hint--inline", text: t("table.decision.or_click_card") }));
}

/**
 * A swap's first card: every card of any swap, by line (lowest seat first).
 * @param {Panel} P
 * @param {HTMLElement} main
 * @param {Decision[]} pairs
 * @param {number} me
 * @param {() => string|null} hint
 */
function swapFirstStep(P, main, pairs, me, hint) {
  /** @type {Map<string, SeatCard>} */
  const seen = new Map();
  for (const d of pairs) {
    for (const [s, c] of swapEnds(d)) if (!seen.has(`${s}|${c}`)) seen.set(`${s}|${c}`, [s, c]);
  }
  main.appendChild(h("p", { class: "opt-step", text: t("table.swap.step1") }));
  const lines = [...bySeat(seen.values(), ([s]) => s).entries()].sort((a, b) => a[0] - b[0]);
  for (const [s, cards] of lines) {
    main.appendChild(h("div", { class: "opt-group" },
      h("span", { class: "opt-group-label", text: s === me ? t("table.decision.your_line") : P.names(s) }),
      h("div", { class: "opt-cards" }, cards.map(([, c]) => {
        const key = hint();
        return h("button", {
          type: "button", class: "btn opt opt-main opt-card", disabled: !!P.S.pendingMove,
          dataset: { swapFirst: `${s}|${c}`, focusKey: `swap1:${s}|${c}` },
          onclick: () => pickFirst(P, s, c),
        }, key ? h("kbd", { class: "key", "aria-hidden": "true", text: key }) : null,
        spoken(cardEl(c, { small: true, label: cardName(c) }), t("table.swap.pick_first", { card: whose(P, s, c, me) })));
      }))));
  }
}

/**
 * A swap: its first card, then what it swaps with (and back to the first step).
 * @param {Panel} P
 * @param {HTMLElement} main
 * @param {GameView} g
 * @param {number} me
 * @param {() => string|null} hint
 */
function swapOptions(P, main, g, me, hint) {
  const pairs = decisionsOf(g).filter((d) => d.verb === "swap");
  const f = P.S.swapFirst;
  if (!f) {
    swapFirstStep(P, main, pairs, me, hint);
    return;
  }
  main.appendChild(h("p", { class: "opt-step" }, tparts("table.swap.step2", { card: h("b", { text: whose(P, f.seat, f.card, me) }) })));
  for (const d of pairs) {
    const other = otherEnd(d, f);
    if (!other) continue;
    main.appendChild(option(P, g, me, d, {
      cls: "opt-main opt-card opt-card--wide", hint: hint(),
      content: h("span", { class: "opt-player" }, cardEl(other[1], { small: true, label: cardName(other[1]) }),
        h("span", { text: other[0] === me ? t("table.swap.yours") : P.names(other[0]) })),
    }));
  }
  main.appendChild(h("button", {
    type: "button", class: "btn btn--ghost", dataset: { focusKey: "swap-cancel" },
    onclick: () => unpick(P),
  }, spoken(t("table.swap.back"), t("table.swap.back_label"))));
}

/**
 * While another seat decides (or the viewer watches): who the table waits for.
 * @param {Panel} P
 * @param {GameView} g
 * @param {number|null} me
 */
function idle(P, g, me) {
  P.host.dataset.state = "idle";
  const deciding = g.to_decide !== null && g.to_decide !== undefined ? g.to_decide : null;
  const who = deciding !== null ? P.names(deciding) : null;
  const away = deciding !== null && P.rest ? awayNote(P.S, deciding, me, P.rest) : null;
  P.host.appendChild(h("div", { class: "decision-idle" },
    me === null ? h("span", { class: "chip chip--watch" }, icon("eye"), t("table.decision.watching_live")) : null,
    away || h("span", { class: "muted", text: who ? t("table.decision.waiting_for", { name: who }) : t("table.decision.waiting") })));
}

/** The question, the card it is about, the turn's countdown, and the fold-down toggle. */
/**
 * @param {Panel} P
 * @param {GameView} g
 * @param {string|null} kind
 * @param {import("./protocol.js").TableState} table
 * @returns {HTMLElement}
 */
function promptLine(P, g, kind, table) {
  const { S } = P;
  const prompt = h("div", { class: "decision-prompt" },
    g.pending_card ? cardEl(g.pending_card, { small: true }) : null,
    h("strong", { text: kindPrompt(kind, g.pending_card, true) }),
    table.turn_deadline ? countdownEl(table.turn_deadline) : null);
  // A panel that asks for a pick on the board can fold down to its prompt, so that on a
  // phone the cards and players it asks about are in full view.
  const decisionKey = `${table.version}:${kind}`;
  if (kind !== "hit_or_stay") {
    const collapsed = S.collapsedFor === decisionKey;
    P.host.classList.toggle("is-collapsed", collapsed);
    prompt.appendChild(h("button", {
      type: "button", class: "btn btn--ghost btn--small decision-toggle", "aria-expanded": String(!collapsed),
      dataset: { focusKey: "decision-toggle", testid: "decision-toggle" },
      onclick: () => { S.collapsedFor = collapsed ? null : decisionKey; P.render(); },
    }, spoken(collapsed ? t("table.decision.options") : t("table.decision.hide"),
      collapsed ? t("table.decision.show_options") : t("table.decision.hide_options_label"))));
  }
  return prompt;
}

/**
 * Every option as a plain button, folded away under "All options".
 * @param {Panel} P
 * @param {GameView} g
 * @param {number|null} me
 */
function allOptions(P, g, me) {
  const ds = decisionsOf(g);
  const all = h("details", { class: "decision-all" },
    h("summary", { text: t("table.decision.all_options", { count: ds.length }) }),
    h("div", { class: "option-list" }, ds.map((d) => option(P, g, me, d, { cls: "opt-fallback btn--small" }))));
  if (P.S.allOpen) all.open = true;
  all.addEventListener("toggle", () => { P.S.allOpen = all.open; });
  return all;
}

/**
 * The panel for the current view.
 * @param {Panel} P
 * @param {GameView} g
 * @param {number|null} me
 */
function renderPanel(P, g, me) {
  const { host } = P;
  clear(host);
  host.removeAttribute("data-kind");
  host.classList.remove("is-collapsed");
  if (g.over) {
    host.dataset.state = "over";
    host.hidden = true;
    return;
  }
  host.hidden = false;
  const table = P.S.table;
  if (me === null || !table || !myTurn(g, me)) {
    idle(P, g, me);
    return;
  }
  const kind = g.decision_kind;
  host.dataset.kind = kind || "";
  host.dataset.state = P.S.pendingMove ? "sending" : "ready";
  const prompt = promptLine(P, g, kind, table);
  const main = h("div", { class: `decision-main decision-main--${kind}` });
  let n = 0;
  const hint = () => (n < 9 ? String(++n) : null);
  if (kind === "hit_or_stay") hitOrStay(P, main, prompt, g, me);
  else if (kind && ["target", "give", "pass", "flip7_choice"].includes(kind)) playerOptions(P, main, g, me, hint);
  else if (kind === "steal" || kind === "discard") cardOptions(P, main, g, me, hint);
  else if (kind === "swap") swapOptions(P, main, g, me, hint);
  else for (const d of decisionsOf(g)) main.appendChild(option(P, g, me, d, { cls: "opt-main", hint: hint() }));
  add(host, prompt, main, allOptions(P, g, me));
}

const narrow = window.matchMedia("(max-width: 720px)");

/**
 * The panel sticks to the bottom of the screen: the page's scroll padding leaves room for
 * it (so focus and scrolling never put a card under it), and on a phone, when a new
 * decision asks for a pick on the board, the first card or player to pick is scrolled
 * into the part of the screen the panel leaves free.
 * @param {Panel} P
 * @param {GameView} g
 */
function keepInView(P, g) {
  const { S, host } = P;
  const height = host.hidden ? 0 : host.offsetHeight;
  document.documentElement.style.setProperty("--decision-h", `${height}px`);
  if (host.dataset.state !== "ready" || !narrow.matches || !S.table) return;
  const key = `${S.table.version}:${g.decision_kind}:${S.swapFirst ? "2" : "1"}`;
  if (S.scrolledFor === key) return;
  S.scrolledFor = key;
  const target = P.board.querySelector(".card.is-pickable, .seat.is-pickable");
  if (!target) return;
  const topbar = document.querySelector(".topbar");
  const top = (topbar ? topbar.getBoundingClientRect().bottom : 0) + 8;
  const bottom = window.innerHeight - height - 8;
  scrollBetween(target, top, bottom);
}

/**
 * The panel's keys: H and S, 1-9 for its options, Escape to undo a swap's first card.
 * @param {Panel} P
 * @param {KeyboardEvent} ev
 */
function onKey(P, ev) {
  if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const tag = ev.target instanceof Element ? ev.target.tagName : null;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || document.querySelector("dialog[open]")) return;
  const key = ev.key.toLowerCase();
  if (key === "escape" && P.S.swapFirst) {
    unpick(P);
    ev.preventDefault();
    return;
  }
  const { host } = P;
  if (host.dataset.state !== "ready") return;
  /** @type {HTMLButtonElement|null} */
  let btn = null;
  if (key === "h") btn = host.querySelector('.decision-main button[data-decision="hit"]');
  else if (key === "s") btn = host.querySelector('.decision-main button[data-decision="stay"]');
  else if (/^[1-9]$/.test(key)) {
    const opts = [...host.querySelectorAll(".decision-main button.opt-main:not(:disabled)")];
    const found = opts[Number(key) - 1];
    btn = found instanceof HTMLButtonElement ? found : null;
  }
  if (btn && !btn.disabled) {
    ev.preventDefault();
    btn.click();
  }
}

/**
 * The decision panel in `host` (the #decision section).
 * @param {Panel} P
 * @returns {{picks: (g: GameView, me: number|null) => Picks, render: (g: GameView, me: number|null) => void,
 *   keepInView: (g: GameView) => void, send: (d: Decision) => void, onKey: (ev: KeyboardEvent) => void}}
 */
export function decisionPanel(P) {
  return {
    picks: (g, me) => boardPicks(P, g, me),
    render: (g, me) => renderPanel(P, g, me),
    keepInView: (g) => keepInView(P, g),
    send: (d) => send(P, d),
    onKey: (ev) => onKey(P, ev),
  };
}
