// "Your turn", even in another tab: while it is the player's turn the tab's title and
// favicon say so; when the turn arrives an optional chime plays (made with WebAudio: no
// sound file) and, if the page is hidden and the player allowed it, a browser notification
// appears. Each of the three can be switched in a small menu; the choice is remembered per
// browser (localStorage). table.js calls turnAlerts().
import { t } from "./i18n.js";
import { clear, h, icon, store } from "./util.js";

const PREFS_KEY = "flip7.alerts";
const DEFAULTS = Object.freeze({ title: true, sound: false, notify: false });
const ICON = "/static/favicon.svg";
const ICON_TURN = "/static/favicon-turn.svg";

/**
 * The player's alert choices.
 * @typedef {{title: boolean, sound: boolean, notify: boolean}} AlertPrefs
 * @typedef {keyof AlertPrefs} AlertKind
 */

/**
 * The player's alert choices.
 * @returns {AlertPrefs}
 */
export function alertPrefs() {
  /** @type {Record<string, unknown>} */
  let saved = {};
  try {
    const raw = store.get(PREFS_KEY);
    const parsed = raw ? JSON.parse(raw) : {};
    if (parsed && typeof parsed === "object") saved = parsed;
  } catch {
    saved = {};
  }
  /** @type {AlertPrefs} */
  const out = { ...DEFAULTS };
  for (const key of /** @type {AlertKind[]} */ (Object.keys(DEFAULTS))) {
    const value = saved[key];
    if (typeof value === "boolean") out[key] = value;
  }
  return out;
}

/** @param {AlertPrefs} prefs */
function savePrefs(prefs) {
  store.set(PREFS_KEY, JSON.stringify(prefs));
}

function notificationsSupported() {
  return typeof window.Notification === "function";
}

function permission() {
  return notificationsSupported() ? window.Notification.permission : "unsupported";
}

// One AudioContext for the page, made (or resumed) from a user gesture: browsers only let
// a page start sound after the player has interacted with it.
/** @type {AudioContext | null} */
let audio = null;
function audioContext() {
  // Old Safari has only the prefixed constructor.
  const Ctx = window.AudioContext || /** @type {{webkitAudioContext?: typeof AudioContext}} */ (window).webkitAudioContext;
  if (!Ctx) return null;
  if (!audio) {
    try {
      audio = new Ctx();
    } catch {
      audio = null;
    }
  }
  return audio;
}

function unlockAudio() {
  const ctx = audioContext();
  if (ctx && ctx.state === "suspended") ctx.resume().catch(() => {});
}

/** A short two-note chime (a rising fifth), quiet and soft-edged. */
export function playChime() {
  const ctx = audioContext();
  if (!ctx) return false;
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
  const start = ctx.currentTime + 0.02;
  /** @type {Array<[number, number]>} */ ([[659.25, 0], [987.77, 0.14]]).forEach(([freq, delay]) => {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = "sine";
    osc.frequency.value = freq;
    const at = start + delay;
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.18, at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.45);
    osc.connect(gain).connect(ctx.destination);
    osc.start(at);
    osc.stop(at + 0.5);
  });
  return true;
}

/** @param {string} href */
function setFavicon(href) {
  let link = document.querySelector('link[rel="icon"]');
  if (!link) {
    link = h("link", { rel: "icon", type: "image/svg+xml" });
    document.head.appendChild(link);
  }
  if (link.getAttribute("href") !== href) link.setAttribute("href", href);
}

/**
 * The turn alerts of one table page. Returns
 *  {element: the settings menu and its toggle (for the table's header),
 *   update({mine, title, body}): called on every render: `mine` is whether the player must
 *     decide now, `title` the page's own title, `body` one line for the notification,
 *   destroy()}.
 * @returns {{element: HTMLElement, update(turn: {mine: boolean, title: string, body?: string | null}): void, destroy(): void}}
 */
