// Card faces, decision labels and readable log lines for engine and table events.
// Every word comes from the message catalogues (areas "cards" and "table": docs/i18n.md).
import { formatNumber, t } from "./i18n.js";
import { flip7Bonus } from "./rules.js";
import { h, icon } from "./util.js";

/** @typedef {import("./protocol.js").GameEvent} GameEvent */
/**
 * The fields of the engine's and the table's events (docs/protocol.md, "Events") that
 * the log reads; an event has those of its type.
 * @typedef {object} EventFields
 * @property {number} [seat]
 * @property {string} [card]
 * @property {number} [round]
 * @property {number} [dealer]
 * @property {string} [cause]
 * @property {number | string[]} [cards]  reshuffled: how many; wiped: which
 * @property {string|null} [reason]
 * @property {string|null} [reason_code]
 * @property {Array<string|null>} [reason_codes]
 * @property {Array<string|null>} [reasons]
 * @property {boolean} [forced]
 * @property {string|null} [by]
 * @property {number} [target]
 * @property {number} [to]
 * @property {number} [victim]
 * @property {number} [seat1]
 * @property {string} [card1]
 * @property {number} [seat2]
 * @property {string} [card2]
 * @property {number[]} [scores]
 * @property {number[]} [busted]
 * @property {number|null} [flip7]
 * @property {number[]} [winners]
 * @property {number[]} [totals]
 * @property {string} [kind]
 * @property {string|null} [name]
 * @property {number|null} [number]
 * @property {string} [key]  a page's own note (_note)
 * @property {Record<string, string|number>} [params]
 * @property {string} [text]
 * @typedef {GameEvent & EventFields} LogEvent
 */

/** @type {Record<string, {key: string, glyph?: string, svg?: string}>} */
const ACTIONS = {
  JOM: { key: "JOM", glyph: "+1" },
  FLIP4: { key: "FLIP4", glyph: "4" },
  STEAL: { key: "STEAL", svg: "M3 11h9.2L8.6 7.4 10 6l6 6-6 6-1.4-1.4 3.6-3.6H3zM18 4h3v16h-3z" },
  SWAP: { key: "SWAP", svg: "M7 3 2.5 7.5 7 12V9h11V6H7zm10 9v3H6v3h11v3l4.5-4.5z" },
  DISCARD: { key: "DISCARD", svg: "M9 2h6l1 2h4v3H4V4h4zM5.5 9h13l-1.2 13H6.7zm4 2.5v8h1.6v-8zm3.4 0v8h1.6v-8z" },
};
/** @type {Record<string, {key: string, face: string}>} */
const SPECIAL = {
  0: { key: "zero", face: "0" },
  U7: { key: "U7", face: "7" },
  L13: { key: "L13", face: "13" },
};
// The names and corner tags of the special and Action cards, in the reader's language.
/** @type {Record<string, string>} */
const NAMES = {
  zero: t("cards.name.zero"), U7: t("cards.name.U7"), L13: t("cards.name.L13"),
  JOM: t("cards.name.JOM"), FLIP4: t("cards.name.FLIP4"), STEAL: t("cards.name.STEAL"), SWAP: t("cards.name.SWAP"), DISCARD: t("cards.name.DISCARD"),
};
/** @type {Record<string, string>} */
const TAGS = {
  zero: t("cards.tag.zero"), U7: t("cards.tag.U7"), L13: t("cards.tag.L13"),
  JOM: t("cards.tag.JOM"), FLIP4: t("cards.tag.FLIP4"), STEAL: t("cards.tag.STEAL"), SWAP: t("cards.tag.SWAP"), DISCARD: t("cards.tag.DISCARD"),
  halve: t("cards.tag.halve"), minus: t("cards.tag.minus"),
};

/**
 * What a card is, as the page draws and names it.
 * @typedef {object} CardInfo
 * @property {string} code
 * @property {"special" | "action" | "modifier" | "number" | "unknown"} kind
 * @property {string} name
 * @property {string} face
 * @property {string} [tag]
 * @property {string} [svg]  an Action's icon path
 * @property {number} [value]  a number card's
 */

/**
 * What a card code (RECORD.md §1) is: kind, face text, names.
 * @param {unknown} code
 * @returns {CardInfo}
 */
