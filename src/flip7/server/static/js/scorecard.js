// One scorecard (/scorekeeper/{id}): the page's frame, the scorecard fetched and polled,
// and the wiring of its modules (scorecardstate.js says which does what).
import { ApiError, api, messageOf } from "./api.js";
import { t } from "./i18n.js";
import { cancelEdit, changed, reconcileEntry, saveRound, scheduleCheck, startEdit, undoLast } from "./scorecardentry.js";
import { pressHold } from "./presshold.js";
import { leaveLive, liveOver, startLive, stopLive } from "./scorecardlive.js";
import { applyCheck, renderEntry } from "./scorecardpanel.js";
import { scorecardApi } from "./scorecardshared.js";
import { editable, untouched } from "./scorecardstate.js";
import { takeKey } from "./scorecardstore.js";
import { renderAll, renderChart, skeleton } from "./scorecardview.js";
import { clear, h, toast } from "./util.js";

const POLL_MS = 4000;

/**
 * @param {HTMLElement} root
 * @param {{id: string}} scorecard
 * @returns {import("./router.js").View}
 */
export function mountScorecard(root, { id }) {
  document.body.dataset.view = "scorekeeper";
  document.title = t("scorekeeper.title");
  const { key, fromLink } = takeKey(id);

  /** @type {import("./scorecardstate.js").Ui} */
  const ui = {
    load: (options) => load(options),
    setSummary: (data) => setSummary(data),
    renderAll: () => renderAll(page),
    renderEntry: () => renderEntry(page),
    renderChart: () => renderChart(page),
    applyCheck: () => applyCheck(page),
    changed: () => changed(page),
    scheduleCheck: () => scheduleCheck(page),
    saveRound: () => { saveRound(page); },
    startEdit: (round) => startEdit(page, round),
    cancelEdit: () => cancelEdit(page),
    undoLast: () => { undoLast(page); },
    startLive: (state) => startLive(page, state),
    leaveLive: () => { leaveLive(page); },
    stopLive: (abandon) => stopLive(page, abandon),
    liveOver: (lines) => liveOver(page, lines),
  };
  /** @type {import("./scorecardstate.js").ScorecardPage} */
  const page = {
    id, key, justCreated: fromLink, destroyed: false,
    summary: null, entry: null, stash: null,
    check: { state: "idle" }, checkSeq: 0, knownFlip7: null, checkTimer: undefined,
    saving: false, notice: null, live: null, entryRefs: null,
    parts: skeleton(root), ui,
  };
  // The first tap after coming back to the page comes with its focus, and the poll that
  // focus starts: the page is not drawn anew under the finger.
  const press = pressHold(root);

  /** @param {{quiet?: boolean}} [options] quiet: a failure is not shown (polling) */
  async function load({ quiet = false } = {}) {
    try {
      const data = /** @type {import("./protocol.js").Scorecard} */ (await api("GET", scorecardApi(id)));
      if (page.destroyed) return;
      setSummary(data);
    } catch (err) {
      if (page.destroyed) return;
      if (err instanceof ApiError && err.status === 404) {
        clear(root);
        root.appendChild(h("section", { class: "panel notfound" },
          h("h1", { text: t("scorekeeper.no_such") }),
          h("p", { text: t("scorekeeper.no_such_text") }),
          h("a", { href: "/scorekeeper", "data-link": true, class: "btn btn--primary" }, t("scorekeeper.all"))));
        page.destroyed = true;
      } else if (!quiet) toast(messageOf(err));
    }
  }

  /**
   * The server's scorecard came: everything follows it (unless it is the one shown).
   * @param {import("./protocol.js").Scorecard} data
   */
  function setSummary(data) {
    if (press.hold(() => setSummary(data))) return; // a tap under way: see presshold.js
    const before = page.summary;
    const first = before === null;
    const changedNow = before === null || data.version !== before.version || data.updated !== before.updated;
    page.summary = data;
    const loading = root.querySelector("[data-testid=loading]");
    if (loading) loading.remove();
    if (!changedNow) return;
    reconcileEntry(page);
    renderAll(page);
    const live = data.live;
    if (first && page.live === null && live && editable(page)) {
      if (!live.over) startLive(page, live);
      else if (page.entry && page.entry.mode === "new" && untouched(page.entry)) {
        liveOver(page, live.lines); // a live round finished on this or another device
      }
    }
    if (page.live) page.live.update(data);
  }

  const poll = setInterval(() => { if (!document.hidden && !page.saving) load({ quiet: true }); }, POLL_MS);
  const onFocus = () => { if (!page.destroyed) load({ quiet: true }); };
  window.addEventListener("focus", onFocus);
  document.addEventListener("visibilitychange", onFocus);
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let resizeTimer;
  const onResize = () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(() => page.summary && renderChart(page), 150); };
  window.addEventListener("resize", onResize);

  load();

  return {
    destroy() {
      page.destroyed = true;
      clearInterval(poll);
      clearTimeout(page.checkTimer);
      clearTimeout(resizeTimer);
      window.removeEventListener("focus", onFocus);
      document.removeEventListener("visibilitychange", onFocus);
      window.removeEventListener("resize", onResize);
      if (page.live) page.live.destroy(false);
    },
  };
}
