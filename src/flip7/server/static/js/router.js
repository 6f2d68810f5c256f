// History API routing: "/", "/t/{id}", "/replay/game/{id}", "/replay/{id}", "/scorekeeper",
// "/scorekeeper/{id}" (the routes themselves are in main.js).
let handler = () => {};

export function setRouteHandler(fn) {
  handler = fn;
}

export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState({}, "", path);
  else history.pushState({}, "", path);
  handler();
}

/** The header's right-hand slot, owned by the current view. */
export function setTopbar(...nodes) {
  const slot = document.getElementById("topbar-right");
  if (!slot) return;
  while (slot.firstChild) slot.removeChild(slot.firstChild);
  for (const n of nodes) if (n) slot.appendChild(n);
}
