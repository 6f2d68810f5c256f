// The table chat (players and spectators): the messages, an input held to the server's
// chat_max_chars (from /api/limits), quick reactions, the host's "Spectators may chat"
// switch, an unread badge while the chat is folded away or out of view.
// What a message may hold is the server's to judge (flip7.server.chat): this panel shows
// its refusals inline and never cuts or rewrites a message. Every text a person typed
// reaches the page through textContent (h(..., {text})), never as HTML.
import { seatHue } from "./board.js";
import { errorText, formatDate, t } from "./i18n.js";
import { add, h, icon, loadLimits } from "./util.js";

// Sent as ordinary chat text: the server judges them like any message. The words are the
// reader's language's ("Nice!" / "Stark!"): what is sent is what the sender saw.
const REACTIONS = ["👍", "😂", "😮", "🎉", "GG", t("chat.reaction.nice")];

// The error codes of chat frames (docs/protocol.md): shown in the panel, not as toasts.
const CHAT_ERRORS = new Set(["bad_chat", "chat_rate_limited", "chat_muted", "not_host"]);

// The most messages the page keeps in its list (a long evening at one table).
const KEEP = 300;


/** @typedef {import("./protocol.js").ChatEntry} ChatEntry */

/**
 * The length the server counts: characters (code points) of the trimmed text.
 * @param {string} text
 */
export function chatLength(text) {
  return [...text.trim()].length;
}

/** @param {string} at an ISO time */
function clock(at) {
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return "";
  return formatDate(d, { hour: "2-digit", minute: "2-digit" });
}

/**
 * The chat panel of one table page. `send(frame)` sends a WebSocket frame and says whether
 * it went out. Returns:
 *   element     the panel (table.js mounts it once)
 *   jump        a header button for narrow screens: opens the panel and scrolls to it
 *   restore(entries)  the welcome's chat (replaces the list; again after a reconnect)
 *   add(entry)        a chat frame's entry
 *   setTable(table, {seat, seated})  who is host, whether spectators may chat, who I am
 *   error(msg)        an error frame: true if it was the chat's (shown here)
 *   destroy()
 * @param {{send: (frame: import("./protocol.js").ClientFrame) => boolean}} connection
 */
