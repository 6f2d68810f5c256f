// Card faces, decision labels and readable log lines for engine and table events.
import { flip7Bonus } from "./rules.js";
import { h, icon } from "./util.js";

const ACTIONS = {
  JOM: { name: "Just One More!", tag: "One more", glyph: "+1" },
  FLIP4: { name: "Flip Four!", tag: "Flip four", glyph: "4" },
  STEAL: { name: "Steal", tag: "Steal", svg: "M3 11h9.2L8.6 7.4 10 6l6 6-6 6-1.4-1.4 3.6-3.6H3zM18 4h3v16h-3z" },
  SWAP: { name: "Swap", tag: "Swap", svg: "M7 3 2.5 7.5 7 12V9h11V6H7zm10 9v3H6v3h11v3l4.5-4.5z" },
  DISCARD: { name: "Discard", tag: "Discard", svg: "M9 2h6l1 2h4v3H4V4h4zM5.5 9h13l-1.2 13H6.7zm4 2.5v8h1.6v-8zm3.4 0v8h1.6v-8z" },
};
const SPECIAL = {
  0: { name: "The Zero", tag: "Zero", face: "0" },
  U7: { name: "Unlucky 7", tag: "Unlucky", face: "7" },
  L13: { name: "Lucky 13", tag: "Lucky", face: "13" },
};

/** What a card code (RECORD.md §1) is: kind, face text, names. */
export function cardInfo(code) {
  const c = String(code).toUpperCase();
  if (SPECIAL[c]) return { code: c, kind: "special", ...SPECIAL[c] };
  if (ACTIONS[c]) return { code: c, kind: "action", ...ACTIONS[c], face: ACTIONS[c].glyph || "" };
  if (c === "/2" || c === "÷2") return { code: "/2", kind: "modifier", name: "÷2", tag: "Halve", face: "÷2" };
  if (/^-\d+$/.test(c)) {
    const face = `−${c.slice(1)}`;
    return { code: c, kind: "modifier", name: face, tag: "Minus", face };
  }
  if (/^\d+$/.test(c)) return { code: c, kind: "number", name: c, face: c, value: Number(c) };
  return { code: c, kind: "unknown", name: c, face: c, tag: "" };
}

/** The card's name in text: "7", "Lucky 13", "÷2", "Flip Four!". */
export function cardName(code) {
  return cardInfo(code).name;
}

export function cardAria(code) {
  const info = cardInfo(code);
  if (info.kind === "modifier") return `Modifier ${info.name}`;
  if (info.kind === "action") return `Action card ${info.name}`;
  if (info.kind === "special") return `${info.name} (special number)`;
  return `Number ${info.name}`;
}

/**
 * A card face. opts.button: render as a <button> (selectable); opts.label: aria-label;
 * opts.small: compact size; opts.onClick; opts.extraClass; opts.dataset.
 */
export function cardEl(code, opts = {}) {
  const info = cardInfo(code);
  const tagName = opts.button ? "button" : "span";
  const classes = ["card", `card--${info.kind}`];
  if (info.kind === "number") classes.push(`card--n${info.value}`);
  if (info.kind === "special") classes.push(`card--${info.code === "0" ? "zero" : info.code.toLowerCase()}`);
  if (info.kind === "action") classes.push(`card--${info.code.toLowerCase()}`);
  if (opts.small) classes.push("card--small");
  if (opts.extraClass) classes.push(opts.extraClass);
  const attrs = {
    class: classes.join(" "),
    dataset: { code: info.code, ...(opts.dataset || {}) },
    "aria-label": opts.label || cardAria(code),
    title: opts.title || info.name,
  };
  if (opts.button) {
    attrs.type = "button";
    attrs.onclick = opts.onClick;
  } else attrs.role = "img";
  const el = h(tagName, attrs);
  if (info.kind === "action") {
    el.appendChild(h("span", { class: "card-tag card-tag--top", "aria-hidden": "true", text: "Action" }));
    const mid = h("span", { class: "card-face", "aria-hidden": "true" });
    if (info.svg) {
      const svg = icon("copy", "card-icon");
      svg.firstChild.setAttribute("d", info.svg);
      mid.appendChild(svg);
    } else mid.textContent = info.face;
    el.appendChild(mid);
    el.appendChild(h("span", { class: "card-tag", "aria-hidden": "true", text: info.tag }));
    return el;
  }
  el.appendChild(h("span", { class: "card-corner", "aria-hidden": "true", text: info.face }));
  el.appendChild(h("span", { class: "card-face", "aria-hidden": "true", text: info.face }));
  if (info.tag) el.appendChild(h("span", { class: "card-tag", "aria-hidden": "true", text: info.tag }));
  return el;
}

