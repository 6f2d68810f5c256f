// The guided first game: the lobby's "Learn to play" (POST /api/tutorial), and at its table
// the lesson the server sends in the table state's `tutorial` (docs/protocol.md), with
// "Got it" where the lesson waits to be read, "Skip tutorial" always, and the move the
// lesson asks for highlighted. The browser only shows what the server says.
import { api } from "./api.js";
import { navigate } from "./router.js";
import { askName, h, store, toast, tokenKey } from "./util.js";

/** The lobby's "Learn to play": a private table against bots, its game started at once. */
export async function startTutorial(ev) {
  const button = ev && ev.currentTarget;
  const player = await askName("Learn to play", "Start");
  if (!player) return;
  if (button) button.disabled = true;
  try {
    const data = await api("POST", "/api/tutorial", { body: { player } });
    store.set(tokenKey(data.table.id), data.token);
    navigate(`/t/${encodeURIComponent(data.table.id)}`);
  } catch (err) {
    toast(err.message);
  } finally {
    if (button) button.disabled = false;
  }
}

/** The coach banner at the top of a table page (`page`, its header first). */
export function mountTutorial(page, tableId) {
  const text = h("p", { class: "tutor-text", dataset: { testid: "tutor-text" } });
  const progress = h("span", { class: "tutor-progress" });
  const gotIt = h("button", {
    type: "button", class: "btn btn--primary btn--small", hidden: true,
    dataset: { testid: "tutor-next", focusKey: "tutor-next" }, onclick: () => send({ read: shown.number }),
  }, "Got it");
  const skip = h("button", {
    type: "button", class: "btn btn--ghost btn--small tutor-skip",
    dataset: { testid: "tutor-skip", focusKey: "tutor-skip" }, onclick: () => send({ skip: true }),
  }, "Skip tutorial");
  // "Got it" has a row of its own only when a lesson waits for it: on a phone every line
  // the banner takes is a line of the board less.
  const actions = h("div", { class: "tutor-actions", hidden: true }, gotIt);
  const box = h("section", {
    class: "tutor", hidden: true, "aria-label": "Tutorial", dataset: { testid: "tutorial" },
  },
  h("div", { class: "tutor-head" }, h("span", { class: "tutor-kicker", text: "Learn to play" }), progress, skip),
  h("div", { class: "tutor-live", role: "status", "aria-live": "polite" }, text),
  actions);
  page.insertBefore(box, page.firstElementChild ? page.firstElementChild.nextSibling : null);
  let shown = { number: null, key: null };
  let sending = false;

  async function send(body) {
    if (sending) return;
    sending = true;
    gotIt.disabled = skip.disabled = true;
    try {
      // The update comes over the WebSocket, to every tab of the table.
      await api("POST", `/api/tables/${encodeURIComponent(tableId)}/tutorial`, { body, token: store.get(tokenKey(tableId)) });
    } catch (err) {
      toast(err.message);
    } finally {
      sending = false;
      gotIt.disabled = skip.disabled = false;
    }
  }

  /** After every render of the table: the lesson on screen, and the move it asks for. */
  function update(table) {
    const t = table && table.tutorial;
    const g = table && table.game;
    const mine = !!(t && g && g.viewer === t.seat && store.get(tokenKey(tableId)));
    const done = t && !t.lesson && (t.step >= t.steps || g.over);
    box.hidden = !mine || t.skipped || done;
    document.body.classList.toggle("has-tutor", !box.hidden);
    if (box.hidden) return;
    const lesson = t.lesson;
    const key = lesson ? `${lesson.number}` : `watch:${t.step}`;
    if (shown.key !== key) {
      shown = { number: lesson ? lesson.number : null, key };
      text.textContent = lesson ? lesson.text : "Watch the bots play…";
      box.dataset.lesson = lesson ? lesson.id : "";
      box.classList.remove("tutor--new");
      void box.offsetWidth; // restart the animation
      box.classList.add("tutor--new");
    }
    gotIt.hidden = actions.hidden = !(lesson && lesson.next);
    progress.textContent = `Step ${Math.min(t.step + 1, t.steps)} of ${t.steps}`;
    box.dataset.expect = t.expect || "";
    if (t.expect) {
      for (const el of document.querySelectorAll("#decision .decision-main [data-decision], .board [data-decision]")) {
        el.classList.toggle("is-expected", el.dataset.decision === t.expect);
      }
    }
  }

  return {
    update,
    destroy() {
      box.remove();
      document.body.classList.remove("has-tutor");
    },
  };
}
