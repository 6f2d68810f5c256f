// The scorekeeper's live mode: enter a round card by card as the cards are flipped. The
// events go to PUT /api/scorecards/{id}/live, which replays them by the engine's line rules
// and answers with every line, who stayed or busted, whose turn it is and the advisor's
// figures for that player. When the round is over its lines go to the entry panel.
import { ApiError, api, messageOf } from "./api.js";
import { formatNumber, lang, t } from "./i18n.js";
import { cardEl, cardName } from "./cards.js";
import { playerHue } from "./chart.js";
import { cardCodes } from "./rules.js";
import { add, clear, focusKey, h, initial, restoreFocus, toast } from "./util.js";

/** @typedef {import("./protocol.js").Scorecard} Scorecard */
/** @typedef {import("./protocol.js").LiveRound} LiveRound */
/** @typedef {import("./protocol.js").LiveEvent} LiveEvent */
/** @typedef {import("./protocol.js").FlipFour} FlipFour */

/**
 * What the keeper is picking: the card to move, swap or discard; then where a moved card
 * goes (`move-to`) or the second card of a swap (`swap-2`).
 * @typedef {{kind: "move"} | {kind: "swap"} | {kind: "discard"} | {kind: "move-to" | "swap-2", card: string, from: number}} Mode
 */

/**
 * The live panel: its element; update(summary) when the scorecard changed elsewhere;
 * destroy(abandon), abandoning the live round on the server when asked.
 * @typedef {object} LiveController
 * @property {HTMLElement} element
 * @property {(summary: Scorecard) => void} update
 * @property {(abandon: boolean) => void} destroy
 */

// A set-aside Steal, Swap or Discard is used by tapping its cards, as one flipped on a turn.
/** @type {Record<string, "move" | "swap" | "discard">} */
const USE_MODE = { STEAL: "move", SWAP: "swap", DISCARD: "discard" };
// Every kind of card (the server's deck, RECORD.md §1), in picker order.
const liveCards = () => cardCodes("number", "modifier", "action");
/** @type {Record<string, string>} */
const STATUS_TEXT = { active: "scorekeeper.live.status_active", stayed: "scorekeeper.live.status_stayed", busted: "scorekeeper.live.status_busted" };

/** @param {number | null | undefined} p a chance, 0 to 1 */
function pct(p) {
  if (p === null || p === undefined) return "–";
  const v = p * 100;
  if (v > 0 && v < 1) return `<${formatNumber(0.01, { style: "percent" })}`;
  return formatNumber(Math.round(v) / 100, { style: "percent" });
}

