// Turn alerts by Web Push: the panel on your profile (/me) that lets this browser take a
// notification when a turn-based decision comes to you while no tab of the game is open.
// The browser subscribes to its own push service with the server's key (GET /api/push/key)
// and the service worker /sw.js (sw.js) shows what the server pushes. Where the browser
// cannot (no service worker or Push API: old browsers, iPhones outside a home-screen app),
// the panel says so.
import { api } from "./api.js";
import { errorText, lang, t } from "./i18n.js";
import { clear, h, switchField, toast } from "./util.js";

/** @typedef {import("./protocol.js").PushKey} PushKey */

function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && typeof window.Notification === "function";
}

/**
 * The key a browser subscribes with, as the bytes the Push API takes.
 * @param {string} base64url
 */
function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** This browser's subscription, if it has one. */
async function currentSubscription() {
  const registration = await navigator.serviceWorker.getRegistration("/");
  return registration ? registration.pushManager.getSubscription() : null;
}

/**
 * Subscribe this browser and tell the server (its language too: the alert is worded in it).
 * @param {string} publicKey
 */
async function subscribe(publicKey) {
  const registration = await navigator.serviceWorker.register("/sw.js");
  await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) });
  await api("POST", "/api/players/me/push", { body: { ...subscription.toJSON(), lang: lang() } });
}

async function unsubscribe() {
  const subscription = await currentSubscription();
  if (!subscription) return;
  await api("DELETE", "/api/players/me/push", { body: { endpoint: subscription.endpoint } });
  await subscription.unsubscribe();
}

/**
 * The push alerts panel.
 * @param {() => boolean} alive whether the page is still on screen
 * @returns {HTMLElement}
 */
export function pushPanel(alive) {
  const body = h("div", { class: "push-body", "aria-live": "polite" });
  const panel = h("section", { class: "panel identity-panel", "aria-labelledby": "push-title", dataset: { testid: "push-panel" } },
    h("h2", { id: "push-title", text: t("players.push.title") }),
    h("p", { class: "muted", text: t("players.push.how") }), body);

  /** @param {string} key */
  function say(key) {
    clear(body);
    body.append(h("p", { dataset: { testid: "push-state" }, text: t(key) }));
  }

  /**
   * @param {string} publicKey
   * @param {boolean} subscribed
   */
  function render(publicKey, subscribed) {
    clear(body);
    const on = /** @type {HTMLInputElement} */ (h("input", { id: "push-alerts", type: "checkbox", class: "switch-input", checked: subscribed, dataset: { testid: "push-alerts" } }));
    const state = h("p", { dataset: { testid: "push-state" }, text: t(subscribed ? "players.push.on" : "players.push.off") });
    on.addEventListener("change", async () => {
      on.disabled = true;
      const wanted = on.checked;
      try {
        if (wanted) {
          const allowed = await window.Notification.requestPermission();
          if (allowed !== "granted") {
            on.checked = false;
            state.textContent = t("players.push.denied");
            return;
          }
          await subscribe(publicKey);
        } else {
          await unsubscribe();
        }
        state.textContent = t(wanted ? "players.push.on" : "players.push.off");
      } catch (err) {
        on.checked = !wanted;
        toast(errorText(err, t("players.push.failed")));
      } finally {
        on.disabled = false;
      }
    });
    body.append(switchField(on, t("players.push.switch"), t("players.push.switch_help")), state);
  }

  if (!pushSupported()) {
    say("players.push.unsupported");
  } else {
    Promise.all([api("GET", "/api/push/key"), currentSubscription()]).then(([key, subscription]) => {
      if (!alive()) return;
      const publicKey = /** @type {PushKey} */ (key).public_key;
      if (!publicKey) panel.hidden = true;
      else if (window.Notification.permission === "denied") say("players.push.denied");
      else render(publicKey, subscription !== null);
    }).catch(() => {
      panel.hidden = true;
    });
  }
  return panel;
}