export function cardInfo(code) {
  const c = String(code).toUpperCase();
  if (SPECIAL[c]) return { code: c, kind: "special", face: SPECIAL[c].face, name: NAMES[SPECIAL[c].key], tag: TAGS[SPECIAL[c].key] };
  if (ACTIONS[c]) return { code: c, kind: "action", ...ACTIONS[c], name: NAMES[ACTIONS[c].key], tag: TAGS[ACTIONS[c].key], face: ACTIONS[c].glyph || "" };
  if (c === "/2" || c === "÷2") return { code: "/2", kind: "modifier", name: "÷2", tag: TAGS.halve, face: "÷2" };
  if (/^-\d+$/.test(c)) {
    const face = `−${c.slice(1)}`;
    return { code: c, kind: "modifier", name: face, tag: TAGS.minus, face };
  }
  if (/^\d+$/.test(c)) return { code: c, kind: "number", name: c, face: c, value: Number(c) };
  return { code: c, kind: "unknown", name: c, face: c, tag: "" };
}

/**
 * The card's name in text: "7", "Lucky 13", "÷2", "Flip Four!".
 * @param {unknown} code
 * @returns {string}
 */
export function cardName(code) {
  return cardInfo(code).name;
}

/**
 * @param {unknown} code
 * @returns {string}
 */
export function cardAria(code) {
  const info = cardInfo(code);
  if (info.kind === "modifier") return t("cards.aria.modifier", { name: info.name });
  if (info.kind === "action") return t("cards.aria.action", { name: info.name });
  if (info.kind === "special") return t("cards.aria.special", { name: info.name });
  return t("cards.aria.number", { name: info.name });
}

/**
 * A message whose placeholders may stand for more than words: its pieces in order, each
 * a string, a card ({code}, as a log line names it), a DOM node, or a list of cards. The
 * template is the catalogue's (t(key, {count}) for its plural form); strings and numbers
 * (formatted) are filled in here, so that a name holding "{…}" is never read as one.
 * @template {Part} P  the pieces the caller fills in: nodes, or a log line's cards
 * @param {string} key
 * @param {Record<string, string | P | P[] | number | null | undefined>} [params]
 * @returns {Array<string | P>}
 */
export function tparts(key, params = {}) {
  const template = t(key, typeof params.count === "number" ? { count: params.count } : {});
  /** @type {Array<string | P>} */
  const out = [];
  let last = 0;
  template.replace(/\{(\w+)\}/g, (whole, name, at) => {
    if (at > last) out.push(template.slice(last, at));
    last = at + whole.length;
    if (!Object.prototype.hasOwnProperty.call(params, name)) out.push(whole);
    else {
      const value = params[name];
      if (typeof value === "number") out.push(formatNumber(value));
      else if (Array.isArray(value)) out.push(...value);
      else if (value !== null && value !== undefined) out.push(value);
    }
    return whole;
  });
  if (last < template.length) out.push(template.slice(last));
  return out;
}