/** @param {number | null | undefined} v */
function num(v) {
  if (v === null || v === undefined) return "–";
  return Number.isInteger(v) ? formatNumber(v) : formatNumber(v, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

/** @param {number} n */
function signed(n) {
  return n > 0 ? `+${formatNumber(n)}` : n < 0 ? `−${formatNumber(-n)}` : formatNumber(0);
}

/** The advisor's one-line reason (the server's ``reason``), in the page's language from the
 * advice's figures; in English the server's own words.
 * @param {import("./protocol.js").LiveAdvice} adv
 */
function adviceReason(adv) {
  if (lang() === "en") return adv.reason;
  if (adv.must_hit) return t("scorekeeper.live.reason_must_hit", { flip7: pct(adv.p_flip7_keep_hitting) });
  if (!adv.cards_left) return t("scorekeeper.live.reason_no_card");
  return t(adv.recommendation === "hit" ? "scorekeeper.live.reason_hit" : "scorekeeper.live.reason_stay",
    { risk: pct(adv.p_bust_next), hit: num(adv.ev_hit), stay: num(adv.ev_stay) });
}

/**
 * @param {LiveEvent} ev
 * @param {string[]} names
 */
function eventText(ev, names) {
  switch (ev.type) {
    case "card": return t("scorekeeper.live.ev_card", { name: names[ev.seat], card: cardName(ev.card) });
    case "stay": return t("scorekeeper.live.ev_stay", { name: names[ev.seat] });
    case "move": return t("scorekeeper.live.ev_move", { card: cardName(ev.card), from: names[ev.from], to: names[ev.to] });
    case "discard": return t("scorekeeper.live.ev_discard", { name: names[ev.from], card: cardName(ev.card) });
    case "reshuffle": return t("scorekeeper.live.ev_reshuffle");
    case "flip4": return t("scorekeeper.live.ev_flip4", { from: names[ev.from], to: names[ev.to] });
    case "give": return t("scorekeeper.live.ev_give", { from: names[ev.from], card: cardName(ev.card), to: names[ev.to] });
    case "use": return t("scorekeeper.live.ev_use", { name: names[ev.from], card: cardName(ev.card) });
    default: return /** @type {{type: string}} */ (ev).type; // an event this page does not know yet
  }
}

/**
 * The Flip Four's choice of a player (its target, or who gets a card): a button each.
 * @param {FlipFour} ff
 * @param {string[]} names
 * @param {string} verb
 * @param {(seat: number) => void} onPick
 */
function targetButtons(ff, names, verb, onPick) {
  return h("div", { class: "sk-live-targets", role: "group", "aria-label": t("scorekeeper.live.pick_player", { verb }) },
    ff.targets.map((s) => h("button", {
      type: "button", class: "btn btn--secondary sk-live-target", dataset: { testid: "live-target", seat: String(s), focusKey: `live-target:${s}` },
      "aria-label": t("scorekeeper.live.verb_name", { verb, name: names[s] }), style: { "--hue": String(playerHue(s)) }, onclick: () => onPick(s),
    }, h("span", { class: "avatar avatar--small", style: { "--hue": String(playerHue(s)) }, "aria-hidden": "true", text: initial(names[s]) }),
    h("span", { text: names[s] }))));
}

/**
 * The advisor's advice for the player whose turn it is.
 * @param {import("./protocol.js").LiveAdvice} adv
 * @param {string[]} names
 */
function adviceView(adv, names) {
  const hit = adv.recommendation === "hit";
  return h("div", { class: `sk-advice sk-advice--${adv.recommendation}`, dataset: { testid: "advice" }, "aria-live": "polite" },
    h("div", { class: "sk-advice-head" },
      h("span", { text: t("scorekeeper.live.to_play", { name: names[adv.seat] }) }),
      h("strong", { class: "sk-advice-rec", text: adv.must_hit ? t("scorekeeper.live.must_hit") : hit ? t("scorekeeper.live.hit") : t("scorekeeper.live.stay") })),
    h("dl", { class: "sk-advice-facts" },
      h("div", {}, h("dt", { text: t("scorekeeper.live.bust_risk") }), h("dd", { text: pct(adv.p_bust_next) })),
      h("div", {}, h("dt", { text: t("scorekeeper.live.hit_about") }), h("dd", { text: num(adv.ev_hit) })),
      h("div", {}, h("dt", { text: t("scorekeeper.live.stay") }), h("dd", { text: num(adv.ev_stay) }))),
    adv.reason ? h("p", { class: "sk-advice-reason", text: adviceReason(adv) }) : null);
}

/**
 * The Flip Four's step: the picker for its next card, or the choice it waits for.
 * @param {FlipFour} ff
 * @param {object} live the live panel's
 * @param {string[]} live.names
 * @param {LiveRound["lines"]} live.lines
 * @param {(...evs: LiveEvent[]) => void} live.push sends events after the round's
 * @param {(card: string) => void} live.use the set-aside Action `card` is used
 */
function flipFourPanel(ff, { names, lines, push, use }) {
  const who = names[ff.seat];
  const box = h("section", { class: "sk-live-f4", dataset: { testid: "live-flip4", step: ff.next }, "aria-label": t("scorekeeper.live.flip4") });
  const aside = ff.set_aside.length && ff.next !== "draw" ? ff.set_aside.slice(1) : ff.set_aside;
  if (ff.next === "play") {
    box.appendChild(h("p", { class: "sk-live-f4-head", role: "status" }, ff.revealed
      ? t("scorekeeper.live.f4_revealed", { name: who })
      : t("scorekeeper.live.f4_set_aside", { name: who })));
    box.appendChild(targetButtons(ff, names, t("scorekeeper.live.f4_on"), (s) => push({ type: "flip4", from: ff.seat, to: s })));
  } else if (ff.next === "draw") {
    const rname = names[ff.seat];
    box.appendChild(h("p", { class: "sk-live-f4-head sk-live-for", role: "status", dataset: { testid: "live-recipient" } },
      t("scorekeeper.live.f4_card_for", { n: ff.drawn + 1, total: ff.cards }), h("strong", { text: rname })));
    // The target's line, beside the picker: its lines above may be scrolled away.
    const have = (lines[ff.seat] && lines[ff.seat].cards) || [];
    box.appendChild(h("div", { class: "sk-live-f4-line", role: "group", "aria-label": t("scorekeeper.line_of", { name: rname }), dataset: { testid: "live-f4-line" } },
      have.length ? have.map((c) => cardEl(c, { small: true })) : h("span", { class: "muted", text: t("scorekeeper.no_cards_yet") })));
    box.appendChild(h("div", { class: "sk-picker sk-picker--live", role: "group", dataset: { testid: "live-picker" },
      "aria-label": t("scorekeeper.live.f4_picker", { n: ff.drawn + 1, total: ff.cards, name: rname }) },
    liveCards().map((c) => cardEl(c, {
      button: true, label: t("scorekeeper.live.gets", { name: rname, card: cardName(c) }), title: cardName(c), dataset: { focusKey: `live-card:${c}` },
      onClick: () => push({ type: "card", seat: ff.seat, card: c }),
    }))));
  } else if (ff.next === "give" && ff.card !== null) { // the server names the card to give
    const card = ff.card;
    box.appendChild(h("p", { class: "sk-live-f4-head", role: "status" },
      t("scorekeeper.live.gives_1", { name: who }), h("strong", { text: cardName(card) }), t("scorekeeper.live.gives_2")));
    box.appendChild(targetButtons(ff, names, t("scorekeeper.live.card_to", { card: cardName(card) }), (s) => push({ type: "give", card, from: ff.seat, to: s })));
  } else if (ff.card !== null) { // "use": the server names the Action it waits on
    const card = ff.card;
    box.appendChild(h("p", { class: "sk-live-f4-head", role: "status" },
      t("scorekeeper.live.uses_1", { name: who }), h("strong", { text: cardName(card) }), t("scorekeeper.live.uses_2")));
    box.appendChild(h("div", { class: "sk-live-targets" }, h("button", {
      type: "button", class: "btn btn--primary", dataset: { testid: "live-use", focusKey: "live-use" },
      onclick: () => use(card),
    }, t("scorekeeper.live.use_card", { card: cardName(card) }))));
  }
  if (aside.length) {
    box.appendChild(h("div", { class: "sk-live-f4-aside", dataset: { testid: "live-set-aside" } },
      h("span", { class: "muted", text: ff.next === "draw" ? t("scorekeeper.live.set_aside") : t("scorekeeper.live.then") }),
      aside.map((c) => cardEl(c, { small: true }))));
  }
  return box;
}

/**
 * A set-aside Action is being used: its own events first, then the next set-aside card.
 * @param {FlipFour} ff
 * @param {LiveEvent[]} events the round's events so far
 * @param {string[]} names the players
 * @param {() => void} onResolve the player goes on to the next set-aside card
 */
function waitingPanel(ff, events, names, onResolve) {
  const used = [...events].reverse().find((ev) => ev.type === "use");
  const verb = t(`scorekeeper.live.verb_${ff.next}`, { card: cardName(ff.card) });
  return h("div", { class: "sk-live-f4-wait", role: "status", dataset: { testid: "live-flip4-wait" } },
    h("span", { text: t("scorekeeper.live.enter_what", { card: used ? cardName(used.card) : t("scorekeeper.live.the_action"), name: names[ff.seat], cards: ff.set_aside.map(cardName).join(", ") }) }),
    h("button", { type: "button", class: "btn btn--secondary btn--small", dataset: { testid: "live-resolve", focusKey: "live-resolve" },
      onclick: onResolve }, verb));
}

/**
 * The live panel. opts: id, summary (the scorecard), keyHeaders(), state (the live round
 * to resume, or null), onLines(lines) when the round is over, onClose() (stop, abandoning
 * the live round), onState(summary) after each answer.
 * Returns {element, update(summary), destroy(abandon)}.
 * @param {object} options
 * @param {string} options.id the scorecard's
 * @param {Scorecard} options.summary
 * @param {() => Record<string, string>} options.keyHeaders
 * @param {LiveRound | null} options.state
 * @param {(lines: LiveRound["lines"]) => void} options.onLines
 * @param {() => void} options.onClose
 * @param {(summary: Scorecard) => void} options.onState
 * @returns {LiveController}
 */
export function mountLive({ id, summary, keyHeaders, state, onLines, onClose, onState }) {
  const names = summary.players;
  const url = `/api/scorecards/${encodeURIComponent(id)}/live`;
  let live = state || null; // the server's live round
  /** @type {LiveEvent[]} */
  let events = live && Array.isArray(live.events) ? [...live.events] : [];
  /** @type {number | null} */
  let target = null; // a seat picked by hand for the next card (null: whose turn it is)
  /** @type {Mode | null} */
  let mode = null; // picking cards
  let busy = false;
  /** @type {string | null} */
  let error = null;
  let resolveNow = false; // after a set-aside Action's own events: the keeper moves on to the next one
  let delivered = false; // the final lines went to the entry panel
  let destroyed = false;
  const element = h("div", { class: "sk-live", dataset: { testid: "live" } });

  const revision = () => (live && live.revision) || 0;
  /** @returns {LiveRound["lines"]} */
  const lines = () => (live && live.lines) || names.map(() => ({ cards: [], busted: false }));
  /** @returns {LiveRound["statuses"]} */
  const statuses = () => (live && live.statuses) || names.map(() => "active");
  const turn = () => (live && live.to_decide !== undefined && live.to_decide !== null ? live.to_decide : null);
  // A Flip Four under way (the server says what it waits for: live.flip_four).
  const flipFour = () => (live && !live.over && live.flip_four) || null;
  const recipient = () => {
    const ff = flipFour();
    if (ff && ff.next === "draw") return ff.seat; // its cards all go to its target
    const now = turn();
    return target !== null ? target : now !== null ? now : 0;
  };
  const roundOver = () => !!(live && live.over);
  // The Flip Four step takes the panel: its cards, or the choice it waits for.
  const prompting = () => {
    const ff = flipFour();
    return !!ff && (ff.next === "draw" || !ff.after_action || resolveNow);
  };

  /**
   * Send the live round's events (all of them, the new one last).
   * @param {LiveEvent[]} next
   * @param {() => void} [after] once the server took them
   */
  async function send(next, after) {
    if (busy || destroyed) return;
    busy = true;
    error = null;
    element.classList.add("is-busy"); // taps wait for the answer (no redraw: nothing is lost)
    element.setAttribute("aria-busy", "true");
    try {
      /** @type {import("./protocol.js").LiveUpdate} */
      const body = { events: next, based_on: revision() };
      const data = /** @type {Scorecard} */ (await api("PUT", url, { body, headers: keyHeaders() }));
      if (destroyed) return;
      live = data.live;
      events = live && Array.isArray(live.events) ? [...live.events] : next;
      mode = null;
      resolveNow = false;
      if (after) after();
      if (onState) onState(data);
    } catch (err) {
      if (destroyed) return;
      const fresh = err instanceof ApiError && err.status === 409 && err.detail && err.detail.scorecard;
      if (fresh) {
        // Another device moved the live round on: take its events.
        live = fresh.live;
        events = live && Array.isArray(live.events) ? [...live.events] : [];
        error = t("scorekeeper.live.updated_elsewhere", { message: messageOf(err) });
        if (onState) onState(fresh);
      } else {
        error = messageOf(err); // the event is not added: the lines stay as they were
      }
      mode = null;
    } finally {
      busy = false;
      element.classList.remove("is-busy");
      element.removeAttribute("aria-busy");
    }
    if (roundOver() && !delivered) {
      delivered = true;
      onLines(lines());
      return;
    }
    render();
  }

  /** @param {...LiveEvent} evs */
  function push(...evs) {
    send([...events, ...evs]);
  }

  /** Undo the last event (both halves of a Swap). */
  function undo() {
    const n = events.length;
    const a = events[n - 2];
    const b = events[n - 1];
    const swap = a && b && a.type === "move" && b.type === "move" && a.from === b.to && a.to === b.from;
    delivered = false;
    resolveNow = false;
    send(events.slice(0, swap ? -2 : -1));
  }

  /**
   * Every player's line, as the server replayed it; while the keeper picks a card (or a
   * seat), the ones that can be picked are buttons.
   * @param {number} who the seat the next card goes to
   */
  function seatsView(who) {
    const st = statuses();
    const ls = lines();
    const scores = (live && live.scores) || names.map(() => 0);
    const picking = mode; // this drawing's: the buttons' clicks read `mode` when clicked
    const moveTo = picking && picking.kind === "move-to" ? picking : null;
    const chosen = picking && "from" in picking ? picking : null; // the card picked first
    /** @type {Record<string, string>} */
    const verb = { move: "move", swap: "swap", "swap-2": "swap_with", discard: "discard" };
    const seats = h("div", { class: "sk-live-seats" });
    names.forEach((name, s) => {
      const pickingCard = picking && st[s] !== "busted"
        && (["move", "discard", "swap"].includes(picking.kind) || (picking.kind === "swap-2" && s !== picking.from));
      const pickingSeat = moveTo !== null && s !== moveTo.from && st[s] !== "busted";
      const lineEl = h("div", { class: "sk-line", role: "group", "aria-label": t("scorekeeper.line_of", { name }) });
      const cards = (ls[s] && ls[s].cards) || [];
      if (!cards.length) lineEl.appendChild(h("span", { class: "seat-empty", text: t("scorekeeper.live.no_cards") }));
      cards.forEach((c, i) => lineEl.appendChild(cardEl(c, picking && pickingCard ? {
        button: true, small: true, extraClass: "is-pickable", dataset: { focusKey: `live-line:${s}:${i}` },
        label: picking.kind === "move" ? t("scorekeeper.live.move_from", { card: cardName(c), name }) : t(`scorekeeper.live.pick_${verb[picking.kind]}`, { name, card: cardName(c) }),
        onClick: () => pickCard(c, s),
      } : { small: true, extraClass: chosen && chosen.from === s && chosen.card === c ? "is-selected" : "" })));
      const isTurn = turn() === s && !roundOver();
      const pick = h("button", {
        type: "button", class: `sk-player-pick${pickingSeat ? " is-pickable" : ""}`,
        "aria-pressed": who === s && !picking ? "true" : "false",
        "aria-label": moveTo && pickingSeat ? t("scorekeeper.live.move_to", { card: cardName(moveTo.card), name }) : t("scorekeeper.live.next_to", { name }),
        dataset: { focusKey: `live-seat:${s}` }, disabled: roundOver() || (picking && !pickingSeat) || (!picking && prompting()),
        onclick: () => {
          if (moveTo && pickingSeat) { push({ type: "move", card: moveTo.card, from: moveTo.from, to: s }); return; }
          target = target === s ? null : s;
          render();
        },
      }, h("span", { class: "avatar avatar--small", style: { "--hue": String(playerHue(s)) }, "aria-hidden": "true", text: initial(name) }),
      h("span", { class: "sk-player-name", text: name }));
      seats.appendChild(h("div", {
        class: `sk-player sk-live-seat${who === s && !picking ? " is-selected" : ""}${isTurn ? " is-turn" : ""}${st[s] === "busted" ? " is-busted" : ""}`,
        dataset: { seat: String(s) }, style: { "--hue": String(playerHue(s)) },
      },
      h("div", { class: "sk-player-head" }, pick,
        isTurn ? h("span", { class: "seat-turn", text: t("scorekeeper.live.turn") }) : null,
        h("span", { class: `status status--${st[s] || "active"}`, text: STATUS_TEXT[st[s]] ? t(STATUS_TEXT[st[s]]) : st[s] }),
        h("span", { class: "sk-score", dataset: { testid: "live-score" }, "aria-label": t("scorekeeper.live.score_now", { name, score: scores[s] }), text: signed(scores[s]) })),
      lineEl));
    });
    return seats;
  }

  /**
   * A card of seat `s`'s line picked: discarded, or the first card of a move or a swap
   * picked, or the second card of a swap (both halves sent).
   * @param {string} c
   * @param {number} s
   */
  function pickCard(c, s) {
    const m = mode;
    if (!m) return;
    if (m.kind === "discard") push({ type: "discard", card: c, from: s });
    else if (m.kind === "move") { mode = { kind: "move-to", card: c, from: s }; render(); }
    else if (m.kind === "swap") { mode = { kind: "swap-2", card: c, from: s }; render(); }
    else push({ type: "move", card: m.card, from: m.from, to: s }, { type: "move", card: c, from: s, to: m.from });
  }

  /**
   * What comes next: the round is over; a Flip Four's step; the card or seat being
   * picked; else the picker for the next card flipped (for `who`).
   * @param {number} who
   */
  function nextView(who) {
    const ff = flipFour();
    if (roundOver()) {
      return [h("p", { class: "sk-notice sk-notice--ok", role: "status", text: t("scorekeeper.live.round_over") })];
    }
    if (ff && prompting() && !mode) {
      return [flipFourPanel(ff, {
        names, lines: lines(), push,
        use: (card) => send([...events, { type: "use", card, from: ff.seat }], () => {
          const kind = USE_MODE[card];
          if (kind) mode = { kind };
        }),
      })];
    }
    if (mode) {
      const m = mode;
      const text = {
        move: () => t("scorekeeper.live.mode_move"),
        "move-to": () => t("scorekeeper.live.mode_move_to", { card: "card" in m && m.card ? cardName(m.card) : "" }),
        swap: () => t("scorekeeper.live.mode_swap"),
        "swap-2": () => t("scorekeeper.live.mode_swap_2", { card: "card" in m && m.card ? cardName(m.card) : "" }),
        discard: () => t("scorekeeper.live.mode_discard"),
      }[m.kind]();
      return [h("div", { class: "sk-live-mode", role: "status" }, h("span", { text }),
        h("button", { type: "button", class: "btn btn--ghost btn--small", onclick: () => { mode = null; render(); } }, t("common.cancel")))];
    }
    const rname = names[who];
    return [
      ff ? waitingPanel(ff, events, names, () => { resolveNow = true; render(); }) : null,
      h("p", { class: "sk-live-for", dataset: { testid: "live-recipient" } },
        t("scorekeeper.live.next_for"), h("strong", { text: rname }), target !== null ? t("scorekeeper.live.by_hand") : ""),
      h("div", { class: "sk-picker sk-picker--live", role: "group", "aria-label": t("scorekeeper.live.flipped_for", { name: rname }) },
        liveCards().map((c) => cardEl(c, {
          button: true, label: t("scorekeeper.live.gets", { name: rname, card: cardName(c) }), title: cardName(c), dataset: { focusKey: `live-card:${c}` },
          onClick: () => push({ type: "card", seat: who, card: c }),
        }))),
    ];
  }

  /**
   * Stay, Steal, Swap, Discard, Reshuffle and Undo.
   * @param {number} who
   */
  function toolsView(who) {
    const ff = flipFour();
    const step = prompting();
    const anyCards = lines().some((l) => l.cards && l.cards.length);
    const held = busy || roundOver() || !!mode || step; // a Flip Four's step comes first
    return h("div", { class: "sk-live-tools" },
      step ? null : h("button", { type: "button", class: "btn btn--stay", disabled: held || statuses()[who] !== "active",
        dataset: { testid: "live-stay", focusKey: "live-stay" }, "aria-label": t("scorekeeper.live.ev_stay", { name: names[who] }),
        onclick: () => { target = null; push({ type: "stay", seat: who }); } }, t("scorekeeper.live.ev_stay", { name: names[who] })),
      h("button", { type: "button", class: "btn btn--secondary btn--small", disabled: held || !anyCards,
        "aria-label": t("scorekeeper.live.steal_label"), dataset: { testid: "live-steal" },
        onclick: () => { mode = { kind: "move" }; render(); } }, t("scorekeeper.live.steal")),
      h("button", { type: "button", class: "btn btn--secondary btn--small", disabled: held || !anyCards,
        "aria-label": t("scorekeeper.live.swap_label"), dataset: { testid: "live-swap" },
        onclick: () => { mode = { kind: "swap" }; render(); } }, t("scorekeeper.live.swap")),
      h("button", { type: "button", class: "btn btn--secondary btn--small", disabled: held || !anyCards,
        "aria-label": t("scorekeeper.live.discard_label"), dataset: { testid: "live-discard" },
        onclick: () => { mode = { kind: "discard" }; render(); } }, t("scorekeeper.live.discard")),
      h("button", { type: "button", class: "btn btn--ghost btn--small", disabled: busy || roundOver() || !!mode || (step && !!ff && ff.next !== "draw"),
        "aria-label": t("scorekeeper.live.reshuffle_label"), onclick: () => push({ type: "reshuffle" }) }, t("scorekeeper.live.reshuffle")),
      h("button", { type: "button", class: "btn btn--ghost btn--small", disabled: busy || !events.length,
        "aria-label": t("scorekeeper.live.undo_label"), dataset: { testid: "live-undo" }, onclick: undo }, t("scorekeeper.live.undo")));
  }

  function render() {
    if (destroyed) return;
    const fk = focusKey();
    clear(element);
    const who = recipient();
    element.appendChild(h("p", { class: "muted sk-entry-help", text: t("scorekeeper.live.help") }));
    if (error) element.appendChild(h("p", { class: "sk-notice sk-notice--error", role: "alert", text: error }));
    const adv = live && live.advice;
    add(element, seatsView(who), adv && !roundOver() ? adviceView(adv, names) : null);
    if (live && Array.isArray(live.notes)) {
      for (const note of live.notes) element.appendChild(h("p", { class: "hint", text: note }));
    }
    if (live && live.cards_left !== undefined && !roundOver()) {
      element.appendChild(h("p", { class: "hint", text: t("scorekeeper.live.cards_left", { count: live.cards_left }) }));
    }
    add(element, nextView(who), toolsView(who));
    if (events.length) {
      add(element, h("details", { class: "sk-live-log" },
        h("summary", { text: t("scorekeeper.live.events_so_far", { count: events.length }) }),
        h("ol", {}, events.map((ev) => h("li", { text: eventText(ev, names) })))));
    }
    add(element, h("div", { class: "sk-live-foot" },
      h("button", { type: "button", class: "btn btn--ghost btn--small", "aria-label": t("scorekeeper.live.stop_label"),
        onclick: () => onClose() }, t("scorekeeper.stop_live"))));
    restoreFocus(fk, element);
    // On a phone the Flip Four's picker (or its choice) is brought fully into view for
    // each of its cards: the lines above it grow as the cards come.
    const panel = prompting() && !mode && element.isConnected && element.querySelector("[data-testid=live-flip4]");
    if (panel) panel.scrollIntoView({ block: "nearest" });
  }
  render();

  return {
    element,
    /** @param {Scorecard} newSummary */
    update(newSummary) {
      // Another device may have moved the live round on.
      const l = newSummary.live;
      if (busy || !l || (live && l.revision === live.revision)) return;
      live = l;
      events = Array.isArray(l.events) ? [...l.events] : events;
      render();
    },
    /** @param {boolean} abandon */
    destroy(abandon) {
      destroyed = true;
      if (abandon) {
        api("DELETE", url, { headers: keyHeaders() }).catch((err) => toast(messageOf(err)));
      }
    },
  };
}
