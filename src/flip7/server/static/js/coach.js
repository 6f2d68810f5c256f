// The coach (/coach/<game_id>/<seat>): every decision of one seat of a finished game graded
// by the strongest bots from what that seat could see. The page asks for the analysis
// (POST /api/games/{id}/coach), shows its progress (GET … every second), then the summary
// (accuracy, how many of each grade) and each decision: its grade (a colour, a sign and a
// word), the move made and the better one, their values, and a link to that moment of the
// seat's replay. Every word is built here from the JSON's fields (the "note" is the CLI's).
import { ApiError, api } from "./api.js";
import { cardName, decisionLabel } from "./cards.js";
import { errorText, formatNumber, has, t } from "./i18n.js";
import { navigate } from "./router.js";
import { clear, h, icon } from "./util.js";

/** @typedef {import("./protocol.js").GradedDecision} GradedDecision */
/** @typedef {GradedDecision["grade"]} Grade */

/** @type {Grade[]} */
export const GRADES = ["best", "inaccuracy", "mistake", "blunder"];
// The sign next to each grade's colour and word (the chess annotator's marks).
const MARKS = { best: "✓", inaccuracy: "?!", mistake: "?", blunder: "??" };
const POLL_MS = 1000;

/**
 * @param {string} grade a grade; another word shows as "best"
 * @returns {Grade}
 */
function knownGrade(grade) {
  return GRADES.find((g) => g === grade) || "best";
}

/**
 * @param {string} grade
 * @param {number | null} [count]
 */
export function gradeBadge(grade, count = null) {
  const g = knownGrade(grade);
  return h("span", { class: `grade grade--${g}`, dataset: { grade: g, testid: "grade" } },
    h("span", { class: "grade-mark", "aria-hidden": "true", text: MARKS[g] }),
    h("span", { class: "grade-word", text: t(`players.coach.grade.${g}`) }),
    count !== null ? h("b", { class: "grade-count", text: formatNumber(count) }) : null);
}

/** A value of the measure: a win chance (in percent, as the coach gives it), else expected
 * points.
 * @param {"win" | "points"} measure
 * @param {number | null | undefined} x
 */
function value(measure, x) {
  if (x === null || x === undefined || !Number.isFinite(Number(x))) return "–";
  if (measure === "win") return formatNumber(Number(x) / 100, { style: "percent", maximumFractionDigits: 1 });
  return formatNumber(Number(x), { maximumFractionDigits: 1 });
}

/**
 * @param {"win" | "points"} measure
 * @param {number} loss
 */
function lossText(measure, loss) {
  const x = Math.abs(Number(loss) || 0);
  const key = measure === "win" ? "players.coach.loss_win" : "players.coach.loss_points";
  return t(key, { loss: formatNumber(x, { maximumFractionDigits: 1 }) });
}

/**
 * @param {HTMLElement} root
 * @param {{gameId: string, seat: number}} which the game and the seat to analyse
 */