/**
 * A card face. opts.button: render as a <button> (selectable); opts.label: aria-label;
 * opts.small: compact size; opts.onClick; opts.extraClass; opts.dataset.
 * @param {string} code
 * @param {{button?: boolean, label?: string, small?: boolean, onClick?: (ev: MouseEvent) => unknown, extraClass?: string, dataset?: Record<string, string>, title?: string}} [opts]
 * @returns {HTMLElement}
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
  /** @type {import("./util.js").Attrs} */
  const attrs = {
    class: classes.join(" "),
    dataset: { code: info.code, ...(opts.dataset || {}) },
    // A card you pick is named by words inside it (below): an aria-label would differ
    // from the number a voice user sees and says.
    "aria-label": opts.button ? null : opts.label || cardAria(code),
    title: opts.title || null,
  };
  if (opts.button) {
    attrs.type = "button";
    if (opts.onClick) attrs.onclick = opts.onClick;
  } else {
    attrs.role = "img";
    attrs.tabindex = "0"; // focus explains it, as hover does
  }
  const el = h(tagName, attrs);
  if (opts.button) el.appendChild(h("span", { class: "visually-hidden", text: opts.label || cardAria(code) }));
  if (!opts.button) {
    // A card drawn inside a button or a hidden decoration must not be a tab stop of its
    // own: by the next microtask the caller has put it in place.
    queueMicrotask(() => {
      if (el.parentElement && el.parentElement.closest("button, a, [aria-hidden='true']")) el.removeAttribute("tabindex");
    });
  }
  if (info.kind === "action") {
    el.appendChild(h("span", { class: "card-tag card-tag--top", "aria-hidden": "true", text: t("cards.action_tag") }));
    const mid = h("span", { class: "card-face", "aria-hidden": "true" });
    if (info.svg) {
      const svg = icon("copy", "card-icon");
      const path = svg.firstElementChild;
      if (path) path.setAttribute("d", info.svg);
      mid.appendChild(svg);
    } else mid.textContent = info.face;
    el.appendChild(mid);
    el.appendChild(h("span", { class: "card-tag", "aria-hidden": "true", text: info.tag ?? null }));
    return el;
  }
  el.appendChild(h("span", { class: "card-corner", "aria-hidden": "true", text: info.face }));
  el.appendChild(h("span", { class: "card-face", "aria-hidden": "true", text: info.face }));
  if (info.tag) el.appendChild(h("span", { class: "card-tag", "aria-hidden": "true", text: info.tag }));
  return el;
}

/**
 * @param {{small?: boolean, label?: string}} [opts]
 * @returns {HTMLElement}
 */
export function cardBack(opts = {}) {
  return h("span", { class: `card card--back${opts.small ? " card--small" : ""}`, role: "img",
    "aria-label": opts.label || t("cards.back") },
  h("span", { class: "card-back-mark", "aria-hidden": "true", text: "7" }));
}

/**
 * "your 5" / "Bob’s 5": a card in someone's line, as a label says it.
 * @param {number} s  the seat whose line holds the card
 * @param {string} code
 * @param {{names: (seat: number) => string, me: number|null}} who
 * @returns {string}
 */
export function whoseCard(s, code, { names, me }) {
  // "bare": the name without its article ("your Zero", not "your The Zero").
  const card = cardName(code);
  const bare = String(code) === "0" ? t("cards.bare.zero") : card;
  return s === me ? t("cards.whose.mine", { card, bare }) : t("cards.whose.other", { name: names(s), card, bare });
}

/**
 * A button label for a legal decision, in the reader's language.
 * @param {import("./tablestate.js").Decision} d  as the server sends it (docs/protocol.md)
 * @param {object} opts
 * @param {(seat: number) => string} opts.names  a seat's display name
 * @param {number|null} opts.me  the viewer's seat
 * @param {string|null} opts.pending  the card being resolved
 * @returns {string}
 */
export function decisionLabel(d, { names, me, pending }) {
  // What each verb names is there (the defaults are never used): see Decision.
  const { seat = -1, card = "", seat1 = -1, card1 = "", seat2 = -1, card2 = "" } = d;
  const pend = pending ? cardName(pending) : null;
  /** @param {number} s */
  const who = (s) => (s === me ? t("cards.decision.yourself") : names(s));
  switch (d.verb) {
    case "hit": return t("cards.decision.hit");
    case "stay": return t("cards.decision.stay");
    case "target": return pend ? t("cards.decision.target_card", { card: pend, who: who(seat) }) : t("cards.decision.target", { who: who(seat) });
    case "give":
      if (seat === me) return pend ? t("cards.decision.keep_card", { card: pend }) : t("cards.decision.keep");
      return pend ? t("cards.decision.give_card", { card: pend, name: names(seat) }) : t("cards.decision.give", { name: names(seat) });
    case "pass":
      if (seat === me) return pend ? t("cards.decision.use_card", { card: pend }) : t("cards.decision.use");
      return pend ? t("cards.decision.let_use_card", { card: pend, name: names(seat) }) : t("cards.decision.pass", { name: names(seat) });
    case "steal": return t("cards.decision.steal", { card: cardName(card), name: names(seat) });
    case "discard": return t("cards.decision.discard", { card: whoseCard(seat, card, { names, me }) });
    case "swap": return t("cards.decision.swap", { first: whoseCard(seat1, card1, { names, me }), second: whoseCard(seat2, card2, { names, me }) });
    case "bonus": return t("cards.decision.bonus", { bonus: flip7Bonus() });
    case "minus": return t("cards.decision.minus", { bonus: flip7Bonus(), name: names(seat) });
    default: return d.text;
  }
}

