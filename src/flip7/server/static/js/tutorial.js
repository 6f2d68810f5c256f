// The guided first game: the lobby's "Learn to play" (POST /api/tutorial), and at its table
// the lesson the server sends in the table state's `tutorial` (docs/protocol.md), with
// "Got it" where the lesson waits to be read, "Skip tutorial" always, and the move the
// lesson asks for highlighted. The browser only shows what the server says: a lesson's
// words are the catalogue's "tutorial.lesson.<id>" with the server's params filled in
// (the server's English text where the catalogue has no such lesson).
import { api, messageOf } from "./api.js";
import { has, t } from "./i18n.js";
import { navigate } from "./router.js";
import { askName, h, scrollBetween, store, toast, tokenKey } from "./util.js";

/**
 * The lobby's "Learn to play": a private table against bots, its game started at once.
 * @param {Event} [ev] the click on a button, which waits meanwhile
 */
export async function startTutorial(ev) {
  const button = ev && ev.currentTarget instanceof HTMLButtonElement ? ev.currentTarget : null;
  const player = await askName(t("tutorial.learn"), t("tutorial.start"));
  if (!player) return;
  if (button) button.disabled = true;
  try {
    /** @type {import("./protocol.js").StartTutorial} */
    const body = { player };
    const data = /** @type {import("./protocol.js").SeatGranted} */ (await api("POST", "/api/tutorial", { body }));
    store.set(tokenKey(data.table.id), data.token);
    navigate(`/t/${encodeURIComponent(data.table.id)}`);
  } catch (err) {
    toast(messageOf(err));
  } finally {
    if (button) button.disabled = false;
  }
}

/**
 * A lesson's words in the reader's language: "tutorial.lesson.<id>" with the names and
 * numbers the server sends (params), else the server's English text.
 * @param {import("./protocol.js").TutorialLesson} lesson
 */
export function lessonText(lesson) {
  const key = `tutorial.lesson.${lesson.id}`;
  if (!has(key) || !lesson.params || typeof lesson.params !== "object") return lesson.text;
  return t(key, lesson.params);
}

/**
 * The coach banner at the top of a table page (`page`, its header first).
 * @param {HTMLElement} page
 * @param {string} tableId
 */