export function cardBack(opts = {}) {
  return h("span", { class: `card card--back${opts.small ? " card--small" : ""}`, role: "img",
    "aria-label": opts.label || "Face-down card" },
  h("span", { class: "card-back-mark", "aria-hidden": "true", text: "7" }));
}

/** Parse a decision string (RECORD.md §5) into {verb, seat, card, seat2, card2}. */
export function parseDecision(text) {
  const w = String(text).trim().split(/\s+/);
  const verb = w[0];
  const d = { verb, text };
  if (["target", "give", "pass", "minus"].includes(verb)) d.seat = Number(w[1]);
  else if (verb === "steal" || verb === "discard") {
    d.seat = Number(w[1]);
    d.card = w[2];
  } else if (verb === "swap") {
    d.seat = Number(w[1]);
    d.card = w[2];
    d.seat2 = Number(w[3]);
    d.card2 = w[4];
  }
  return d;
}

/**
 * A button label for a legal decision. names(seat) gives a display name; me is the
 * viewer's seat (or null); pending is the card being resolved (or null).
 */
export function decisionLabel(text, { names, me, pending }) {
  const d = parseDecision(text);
  const who = (s) => (s === me ? "yourself" : names(s));
  const whose = (s) => (s === me ? "your" : `${names(s)}’s`);
  const pend = pending ? cardName(pending) : null;
  switch (d.verb) {
    case "hit": return "Hit";
    case "stay": return "Stay";
    case "target": return pend ? `${pend} on ${who(d.seat)}` : `Target ${who(d.seat)}`;
    case "give":
      if (d.seat === me) return pend ? `Keep ${pend}` : "Keep it";
      return pend ? `Give ${pend} to ${names(d.seat)}` : `Give to ${names(d.seat)}`;
    case "pass":
      if (d.seat === me) return pend ? `Use ${pend} yourself` : "Use it yourself";
      return pend ? `Let ${names(d.seat)} use ${pend}` : `Pass to ${names(d.seat)}`;
    case "steal": return `Steal ${cardName(d.card)} from ${names(d.seat)}`;
    case "discard": return `Discard ${whose(d.seat)} ${cardName(d.card)}`;
    case "swap": return `Swap ${whose(d.seat)} ${cardName(d.card)} ⇄ ${whose(d.seat2)} ${cardName(d.card2)}`;
    case "bonus": return `Take +${flip7Bonus()} yourself`;
    case "minus": return `−${flip7Bonus()} to ${names(d.seat)}`;
    default: return text;
  }
}

/** The question the deciding player is asked, for the prompt line. */
export function kindPrompt(kind, pending, mine) {
  const pend = pending ? cardName(pending) : "the card";
  const you = mine ? "you" : "they";
  switch (kind) {
    case "hit_or_stay": return mine ? "Your turn — hit or stay?" : "deciding: hit or stay";
    case "target": return mine ? `Choose who gets ${pend}` : `choosing who gets ${pend}`;
    case "give": return mine ? `Who gets the ${pend} modifier?` : `choosing who gets ${pend}`;
    case "pass": return mine ? `Who uses ${pend}?` : `choosing who uses ${pend}`;
    case "steal": return mine ? "Steal: pick a card from another line" : "choosing a card to steal";
    case "swap": return mine ? "Swap: pick two cards from two different lines" : "choosing cards to swap";
    case "discard": return mine ? "Discard: pick a card to throw away" : "choosing a card to discard";
    case "flip7_choice": return mine ? `Flip 7! Take +${flip7Bonus()}, or take ${flip7Bonus()} off another player` : `choosing what ${you} do with the Flip 7 bonus`;
    default: return mine ? "Your decision" : "deciding";
  }
}

const CAUSE = { just_one_more: " (Just One More!)", flip_four: " (Flip Four!)" };

/**
 * A readable log line for one event, or null for events not worth a line.
 * Returns {text, tone} — tone colours the log entry.
 */
