// The scorekeeper's live mode: enter a round card by card as the cards are flipped. The
// events go to PUT /api/scorecards/{id}/live, which replays them by the engine's line rules
// and answers with every line, who stayed or busted, whose turn it is and the advisor's
// figures for that player. When the round is over its lines go to the entry panel.
import { api } from "./api.js";
import { formatNumber, lang, t } from "./i18n.js";
import { cardEl, cardName } from "./cards.js";
import { playerHue } from "./chart.js";
import { cardCodes } from "./rules.js";
import { add, clear, focusKey, h, initial, restoreFocus, toast } from "./util.js";

// Every kind of card (the server's deck, RECORD.md §1), in picker order.
const liveCards = () => cardCodes("number", "modifier", "action");
const STATUS_TEXT = { active: "scorekeeper.live.status_active", stayed: "scorekeeper.live.status_stayed", busted: "scorekeeper.live.status_busted" };

function pct(p) {
  if (p === null || p === undefined) return "–";
  const v = p * 100;
  if (v > 0 && v < 1) return `<${formatNumber(0.01, { style: "percent" })}`;
  return formatNumber(Math.round(v) / 100, { style: "percent" });
}

function num(v) {
  if (v === null || v === undefined) return "–";
  return Number.isInteger(v) ? formatNumber(v) : formatNumber(v, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

function signed(n) {
  return n > 0 ? `+${formatNumber(n)}` : n < 0 ? `−${formatNumber(-n)}` : formatNumber(0);
}

/** The advisor's one-line reason (the server's ``reason``), in the page's language from the
 * advice's figures; in English the server's own words. */
function adviceReason(adv) {
  if (lang() === "en") return adv.reason;
  if (adv.must_hit) return t("scorekeeper.live.reason_must_hit", { flip7: pct(adv.p_flip7_keep_hitting) });
  if (!adv.cards_left) return t("scorekeeper.live.reason_no_card");
  return t(adv.recommendation === "hit" ? "scorekeeper.live.reason_hit" : "scorekeeper.live.reason_stay",
    { risk: pct(adv.p_bust_next), hit: num(adv.ev_hit), stay: num(adv.ev_stay) });
}

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
    default: return ev.type;
  }
}

/**
 * The live panel. opts: id, summary (the scorecard), keyHeaders(), state (the live round
 * to resume, or null), onLines(lines) when the round is over, onClose() (stop, abandoning
 * the live round), onState(summary) after each answer.
 * Returns {element, update(summary), destroy(abandon)}.
 */