export function turnAlerts() {
  let prefs = alertPrefs();
  let mine = false;
  let baseTitle = document.title;
  let body = "";
  /** @type {Notification | null} */
  let note = null; // the notification on screen
  let open = false;

  // ---- the settings menu --------------------------------------------------------
  const menuId = `alerts-menu-${Math.random().toString(36).slice(2, 8)}`;
  const button = h("button", {
    type: "button", class: "btn btn--ghost btn--small alerts-toggle", "aria-haspopup": "true", "aria-expanded": "false",
    "aria-controls": menuId, "aria-label": t("table.alerts.label"), title: t("table.alerts.label"), dataset: { testid: "alerts-toggle" },
    onclick: (ev) => { ev.stopPropagation(); setOpen(!open); },
  }, icon("bell"), h("span", { class: "hide-narrow", text: t("table.alerts.button") }));
  const menu = h("div", { id: menuId, class: "alerts-menu panel", role: "group", "aria-label": t("table.alerts.label"), hidden: true, dataset: { testid: "alerts-menu" } });
  const wrap = h("div", { class: "alerts" }, button, menu);

  /**
   * @param {AlertKind} key
   * @param {string} label
   * @param {string} help
   */
  function row(key, label, help) {
    const id = `${menuId}-${key}`;
    const input = h("input", { id, type: "checkbox", class: "switch-input", dataset: { alert: key } });
    input.checked = prefs[key];
    input.addEventListener("change", () => choose(key, input.checked, input));
    return h("div", { class: "switch-field" }, input,
      h("label", { for: id, class: "switch-label" },
        h("span", { class: "switch", "aria-hidden": "true" }),
        h("span", { class: "switch-text" }, h("span", { text: label }), h("small", { class: "muted", text: help }))));
  }

  function renderMenu() {
    clear(menu);
    const perm = permission();
    const notifyHelp = perm === "unsupported" ? t("table.alerts.notify_unsupported")
      : perm === "denied" ? t("table.alerts.notify_denied")
        : t("table.alerts.notify_help");
    menu.append(
      h("p", { class: "alerts-title", text: t("table.alerts.title") }),
      row("title", t("table.alerts.tab"), t("table.alerts.tab_help")),
      row("sound", t("table.alerts.sound"), t("table.alerts.sound_help")),
      row("notify", t("table.alerts.notify"), notifyHelp));
    const n = menu.querySelector('input[data-alert="notify"]');
    if (n instanceof HTMLInputElement && (perm === "unsupported" || perm === "denied")) {
      n.disabled = true;
      n.checked = false;
    }
    const test = h("button", { type: "button", class: "btn btn--ghost btn--small", dataset: { testid: "alerts-test" },
      onclick: () => playChime() }, t("table.alerts.play"));
    test.disabled = !prefs.sound;
    menu.appendChild(h("div", { class: "alerts-foot" }, test));
  }

  /**
   * @param {AlertKind} key
   * @param {boolean} on
   * @param {HTMLInputElement} input
   */
  async function choose(key, on, input) {
    if (key === "notify" && on) {
      // Asked here, inside the click on the switch: browsers only ask from a user gesture.
      let perm = permission();
      if (perm === "default") {
        try {
          perm = await window.Notification.requestPermission();
        } catch {
          perm = permission();
        }
      }
      if (perm !== "granted") {
        input.checked = false;
        on = false;
      }
    }
    if (key === "sound" && on) {
      unlockAudio();
      playChime(); // so the player hears what it will sound like
    }
    prefs = { ...prefs, [key]: on };
    savePrefs(prefs);
    renderMenu();
    const again = menu.querySelector(`input[data-alert="${key}"]`);
    if (again instanceof HTMLInputElement) again.focus();
    show();
  }

  /** @param {boolean} value */
  function setOpen(value) {
    open = value;
    menu.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
    if (open) {
      renderMenu();
      const first = menu.querySelector("input");
      if (first) first.focus();
    }
  }

  const onDocClick = (/** @type {MouseEvent} */ ev) => { if (open && !(ev.target instanceof Node && wrap.contains(ev.target))) setOpen(false); };
  const onKey = (/** @type {KeyboardEvent} */ ev) => {
    if (open && ev.key === "Escape") {
      setOpen(false);
      button.focus();
    }
  };
  const onGesture = () => { if (prefs.sound) unlockAudio(); };
  const onVisible = () => {
    if (!document.hidden && note) {
      note.close();
      note = null;
    }
  };
  document.addEventListener("click", onDocClick);
  document.addEventListener("keydown", onKey);
  document.addEventListener("pointerdown", onGesture, true);
  document.addEventListener("keydown", onGesture, true);
  document.addEventListener("visibilitychange", onVisible);

  // ---- the alerts ---------------------------------------------------------------
  function show() {
    const flag = mine && prefs.title;
    const title = flag ? t("table.alerts.tab_title", { title: baseTitle }) : baseTitle;
    if (document.title !== title) document.title = title;
    setFavicon(flag ? ICON_TURN : ICON);
  }

  function arrive() {
    if (prefs.sound) playChime();
    if (prefs.notify && document.hidden && permission() === "granted") {
      try {
        if (note) note.close();
        note = new window.Notification(t("table.alerts.notification"), { body, icon: ICON, tag: "flip7-turn" });
        note.onclick = () => {
          window.focus();
          if (note) note.close();
          note = null;
        };
      } catch {
        note = null; // some browsers only notify from a service worker
      }
    }
  }

  return {
    element: wrap,
    update({ mine: nowMine, title, body: text }) {
      baseTitle = title;
      body = text || "";
      const began = nowMine && !mine;
      mine = nowMine;
      if (!mine && note) {
        note.close();
        note = null;
      }
      show();
      if (began) arrive();
    },
    destroy() {
      document.removeEventListener("click", onDocClick);
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onGesture, true);
      document.removeEventListener("keydown", onGesture, true);
      document.removeEventListener("visibilitychange", onVisible);
      if (note) note.close();
      mine = false;
      setFavicon(ICON);
    },
  };
}
