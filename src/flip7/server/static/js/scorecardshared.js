// What the scorekeeper's pages (scorekeeper.js, the list; scorecard*.js, one scorecard)
// share: their paths, a score as they show it, a player's avatar, the yes/no dialog.
import { formatNumber, t } from "./i18n.js";
import { playerHue } from "./chart.js";
import { h, initial } from "./util.js";

/** The REST path of a scorecard. @param {string} id */
export const scorecardApi = (id) => `/api/scorecards/${encodeURIComponent(id)}`;
/** The page of a scorecard. @param {string} id */
export const scorecardPage = (id) => `/scorekeeper/${encodeURIComponent(id)}`;

/**
 * @param {string} name
 * @param {number} seat
 * @param {boolean} [small]
 */
export function avatarEl(name, seat, small = false) {
  return h("span", { class: `avatar${small ? " avatar--small" : ""}`, style: { "--hue": String(playerHue(seat)) }, "aria-hidden": "true", text: initial(name) });
}

/**
 * A round's score: "+12", "−3", "0"; "–" for none.
 * @param {number | null | undefined} n
 */
export function signed(n) {
  if (n === null || n === undefined) return "–";
  return n > 0 ? `+${formatNumber(n)}` : n < 0 ? `−${formatNumber(-n)}` : formatNumber(0);
}

/**
 * A total: "12", "−3".
 * @param {number} n
 */
export function plain(n) {
  return n < 0 ? `−${formatNumber(-n)}` : formatNumber(n);
}

/**
 * A modal yes/no question in the app's dialog style; resolves to true or false.
 * @param {string} title
 * @param {string} text
 * @param {string} okLabel
 * @returns {Promise<boolean>}
 */
export function confirmDialog(title, text, okLabel) {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: "dialog", "aria-labelledby": "confirm-title" });
    const ok = h("button", { type: "submit", class: "btn btn--primary", value: "ok", dataset: { testid: "confirm-ok" } }, okLabel);
    const form = h("form", { method: "dialog", class: "dialog-form" },
      h("h2", { id: "confirm-title", text: title }),
      h("p", { class: "muted", text }),
      h("div", { class: "dialog-actions" },
        h("button", { type: "button", class: "btn btn--ghost", onclick: () => dialog.close("cancel") }, t("common.cancel")),
        ok));
    dialog.appendChild(form);
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue === "ok");
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    ok.focus();
  });
}
