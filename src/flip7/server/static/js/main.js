// Entry point: picks the view for the current path and swaps views on navigation.
import { mountCoach } from "./coach.js";
import { mountEmailLink } from "./emailalerts.js";
import { installExplain, setExplainRules } from "./explain.js";
import { languageSwitch, loadMessages, t } from "./i18n.js";
import { installPlayerBar, mountClaim, placePlayerBar } from "./identity.js";
import { mountLeaderboard } from "./leaderboard.js";
import { mountLobby } from "./lobby.js";
import { mountReplay } from "./replay.js";
import { mountProfile } from "./profile.js";
import { loadRules } from "./rules.js";
import { mountRulesPage } from "./rulespage.js";
import { setRouteHandler, setTopbar } from "./router.js";
import { mountScorecard, mountScorekeeperList } from "./scorekeeper.js";
import { mountTable } from "./table.js";
import { clear, h } from "./util.js";

/**
 * A path's pattern, and the page for its match.
 * @typedef {[RegExp, (m: RegExpMatchArray) => (root: HTMLElement) => import("./router.js").View | null | undefined]} Route
 */

/** @type {Route[]} */
const ROUTES = [
  [/^\/?$/, () => mountLobby],
  [/^\/t\/([^/]+)\/?$/, (m) => (root) => mountTable(root, { id: decodeURIComponent(m[1]) })],
  [/^\/replay\/game\/([^/]+)\/?$/, (m) => (root) => mountReplay(root, { gameId: decodeURIComponent(m[1]) })],
  [/^\/replay\/([^/]+)\/?$/, (m) => (root) => mountReplay(root, { uploadId: decodeURIComponent(m[1]) })],
  [/^\/scorekeeper\/?$/, () => mountScorekeeperList],
  [/^\/scorekeeper\/([^/]+)\/?$/, (m) => (root) => mountScorecard(root, { id: decodeURIComponent(m[1]) })],
  [/^\/rules\/?$/, () => mountRulesPage],
  // Players (issue 16): profiles, the own identity, the leaderboard, the coach, a transfer link.
  [/^\/me\/?$/, () => (root) => mountProfile(root, { me: true })],
  [/^\/players\/([^/]+)\/?$/, (m) => (root) => mountProfile(root, { id: decodeURIComponent(m[1]) })],
  [/^\/leaderboard\/?$/, () => mountLeaderboard],
  [/^\/coach\/([^/]+)\/(\d+)\/?$/, (m) => (root) => mountCoach(root, { gameId: decodeURIComponent(m[1]), seat: Number(m[2]) })],
  [/^\/link\/([^/]+)\/?$/, (m) => (root) => mountClaim(root, { code: decodeURIComponent(m[1]) })],
  // The links of the turn alerts' e-mails (issue "Tables that wait").
  [/^\/email\/(verify|unsubscribe)\/([^/]+)\/?$/, (m) => (root) => mountEmailLink(root, { kind: m[1] === "verify" ? "verify" : "unsubscribe", token: decodeURIComponent(m[2]) })],
];

// The header's "Rules" link, on every page. From a table it opens the rules in a new tab,
// so that the game stays where it is.
const rulesLink = h("a", { href: "/rules", class: "topbar-link", dataset: { testid: "rules-link" } }, t("common.rules"));
// The language switch (i18n.js), on every page, beside the "Rules" link.
const langSwitch = h("span", { class: "topbar-lang" }, languageSwitch());
const topbarRight = document.getElementById("topbar-right");
if (topbarRight) topbarRight.before(rulesLink, langSwitch);
// index.html's own few words: data-i18n (text), data-i18n-aria-label, data-i18n-content.
for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.getAttribute("data-i18n") || "");
for (const el of document.querySelectorAll("[data-i18n-aria-label]")) el.setAttribute("aria-label", t(el.getAttribute("data-i18n-aria-label") || ""));
for (const el of document.querySelectorAll("[data-i18n-content]")) el.setAttribute("content", t(el.getAttribute("data-i18n-content") || ""));

/** @param {string} path */
function placeRulesLink(path) {
  const atTable = /^\/t\//.test(path);
  rulesLink.toggleAttribute("data-link", !atTable);
  if (atTable) {
    rulesLink.target = "_blank";
    rulesLink.rel = "noopener";
  } else {
    rulesLink.removeAttribute("target");
    rulesLink.removeAttribute("rel");
  }
  if (path.replace(/\/$/, "") === "/rules") rulesLink.setAttribute("aria-current", "page");
  else rulesLink.removeAttribute("aria-current");
}

/** @type {import("./router.js").View | null} */
let current = null;

function route() {
  if (current && current.destroy) current.destroy();
  current = null;
  const main = document.getElementById("main");
  if (!main) return; // index.html always has it
  clear(main);
  setTopbar();
  document.body.dataset.view = "";
  setExplainRules(null); // a table sets its own rules for the cards' words
  const path = window.location.pathname;
  placeRulesLink(path);
  placePlayerBar(path); // identity.js: the player chip, the leaderboard link, the welcome
  for (const [re, make] of ROUTES) {
    const m = path.match(re);
    if (m) {
      current = make(m)(main) || null;
      window.scrollTo(0, 0);
      return;
    }
  }
  document.title = t("common.title_not_found");
  main.appendChild(h("section", { class: "panel notfound" },
    h("h1", { text: t("common.not_found") }),
    h("p", { text: t("common.not_found_text") }),
    h("a", { href: "/", "data-link": true, class: "btn btn--primary" }, t("common.back_to_lobby"))));
}

document.addEventListener("click", (ev) => {
  const a = ev.target instanceof Element ? ev.target.closest("a[data-link]") : null;
  if (!(a instanceof HTMLAnchorElement) || ev.defaultPrevented || ev.button !== 0) return;
  if (ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  const url = new URL(a.href, window.location.href);
  if (url.origin !== window.location.origin) return;
  ev.preventDefault();
  if (url.pathname !== window.location.pathname) history.pushState({}, "", url.pathname + url.search);
  route();
});

window.addEventListener("popstate", route);
setRouteHandler(route);
installExplain();
installPlayerBar();

/** The rules come from the server (rules.js): the first page waits for them, a few tries. */
async function start() {
  await loadMessages(); // already loaded by i18n.js' own top-level await: instant
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      await loadRules();
      break;
    } catch {
      await new Promise((resolve) => { setTimeout(resolve, 500 * (attempt + 1)); });
    }
  }
  route();
}
start();
