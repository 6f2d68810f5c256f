// Every card explains itself: pointing at a card (hover), focusing it, or holding a finger
// on it shows what it does in a small tooltip. One set of listeners on the document serves
// every card of every view (cards.js cardEl's faces and the log's card names, all with
// data-code). The words are the server's (GET /api/cards, from flip7.core.explain), fetched
// once per set of rule options: a table with house rules gets the words for its rules.
import { api } from "./api.js";

const CARDS = ".card[data-code], .card-ref[data-code]";
const HOLD_MS = 450; // a touch held this long is a long-press, not a tap
const MOVE_PX = 10; // a finger that moves more than this is scrolling
const TOUCH_MOUSE_MS = 800; // the mouse events a browser makes up after a tap
const TIP_ID = "card-tip";
const SETTLE_MS = 400; // scrolls this soon after a tip opened are the ones that showed its card

/** @typedef {import("./protocol.js").CardText} CardText */

/** @type {Map<string, Promise<Map<string, CardText>>>} */
const loaded = new Map(); // rules key ("" for the defaults) -> Promise of Map(code -> card)
let rulesKey = "";
/** @type {HTMLDivElement | null} */
let tip = null;
/** @type {HTMLElement | null} */
let shownFor = null;
let shownAt = 0;
/** @type {ReturnType<typeof setInterval> | undefined} */
let watch;
/** @type {{timer: ReturnType<typeof setTimeout>, x: number, y: number} | null} */
let hold = null; // while a finger is down on a card
let longPressed = false;
let lastTouch = 0;

/**
 * The rule options the cards are explained under (a table's rules; null: the defaults).
 * @param {import("./protocol.js").Rules | null} rules
 */
export function setExplainRules(rules) {
  const key = rules && typeof rules === "object" && Object.keys(rules).length ? JSON.stringify(rules) : "";
  if (key === rulesKey) return;
  rulesKey = key;
  if (shownFor) show(shownFor);
}

/**
 * Every card's words under the default rules, in the deck's order.
 * @returns {Promise<CardText[]>}
 */
export function cardTexts() {
  return texts("").then((map) => [...map.values()]);
}

/**
 * @param {string} key the rules, as JSON ("": the defaults)
 * @returns {Promise<Map<string, CardText>>}
 */
function texts(key) {
  let promise = loaded.get(key);
  if (!promise) {
    const path = key ? `/api/cards?rules=${encodeURIComponent(key)}` : "/api/cards";
    promise = api("GET", path).then((answer) => {
      const data = /** @type {import("./protocol.js").CardsAnswer} */ (answer);
      return new Map((data.cards || []).map((c) => [c.code, c]));
    });
    // A failed fetch is tried again next time, not remembered.
    promise.catch(() => loaded.delete(key));
    loaded.set(key, promise);
  }
  return promise;
}

/**
 * The card an event's target is, or shows.
 * @param {EventTarget | null} node
 * @returns {HTMLElement | null}
 */
function cardOf(node) {
  if (!(node instanceof Element)) return null;
  const card = node.closest(CARDS);
  if (card) return card instanceof HTMLElement ? card : null;
  // A focused button that holds one card (a decision option) explains that card.
  if (node.matches("button, [role='button']")) {
    const inner = node.querySelectorAll(CARDS);
    if (inner.length === 1 && inner[0] instanceof HTMLElement) return inner[0];
  }
  return null;
}

function tipEl() {
  if (!tip) {
    tip = document.createElement("div");
    tip.id = TIP_ID;
    tip.className = "card-tip";
    tip.setAttribute("role", "tooltip");
    tip.hidden = true;
    tip.append(document.createElement("strong"), document.createElement("span"));
    document.body.appendChild(tip);
  }
  return tip;
}

/** @param {HTMLElement} card */
function place(card) {
  const el = tipEl();
  const r = card.getBoundingClientRect();
  const w = el.offsetWidth;
  const hgt = el.offsetHeight;
  const gap = 8;
  let left = Math.min(Math.max(gap, r.left + r.width / 2 - w / 2), window.innerWidth - w - gap);
  left = Math.max(gap, left);
  let top = r.top - hgt - gap;
  if (top < gap) top = Math.min(r.bottom + gap, window.innerHeight - hgt - gap);
  el.style.left = `${Math.round(left)}px`;
  el.style.top = `${Math.round(Math.max(gap, top))}px`;
}

/**
 * @param {HTMLElement} card
 * @param {CardText | null} info null: the words are on their way
 */