export function eventLine(ev, names) {
  const n = (s) => (s === null || s === undefined ? "?" : names(s));
  switch (ev.type) {
    case "round_started": return { text: `Round ${ev.round} — ${n(ev.dealer)} deals`, tone: "round" };
    case "dealt": return { text: `${n(ev.seat)} was dealt ${cardName(ev.card)}`, tone: "draw" };
    case "drew": return { text: `${n(ev.seat)} drew ${cardName(ev.card)}${CAUSE[ev.cause] || ""}`, tone: "draw" };
    case "set_aside": return { text: `${n(ev.seat)} set ${cardName(ev.card)} aside until the Flip Four! is done`, tone: "muted" };
    case "reshuffled": return { text: `The discard pile was shuffled into a new draw pile (${ev.cards} cards)`, tone: "muted" };
    case "wiped": {
      const cards = (ev.cards || []).map(cardName).join(", ");
      return { text: `Unlucky 7 wiped ${n(ev.seat)}’s line${cards ? `: ${cards}` : ""}`, tone: "bad" };
    }
    case "busted": return { text: `${n(ev.seat)} busted on ${cardName(ev.card)}`, tone: "bad" };
    case "stayed": return { text: ev.forced ? `${n(ev.seat)} was forced to stay` : `${n(ev.seat)} stayed`, tone: "good" };
    case "flip7": return { text: `${n(ev.seat)} flipped 7! The round ends`, tone: "star" };
    case "action_used":
      return { text: ev.target === ev.seat
        ? `${n(ev.seat)} played ${cardName(ev.card)} on themselves`
        : `${n(ev.seat)} played ${cardName(ev.card)} on ${n(ev.target)}`, tone: "action" };
    case "unused": {
      const why = { no_legal_use: "had no legal use", busted: "was lost to the bust", round_over: "was lost when the round ended" }[ev.reason] || "was discarded";
      return { text: `${n(ev.seat)}’s ${cardName(ev.card)} ${why}`, tone: "muted" };
    }
    case "passed": return { text: `${n(ev.seat)} handed ${cardName(ev.card)} to ${n(ev.to)}`, tone: "action" };
    case "stolen": return { text: `${n(ev.seat)} stole ${cardName(ev.card)} from ${n(ev.victim)}`, tone: "action" };
    case "swapped":
      if (ev.seat === ev.seat1) return { text: `${n(ev.seat)} swapped their ${cardName(ev.card1)} for ${n(ev.seat2)}’s ${cardName(ev.card2)}`, tone: "action" };
      if (ev.seat === ev.seat2) return { text: `${n(ev.seat)} swapped their ${cardName(ev.card2)} for ${n(ev.seat1)}’s ${cardName(ev.card1)}`, tone: "action" };
      return { text: `${n(ev.seat)} swapped ${n(ev.seat1)}’s ${cardName(ev.card1)} with ${n(ev.seat2)}’s ${cardName(ev.card2)}`, tone: "action" };
    case "discarded":
      return { text: ev.victim === ev.seat
        ? `${n(ev.seat)} discarded their own ${cardName(ev.card)}`
        : `${n(ev.seat)} made ${n(ev.victim)} discard ${cardName(ev.card)}`, tone: "action" };
    case "modifier_given":
      return { text: ev.to === ev.seat
        ? `${n(ev.seat)} kept ${cardName(ev.card)}`
        : `${n(ev.seat)} gave ${cardName(ev.card)} to ${n(ev.to)}`, tone: "mod" };
    case "bonus_taken": return { text: `${n(ev.seat)} took the +${flip7Bonus()} bonus`, tone: "star" };
    case "minus15": return { text: `${n(ev.seat)} took ${flip7Bonus()} points off ${n(ev.target)}`, tone: "bad" };
    case "round_scored": {
      const parts = (ev.scores || []).map((score, s) => {
        let t = `${n(s)} ${score}`;
        if ((ev.busted || []).includes(s)) t += " (bust)";
        if (ev.flip7 === s) t += " (Flip 7)";
        return t;
      });
      return { text: `Round ${ev.round} scored: ${parts.join(", ")}`, tone: "round" };
    }
    case "game_over": {
      const w = (ev.winners || []).map(n);
      const best = ev.totals && ev.winners && ev.winners.length ? ev.totals[ev.winners[0]] : null;
      const who = w.length > 1 ? `${w.join(" and ")} share the win` : `${w[0] || "Nobody"} wins`;
      return { text: `Game over — ${who}${best !== null ? ` with ${best}` : ""}`, tone: "star" };
    }
    case "seat_taken": {
      const bot = ev.kind === "bot" && !/\bbot\b/i.test(ev.name || "") ? " (bot)" : "";
      return { text: `${ev.name}${bot} took seat ${ev.seat + 1}`, tone: "table" };
    }
    case "seat_left":
      return { text: ev.name ? `${ev.name} left — a bot plays their seat` : `Seat ${ev.seat + 1} is free again`, tone: "table" };
    case "game_started": return { text: `Game ${ev.number ?? ""} started`.replace("  ", " "), tone: "round" };
    case "timeout": return { text: `${n(ev.seat)} ran out of time — a bot decided`, tone: "muted" };
    case "_note": return { text: ev.text, tone: "muted" };
    case "connected": return null;
    case "disconnected": return null;
    default: return null;
  }
}
