// A table host's invitations of bot accounts (docs/bot-api.md): the bot accounts that take
// invitations now, each with "Invite". The waiting room shows them to its host, and the
// lobby beside each table of its list this browser hosts that waits for players.
import { api } from "./api.js";
import { botAccountBadge } from "./botlevels.js";
import { t } from "./i18n.js";
import { clear, h } from "./util.js";

/** @typedef {import("./protocol.js").BotAccountList} BotAccountList */

/**
 * The bot accounts one may invite to a table: those listed (`GET /api/bot-accounts`) but
 * the identities already seated there.
 * @param {BotAccountList | null} data
 * @param {Set<string>} seated  the identities seated at the table
 * @returns {BotAccountList["bots"]}
 */
export function invitableBots(data, seated) {
  return data ? data.bots.filter((b) => !seated.has(b.id)) : [];
}

/**
 * Whether the lobby offers bot invitations at a table of its list: this browser hosts it
 * (`hosting`: the list was asked with the host's seat token) and the table waits for
 * players with an empty seat. The server still refuses anyone else (`not_host`).
 * @param {{state: string, seats: Array<{kind: string}>, hosting?: boolean}} tbl
 * @returns {boolean}
 */
export function offersBotInvites(tbl) {
  return !!tbl.hosting && tbl.state === "waiting" && tbl.seats.some((s) => s.kind === "empty");
}

/**
 * The list of the bot accounts one may invite (loaded now), each with "Invite", which
 * `invite` carries out (whether it worked: a refusal was shown already).
 * @param {(bot: string) => Promise<boolean>} invite  invite the bot account of this id
 * @param {Set<string>} seated  the identities seated at the table
 * @returns {HTMLElement}
 */
export function botAccountsList(invite, seated) {
  const list = h("ul", { class: "bot-accounts", dataset: { testid: "bot-accounts" } });
  api("GET", "/api/bot-accounts").then((answer) => {
    const bots = invitableBots(/** @type {BotAccountList | null} */ (answer), seated);
    clear(list);
    if (!bots.length) list.appendChild(h("li", { class: "muted", text: t("table.bot_accounts.none") }));
    for (const bot of bots) {
      const button = h("button", {
        type: "button", class: "btn btn--secondary btn--small", dataset: { testid: "invite-bot", focusKey: `invite:${bot.id}` },
        onclick: async () => {
          button.disabled = true;
          const ok = await invite(bot.id);
          button.textContent = ok ? t("table.bot_accounts.invited") : t("table.bot_accounts.invite");
          if (!ok) button.disabled = false;
        },
      }, t("table.bot_accounts.invite"));
      list.appendChild(h("li", { class: "bot-account-row" },
        h("span", { class: "bot-account-name", text: bot.name }), botAccountBadge(true),
        bot.online ? null : h("span", { class: "badge badge--offline", text: t("table.offline") }), button));
    }
  }, () => {
    clear(list);
    list.appendChild(h("li", { class: "muted", text: t("table.bot_accounts.none") }));
  });
  return list;
}
