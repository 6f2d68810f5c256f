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
  // No title by default: explain.js shows what the card does on hover, focus or long-press.
  const attrs = {
    class: classes.join(" "),
    dataset: { code: info.code, ...(opts.dataset || {}) },
    "aria-label": opts.label || cardAria(code),
    title: opts.title || null,
  };
  if (opts.button) {
    attrs.type = "button";
    attrs.onclick = opts.onClick;
  } else {
    attrs.role = "img";
    attrs.tabindex = "0"; // focus explains it, as hover does
  }
  const el = h(tagName, attrs);
  if (!opts.button) {
    // A card drawn inside a button or a hidden decoration must not be a tab stop of its
    // own: by the next microtask the caller has put it in place.
    queueMicrotask(() => {
      if (el.parentElement && el.parentElement.closest("button, a, [aria-hidden='true']")) el.removeAttribute("tabindex");
    });
  }
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

// A log line is a list of pieces: text, and the cards it names ({code}), which the log shows
// as cards that explain themselves (explain.js). line.text is the same line as plain text.
const ref = (code) => ({ code: String(code) });

function line(tone, ...pieces) {
  const parts = pieces.flat().filter((p) => p !== null && p !== undefined && p !== "");
  const text = parts.map((p) => (typeof p === "string" ? p : cardName(p.code))).join("");
  return { text, tone, parts };
}

/** "a", "a and b", "a, b and c" over pieces (cards or text). */
function listOf(items) {
  const out = [];
  items.forEach((item, i) => {
    if (i) out.push(i === items.length - 1 ? " and " : ", ");
    out.push(item);
  });
  return out;
}

// What made a player draw: the Action named once, never "drew Flip Four! (Flip Four!)".
const CAUSE = { just_one_more: "JOM", flip_four: "FLIP4" };

/**
 * A readable log line for one event, or null for events not worth a line.
 * Returns {text, tone, parts}: tone colours the log entry; parts (text and {code} cards)
 * build it with lineNodes(). Reasons (why a bust, a forced stay, a score) are the server's
 * words, shown as they come.
 */
