// The waiting room of a table: its seats, the bots that can fill them, Start and Leave
// for the seated, "Take a seat" for a spectator, and the invite link.
import { botAccountsList } from "./botinvites.js";
import { botAccountBadge, botBadge, levelBlurb, levelName, loadBots } from "./botlevels.js";
import { seatHue } from "./board.js";
import { formatNumber, t } from "./i18n.js";
import { navigate } from "./router.js";
import { minPlayers as fewestPlayers, ruleBadges, ruleValue } from "./rules.js";
import { isSeated } from "./tablestate.js";
import { add, clear, h, icon, initial, inviteWarning, store, tokenKey } from "./util.js";

/** @typedef {import("./tablestate.js").TableState} TableState */
/** @typedef {import("./presence.js").Rest} Rest */
/** @typedef {import("./util.js").Invite} Invite */

/**
 * The add-bot control: a level (the server's default preselected), what it plays like,
 * and under "Advanced" a bot spec typed in. ``S`` keeps the choice across re-renders.
 * @param {TableState} S
 * @param {boolean} canAdd  a seat is free
 * @param {Rest} rest
 * @returns {HTMLElement[]}
 */
function botPicker(S, canAdd, rest) {
  const select = h("select", { id: "bot-level", class: "select", "aria-describedby": "bot-blurb", dataset: { focusKey: "bot-level", testid: "bot-level" } });
  const blurb = h("p", { id: "bot-blurb", class: "hint bot-blurb", "aria-live": "polite", dataset: { testid: "bot-blurb" } });
  const specInput = h("input", {
    id: "bot-spec", class: "input bot-spec-input", type: "text", maxlength: "100", autocomplete: "off", spellcheck: "false",
    placeholder: t("table.bots.spec_placeholder"), "aria-describedby": "bot-spec-help", list: "bot-specs", dataset: { focusKey: "bot-spec", testid: "bot-spec" },
  });
  // The ladder's specs are offered under Advanced only, as suggestions for its field: the
  // level menu is for players (the review of issue 29 found them mixed in it).
  const specs = h("datalist", { id: "bot-specs", dataset: { testid: "bot-specs" } });
  specInput.value = S.botSpec || "";
  /** @type {import("./botlevels.js").Bots} */
  let info = { bots: [], levels: [], default: null };
  const describe = () => {
    const spec = specInput.value.trim();
    const level = info.levels.find((l) => l.name === select.value);
    if (spec) blurb.textContent = t("table.bots.adds_spec", { spec });
    else if (level) blurb.textContent = levelBlurb(level);
    else blurb.textContent = select.value ? t("table.bots.by_spec_blurb", { name: select.value }) : "";
  };
  loadBots().then((data) => {
    info = data;
    const keep = S.lastBot || data.default;
    clear(select);
    for (const l of data.levels) select.appendChild(h("option", { value: l.name, text: levelName(l.name) }));
    clear(specs);
    for (const b of data.bots) specs.appendChild(h("option", { value: b }));
    const values = [...select.options].map((o) => o.value);
    select.value = keep && values.includes(keep) ? keep : (data.default || values[0] || "");
    describe();
  });
  select.addEventListener("change", () => { S.lastBot = select.value; describe(); });
  specInput.addEventListener("input", () => { S.botSpec = specInput.value; describe(); });
  const addBot = h("button", {
    type: "button", class: "btn btn--secondary", disabled: !canAdd, dataset: { testid: "add-bot", focusKey: "add-bot" },
    onclick: async () => {
      const btn = addBot;
      btn.disabled = true;
      const spec = specInput.value.trim();
      const bot = spec || select.value;
      if (!spec && select.value) S.lastBot = select.value;
      const ok = await rest("POST", "/bots", bot ? { bot } : {});
      if (!ok && btn.isConnected) btn.disabled = false; // refused: the message is shown, try again
    },
  }, icon("bot"), t("table.bots.add"));
  specInput.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !addBot.disabled) { ev.preventDefault(); addBot.click(); }
  });
  const advanced = h("details", { class: "bot-advanced", open: !!(S.botSpecOpen || S.botSpec), dataset: { testid: "bot-advanced" } },
    h("summary", { text: t("table.bots.advanced"), dataset: { focusKey: "bot-advanced" } }),
    h("div", { class: "bot-spec-field" },
      h("label", { for: "bot-spec", class: "field-label", text: t("table.bots.spec") }),
      specInput, specs,
      h("small", { id: "bot-spec-help", class: "muted", text: t("table.bots.spec_help") })));
  advanced.addEventListener("toggle", () => { S.botSpecOpen = advanced.open; });
  return [
    h("div", { class: "control-row bot-picker" }, h("label", { for: "bot-level", class: "field-label inline", text: t("table.bots.level") }), select, addBot),
    blurb,
    advanced,
  ];
}

