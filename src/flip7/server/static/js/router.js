// History API routing: "/", "/t/{id}", "/replay/game/{id}", "/replay/{id}", "/scorekeeper",
// "/scorekeeper/{id}" (the routes themselves are in main.js).
/**
 * What a page's mount function returns: how to take the page down when another replaces
 * it (undefined: nothing to take down).
 * @typedef {{destroy(): void}} View
 */

/** @type {() => void} */
let handler = () => {};

/** @param {() => void} fn */
export function setRouteHandler(fn) {
  handler = fn;
}

/**
 * @param {string} path
 * @param {{replace?: boolean}} [options]
 */
export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState({}, "", path);
  else history.pushState({}, "", path);
  handler();
}

/**
 * The header's right-hand slot, owned by the current view.
 * @param {...(Node | null | undefined)} nodes
 */
export function setTopbar(...nodes) {
  const slot = document.getElementById("topbar-right");
  if (!slot) return;
  while (slot.firstChild) slot.removeChild(slot.firstChild);
  for (const n of nodes) if (n) slot.appendChild(n);
}
