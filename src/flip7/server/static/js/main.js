// Entry point: picks the view for the current path and swaps views on navigation.
import { installExplain, setExplainRules } from "./explain.js";
import { mountLobby } from "./lobby.js";
import { mountReplay } from "./replay.js";
import { loadRules } from "./rules.js";
import { mountRulesPage } from "./rulespage.js";
import { setRouteHandler, setTopbar } from "./router.js";
import { mountScorecard, mountScorekeeperList } from "./scorekeeper.js";
import { mountTable } from "./table.js";
import { clear, h } from "./util.js";

const ROUTES = [
  [/^\/?$/, () => mountLobby],
  [/^\/t\/([^/]+)\/?$/, (m) => (root) => mountTable(root, { id: decodeURIComponent(m[1]) })],
  [/^\/replay\/game\/([^/]+)\/?$/, (m) => (root) => mountReplay(root, { gameId: decodeURIComponent(m[1]) })],
  [/^\/replay\/([^/]+)\/?$/, (m) => (root) => mountReplay(root, { uploadId: decodeURIComponent(m[1]) })],
  [/^\/scorekeeper\/?$/, () => mountScorekeeperList],
  [/^\/scorekeeper\/([^/]+)\/?$/, (m) => (root) => mountScorecard(root, { id: decodeURIComponent(m[1]) })],
  [/^\/rules\/?$/, () => mountRulesPage],
];

// The header's "Rules" link, on every page. From a table it opens the rules in a new tab,
// so that the game stays where it is.
const rulesLink = h("a", { href: "/rules", class: "topbar-link", dataset: { testid: "rules-link" } }, "Rules");
const topbarRight = document.getElementById("topbar-right");
if (topbarRight) topbarRight.before(rulesLink);

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

let current = null;

function route() {
  if (current && current.destroy) current.destroy();
  current = null;
  const main = document.getElementById("main");
  clear(main);
  setTopbar();
  document.body.dataset.view = "";
  setExplainRules(null); // a table sets its own rules for the cards' words
  const path = window.location.pathname;
  placeRulesLink(path);
  for (const [re, make] of ROUTES) {
    const m = path.match(re);
    if (m) {
      current = make(m)(main) || null;
      window.scrollTo(0, 0);
      return;
    }
  }
  document.title = "Not found · Flip 7";
  main.appendChild(h("section", { class: "panel notfound" },
    h("h1", { text: "Nothing here" }),
    h("p", { text: "This page does not exist." }),
    h("a", { href: "/", "data-link": true, class: "btn btn--primary" }, "Back to the lobby")));
}

document.addEventListener("click", (ev) => {
  const a = ev.target.closest && ev.target.closest("a[data-link]");
  if (!a || ev.defaultPrevented || ev.button !== 0) return;
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

/** The rules come from the server (rules.js): the first page waits for them, a few tries. */
async function start() {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      await loadRules();
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500 * (attempt + 1)));
    }
  }
  route();
}
start();