/** The question the deciding player is asked, for the prompt line (mine: the viewer's own;
 * else what the deciding player is doing, as "{name} is …" says it: table.board.deciding).
 * @param {string|null} kind
 * @param {string|null} pending
 * @param {boolean} mine
 * @returns {string}
 */
export function kindPrompt(kind, pending, mine) {
  const card = pending ? cardName(pending) : t("cards.prompt.the_card");
  const whose = mine ? "mine" : "other";
  const params = { card, bonus: flip7Bonus() };
  switch (kind) {
    case "hit_or_stay":
    case "target":
    case "give":
    case "pass":
    case "steal":
    case "swap":
    case "discard":
    case "flip7_choice":
      return t(`cards.prompt.${kind}.${whose}`, params);
    default: return t(`cards.prompt.other.${whose}`);
  }
}

// A log line is a list of pieces: text, and the cards it names ({code}), which the log shows
// as cards that explain themselves (explain.js). line.text is the same line as plain text.
/**
 * A piece of a log line or of a message (tparts): text, a card, or a node.
 * @typedef {string | {code: string} | Node} Part
 */
/**
 * A readable log line: tone colours it, parts build it (lineNodes), text is it in plain text.
 * @typedef {{text: string, tone: string, parts: Part[]}} LogLine
 */
/** @param {unknown} code */
const ref = (code) => ({ code: String(code) });

/**
 * A log line from a message of the catalogue (tparts: its placeholders may be cards).
 * @param {string} tone
 * @param {string} key
 * @param {Record<string, Part | Part[] | number | null | undefined>} [params]
 * @returns {LogLine}
 */
function line(tone, key, params = {}) {
  const parts = tparts(key, params).filter((p) => p !== null && p !== undefined && p !== "");
  const text = parts.map((p) => (typeof p === "string" ? p : p instanceof Node ? (p.textContent || "") : cardName(p.code))).join("");
  return { text, tone, parts };
}

/**
 * "a", "a and b", "a, b and c" over pieces (cards or text).
 * @param {Part[]} items
 * @returns {Part[]}
 */
function listOf(items) {
  /** @type {Part[]} */
  const out = [];
  items.forEach((item, i) => {
    if (i) out.push(i === items.length - 1 ? t("cards.list.last") : t("cards.list.sep"));
    out.push(item);
  });
  return out;
}

// What made a player draw: the Action named once, never "drew Flip Four! (Flip Four!)".
/** @type {Record<string, string>} */
const CAUSE = { just_one_more: "JOM", flip_four: "FLIP4" };
const ORDINALS = 8; // cards.ordinal.2 … cards.ordinal.8

/** Why a card busted a line, from the event's reason code (its English words for events
 * made by a server that sent none).
 * @param {LogEvent} ev
 * @returns {string|null}
 */
export function bustReason(ev) {
  const code = ev.reason_code;
  if (typeof code !== "string") return ev.reason || null;
  const copy = /^copy_(\d+)$/.exec(code);
  if (copy) {
    const n = Number(copy[1]);
    // The card's value, as the reason says it: "a third 13" for a Lucky 13 too.
    const c = String(ev.card).toUpperCase();
    const card = c === "0" ? t("cards.bust.zero_word") : ({ L13: "13", U7: "7" }[c] || c);
    const nth = n >= 2 && n <= ORDINALS ? t(`cards.ordinal.${n}`) : t("cards.ordinal.n", { n });
    return t("cards.bust.copy", { nth, card });
  }
  return ["second_13", "second_unlucky7", "unlucky7_beside_7", "7_beside_unlucky7"].includes(code) ? t(`cards.bust.${code}`) : (ev.reason || null);
}

const SCORE_CODES = ["busted", "busted_modifiers", "flip7_minus", "zero", "no_numbers", "only_modifiers", "below_zero", "below_zero_brutal"];

