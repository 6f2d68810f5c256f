// The bot levels (GET /api/bots, asked once per page load): their names in the reader's
// language, and which level a seat's bot is, from the ladder spec the table sends
// ("threshold" is Easy), so that no seat shows a spec.
import { api } from "./api.js";
import { has, t } from "./i18n.js";

/**
 * A bot level's name in the reader's language ("Easy" → "Leicht"); the server's name is
 * what is sent. Names the catalogue does not know (a spec) are shown as they are.
 * @param {string|null} name
 * @returns {string|null}
 */
export function levelName(name) {
  return name && has(`table.bots.level.${name}`) ? t(`table.bots.level.${name}`) : name;
}

/**
 * What to expect of a level, in the reader's language (the server's English otherwise).
 * @param {import("./protocol.js").BotLevel} level
 * @returns {string}
 */
export function levelBlurb(level) {
  return has(`table.bots.blurb.${level.name}`) ? t(`table.bots.blurb.${level.name}`) : level.blurb;
}

/**
 * The badge of a bot account (the bot API): a program plays as this identity, at a seat,
 * on the leaderboard, on its profile. Null for a person.
 * @param {boolean | undefined} botAccount
 * @returns {HTMLElement | null}
 */
export function botAccountBadge(botAccount) {
  if (!botAccount) return null;
  const badge = document.createElement("span");
  badge.className = "badge badge--bot badge--bot-account";
  badge.dataset.testid = "bot-account";
  badge.textContent = t("common.bot_account");
  badge.title = t("common.bot_account_title");
  return badge;
}

// The bots a seat can be filled with (GET /api/bots): the levels by name, weakest first,
// with the server's default, and the technical specs for those who want them.
/** @typedef {{bots: string[], levels: import("./protocol.js").BotLevel[], default: string|null}} Bots */
/** @type {Bots|null} */
let botsCache = null;
/** @returns {Promise<Bots>} */
export async function loadBots() {
  if (botsCache) return botsCache;
  try {
    const data = /** @type {import("./protocol.js").BotList | null} */ (await api("GET", "/api/bots"));
    if (data && Array.isArray(data.levels)) {
      botsCache = { bots: Array.isArray(data.bots) ? data.bots : [], levels: data.levels, default: data.default || null };
    }
  } catch {
    /* not cached: the next render asks again; meanwhile "Add bot" sends no bot (the server's default) */
  }
  return botsCache || { bots: [], levels: [], default: null };
}

/**
 * The level whose bot a seat holds, by the spec the table sends (a level's name is read
 * too); null for a spec that is no level's, or before the levels are loaded (loadBots).
 * @param {string|null} spec
 * @returns {string|null}
 */
export function levelOfSpec(spec) {
  if (!spec || !botsCache) return null;
  const level = botsCache.levels.find((l) => l.spec === spec || l.name.toLowerCase() === spec.toLowerCase());
  return level ? level.name : null;
}

// A level's bot is seated as "Mia (Medium bot)": its first name and the level, in English
// as the server keeps it (records and replays keep that name).
const LEVEL_BOT_NAME = /^(.+) \((Beginner|Easy|Medium|Hard|Expert) bot\)$/;

/**
 * A seat's name in the reader's language: a level's bot "Mia (Medium bot)" is "Mia (Bot
 * Mittel)" in German; any other name is shown as it is.
 * @param {string} name
 * @returns {string}
 */
export function localName(name) {
  const m = typeof name === "string" ? name.match(LEVEL_BOT_NAME) : null;
  if (!m || !has(`table.bots.level.${m[2]}`)) return name;
  return t("table.bot_named", { name: m[1], level: levelName(m[2]) || m[2] });
}

/**
 * A bot seat's badge text: "bot · Easy" in the reader's language, or "bot" for a spec that
 * is no level's (the spec is the badge's title, for those who want it).
 * @param {string|null} spec
 * @returns {string}
 */
export function botBadge(spec) {
  const level = levelOfSpec(spec);
  return level ? t("table.bot_level", { level: levelName(level) || level }) : t("table.bot");
}
