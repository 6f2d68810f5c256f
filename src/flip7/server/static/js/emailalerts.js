// Turn alerts by e-mail: the panel on your profile (/me) that adds an address, says whether
// it is verified and turns the alerts on or off; and the pages the e-mail's links open
// (/email/verify/{token}, /email/unsubscribe/{token}). Only where the server sends e-mail.
import { api } from "./api.js";
import { errorText, t } from "./i18n.js";
import { clear, h, switchField, toast } from "./util.js";

/** @typedef {import("./protocol.js").EmailStatus} EmailStatus */

/**
 * The e-mail alerts panel (hidden where the server sends no e-mail).
 * @param {() => boolean} alive whether the page is still on screen
 * @returns {HTMLElement}
 */
export function emailPanel(alive) {
  const body = h("div", { class: "email-body", "aria-live": "polite" });
  const panel = h("section", { class: "panel identity-panel", "aria-labelledby": "email-title", hidden: true, dataset: { testid: "email-panel" } },
    h("h2", { id: "email-title", text: t("players.email.title") }),
    h("p", { class: "muted", text: t("players.email.how") }), body);

  /**
   * @param {import("./api.js").Method} method
   * @param {object} [json]
   */
  async function call(method, json) {
    try {
      const status = /** @type {EmailStatus} */ (await api(method, "/api/players/me/email", json ? { body: json } : {}));
      if (alive()) render(status);
      return true;
    } catch (err) {
      toast(errorText(err));
      return false;
    }
  }

  /** @param {string} value */
  function addressForm(value) {
    const input = h("input", { id: "email-address", class: "input", type: "email", autocomplete: "email", required: true, value, placeholder: t("players.email.placeholder"), dataset: { testid: "email-input" } });
    const send = h("button", { type: "submit", class: "btn btn--secondary", dataset: { testid: "email-send" } }, t("players.email.send"));
    const form = h("form", { class: "email-form", novalidate: true },
      h("label", { for: "email-address", class: "field-label", text: t("players.email.address") }),
      h("div", { class: "invite-row" }, input, send));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      send.disabled = true;
      if (await call("PUT", { address: input.value.trim() })) toast(t("players.email.sent", { address: input.value.trim() }), "ok");
      send.disabled = false;
    });
    return form;
  }

  /** @param {EmailStatus} status */
  function render(status) {
    panel.hidden = !status.offered;
    clear(body);
    const mail = status.email;
    if (!mail) {
      body.append(addressForm(""));
      return;
    }
    const remove = h("button", { type: "button", class: "btn btn--ghost btn--small", dataset: { testid: "email-remove" }, onclick: () => call("DELETE") }, t("players.email.remove"));
    if (!mail.verified) {
      body.append(h("p", { dataset: { testid: "email-state" }, text: t("players.email.unverified", { address: mail.address }) }),
        addressForm(mail.address), remove);
      return;
    }
    const on = /** @type {HTMLInputElement} */ (h("input", { id: "email-alerts", type: "checkbox", class: "switch-input", checked: mail.alerts, dataset: { testid: "email-alerts" } }));
    on.addEventListener("change", () => call("PATCH", { alerts: on.checked }));
    body.append(h("p", { dataset: { testid: "email-state" }, text: t("players.email.verified", { address: mail.address }) }),
      switchField(on, t("players.email.alerts"), t("players.email.alerts_help")), remove);
  }

  api("GET", "/api/players/me/email").then((status) => {
    if (alive()) render(/** @type {EmailStatus} */ (status));
  }).catch(() => { /* no panel: the profile shows without it */ });
  return panel;
}

/**
 * The page an e-mail's link opens: the address verified, or the alerts turned off.
 * @param {HTMLElement} root
 * @param {{kind: "verify" | "unsubscribe", token: string}} options
 * @returns {null}
 */
export function mountEmailLink(root, { kind, token }) {
  document.body.dataset.view = "email";
  document.title = `${t(`players.email.${kind}_title`)} · Flip 7`;
  const text = h("p", { dataset: { testid: "email-result" }, text: t("players.email.working") });
  root.appendChild(h("section", { class: "panel identity-page", "aria-labelledby": "email-page-title", dataset: { testid: "email-page" } },
    h("h1", { id: "email-page-title", text: t(`players.email.${kind}_title`) }), text,
    h("div", { class: "identity-actions" },
      h("a", { class: "btn btn--primary", href: "/me", "data-link": true }, t("players.email.to_profile")),
      h("a", { class: "btn btn--ghost", href: "/", "data-link": true }, t("common.back_to_lobby")))));
  api("POST", `/api/email/${kind}`, { body: { token } }).then((answer) => {
    const address = /** @type {{address: string}} */ (answer).address;
    text.textContent = t(`players.email.${kind}_done`, { address });
  }).catch((err) => {
    text.textContent = errorText(err);
    text.classList.add("form-error");
  });
  return null;
}