export function mountCoach(root, { gameId, seat }) {
  document.body.dataset.view = "coach";
  document.title = `${t("players.coach.title")} · Flip 7`;
  /**
   * @type {{destroyed: boolean, timer: ReturnType<typeof setTimeout> | undefined,
   *   record: import("./protocol.js").GameRecord | null, result: import("./protocol.js").CoachReport | null,
   *   onlyImprove: boolean | null}}
   */
  // onlyImprove: null until the report comes, then on when there is something to improve.
  const S = { destroyed: false, timer: undefined, record: null, result: null, onlyImprove: null };
  const gid = encodeURIComponent(gameId);
  const names = (/** @type {number} */ s) => (S.record && Array.isArray(S.record.players) && S.record.players[s]) || t("players.seat", { seat: s + 1 });

  const picker = h("select", { id: "coach-seat", class: "select select--small", dataset: { testid: "coach-seat" } });
  picker.addEventListener("change", () => navigate(`/coach/${gid}/${Number(picker.value)}`));
  const title = h("h1", { class: "page-title", dataset: { testid: "coach-title" } }, t("players.coach.title"));
  const sub = h("p", { class: "muted coach-sub" });
  const body = h("div", { class: "coach-body" });
  const live = h("p", { class: "visually-hidden", role: "status" });
  root.appendChild(h("div", { class: "players-page coach-page", dataset: { testid: "coach" } },
    h("div", { class: "page-head coach-head" },
      h("div", {}, title, sub),
      h("div", { class: "coach-tools" },
        h("label", { for: "coach-seat", class: "field-label", text: t("players.coach.seat_picker") }), picker,
        h("a", { class: "btn btn--ghost btn--small", href: `/replay/game/${gid}?seat=${seat}`, "data-link": true, dataset: { testid: "coach-replay" } }, icon("play"), t("players.coach.replay")))),
    live, body));

  function heading() {
    const who = names(seat);
    clear(title);
    title.append(t("players.coach.title_for", { name: who }));
    document.title = `${t("players.coach.title_for", { name: who })} · Flip 7`;
    const meta = (S.record && S.record.meta) || {};
    sub.textContent = meta.table_name ? t("players.coach.sub", { table: meta.table_name }) : t("players.coach.sub_plain");
    clear(picker);
    const players = (S.record && S.record.players) || [];
    players.forEach((name, s) => picker.appendChild(h("option", { value: String(s), text: name })));
    if (!players.length) picker.appendChild(h("option", { value: String(seat), text: names(seat) }));
    picker.value = String(seat);
  }
  heading();

  // The record: the seats' names (and the table's) for the picker and the moves' words.
  api("GET", `/api/games/${gid}/record`).then((record) => {
    if (S.destroyed) return;
    S.record = /** @type {import("./protocol.js").GameRecord} */ (record);
    heading();
    if (S.result) showResult(S.result);
  }).catch(() => { /* the names stay "Seat N" */ });

  // The progress: one panel, updated in place; the screen reader hears each phase once.
  /** @type {{section: HTMLElement, text: HTMLElement, bar: HTMLProgressElement} | null} */
  let wait = null;
  let said = "";
  /** @param {string} text */
  function say(text) {
    if (text !== said) live.textContent = text;
    said = text;
  }

  /**
   * @param {import("./protocol.js").CoachProgress | null} p
   * @param {import("./protocol.js").CoachAnswer["status"]} status
   */
  function progressView(p, status) {
    const done = p && Number.isFinite(p.done) ? p.done : 0;
    const total = p && Number.isFinite(p.total) && p.total > 0 ? p.total : null;
    if (!wait || !wait.section.isConnected) {
      const text = h("p", { id: "coach-progress-label", class: "coach-wait-text", dataset: { testid: "coach-status" } });
      const bar = h("progress", { class: "coach-progress", dataset: { testid: "coach-progress" }, "aria-labelledby": "coach-progress-label" });
      const section = h("section", { class: "panel coach-wait" }, text, bar,
        h("p", { class: "muted", text: t("players.coach.wait_hint") }));
      wait = { section, text, bar };
      clear(body);
      body.appendChild(section);
    }
    const { text, bar } = wait;
    text.textContent = status === "queued" ? t("players.coach.queued")
      : total ? t("players.coach.progress", { done, count: total }) : t("players.coach.starting");
    if (total) {
      bar.max = total;
      bar.value = done;
    } else bar.removeAttribute("value"); // indeterminate while queued
    say(status === "queued" ? t("players.coach.queued") : t("players.coach.starting"));
  }

  /** @param {string} message */
  function failedView(message) {
    clear(body);
    say(t("players.coach.failed"));
    body.appendChild(h("section", { class: "panel notfound", dataset: { testid: "coach-failed" } },
      h("h2", { text: t("players.coach.failed") }),
      h("p", { class: "muted", text: message || "" }),
      h("button", { type: "button", class: "btn btn--primary", onclick: start }, icon("refresh"), t("players.coach.retry"))));
  }

  /**
   * One line of why, from the figures the report keeps: the score and bust risk at a hit or
   * stay, who led the game, and what the better move scores in the round (empty for an
   * old report without them).
   * @param {GradedDecision} d
   * @param {boolean} better whether a better move is shown
   */
  function reason(d, better) {
    const parts = [];
    if (typeof d.score === "number" && typeof d.bust_risk === "number") {
      parts.push(t("players.coach.why_risk", { score: d.score, risk: formatNumber(d.bust_risk / 100, { style: "percent", maximumFractionDigits: 0 }) }));
    }
    if (typeof d.leader === "number" && typeof d.lead === "number") {
      parts.push(d.lead === 0 && d.leader === seat ? t("players.coach.why_level")
        : d.leader === seat ? t("players.coach.why_you_lead", { count: d.lead })
        : t("players.coach.why_leader", { name: names(d.leader), count: d.lead }));
    }
    const options = Array.isArray(d.options) ? d.options : [];
    const made = options.find((o) => o.decision === d.made);
    const best = options.find((o) => o.decision === d.best);
    if (better && made && best) {
      const diff = Math.round((best.points - made.points) * 10) / 10;
      if (diff > 0) parts.push(t("players.coach.why_more_points", { points: formatNumber(diff) }));
      else if (diff < 0) parts.push(t("players.coach.why_fewer_points", { points: formatNumber(-diff) }));
    }
    if (!parts.length) return null;
    const text = `${parts.join("; ")}.`;
    return h("p", { class: "coach-reason", dataset: { testid: "coach-reason" }, text: text.charAt(0).toUpperCase() + text.slice(1) });
  }

  /** @param {GradedDecision} d */
  function decisionItem(d) {
    const grade = knownGrade(d.grade);
    // The report does not say which card a decision was about (flip7.coach.report): the
    // labels name none ("Target yourself").
    const opts = { names, me: seat, pending: null };
    /** The server's object for a decision string (null for none: the string as it is).
     * @type {(object: import("./protocol.js").Decision | null | undefined, text: string) => string} */
    const say = (object, text) => (object ? decisionLabel(object, opts) : text);
    const made = say(d.made_object, d.made);
    const better = d.best && d.best !== d.made ? say(d.best_object, d.best) : null;
    const measure = d.measure === "points" ? "points" : "win";
    const step = Number.isInteger(d.step) ? d.step : null;
    const where = [
      Number.isInteger(d.round) ? t("players.coach.round", { round: d.round }) : null,
      Number.isInteger(d.draw) ? t("players.coach.draw", { count: d.draw }) : null,
    ].filter(Boolean).join(" · ");
    return h("li", { class: `coach-item coach-item--${grade}`, dataset: { grade, index: String(d.index), testid: "coach-decision" } },
      h("div", { class: "coach-item-head" },
        gradeBadge(grade),
        h("span", { class: "coach-kind", text: has(`players.coach.kind.${d.kind}`) ? t(`players.coach.kind.${d.kind}`) : t("players.coach.kind.other") }),
        d.card ? h("span", { class: "coach-card", dataset: { testid: "coach-card" }, text: cardName(d.card) }) : null,
        h("span", { class: "muted coach-where", text: where })),
      h("dl", { class: "coach-moves" },
        h("div", { class: "coach-move" },
          h("dt", { text: t("players.coach.made") }),
          h("dd", { dataset: { testid: "coach-made" } }, h("span", { class: "coach-move-name", text: made }),
            h("span", { class: "coach-value", text: value(measure, d.value_made) }))),
        better ? h("div", { class: "coach-move coach-move--better" },
          h("dt", { text: t("players.coach.better") }),
          h("dd", { dataset: { testid: "coach-better" } }, h("span", { class: "coach-move-name", text: better }),
            h("span", { class: "coach-value", text: value(measure, d.value_best) }))) : null),
      reason(d, !!better),
      h("p", { class: "coach-measure muted" },
        t(measure === "win" ? "players.coach.measure_win" : "players.coach.measure_points"),
        better && Number(d.loss) > 0 ? ` · ${lossText(measure, d.loss)}` : ""),
      Array.isArray(d.options) && d.options.length > 1 ? h("details", { class: "coach-options" },
        h("summary", { text: t("players.coach.options", { count: d.options.length }) }),
        h("ul", {}, [...d.options].sort((a, b) => Number(b.value) - Number(a.value)).map((o) => h("li", { class: o.decision === d.made ? "is-made" : null },
          h("span", { text: say(o.decision_object, o.decision) }),
          h("span", { class: "coach-value", text: value(measure, o.value) }))))) : null,
      step !== null ? h("a", { class: "coach-step-link", href: `/replay/game/${gid}?seat=${seat}&step=${step}`, "data-link": true, dataset: { testid: "coach-step" } }, icon("play"), t("players.coach.see_step")) : null);
  }

  /** @param {import("./protocol.js").CoachReport} res */
  function showResult(res) {
    S.result = res;
    clear(body);
    say(t("players.coach.done"));
    /** @type {Partial<import("./protocol.js").CoachReport["summary"]>} */
    const sum = res.summary || {};
    const decisions = Array.isArray(res.decisions) ? res.decisions : [];
    const acc = Number(sum.accuracy);
    if (S.onlyImprove === null) S.onlyImprove = decisions.some((d) => knownGrade(d.grade) !== "best");
    const list = h("ol", { class: "coach-list", dataset: { testid: "coach-decisions" } });
    const fill = () => {
      clear(list);
      for (const d of decisions) if (!S.onlyImprove || d.grade !== "best") list.appendChild(decisionItem(d));
      if (!list.firstChild) list.appendChild(h("li", { class: "muted empty", text: t("players.coach.nothing_to_improve") }));
    };
    const only = h("input", { id: "coach-only", type: "checkbox", class: "switch-input", dataset: { testid: "coach-only" } });
    only.checked = !!S.onlyImprove;
    only.addEventListener("change", () => { S.onlyImprove = only.checked; fill(); });
    const th = res.thresholds && typeof res.thresholds === "object" ? res.thresholds : null;
    const thresholdRows = th ? GRADES.slice(1).filter((g) => th[g] !== undefined).map((g) => h("li", {}, gradeBadge(g), " ",
      typeof th[g] === "number" ? t("players.coach.threshold", { value: formatNumber(th[g], { maximumFractionDigits: 3 }) }) : h("code", { text: JSON.stringify(th[g]) }))) : [];
    body.append(
      h("section", { class: "panel coach-summary", "aria-labelledby": "coach-summary-title", dataset: { testid: "coach-summary" } },
        h("h2", { id: "coach-summary-title", class: "visually-hidden", text: t("players.coach.summary") }),
        h("div", { class: "coach-accuracy" },
          h("span", { class: "coach-accuracy-value", dataset: { testid: "coach-accuracy" }, text: Number.isFinite(acc) ? formatNumber(acc / 100, { style: "percent", maximumFractionDigits: 0 }) : "–" }),
          h("span", { class: "stat-label", text: t("players.coach.accuracy") })),
        h("div", { class: "coach-counts" },
          h("p", { class: "coach-count-total", text: t("players.coach.decisions", { count: Number(sum.decisions) || decisions.length }) }),
          h("div", { class: "coach-grades" }, GRADES.map((g) => gradeBadge(g, Number(sum[g]) || 0)))),
        thresholdRows.length ? h("details", { class: "coach-about" },
          h("summary", { text: t("players.coach.how") }),
          h("p", { class: "muted", text: t("players.coach.how_text") }),
          h("ul", { class: "coach-thresholds" }, thresholdRows)) : h("p", { class: "muted coach-about", text: t("players.coach.how_text") })),
      h("section", { class: "panel", "aria-labelledby": "coach-list-title" },
        h("div", { class: "panel-head" },
          h("h2", { id: "coach-list-title", text: t("players.coach.list") }),
          h("div", { class: "switch-field coach-only" }, only,
            h("label", { for: "coach-only", class: "switch-label" }, h("span", { class: "switch", "aria-hidden": "true" }),
              h("span", { class: "switch-text", text: t("players.coach.only_improve") })))),
        list));
    fill();
  }

  function poll() {
    clearTimeout(S.timer);
    S.timer = setTimeout(async () => {
      if (S.destroyed) return;
      try {
        const data = /** @type {import("./protocol.js").CoachAnswer | null} */ (await api("GET", `/api/games/${gid}/coach?seat=${seat}`));
        if (S.destroyed) return;
        handle(data);
      } catch (err) {
        if (S.destroyed) return;
        if (err instanceof ApiError && err.status === 0) poll(); // the network blinked: ask again
        else failedView(errorText(err));
      }
    }, POLL_MS);
  }

  /** @param {import("./protocol.js").CoachAnswer | null} data */
  function handle(data) {
    if (!data) return failedView("");
    if (data.status === "done" && data.result) return showResult(data.result);
    if (data.status === "failed") return failedView(data.message ? String(data.message) : "");
    progressView(data.progress, data.status);
    return poll();
  }

  async function start() {
    progressView(null, "queued");
    try {
      /** @type {import("./protocol.js").CoachRequest} */
      const request = { seat };
      const data = /** @type {import("./protocol.js").CoachAnswer | null} */ (await api("POST", `/api/games/${gid}/coach`, { body: request }));
      if (!S.destroyed) handle(data);
    } catch (err) {
      if (S.destroyed) return;
      if (err instanceof ApiError && (err.code === "busy" || err.code === "too_many_jobs" || err.status === 503)) {
        // The coach's queue is full, or holds as many analyses of this address as it may:
        // try again in a moment.
        progressView(null, "queued");
        clearTimeout(S.timer);
        S.timer = setTimeout(() => { if (!S.destroyed) start(); }, 3000);
      } else failedView(errorText(err));
    }
  }
  start();

  return {
    destroy() {
      S.destroyed = true;
      clearTimeout(S.timer);
    },
  };
}