/**
 * One seat of the waiting room's list (a bot's with "remove" for the seated).
 * @param {TableState} S
 * @param {import("./protocol.js").Seat} seat
 * @param {number|null} me
 * @param {Rest} rest
 */
function seatRow(S, seat, me, rest) {
  const mine = seat.seat === me;
  const remove = seat.kind === "bot" && isSeated(S)
    ? h("button", { type: "button", class: "btn btn--icon", "aria-label": t("table.waiting.remove", { name: seat.name || t("table.bot") }), dataset: { focusKey: `rm:${seat.seat}` },
      onclick: () => rest("DELETE", `/seats/${seat.seat}`) }, icon("close")) : null;
  return h("li", { class: `seat-row seat-row--${seat.kind}${mine ? " is-me" : ""}`, dataset: { seat: String(seat.seat), kind: seat.kind } },
    h("span", { class: "seat-row-num", text: formatNumber(seat.seat + 1) }),
    seat.kind === "empty" ? h("span", { class: "avatar avatar--empty", "aria-hidden": "true" })
      : h("span", { class: "avatar", style: { "--hue": String(seatHue(seat.seat)) }, "aria-hidden": "true" },
        seat.kind === "bot" ? icon("bot") : initial(seat.name)),
    h("span", { class: "seat-row-name" },
      seat.kind === "empty" ? h("span", { class: "muted", text: t("table.waiting.empty_seat") }) : h("span", { text: seat.name }),
      mine ? h("span", { class: "badge badge--you", text: t("table.you") }) : null,
      botAccountBadge(seat.bot_account),
      seat.kind === "bot" ? h("span", { class: "badge badge--bot", title: seat.bot || undefined, text: seat.bot ? botBadge(seat.bot) : t("table.bot_level", { level: t("table.waiting.basic") }) }) : null,
      seat.kind === "human" && !seat.connected ? h("span", { class: "badge badge--offline", text: t("table.offline") }) : null),
    remove);
}

/**
 * What the seated can do (add bots, start, leave) or a spectator (take a free seat).
 * @param {TableState} S
 * @param {{seated: number, free: boolean, rest: Rest, takeSeat: () => void}} opts
 */
function waitingControls(S, { seated, free, rest, takeSeat }) {
  const controls = h("div", { class: "waiting-controls" });
  if (!isSeated(S)) {
    add(controls, h("p", { class: "hint" }, icon("eye"), " ", t("table.waiting.watching")));
    if (free) {
      add(controls, h("button", {
        type: "button", class: "btn btn--primary btn--big", dataset: { testid: "take-seat", focusKey: "take-seat" },
        onclick: takeSeat,
      }, t("table.waiting.take_seat")));
    }
    return controls;
  }
  const minPlayers = fewestPlayers(!!ruleValue(S.table && S.table.rules, "allow_two_players"));
  const canStart = minPlayers !== undefined && seated >= minPlayers;
  const start = h("button", {
    type: "button", class: "btn btn--primary btn--big", disabled: !canStart, dataset: { testid: "start", focusKey: "start" },
    onclick: async () => {
      start.disabled = true;
      await rest("POST", "/start");
    },
  }, t("table.waiting.start"));
  const leave = h("button", {
    type: "button", class: "btn btn--ghost", dataset: { focusKey: "leave" },
    onclick: async () => {
      const ok = await rest("POST", "/leave");
      if (ok) {
        store.del(tokenKey(S.id));
        S.token = null;
        S.mySeat = null;
        navigate("/");
      }
    },
  }, t("table.waiting.leave"));
  return add(controls,
    botPicker(S, free, rest),
    h("div", { class: "control-row" }, start, leave),
    canStart ? null : h("p", { class: "hint", text: t("table.waiting.need_players", { count: minPlayers }) }));
}