/**
 * Why seat s scored what it did in a round_scored event (null: just its numbers).
 * @param {LogEvent} ev
 * @param {number} s
 * @returns {string|null}
 */
export function scoreReason(ev, s) {
  const codes = Array.isArray(ev.reason_codes) && ev.reason_codes.length ? ev.reason_codes : null;
  let why = null;
  if (codes) {
    const code = codes[s];
    if (code && SCORE_CODES.includes(code)) why = t(`cards.score.${code}`, { bonus: flip7Bonus() });
  } else why = (ev.reasons || [])[s] || null;
  if (!why && (ev.busted || []).includes(s)) why = t("cards.score.bust");
  if (!why && ev.flip7 === s) why = t("cards.score.flip7");
  return why;
}

/**
 * A readable log line for one event, or null for events not worth a line.
 * Returns {text, tone, parts}: tone colours the log entry; parts (text and {code} cards)
 * build it with lineNodes(). Reasons (why a bust, a forced stay, a score) are built from
 * the events' codes (bustReason, scoreReason), in the reader's language.
 * @param {LogEvent} ev
 * @param {(seat: number) => string} names
 * @returns {LogLine|null}
 */
export function eventLine(ev, names) {
  /** @param {number | null | undefined} s */
  const n = (s) => (s === null || s === undefined ? "?" : names(s));
  switch (ev.type) {
    case "round_started": return line("round", "cards.log.round_started", { round: ev.round, name: n(ev.dealer) });
    case "dealt": return line("draw", "cards.log.dealt", { name: n(ev.seat), card: ref(ev.card) });
    case "drew": {
      const cause = ev.cause ? CAUSE[ev.cause] : undefined;
      if (!cause) return line("draw", "cards.log.drew", { name: n(ev.seat), card: ref(ev.card) });
      if (String(ev.card).toUpperCase() === cause) return line("draw", "cards.log.drew_another", { name: n(ev.seat), card: ref(ev.card) });
      return line("draw", cause === "FLIP4" ? "cards.log.drew_for_flip4" : "cards.log.drew_for_jom", { name: n(ev.seat), card: ref(ev.card), cause: ref(cause) });
    }
    case "set_aside": return line("muted", "cards.log.set_aside", { name: n(ev.seat), card: ref(ev.card), flip4: ref("FLIP4") });
    case "reshuffled": return line("muted", "cards.log.reshuffled", { count: typeof ev.cards === "number" ? ev.cards : undefined });
    case "wiped": {
      const cards = (Array.isArray(ev.cards) ? ev.cards : []).map(ref);
      if (!cards.length) return line("bad", "cards.log.wiped_line", { u7: ref("U7"), name: n(ev.seat) });
      return line("bad", "cards.log.wiped", { u7: ref("U7"), name: n(ev.seat), cards: listOf(cards) });
    }
    case "busted": {
      const reason = bustReason(ev);
      return reason ? line("bad", "cards.log.busted_reason", { name: n(ev.seat), reason })
        : line("bad", "cards.log.busted_on", { name: n(ev.seat), card: ref(ev.card) });
    }
    case "stayed":
      if (!ev.forced) return line("good", "cards.log.stayed", { name: n(ev.seat) });
      if (ev.by) return line("good", "cards.log.stayed_forced_reason", { name: n(ev.seat), reason: ref(ev.by) });
      return ev.reason ? line("good", "cards.log.stayed_forced_reason", { name: n(ev.seat), reason: ev.reason })
        : line("good", "cards.log.stayed_forced", { name: n(ev.seat) });
    case "flip7": return line("star", "cards.log.flip7", { name: n(ev.seat) });
    case "action_used":
      return ev.target === ev.seat
        ? line("action", "cards.log.action_self", { name: n(ev.seat), card: ref(ev.card) })
        : line("action", "cards.log.action", { name: n(ev.seat), card: ref(ev.card), target: n(ev.target) });
    case "unused": {
      const why = ev.reason && ["no_legal_use", "busted", "round_over"].includes(ev.reason) ? ev.reason : "other";
      return line("muted", `cards.log.unused.${why}`, { name: n(ev.seat), card: ref(ev.card) });
    }
    case "passed": return line("action", "cards.log.passed", { name: n(ev.seat), card: ref(ev.card), to: n(ev.to) });
    case "stolen": return line("action", "cards.log.stolen", { name: n(ev.seat), card: ref(ev.card), victim: n(ev.victim) });
    case "swapped":
      if (ev.seat === ev.seat1) return line("action", "cards.log.swapped_own", { name: n(ev.seat), mine: ref(ev.card1), other: n(ev.seat2), theirs: ref(ev.card2) });
      if (ev.seat === ev.seat2) return line("action", "cards.log.swapped_own", { name: n(ev.seat), mine: ref(ev.card2), other: n(ev.seat1), theirs: ref(ev.card1) });
      return line("action", "cards.log.swapped", { name: n(ev.seat), first: n(ev.seat1), card1: ref(ev.card1), second: n(ev.seat2), card2: ref(ev.card2) });
    case "discarded":
      return ev.victim === ev.seat
        ? line("action", "cards.log.discarded_own", { name: n(ev.seat), card: ref(ev.card) })
        : line("action", "cards.log.discarded", { name: n(ev.seat), victim: n(ev.victim), card: ref(ev.card) });
    case "modifier_given":
      return ev.to === ev.seat
        ? line("mod", "cards.log.modifier_kept", { name: n(ev.seat), card: ref(ev.card) })
        : line("mod", "cards.log.modifier_given", { name: n(ev.seat), card: ref(ev.card), to: n(ev.to) });
    case "bonus_taken": return line("star", "cards.log.bonus_taken", { name: n(ev.seat), bonus: flip7Bonus() });
    case "minus15": return line("bad", "cards.log.minus15", { name: n(ev.seat), bonus: flip7Bonus(), target: n(ev.target) });
    case "round_scored": {
      const parts = (ev.scores || []).map((score, s) => {
        const why = scoreReason(ev, s);
        return why ? t("cards.log.score_why", { name: n(s), score, why }) : t("cards.log.score", { name: n(s), score });
      });
      return line("round", "cards.log.round_scored", { round: ev.round, scores: parts.join(t("cards.list.sep")) });
    }
    case "game_over": {
      const w = (ev.winners || []).map(n);
      const best = ev.totals && ev.winners && ev.winners.length ? ev.totals[ev.winners[0]] : null;
      const who = w.length > 1 ? t("cards.log.share_win", { names: w.join(t("cards.list.and")) })
        : t("cards.log.wins", { name: w[0] || t("cards.log.nobody") });
      return best !== null ? line("star", "cards.log.game_over_with", { who, best }) : line("star", "cards.log.game_over", { who });
    }
    case "seat_taken": {
      const bot = ev.kind === "bot" && !/\bbot\b/i.test(ev.name || "");
      return line("table", bot ? "cards.log.seat_taken_bot" : "cards.log.seat_taken", { name: ev.name, seat: (ev.seat ?? 0) + 1 });
    }
    case "seat_left":
      return ev.name ? line("table", "cards.log.seat_left", { name: ev.name }) : line("table", "cards.log.seat_free", { seat: (ev.seat ?? 0) + 1 });
    case "game_started":
      return ev.number === null || ev.number === undefined ? line("round", "cards.log.game_started_unnumbered")
        : line("round", "cards.log.game_started", { number: ev.number });
    case "timeout": return line("muted", "cards.log.timeout", { name: n(ev.seat) });
    case "_note": return ev.key ? line("muted", ev.key, ev.params || {}) : { text: String(ev.text ?? ""), tone: "muted", parts: [String(ev.text ?? "")] };
    case "connected": return null;
    case "disconnected": return null;
    default: return null;
  }
}

/** A log line's pieces as DOM nodes: text, and each card it names as a small focusable
 * span that explains itself on hover, focus or long-press (explain.js).
 * @param {{text: string, parts?: Part[]}} entry
 * @returns {Node[]}
 */
export function lineNodes(entry) {
  const parts = entry.parts || [entry.text];
  return parts.map((p) => (typeof p === "string" ? document.createTextNode(p) : p instanceof Node ? p
    : h("span", { class: `card-ref card-ref--${cardInfo(p.code).kind}`, dataset: { code: cardInfo(p.code).code }, tabindex: "0", text: cardName(p.code) })));
}