export function mountLive({ id, summary, keyHeaders, state, onLines, onClose, onState }) {
  const names = summary.players;
  const url = `/api/scorecards/${encodeURIComponent(id)}/live`;
  let live = state || null; // the server's live round
  let events = live && Array.isArray(live.events) ? [...live.events] : [];
  let target = null; // a seat picked by hand for the next card (null: whose turn it is)
  let mode = null; // picking cards: {kind: "move"|"swap"|"discard"}, then {kind: "move-to"|"swap-2", card, from}
  let busy = false;
  let error = null;
  let resolveNow = false; // after a set-aside Action's own events: the keeper moves on to the next one
  let delivered = false; // the final lines went to the entry panel
  let destroyed = false;
  const element = h("div", { class: "sk-live", dataset: { testid: "live" } });

  const revision = () => (live && live.revision) || 0;
  const lines = () => (live && live.lines) || names.map(() => ({ cards: [], busted: false }));
  const statuses = () => (live && live.statuses) || names.map(() => "active");
  const turn = () => (live && live.to_decide !== undefined && live.to_decide !== null ? live.to_decide : null);
  // A Flip Four under way (the server says what it waits for: live.flip_four).
  const flipFour = () => (live && !live.over && live.flip_four) || null;
  const recipient = () => {
    const ff = flipFour();
    if (ff && ff.next === "draw") return ff.seat; // its cards all go to its target
    return target !== null ? target : turn() !== null ? turn() : 0;
  };
  const roundOver = () => !!(live && live.over);
  // The Flip Four step takes the panel: its cards, or the choice it waits for.
  const prompting = () => {
    const ff = flipFour();
    return !!ff && (ff.next === "draw" || !ff.after_action || resolveNow);
  };

  async function send(next, after) {
    if (busy || destroyed) return;
    busy = true;
    error = null;
    element.classList.add("is-busy"); // taps wait for the answer (no redraw: nothing is lost)
    element.setAttribute("aria-busy", "true");
    try {
      const data = await api("PUT", url, { body: { events: next, based_on: revision() }, headers: keyHeaders() });
      if (destroyed) return;
      live = data.live;
      events = live && Array.isArray(live.events) ? [...live.events] : next;
      mode = null;
      resolveNow = false;
      if (after) after();
      if (onState) onState(data);
    } catch (err) {
      if (destroyed) return;
      if (err.status === 409 && err.detail && err.detail.scorecard) {
        // Another device moved the live round on: take its events.
        live = err.detail.scorecard.live;
        events = live && Array.isArray(live.events) ? [...live.events] : [];
        error = t("scorekeeper.live.updated_elsewhere", { message: err.message });
        if (onState) onState(err.detail.scorecard);
      } else {
        error = err.message; // the event is not added: the lines stay as they were
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

  function push(...evs) {
    send([...events, ...evs]);
  }

  // A set-aside Steal, Swap or Discard is used by tapping its cards, as one flipped on a turn.
  const USE_MODE = { STEAL: "move", SWAP: "swap", DISCARD: "discard" };

  function targetButtons(ff, verb, onPick) {
    return h("div", { class: "sk-live-targets", role: "group", "aria-label": t("scorekeeper.live.pick_player", { verb }) },
      ff.targets.map((s) => h("button", {
        type: "button", class: "btn btn--secondary sk-live-target", dataset: { testid: "live-target", seat: String(s), focusKey: `live-target:${s}` },
        "aria-label": t("scorekeeper.live.verb_name", { verb, name: names[s] }), style: { "--hue": String(playerHue(s)) }, onclick: () => onPick(s),
      }, h("span", { class: "avatar avatar--small", style: { "--hue": String(playerHue(s)) }, "aria-hidden": "true", text: initial(names[s]) }),
      h("span", { text: names[s] }))));
  }

  /** The Flip Four's step: the picker for its next card, or the choice it waits for. */
  function flipFourPanel(ff) {
    const who = names[ff.seat];
    const box = h("section", { class: "sk-live-f4", dataset: { testid: "live-flip4", step: ff.next }, "aria-label": t("scorekeeper.live.flip4") });
    const aside = ff.set_aside.length && ff.next !== "draw" ? ff.set_aside.slice(1) : ff.set_aside;
    if (ff.next === "play") {
      box.appendChild(h("p", { class: "sk-live-f4-head", role: "status" }, ff.revealed
        ? t("scorekeeper.live.f4_revealed", { name: who })
        : t("scorekeeper.live.f4_set_aside", { name: who })));
      box.appendChild(targetButtons(ff, t("scorekeeper.live.f4_on"), (s) => push({ type: "flip4", from: ff.seat, to: s })));
    } else if (ff.next === "draw") {
      const rname = names[ff.seat];
      box.appendChild(h("p", { class: "sk-live-f4-head sk-live-for", role: "status", dataset: { testid: "live-recipient" } },
        t("scorekeeper.live.f4_card_for", { n: ff.drawn + 1, total: ff.cards }), h("strong", { text: rname })));
      // The target's line, beside the picker: its lines above may be scrolled away.
      const have = (lines()[ff.seat] && lines()[ff.seat].cards) || [];
      box.appendChild(h("div", { class: "sk-live-f4-line", role: "group", "aria-label": t("scorekeeper.line_of", { name: rname }), dataset: { testid: "live-f4-line" } },
        have.length ? have.map((c) => cardEl(c, { small: true })) : h("span", { class: "muted", text: t("scorekeeper.no_cards_yet") })));
      box.appendChild(h("div", { class: "sk-picker sk-picker--live", role: "group", dataset: { testid: "live-picker" },
        "aria-label": t("scorekeeper.live.f4_picker", { n: ff.drawn + 1, total: ff.cards, name: rname }) },
      liveCards().map((c) => cardEl(c, {
        button: true, label: t("scorekeeper.live.gets", { name: rname, card: cardName(c) }), title: cardName(c), dataset: { focusKey: `live-card:${c}` },
        onClick: () => push({ type: "card", seat: ff.seat, card: c }),
      }))));
    } else if (ff.next === "give") {
      box.appendChild(h("p", { class: "sk-live-f4-head", role: "status" },
        t("scorekeeper.live.gives_1", { name: who }), h("strong", { text: cardName(ff.card) }), t("scorekeeper.live.gives_2")));
      box.appendChild(targetButtons(ff, t("scorekeeper.live.card_to", { card: cardName(ff.card) }), (s) => push({ type: "give", card: ff.card, from: ff.seat, to: s })));
    } else {
      const card = ff.card;
      box.appendChild(h("p", { class: "sk-live-f4-head", role: "status" },
        t("scorekeeper.live.uses_1", { name: who }), h("strong", { text: cardName(card) }), t("scorekeeper.live.uses_2")));
      box.appendChild(h("div", { class: "sk-live-targets" }, h("button", {
        type: "button", class: "btn btn--primary", dataset: { testid: "live-use", focusKey: "live-use" },
        onclick: () => send([...events, { type: "use", card, from: ff.seat }], () => {
          if (USE_MODE[card]) mode = { kind: USE_MODE[card] };
        }),
      }, t("scorekeeper.live.use_card", { card: cardName(card) }))));
    }
    if (aside.length) {
      box.appendChild(h("div", { class: "sk-live-f4-aside", dataset: { testid: "live-set-aside" } },
        h("span", { class: "muted", text: ff.next === "draw" ? t("scorekeeper.live.set_aside") : t("scorekeeper.live.then") }),
        aside.map((c) => cardEl(c, { small: true }))));
    }
    return box;
  }

  /** A set-aside Action is being used: its own events first, then the next set-aside card. */
  function waitingPanel(ff) {
    const used = [...events].reverse().find((ev) => ev.type === "use");
    const verb = t(`scorekeeper.live.verb_${ff.next}`, { card: cardName(ff.card) });
    return h("div", { class: "sk-live-f4-wait", role: "status", dataset: { testid: "live-flip4-wait" } },
      h("span", { text: t("scorekeeper.live.enter_what", { card: used ? cardName(used.card) : t("scorekeeper.live.the_action"), name: names[ff.seat], cards: ff.set_aside.map(cardName).join(", ") }) }),
      h("button", { type: "button", class: "btn btn--secondary btn--small", dataset: { testid: "live-resolve", focusKey: "live-resolve" },
        onclick: () => { resolveNow = true; render(); } }, verb));
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

  function render() {
    if (destroyed) return;
    const fk = focusKey();
    clear(element);
    const st = statuses();
    const ls = lines();
    const scores = (live && live.scores) || names.map(() => 0);
    const who = recipient();
    element.appendChild(h("p", { class: "muted sk-entry-help", text: t("scorekeeper.live.help") }));
    if (error) element.appendChild(h("p", { class: "sk-notice sk-notice--error", role: "alert", text: error }));

    // every player's line, as the server replayed it
    const seats = h("div", { class: "sk-live-seats" });
    names.forEach((name, s) => {
      const pickingCard = mode && st[s] !== "busted"
        && (["move", "discard", "swap"].includes(mode.kind) || (mode.kind === "swap-2" && s !== mode.from));
      const pickingSeat = mode && mode.kind === "move-to" && s !== mode.from && st[s] !== "busted";
      const lineEl = h("div", { class: "sk-line", role: "group", "aria-label": t("scorekeeper.line_of", { name }) });
      const cards = (ls[s] && ls[s].cards) || [];
      if (!cards.length) lineEl.appendChild(h("span", { class: "seat-empty", text: t("scorekeeper.live.no_cards") }));
      const verb = { move: "move", swap: "swap", "swap-2": "swap_with", discard: "discard" };
      cards.forEach((c, i) => lineEl.appendChild(cardEl(c, pickingCard ? {
        button: true, small: true, extraClass: "is-pickable", dataset: { focusKey: `live-line:${s}:${i}` },
        label: mode.kind === "move" ? t("scorekeeper.live.move_from", { card: cardName(c), name }) : t(`scorekeeper.live.pick_${verb[mode.kind]}`, { name, card: cardName(c) }),
        onClick: () => {
          if (mode.kind === "discard") push({ type: "discard", card: c, from: s });
          else if (mode.kind === "move") { mode = { kind: "move-to", card: c, from: s }; render(); }
          else if (mode.kind === "swap") { mode = { kind: "swap-2", card: c, from: s }; render(); }
          else push({ type: "move", card: mode.card, from: mode.from, to: s }, { type: "move", card: c, from: s, to: mode.from });
        },
      } : { small: true, extraClass: mode && mode.from === s && mode.card === c ? "is-selected" : "" })));
      const isTurn = turn() === s && !roundOver();
      const pick = h("button", {
        type: "button", class: `sk-player-pick${pickingSeat ? " is-pickable" : ""}`,
        "aria-pressed": who === s && !mode ? "true" : "false",
        "aria-label": pickingSeat ? t("scorekeeper.live.move_to", { card: cardName(mode.card), name }) : t("scorekeeper.live.next_to", { name }),
        dataset: { focusKey: `live-seat:${s}` }, disabled: roundOver() || (mode && !pickingSeat) || (!mode && prompting()),
        onclick: () => {
          if (pickingSeat) { push({ type: "move", card: mode.card, from: mode.from, to: s }); return; }
          target = target === s ? null : s;
          render();
        },
      }, h("span", { class: "avatar avatar--small", style: { "--hue": String(playerHue(s)) }, "aria-hidden": "true", text: initial(name) }),
      h("span", { class: "sk-player-name", text: name }));
      seats.appendChild(h("div", {
        class: `sk-player sk-live-seat${who === s && !mode ? " is-selected" : ""}${isTurn ? " is-turn" : ""}${st[s] === "busted" ? " is-busted" : ""}`,
        dataset: { seat: String(s) }, style: { "--hue": String(playerHue(s)) },
      },
      h("div", { class: "sk-player-head" }, pick,
        isTurn ? h("span", { class: "seat-turn", text: t("scorekeeper.live.turn") }) : null,
        h("span", { class: `status status--${st[s] || "active"}`, text: STATUS_TEXT[st[s]] ? t(STATUS_TEXT[st[s]]) : st[s] }),
        h("span", { class: "sk-score", dataset: { testid: "live-score" }, "aria-label": t("scorekeeper.live.score_now", { name, score: scores[s] }), text: signed(scores[s]) })),
      lineEl));
    });
    element.appendChild(seats);

    // the advice for the player whose turn it is
    const adv = live && live.advice;
    if (adv && !roundOver()) {
      const hit = adv.recommendation === "hit";
      element.appendChild(h("div", { class: `sk-advice sk-advice--${adv.recommendation}`, dataset: { testid: "advice" }, "aria-live": "polite" },
        h("div", { class: "sk-advice-head" },
          h("span", { text: t("scorekeeper.live.to_play", { name: names[adv.seat] }) }),
          h("strong", { class: "sk-advice-rec", text: adv.must_hit ? t("scorekeeper.live.must_hit") : hit ? t("scorekeeper.live.hit") : t("scorekeeper.live.stay") })),
        h("dl", { class: "sk-advice-facts" },
          h("div", {}, h("dt", { text: t("scorekeeper.live.bust_risk") }), h("dd", { text: pct(adv.p_bust_next) })),
          h("div", {}, h("dt", { text: t("scorekeeper.live.hit_about") }), h("dd", { text: num(adv.ev_hit) })),
          h("div", {}, h("dt", { text: t("scorekeeper.live.stay") }), h("dd", { text: num(adv.ev_stay) }))),
        adv.reason ? h("p", { class: "sk-advice-reason", text: adviceReason(adv) }) : null));
    }

    if (live && Array.isArray(live.notes)) {
      for (const note of live.notes) element.appendChild(h("p", { class: "hint", text: note }));
    }
    if (live && live.cards_left !== undefined && !roundOver()) {
      element.appendChild(h("p", { class: "hint", text: t("scorekeeper.live.cards_left", { count: live.cards_left }) }));
    }
    const ff = flipFour();
    const step = prompting();
    if (roundOver()) {
      element.appendChild(h("p", { class: "sk-notice sk-notice--ok", role: "status", text: t("scorekeeper.live.round_over") }));
    } else if (step && !mode) {
      element.appendChild(flipFourPanel(ff));
    } else if (mode) {
      const text = {
        move: () => t("scorekeeper.live.mode_move"),
        "move-to": () => t("scorekeeper.live.mode_move_to", { card: mode.card ? cardName(mode.card) : "" }),
        swap: () => t("scorekeeper.live.mode_swap"),
        "swap-2": () => t("scorekeeper.live.mode_swap_2", { card: mode.card ? cardName(mode.card) : "" }),
        discard: () => t("scorekeeper.live.mode_discard"),
      }[mode.kind]();
      element.appendChild(h("div", { class: "sk-live-mode", role: "status" }, h("span", { text }),
        h("button", { type: "button", class: "btn btn--ghost btn--small", onclick: () => { mode = null; render(); } }, t("common.cancel"))));
    } else {
      const rname = names[who];
      if (ff) element.appendChild(waitingPanel(ff));
      element.appendChild(h("p", { class: "sk-live-for", dataset: { testid: "live-recipient" } },
        t("scorekeeper.live.next_for"), h("strong", { text: rname }), target !== null ? t("scorekeeper.live.by_hand") : ""));
      element.appendChild(h("div", { class: "sk-picker sk-picker--live", role: "group", "aria-label": t("scorekeeper.live.flipped_for", { name: rname }) },
        liveCards().map((c) => cardEl(c, {
          button: true, label: t("scorekeeper.live.gets", { name: rname, card: cardName(c) }), title: cardName(c), dataset: { focusKey: `live-card:${c}` },
          onClick: () => push({ type: "card", seat: who, card: c }),
        }))));
    }
    const anyCards = ls.some((l) => l.cards && l.cards.length);
    const held = busy || roundOver() || !!mode || step; // a Flip Four's step comes first
    element.appendChild(h("div", { class: "sk-live-tools" },
      step ? null : h("button", { type: "button", class: "btn btn--stay", disabled: held || st[who] !== "active",
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
      h("button", { type: "button", class: "btn btn--ghost btn--small", disabled: busy || roundOver() || !!mode || (step && ff.next !== "draw"),
        "aria-label": t("scorekeeper.live.reshuffle_label"), onclick: () => push({ type: "reshuffle" }) }, t("scorekeeper.live.reshuffle")),
      h("button", { type: "button", class: "btn btn--ghost btn--small", disabled: busy || !events.length,
        "aria-label": t("scorekeeper.live.undo_label"), dataset: { testid: "live-undo" }, onclick: undo }, t("scorekeeper.live.undo"))));
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
    const panel = step && !mode && element.isConnected && element.querySelector("[data-testid=live-flip4]");
    if (panel) panel.scrollIntoView({ block: "nearest" });
  }

  render();

  return {
    element,
    update(newSummary) {
      // Another device may have moved the live round on.
      const l = newSummary.live;
      if (busy || !l || (live && l.revision === live.revision)) return;
      live = l;
      events = Array.isArray(l.events) ? [...l.events] : events;
      render();
    },
    destroy(abandon) {
      destroyed = true;
      if (abandon) {
        api("DELETE", url, { headers: keyHeaders() }).catch((err) => toast(err.message));
      }
    },
  };
}
