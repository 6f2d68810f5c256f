// Redraws held back while a control is pressed.
//
// The pages draw their parts anew from the state (clear, then build): a button drawn anew
// between the press and the release is another button, and a browser sends no click when
// the press and the release land on different elements. A frame from the server arriving
// in that moment (another player joined, a presence changed) lost the tap, on a slow phone
// often. So while a press on a control lasts, and until its click has been handled, the
// redraws wait, then run in the order they came.

// A press let go of elsewhere (no release seen here) or held down (a long press has no
// click) holds them no longer than this.
const LONGEST_MS = 1500;
// After the release the click is on its way (a tap's comes after the touch ends); should it
// not come (the finger slid off the control), the redraws run after this.
const CLICK_WAIT_MS = 300;

/**
 * @typedef {object} PressHold
 * @property {(draw: () => void) => boolean} hold Keep `draw` for after the press under way
 *   (true), or say there is none (false: draw now).
 */

/**
 * The press hold of `root`'s controls.
 * @param {HTMLElement} root
 * @returns {PressHold}
 */
export function pressHold(root) {
  /** @type {Array<() => void>} */
  let waiting = [];
  let pressed = false;
  // While the press's click is dispatched: the control's own redraws run at once.
  let clicking = false;
  let timer = 0;
  const release = () => {
    window.clearTimeout(timer);
    pressed = false;
    clicking = false;
    const draws = waiting;
    waiting = [];
    for (const draw of draws) draw();
  };
  /** @param {number} ms */
  const releaseIn = (ms) => {
    window.clearTimeout(timer);
    timer = window.setTimeout(release, ms);
  };
  root.addEventListener("pointerdown", (ev) => {
    // What a press holds the redraws for: the controls a click acts on.
    const control = ev.target instanceof Element
      && ev.target.closest("button, a[href], input, select, textarea, label, summary, [role=button], [tabindex]");
    if (!control) return;
    pressed = true;
    releaseIn(LONGEST_MS);
  }, true);
  for (const type of ["pointerup", "pointercancel"]) {
    root.addEventListener(type, () => { if (pressed) releaseIn(CLICK_WAIT_MS); }, true);
  }
  // The click: the control's listener draws what it changed at once (on the state the
  // player saw), then, as the click leaves the page's root, the redraws held come in order
  // (a listener that stops the click: a moment later).
  root.addEventListener("click", () => {
    if (!pressed) return;
    clicking = true;
    releaseIn(0);
  }, true);
  root.addEventListener("click", () => { if (clicking) release(); });
  return {
    hold(draw) {
      if (!pressed || clicking) return false;
      waiting.push(draw);
      return true;
    },
  };
}