export function chatPanel({ send }) {
  /**
   * @type {{entries: Map<number, HTMLLIElement>, lastSeen: number, unread: number, open: boolean,
   *   inView: boolean, maxChars: number | null, seat: number | null, seated: boolean,
   *   host: number | null, spectators: boolean, pending: {text: string, typed: boolean} | null,
   *   switchPending: boolean, restoredOnce: boolean}}
   */
  const S = {
    entries: new Map(), // n -> li, so that a reconnect's welcome never shows one twice
    lastSeen: 0, // the highest n the reader has had in view
    unread: 0,
    open: !window.matchMedia("(max-width: 1059px)").matches,
    inView: true,
    maxChars: null,
    seat: null,
    seated: false,
    host: null,
    spectators: true,
    pending: null, // {text, typed}: the message sent, until its chat frame or its refusal
    switchPending: false,
    restoredOnce: false, // a welcome's chat came (what it brings is not unread)
  };

  const list = h("ol", { class: "chat-list", "aria-label": t("chat.messages"), "aria-live": "polite", dataset: { testid: "chat-list" } });
  const empty = h("p", { class: "chat-empty muted", text: t("chat.empty") });
  const badge = h("span", { class: "chat-badge", hidden: true, dataset: { testid: "chat-unread" } });
  const toggle = h("button", {
    type: "button", class: "chat-toggle", "aria-controls": "chat-body", dataset: { testid: "chat-toggle" },
    onclick: () => setOpen(!S.open),
  }, h("span", { class: "chat-title", text: t("chat.title") }), badge, h("span", { class: "chat-chevron", "aria-hidden": "true" }));
  const jumpBadge = h("span", { class: "chat-badge", hidden: true });
  const jump = h("button", {
    type: "button", class: "btn btn--ghost btn--small chat-jump", "aria-label": t("chat.open"), dataset: { testid: "chat-jump" },
    onclick: () => {
      setOpen(true);
      element.scrollIntoView({ block: "end", behavior: "smooth" });
      input.focus({ preventScroll: true });
    },
  }, icon("chat"), h("span", { class: "hide-narrow", text: t("chat.title") }), jumpBadge);

  const switchInput = h("input", {
    type: "checkbox", class: "chat-switch-input", id: "chat-spectators", role: "switch", dataset: { testid: "chat-spectators", focusKey: "chat-spectators" },
    onchange: () => {
      const allowed = switchInput.checked;
      switchInput.checked = S.spectators; // the server's answer moves it
      if (send({ v: 1, type: "spectator_chat", allowed })) {
        S.switchPending = true;
        paint();
      } else showError(t("chat.not_connected"));
    },
  });
  const hostSwitch = h("label", { class: "chat-switch", for: "chat-spectators", hidden: true },
    switchInput, h("span", { class: "switch", "aria-hidden": "true" }), h("span", { text: t("chat.spectators_may") }));

  const input = h("input", {
    type: "text", class: "input chat-input", id: "chat-input", autocomplete: "off", enterkeyhint: "send",
    placeholder: t("chat.placeholder"), "aria-label": t("chat.message"), "aria-describedby": "chat-count",
    dataset: { testid: "chat-input", focusKey: "chat-input" },
    oninput: () => { clearError(); paint(); },
    onkeydown: (ev) => {
      if (ev.key === "Enter" && !ev.isComposing) {
        ev.preventDefault();
        submit();
      }
    },
  });
  const count = h("span", { class: "chat-count", id: "chat-count", "aria-live": "polite", dataset: { testid: "chat-count" } });
  const sendBtn = h("button", { type: "button", class: "btn btn--primary btn--small chat-send", dataset: { testid: "chat-send" }, onclick: submit }, t("chat.send"));
  const note = h("p", { class: "chat-note", hidden: true, dataset: { testid: "chat-note" } });
  const errorEl = h("p", { class: "chat-error", role: "alert", hidden: true, dataset: { testid: "chat-error" } });
  const reactions = h("div", { class: "chat-reactions", role: "group", "aria-label": t("chat.reactions") },
    REACTIONS.map((text) => h("button", {
      type: "button", class: "btn btn--ghost btn--small chat-reaction", dataset: { reaction: text }, "aria-label": t("chat.send_reaction", { text }),
      onclick: () => say(text, false),
    }, text)));
  const body = h("div", { class: "chat-body", id: "chat-body" },
    hostSwitch, list, empty, reactions,
    h("div", { class: "chat-compose" }, input, sendBtn), h("div", { class: "chat-foot" }, count), note, errorEl);
  const element = h("section", { class: "chat", "aria-label": t("chat.label"), dataset: { testid: "chat" } }, toggle, body);

  // The list is out of view on a phone while the board is: count what arrives meanwhile.
  const observer = typeof IntersectionObserver === "function" ? new IntersectionObserver((seen) => {
    S.inView = seen.some((e) => e.isIntersecting);
    if (S.inView) markRead();
  }) : null;
  if (observer) observer.observe(list);

  loadLimits().then((limits) => {
    if (limits && typeof limits.chat_max_chars === "number") S.maxChars = limits.chat_max_chars;
    paint();
  });

  /** @param {boolean} open */
  function setOpen(open) {
    S.open = open;
    if (open) markRead();
    paint();
  }

  function reading() {
    return S.open && S.inView && document.visibilityState !== "hidden";
  }

  function markRead() {
    if (!S.open) return;
    S.unread = 0;
    for (const n of S.entries.keys()) S.lastSeen = Math.max(S.lastSeen, n);
    paintBadge();
  }

  function paintBadge() {
    const text = S.unread > 99 ? t("chat.many_unread") : String(S.unread);
    for (const b of [badge, jumpBadge]) {
      b.hidden = S.unread === 0;
      b.textContent = text;
    }
    badge.setAttribute("aria-label", t("chat.unread", { count: S.unread }));
    jump.setAttribute("aria-label", S.unread ? t("chat.open_unread", { count: S.unread }) : t("chat.open"));
  }

  /** May I chat now? Spectators (and players who left) not while the host mutes them. */
  function muted() {
    return !S.seated && !S.spectators;
  }

  function paint() {
    element.classList.toggle("is-open", S.open);
    toggle.setAttribute("aria-expanded", String(S.open));
    toggle.setAttribute("aria-label", S.open ? t("chat.fold") : t("chat.show"));
    body.hidden = !S.open;
    empty.hidden = S.entries.size > 0;
    const isHost = S.seated && S.host !== null && S.seat === S.host;
    hostSwitch.hidden = !isHost;
    switchInput.checked = S.spectators;
    switchInput.disabled = S.switchPending;
    const m = muted();
    input.disabled = m;
    for (const b of reactions.querySelectorAll("button")) b.disabled = m;
    note.hidden = !m;
    note.textContent = m ? t("chat.muted_note") : "";
    const length = chatLength(input.value);
    const over = S.maxChars !== null && length > S.maxChars;
    if (S.maxChars === null) count.textContent = length ? t("chat.characters", { count: length }) : "";
    else if (over) count.textContent = t("chat.too_many", { count: length - S.maxChars, most: S.maxChars });
    else count.textContent = t("chat.left", { count: S.maxChars - length });
    count.classList.toggle("is-over", over);
    input.setAttribute("aria-invalid", String(over));
    sendBtn.disabled = m || length === 0 || over;
    paintBadge();
  }

  function clearError() {
    errorEl.hidden = true;
    errorEl.textContent = "";
  }

  /** @param {string} text */
  function showError(text) {
    errorEl.textContent = text;
    errorEl.hidden = false;
  }

  function submit() {
    const text = input.value;
    const length = chatLength(text);
    if (!length) return;
    if (S.maxChars !== null && length > S.maxChars) {
      // Never cut a message: the writer shortens it.
      showError(t("chat.too_long", { count: length, most: S.maxChars }));
      return;
    }
    say(text, true);
  }

  /**
   * @param {string} text
   * @param {boolean} typed in the input (a refused one goes back there), not a reaction
   */
  function say(text, typed) {
    if (muted()) return;
    clearError();
    if (!send({ v: 1, type: "chat", text })) {
      showError(t("chat.not_connected"));
      return;
    }
    S.pending = { text: text.trim(), typed };
    if (typed) input.value = "";
    paint();
  }

  /** @param {ChatEntry} entry */
  function line(entry) {
    const system = entry.kind !== "message";
    const mine = !system && !entry.spectator && S.seated && entry.seat === S.seat;
    const li = h("li", {
      class: `chat-item${system ? " chat-item--system" : ""}${entry.spectator ? " chat-item--spectator" : ""}${mine ? " is-me" : ""}`,
      dataset: { n: String(entry.n), kind: entry.kind },
    });
    const time = h("time", { class: "chat-time", datetime: entry.at, text: clock(entry.at) });
    if (system) {
      const what = entry.kind === "spectators_off" ? "chat.system.spectators_off" : "chat.system.spectators_on";
      add(li, time, h("span", { class: "chat-text", text: t(what, { name: entry.name }) }));
      return li;
    }
    const who = h("span", { class: "chat-name", text: entry.name });
    if (typeof entry.seat === "number" && !entry.spectator) who.style.setProperty("--hue", String(seatHue(entry.seat)));
    add(li, time, who,
      entry.spectator ? h("span", { class: "badge chat-watching", text: t("chat.watching") }) : null,
      h("span", { class: "visually-hidden", text: ": " }), // read aloud: "Ann: gg"
      h("span", { class: "chat-text", text: entry.text }));
    return li;
  }

  /**
   * @param {ChatEntry | null | undefined} entry
   * @param {boolean} live a chat frame's (not a welcome's)
   */
  function insert(entry, live) {
    if (!entry || typeof entry.n !== "number" || S.entries.has(entry.n)) return;
    const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    const li = line(entry);
    // Numbers only grow; a late frame still goes in its place.
    /** @type {HTMLLIElement | null} */
    let before = null;
    for (const [n, el] of S.entries) if (n > entry.n && (!before || n < Number(before.dataset.n))) before = el;
    list.insertBefore(li, before);
    S.entries.set(entry.n, li);
    while (S.entries.size > KEEP) {
      const first = Math.min(...S.entries.keys());
      S.entries.get(first)?.remove();
      S.entries.delete(first);
    }
    if (stick || !live) list.scrollTop = list.scrollHeight;
    if (entry.kind === "message" && S.pending && entry.text === S.pending.text) S.pending = null;
    if (entry.n > S.lastSeen) {
      if (reading()) S.lastSeen = entry.n;
      else if (entry.kind === "message" && !li.classList.contains("is-me")) S.unread += 1;
    }
  }

  return {
    element,
    jump,
    /** @param {ChatEntry[]} entries */
    restore(entries) {
      if (!Array.isArray(entries)) return;
      // A welcome (first or after a reconnect) carries the last entries: what is not shown
      // yet is added, in order; what is shown stays.
      for (const entry of entries) insert(entry, false);
      if (!S.restoredOnce) {
        // What was said before this page opened is not "unread".
        S.restoredOnce = true;
        S.unread = 0;
        for (const n of S.entries.keys()) S.lastSeen = Math.max(S.lastSeen, n);
      }
      paint();
    },
    /** @param {ChatEntry} entry */
    add(entry) {
      insert(entry, true);
      if (entry && entry.kind !== "message") S.switchPending = false;
      paint();
    },
    /**
     * @param {import("./protocol.js").TableState | null} table
     * @param {{seat: number | null, seated: boolean}} me
     */
    setTable(table, { seat, seated }) {
      const chat = table && table.chat;
      S.seat = seat;
      S.seated = seated;
      S.host = chat && typeof chat.host === "number" ? chat.host : null;
      S.spectators = chat ? chat.spectators !== false : true;
      paint();
    },
    /** @param {{code: string, message: string} | null} msg an error frame */
    error(msg) {
      if (!msg || !CHAT_ERRORS.has(msg.code)) return false;
      S.switchPending = false;
      // A refused message goes back into the input (unless something new was typed).
      if (S.pending && S.pending.typed && !input.value) input.value = S.pending.text;
      S.pending = null;
      paint();
      showError(errorText(msg, String(msg.code)));
      return true;
    },
    destroy() {
      if (observer) observer.disconnect();
    },
  };
}