export function mountTutorial(page, tableId) {
  const text = h("p", { class: "tutor-text", dataset: { testid: "tutor-text" } });
  const progress = h("span", { class: "tutor-progress" });
  const gotIt = h("button", {
    type: "button", class: "btn btn--primary btn--small", hidden: true,
    dataset: { testid: "tutor-next", focusKey: "tutor-next" }, onclick: () => send({ read: shown.number }),
  }, t("tutorial.got_it"));
  const skip = h("button", {
    type: "button", class: "btn btn--ghost btn--small tutor-skip",
    dataset: { testid: "tutor-skip", focusKey: "tutor-skip" }, onclick: () => send({ skip: true }),
  }, t("tutorial.skip"));
  // "Got it" has a row of its own only when a lesson waits for it: on a phone every line
  // the banner takes is a line of the board less.
  const actions = h("div", { class: "tutor-actions", hidden: true }, gotIt);
  const box = h("section", {
    class: "tutor", hidden: true, "aria-label": t("tutorial.label"), dataset: { testid: "tutorial" },
  },
  h("div", { class: "tutor-head" }, h("span", { class: "tutor-kicker", text: t("tutorial.learn") }), progress, skip),
  h("div", { class: "tutor-live", role: "status", "aria-live": "polite" }, text),
  actions);
  page.insertBefore(box, page.firstElementChild ? page.firstElementChild.nextSibling : null);
  /** @type {{number: number | null, key: string | null}} */
  let shown = { number: null, key: null };
  /** @type {string | null} */
  let revealed = null; // the lesson whose move was last brought into view
  let sending = false;

  /** @param {import("./protocol.js").TutorialStep} body */
  async function send(body) {
    if (sending) return;
    sending = true;
    gotIt.disabled = skip.disabled = true;
    try {
      // The update comes over the WebSocket, to every tab of the table.
      await api("POST", `/api/tables/${encodeURIComponent(tableId)}/tutorial`, { body, token: store.get(tokenKey(tableId)) });
    } catch (err) {
      toast(messageOf(err));
    } finally {
      sending = false;
      gotIt.disabled = skip.disabled = false;
    }
  }

  /**
   * After every render of the table: the lesson on screen, and the move it asks for.
   * @param {import("./protocol.js").TableState | null} table
   */
  function update(table) {
    const tut = table && table.tutorial;
    const g = table && table.game;
    const mine = !!(tut && g && g.viewer === tut.seat && store.get(tokenKey(tableId)));
    const done = tut && !tut.lesson && (tut.step >= tut.steps || !!(g && g.over));
    box.hidden = !mine || !tut || tut.skipped || !!done;
    document.body.classList.toggle("has-tutor", !box.hidden);
    const lesson = tut && !box.hidden ? tut.lesson : null;
    // While a lesson waits for "Got it", the decision it leads to is not open yet: the
    // panel came up (and took taps) before its lesson had been read.
    const reading = !!(lesson && lesson.next);
    document.body.classList.toggle("tutor-reading", reading);
    const panel = document.getElementById("decision");
    if (panel) panel.inert = reading;
    if (box.hidden || !tut) return;
    const key = lesson ? `${lesson.number}` : `watch:${tut.step}`;
    if (shown.key !== key) {
      shown = { number: lesson ? lesson.number : null, key };
      text.textContent = lesson ? lessonText(lesson) : t("tutorial.watch");
      box.dataset.lesson = lesson ? lesson.id : "";
      box.classList.remove("tutor--new");
      void box.offsetWidth; // restart the animation
      box.classList.add("tutor--new");
      // A lesson read while the learner's own decision waits speaks of the learner's
      // cards (Flip Four!'s four, say): their line is brought clear of the banner, which
      // on a phone covered it.
      const line = document.querySelector(".board .seat.is-me .seat-line");
      if (lesson && lesson.next && g && g.to_decide === tut.seat && line) requestAnimationFrame(() => clearOfBanner(line));
    }
    gotIt.hidden = actions.hidden = !(lesson && lesson.next);
    // Lessons, not scripted decisions: bots' decisions made the count jump, and a decision
    // with two lessons showed the same number twice.
    progress.textContent = t("tutorial.progress", { n: Math.min(lesson ? lesson.number + 1 : tut.lessons_done, tut.lessons), count: tut.lessons });
    box.dataset.expect = tut.expect || "";
    if (tut.expect) {
      /** @type {Element | null} */
      let target = null;
      for (const el of document.querySelectorAll("#decision .decision-main [data-decision], .board [data-decision]")) {
        const on = el.getAttribute("data-decision") === tut.expect;
        el.classList.toggle("is-expected", on);
        // The panel's button rather than the card on the board: the panel holds the prompt.
        if (on && (!target || !target.closest("#decision"))) target = el;
      }
      // Once per lesson: the move it asks for is brought clear of the banner. Both stick
      // (the banner at the top, the decision panel at the bottom), so a page scrolled down
      // earlier in the game can leave the move under the banner, out of reach of a tap.
      if (target && revealed !== shown.key) {
        revealed = shown.key;
        reveal(target);
      }
    }
  }

  /** Where the banner leaves the screen free: from its foot (once stuck) down. */
  function belowBanner() {
    const stuckAt = parseFloat(getComputedStyle(box).top) || 0;
    return Math.max(box.getBoundingClientRect().bottom, stuckAt + box.offsetHeight) + 8;
  }

  /** @param {Element} el */
  function clearOfBanner(el) {
    if (!box.hidden) scrollBetween(el, belowBanner(), window.innerHeight);
  }

  /** @param {Element} target */
  function reveal(target) {
    const top = belowBanner();
    const bottom = window.innerHeight; // the panel sticks flush to the foot of the screen
    // The whole decision panel (its prompt says what the move is) when it fits.
    const panel = target.closest("#decision");
    const whole = panel instanceof HTMLElement && panel.offsetHeight <= bottom - top ? panel : target;
    scrollBetween(whole, top, bottom);
  }

  return {
    update,
    destroy() {
      box.remove();
      document.body.classList.remove("has-tutor", "tutor-reading");
    },
  };
}