function fill(card, info) {
  const el = tipEl();
  const [name, text] = el.children; // tipEl's <strong> and <span>
  name.textContent = info ? info.name : card.dataset.code || "";
  text.textContent = info ? info.text : "…";
}

/** @param {HTMLElement} card */
function show(card) {
  const code = card.dataset.code || "";
  const key = rulesKey;
  if (shownFor && shownFor !== card) hide();
  if (shownFor !== card) shownAt = Date.now();
  shownFor = card;
  const el = tipEl();
  fill(card, null);
  el.hidden = false;
  el.dataset.code = code;
  card.setAttribute("aria-describedby", TIP_ID);
  place(card);
  texts(key).then((map) => {
    if (shownFor !== card) return;
    const info = map.get(code);
    if (!info) { hide(); return; }
    fill(card, info);
    place(card);
  }, () => { if (shownFor === card) hide(); });
  clearInterval(watch);
  // The board redraws on every update: a tip whose card has gone goes with it.
  watch = setInterval(() => { if (shownFor && !shownFor.isConnected) hide(); }, 400);
}

function hide() {
  clearInterval(watch);
  watch = undefined;
  if (shownFor) shownFor.removeAttribute("aria-describedby");
  shownFor = null;
  if (tip) tip.hidden = true;
}

function cancelHold() {
  if (hold) clearTimeout(hold.timer);
  hold = null;
}

let installed = false;

/** Install the listeners, once (main.js). */
export function installExplain() {
  if (installed) return;
  installed = true;
  document.addEventListener("mouseover", (ev) => {
    if (Date.now() - lastTouch < TOUCH_MOUSE_MS) return; // a tap is not a hover
    const card = cardOf(ev.target);
    if (card && card !== shownFor) show(card);
  });
  document.addEventListener("mouseout", (ev) => {
    if (!shownFor || document.activeElement === shownFor) return;
    const to = ev.relatedTarget;
    if (!(to instanceof Node) || !shownFor.contains(to)) hide();
  });
  document.addEventListener("focusin", (ev) => {
    if (Date.now() - lastTouch < TOUCH_MOUSE_MS) return; // a tap is not a question
    const card = cardOf(ev.target);
    if (card) show(card);
    else if (shownFor) hide();
  });
  document.addEventListener("focusout", (ev) => {
    if (shownFor && cardOf(ev.target) === shownFor) hide();
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && shownFor) hide();
  });
  window.addEventListener("scroll", () => {
    if (!shownFor) return;
    // The scroll that brought the card into view (hover and focus scroll to it) keeps the
    // tip, by its card; a later one is the player reading on.
    if (Date.now() - shownAt < SETTLE_MS) place(shownFor);
    else hide();
  }, { capture: true, passive: true });
  window.addEventListener("resize", () => hide(), { passive: true });
  window.addEventListener("popstate", () => hide());

  document.addEventListener("touchstart", (ev) => {
    lastTouch = Date.now();
    longPressed = false;
    cancelHold();
    const card = cardOf(ev.target);
    if (shownFor && shownFor !== card) hide();
    if (!card || ev.touches.length !== 1) return;
    const t = ev.touches[0];
    hold = {
      x: t.clientX,
      y: t.clientY,
      timer: setTimeout(() => {
        hold = null;
        longPressed = true;
        show(card);
      }, HOLD_MS),
    };
  }, { passive: true });
  document.addEventListener("touchmove", (ev) => {
    if (!hold) return;
    const t = ev.touches[0];
    if (t && Math.hypot(t.clientX - hold.x, t.clientY - hold.y) > MOVE_PX) cancelHold();
  }, { passive: true });
  document.addEventListener("touchend", (ev) => {
    lastTouch = Date.now();
    cancelHold();
    // A long-press only explains: the tap's click (a card picked, a button pressed) is
    // not made.
    if (!longPressed) return;
    if (ev.cancelable) ev.preventDefault();
    // Where the browser makes no click of it, the next click is a new one.
    setTimeout(() => { longPressed = false; }, TOUCH_MOUSE_MS);
  }, { passive: false });
  document.addEventListener("touchcancel", () => cancelHold(), { passive: true });
  document.addEventListener("click", (ev) => {
    if (!longPressed) return;
    longPressed = false;
    ev.preventDefault();
    ev.stopPropagation();
  }, { capture: true });
  document.addEventListener("contextmenu", (ev) => {
    // Holding a card opens its tip, not the browser's menu.
    if (cardOf(ev.target) && (hold || longPressed)) ev.preventDefault();
  });
}