export function eventLine(ev, names) {
  const n = (s) => (s === null || s === undefined ? "?" : names(s));
  const whose = (s) => `${n(s)}’s `;
  switch (ev.type) {
    case "round_started": return line("round", `Round ${ev.round} — ${n(ev.dealer)} deals`);
    case "dealt": return line("draw", `${n(ev.seat)} was dealt `, ref(ev.card));
    case "drew": {
      const cause = CAUSE[ev.cause];
      if (!cause) return line("draw", `${n(ev.seat)} drew `, ref(ev.card));
      if (String(ev.card).toUpperCase() === cause) return line("draw", `${n(ev.seat)} drew another `, ref(ev.card));
      return line("draw", `${n(ev.seat)} drew `, ref(ev.card), cause === "FLIP4" ? " for the " : " for ", ref(cause));
    }
    case "set_aside": return line("muted", `${n(ev.seat)} set `, ref(ev.card), " aside until the ", ref("FLIP4"), " is done");
    case "reshuffled": return line("muted", `The discard pile was shuffled into a new draw pile (${ev.cards} cards)`);
    case "wiped": {
      const cards = (ev.cards || []).map(ref);
      if (!cards.length) return line("bad", ref("U7"), ` wiped ${whose(ev.seat)}line`);
      return line("bad", ref("U7"), ` wiped ${whose(ev.seat)}`, listOf(cards));
    }
    case "busted":
      return ev.reason ? line("bad", `${n(ev.seat)} busted: ${ev.reason}`)
        : line("bad", `${n(ev.seat)} busted on `, ref(ev.card));
    case "stayed":
      if (!ev.forced) return line("good", `${n(ev.seat)} stayed`);
      return line("good", `${n(ev.seat)} must stay${ev.reason ? `: ${ev.reason}` : ""}`);
    case "flip7": return line("star", `${n(ev.seat)} flipped 7! The round ends`);
    case "action_used":
      return ev.target === ev.seat
        ? line("action", `${n(ev.seat)} played `, ref(ev.card), " on themselves")
        : line("action", `${n(ev.seat)} played `, ref(ev.card), ` on ${n(ev.target)}`);
    case "unused": {
      const why = { no_legal_use: "had no legal use", busted: "was lost to the bust", round_over: "was lost when the round ended" }[ev.reason] || "was discarded";
      return line("muted", whose(ev.seat), ref(ev.card), ` ${why}`);
    }
    case "passed": return line("action", `${n(ev.seat)} handed `, ref(ev.card), ` to ${n(ev.to)}`);
    case "stolen": return line("action", `${n(ev.seat)} stole `, ref(ev.card), ` from ${n(ev.victim)}`);
    case "swapped":
      if (ev.seat === ev.seat1) return line("action", `${n(ev.seat)} swapped their `, ref(ev.card1), ` for ${whose(ev.seat2)}`, ref(ev.card2));
      if (ev.seat === ev.seat2) return line("action", `${n(ev.seat)} swapped their `, ref(ev.card2), ` for ${whose(ev.seat1)}`, ref(ev.card1));
      return line("action", `${n(ev.seat)} swapped ${whose(ev.seat1)}`, ref(ev.card1), ` with ${whose(ev.seat2)}`, ref(ev.card2));
    case "discarded":
      return ev.victim === ev.seat
        ? line("action", `${n(ev.seat)} discarded their own `, ref(ev.card))
        : line("action", `${n(ev.seat)} made ${n(ev.victim)} discard `, ref(ev.card));
    case "modifier_given":
      return ev.to === ev.seat
        ? line("mod", `${n(ev.seat)} kept `, ref(ev.card))
        : line("mod", `${n(ev.seat)} gave `, ref(ev.card), ` to ${n(ev.to)}`);
    case "bonus_taken": return line("star", `${n(ev.seat)} took the +${flip7Bonus()} bonus`);
    case "minus15": return line("bad", `${n(ev.seat)} took ${flip7Bonus()} points off ${n(ev.target)}`);
    case "round_scored": {
      const reasons = ev.reasons || [];
      const parts = (ev.scores || []).map((score, s) => {
        let why = reasons[s] || null;
        if (!why && (ev.busted || []).includes(s)) why = "bust";
        if (!why && ev.flip7 === s) why = "Flip 7";
        return `${n(s)} ${score}${why ? ` (${why})` : ""}`;
      });
      return line("round", `Round ${ev.round} scored: ${parts.join(", ")}`);
    }
    case "game_over": {
      const w = (ev.winners || []).map(n);
      const best = ev.totals && ev.winners && ev.winners.length ? ev.totals[ev.winners[0]] : null;
      const who = w.length > 1 ? `${w.join(" and ")} share the win` : `${w[0] || "Nobody"} wins`;
      return line("star", `Game over — ${who}${best !== null ? ` with ${best}` : ""}`);
    }
    case "seat_taken": {
      const bot = ev.kind === "bot" && !/\bbot\b/i.test(ev.name || "") ? " (bot)" : "";
      return line("table", `${ev.name}${bot} took seat ${ev.seat + 1}`);
    }
    case "seat_left":
      return line("table", ev.name ? `${ev.name} left — a bot plays their seat` : `Seat ${ev.seat + 1} is free again`);
    case "game_started": return line("round", `Game ${ev.number ?? ""} started`.replace("  ", " "));
    case "timeout": return line("muted", `${n(ev.seat)} ran out of time — a bot decided`);
    case "_note": return line("muted", String(ev.text ?? ""));
    case "connected": return null;
    case "disconnected": return null;
    default: return null;
  }
}

/** A log line's pieces as DOM nodes: text, and each card it names as a small focusable
 * span that explains itself on hover, focus or long-press (explain.js). */
export function lineNodes(entry) {
  const parts = entry.parts || [entry.text];
  return parts.map((p) => (typeof p === "string" ? document.createTextNode(p)
    : h("span", { class: `card-ref card-ref--${cardInfo(p.code).kind}`, dataset: { code: cardInfo(p.code).code }, tabindex: "0", text: cardName(p.code) })));
}