/**
 * The host's list of the bot accounts that take invitations (GET /api/bot-accounts), each
 * with "Invite": the bot account is asked on its stream and takes a seat if it accepts.
 * Those already seated here are left out.
 * @param {Rest} rest
 * @param {Set<string>} seated  the identities seated at the table
 * @returns {HTMLElement}
 */
function botAccountsPanel(rest, seated) {
  return h("section", { class: "panel bot-accounts-panel" },
    h("h2", { text: t("table.bot_accounts.title") }),
    h("p", { class: "muted", text: t("table.bot_accounts.text") }),
    botAccountsList(async (bot) => (await rest("POST", "/invitations", { bot })) !== null, seated));
}

/**
 * The invite link, to copy and send to friends.
 * @param {Invite} invite
 * @param {() => void} copyInvite
 */
function invitePanel(invite, copyInvite) {
  return h("section", { class: "panel invite" },
    h("h2", { text: t("table.invite.title") }),
    h("p", { class: "muted", text: t("table.invite.text") }),
    inviteWarning(invite),
    h("div", { class: "invite-row" },
      h("input", { class: "input invite-input", type: "text", readonly: true, value: invite.url, "aria-label": t("table.invite.link"), dataset: { testid: "invite-url" }, onfocus: (e) => { if (e.target instanceof HTMLInputElement) e.target.select(); } }),
      h("button", { type: "button", class: "btn btn--secondary", onclick: copyInvite, "aria-label": t("table.invite.copy_label") }, icon("copy"), t("table.invite.copy"))));
}

/**
 * The waiting room in `host`, drawn afresh from the table.
 * @param {HTMLElement} host
 * @param {TableState} S
 * @param {object} deps
 * @param {Rest} deps.rest
 * @param {Invite} deps.invite
 * @param {() => void} deps.copyInvite
 * @param {() => void} deps.takeSeat
 */
export function renderWaiting(host, S, { rest, invite, copyInvite, takeSeat }) {
  const tb = S.table;
  clear(host);
  if (!tb) return;
  const seated = tb.seats.filter((s) => s.kind !== "empty").length;
  const free = tb.seats.some((s) => s.kind === "empty");
  const me = S.token ? S.mySeat : null;
  const list = h("ol", { class: "seat-list", "aria-label": t("table.waiting.seats") }, tb.seats.map((seat) => seatRow(S, seat, me, rest)));
  const badges = ruleBadges(tb.rules, tb.turn_timer);
  const hosting = isSeated(S) && free && tb.chat !== undefined && tb.chat.host === S.mySeat;
  add(host,
    h("section", { class: "panel waiting" },
      h("div", { class: "waiting-head" },
        h("h2", { text: t("table.state.waiting") }),
        h("span", { class: "chip", text: t("table.waiting.seated", { n: seated, count: tb.seats.length }) })),
      badges.length ? h("div", { class: "rule-badges" }, badges.map((b) => h("span", { class: `badge badge--rule ${b.cls ? `badge--${b.cls}` : ""}`, text: b.text }))) : null,
      list, waitingControls(S, { seated, free, rest, takeSeat })),
    invitePanel(invite, copyInvite),
    hosting ? botAccountsPanel(rest, new Set(tb.seats.map((s) => s.player_id || ""))) : null);
}
