// The service worker, served at /sw.js so that it controls the whole site. It has one job:
// a turn alert pushed by the server (flip7.server.services.push) while no tab of the game is
// open becomes a notification, worded in the language the browser subscribed in (its
// catalogue, fetched here; the server's English sentences if that fails), and a tap on it
// opens the table, or brings its tab forward. Nothing is cached: the app needs the server
// anyway.

/**
 * What the server pushes (services/push.py).
 * @typedef {{title: string, body: string, table_name: string, url: string, table: string, deadline: number, lang: string}} PushAlert
 * @typedef {{focus(): Promise<unknown>, url: string}} WindowClientLike
 * @typedef {Event & {waitUntil(work: Promise<unknown>): void}} ExtendableEventLike
 * @typedef {ExtendableEventLike & {data: {json(): unknown} | null}} PushEventLike
 * @typedef {ExtendableEventLike & {notification: Notification}} NotificationEventLike
 * @typedef {{
 *   registration: ServiceWorkerRegistration,
 *   clients: {matchAll(options: object): Promise<ReadonlyArray<WindowClientLike>>, openWindow(url: string): Promise<unknown>},
 *   skipWaiting(): Promise<void>,
 *   addEventListener(type: string, listener: (event: never) => void): void,
 * }} WorkerScope
 */

// The DOM library's types have no service worker scope: the parts used here, typed above.
const worker = /** @type {WorkerScope} */ (/** @type {unknown} */ (self));

/**
 * The catalogue of the player's language (players.json holds the alert's words).
 * @param {string} lang
 * @returns {Promise<Record<string, unknown>>}
 */
async function catalogue(lang) {
  try {
    const answer = await fetch(`/static/locales/${encodeURIComponent(lang)}/players.json`);
    if (answer.ok) return /** @type {Record<string, unknown>} */ (await answer.json());
  } catch {
    // offline or the server away: the English sentences the push carries
  }
  return {};
}

/**
 * @param {unknown} text
 * @param {Record<string, string>} params
 * @param {string} fallback
 */
function worded(text, params, fallback) {
  if (typeof text !== "string") return fallback;
  return text.replace(/\{(\w+)\}/g, (whole, name) => params[name] ?? whole);
}

/** @param {PushAlert} alert */
async function showAlert(alert) {
  const words = await catalogue(alert.lang);
  let until = "";
  try {
    until = new Intl.DateTimeFormat(alert.lang, { weekday: "short", hour: "2-digit", minute: "2-digit" }).format(new Date(alert.deadline * 1000));
  } catch {
    until = new Date(alert.deadline * 1000).toUTCString();
  }
  const title = worded(words["players.push.alert_title"], { table: alert.table_name }, alert.title);
  const body = worded(words["players.push.alert_body"], { until }, alert.body);
  // One notification a table: a later alert replaces the earlier one.
  await worker.registration.showNotification(title, {
    body, tag: `turn-${alert.table}`, icon: "/static/favicon-turn.svg", data: { url: alert.url },
  });
}

worker.addEventListener("install", () => {
  // A new version takes over at once: it holds no state.
  void worker.skipWaiting();
});

worker.addEventListener("push", (/** @type {PushEventLike} */ event) => {
  if (!event.data) return;
  /** @type {PushAlert} */
  let alert;
  try {
    alert = /** @type {PushAlert} */ (event.data.json());
  } catch {
    return;
  }
  event.waitUntil(showAlert(alert));
});

/** @param {string} url */
async function openTable(url) {
  const target = new URL(url, worker.registration.scope).href;
  const tabs = await worker.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = tabs.find((tab) => tab.url === target);
  if (open) await open.focus();
  else await worker.clients.openWindow(target);
}

worker.addEventListener("notificationclick", (/** @type {NotificationEventLike} */ event) => {
  event.notification.close();
  const data = /** @type {{url?: unknown}} */ (event.notification.data || {});
  if (typeof data.url === "string" && data.url.startsWith("/")) event.waitUntil(openTable(data.url));
});
