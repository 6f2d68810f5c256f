// The server's messages as the browser meets them, as JSDoc types for `tsc` (make jscheck):
// the WebSocket frames of both directions, the REST bodies the client sends and the answers
// it reads. Types only: nothing here runs. A module names one as
// `@param {import("./protocol.js").Welcome} frame`.
//
// The frames and the REST models mirror src/flip7/server/protocol.py (their JSON Schema is
// served at /api/protocol, the REST models at /openapi.json); docs/protocol.md says what
// each field means. tests/test_js_protocol.py checks every typedef against those schemas:
// the same properties, the same optional ones (not required by the schema), `null` where
// the schema allows it, the same literal values. The answers at the end (scorecards,
// players) have no schema on the server; the test checks them against real answers.

// ---------------------------------------------------------------------- shared pieces

/**
 * A table's or a game's rule options (RULES.md §13): only the non-defaults in a table's
 * `rules`, all of them in a scorecard's.
 * @typedef {Record<string, boolean | number | string>} Rules
 */

/**
 * An event of `flip7.core.events` or a table event (docs/protocol.md, "Table events"):
 * its `type` says which, and which other fields it has.
 * @typedef {{type: string, [field: string]: unknown}} GameEvent
 */

// ---------------------------------------------------------------------- client -> server

/**
 * The first frame: who is connecting (a seat token, or none for a spectator).
 * @typedef {object} Hello
 * @property {1} v
 * @property {"hello"} type
 * @property {string | null} [token]
 * @property {number | null} [last_version] the last table version seen (reconnecting)
 */

/**
 * A decision for the sender's seat, made against table version `version`.
 * @typedef {object} Move
 * @property {1} v
 * @property {"move"} type
 * @property {string} id the move's own id: a retry sends the same one
 * @property {number} version
 * @property {string} decision a decision of RECORD.md §5, e.g. "hit" or "target 2"
 */

/**
 * @typedef {object} Ping
 * @property {1} v
 * @property {"ping"} type
 */

/**
 * A chat message to everyone at the table.
 * @typedef {object} Chat
 * @property {1} v
 * @property {"chat"} type
 * @property {string} text
 */

/**
 * The host switches spectators' chat off (`allowed: false`) or on.
 * @typedef {object} SpectatorChat
 * @property {1} v
 * @property {"spectator_chat"} type
 * @property {boolean} allowed
 */

/** @typedef {Hello | Move | Ping | Chat | SpectatorChat} ClientFrame */

// ---------------------------------------------------------------------- the table

/**
 * A seat of a table (docs/protocol.md, "Words"; "Players who go away"; "Rematch").
 * @typedef {object} Seat
 * @property {number} seat
 * @property {string | null} name
 * @property {"human" | "bot" | "empty"} kind
 * @property {string | null} bot the bot's spec
 * @property {string | null} [player_id] the identity the seat was taken with
 * @property {boolean} [bot_account] a bot account's seat (the bot API): an outside program plays it
 * @property {boolean} left
 * @property {boolean} connected
 * @property {boolean} [stand_in] the stand-in bot plays it while its player is away
 * @property {number | null} [away_since] epoch seconds
 * @property {number | null} [handover_at] epoch seconds
 * @property {boolean | null} [ready] at the end screen
 * @property {boolean} [gone] at the end screen: the next game starts without them
 */

/**
 * `GET /api/bot-accounts`: the bot accounts that take invitations now (docs/bot-api.md).
 * @typedef {object} BotAccountList
 * @property {Array<{id: string, name: string, online: boolean}>} bots
 */

/**
 * A player as the game shows them (`flip7.GameView`).
 * @typedef {object} SeatView
 * @property {number} seat
 * @property {string} name
 * @property {"active" | "stayed" | "busted"} status
 * @property {string[]} line card codes
 * @property {string[]} modifiers
 * @property {number} number_sum
 * @property {number} round_score
 * @property {number} total
 */

/**
 * A finished round of a game.
 * @typedef {object} Round
 * @property {number} dealer
 * @property {number[]} scores
 * @property {number[]} busted
 * @property {number | null} flip7
 * @property {number | null} minus15
 */

/**
 * A legal option as the deciding seat's view lists it (`game.decisions`,
 * `flip7.core.decisions`' `to_json`): `text` is the decision string (what a move sends),
 * `verb` its first word, and the seats and card codes it names. One typedef for the
 * server's four models (DecisionModel and its Seat, Card and Swap kinds): what a verb
 * names is there, the rest absent.
 * @typedef {object} Decision
 * @property {string} text
 * @property {"hit" | "stay" | "bonus" | "target" | "give" | "pass" | "minus" | "steal" | "discard" | "swap"} verb
 * @property {number} [seat] target, give, pass, minus, steal, discard
 * @property {string} [card] steal, discard
 * @property {number} [seat1] swap (the lower seat)
 * @property {string} [card1] swap
 * @property {number} [seat2] swap
 * @property {string} [card2] swap
 */

/**
 * What one viewer sees of the game (`flip7.GameView.to_json()`).
 * @typedef {object} GameView
 * @property {number | null} viewer
 * @property {SeatView[]} players
 * @property {Rules} rules
 * @property {number} decks
 * @property {number} round
 * @property {number} dealer
 * @property {"deal" | "turns" | "round_end" | "over"} phase
 * @property {number} draw_pile_size
 * @property {string[]} discard_pile
 * @property {string[]} set_aside
 * @property {number | null} to_decide
 * @property {string | null} decision_kind
 * @property {string | null} pending_card
 * @property {string[]} legal_decisions
 * @property {Decision[] | null} [decisions] only in the view of the seat that must decide: legal_decisions as objects
 * @property {boolean} needs_card
 * @property {Round[]} rounds
 * @property {boolean} over
 * @property {number[]} winners
 * @property {number | null} [bust_risk] only in the view of the seat that must Hit or Stay
 */

/**
 * The table's chat settings: the host seat, and whether spectators may chat now.
 * @typedef {object} TableChat
 * @property {number | null} host
 * @property {boolean} spectators
 */

/**
 * The lesson on screen at a guided first game.
 * @typedef {object} TutorialLesson
 * @property {string} id
 * @property {string} text in English
 * @property {number} number
 * @property {boolean} next it waits for "Got it" (otherwise it asks for the tutorial's `expect`)
 * @property {Record<string, string | number>} [params]
 */

/**
 * Where a guided first game stands.
 * @typedef {object} Tutorial
 * @property {number} seat
 * @property {TutorialLesson | null} lesson
 * @property {string | null} expect
 * @property {number} step
 * @property {number} steps
 * @property {number} lessons
 * @property {number} lessons_done
 * @property {boolean} skipped
 */

/**
 * A table as one client sees it.
 * @typedef {object} TableState
 * @property {string} id
 * @property {string} name
 * @property {"waiting" | "playing" | "over"} state
 * @property {Seat[]} seats
 * @property {Rules} rules
 * @property {number | null} turn_timer
 * @property {boolean} bust_odds
 * @property {boolean} [rated]
 * @property {string} created_at
 * @property {number} game_number
 * @property {number} version
 * @property {GameView | null} game
 * @property {string | null} game_id
 * @property {number | null} turn_deadline epoch seconds
 * @property {string[]} finished_games newest first
 * @property {TableChat} chat
 * @property {string | null} [rematch_problem]
 * @property {Tutorial | null} [tutorial]
 * @property {"live" | "turn_based"} [pace]
 * @property {number | null} [move_hours] hours per decision at a turn-based table
 */

// ---------------------------------------------------------------------- server -> client

/**
 * @typedef {object} VersionedEvents
 * @property {number} version
 * @property {GameEvent[]} events
 */

/**
 * One line of a table's chat (its text is shown as text, never as markup).
 * @typedef {object} ChatEntry
 * @property {number} n
 * @property {string} at
 * @property {"message" | "spectators_off" | "spectators_on"} kind
 * @property {string} name
 * @property {number | null} seat null for a spectator
 * @property {boolean} spectator
 * @property {string} text
 */

/**
 * The answer to `hello`.
 * @typedef {object} Welcome
 * @property {1} v
 * @property {"welcome"} type
 * @property {number | null} seat
 * @property {TableState} table
 * @property {VersionedEvents[] | null} missed
 * @property {VersionedEvents[]} history
 * @property {boolean} [history_cut] true (and only then present) when the history holds only the newest changes
 * @property {ChatEntry[]} chat
 */

/**
 * @typedef {object} Update
 * @property {1} v
 * @property {"update"} type
 * @property {number} version
 * @property {GameEvent[]} events
 * @property {TableState} table
 */

/**
 * A move was applied.
 * @typedef {object} Result
 * @property {1} v
 * @property {"result"} type
 * @property {string} id
 * @property {true} ok
 * @property {number} version
 */

/**
 * @typedef {object} ErrorFrame
 * @property {1} v
 * @property {"error"} type
 * @property {string} code
 * @property {string} message
 * @property {string | null} id the refused move's id
 * @property {TableState | null} table
 */

/**
 * @typedef {object} Pong
 * @property {1} v
 * @property {"pong"} type
 */

/**
 * @typedef {object} ChatFrame
 * @property {1} v
 * @property {"chat"} type
 * @property {ChatEntry} chat
 */

/** @typedef {Welcome | Update | Result | ErrorFrame | Pong | ChatFrame} ServerFrame */

// ---------------------------------------------------------------------- REST: bodies

/**
 * `POST /api/tables`.
 * @typedef {object} CreateTable
 * @property {string} [name]
 * @property {string} player
 * @property {number} [seats]
 * @property {Rules} [rules]
 * @property {number | null} [turn_timer]
 * @property {boolean} [bust_odds]
 * @property {boolean | null} [rated]
 * @property {"live" | "turn_based"} [pace]
 * @property {number | null} [move_hours] hours per decision at a turn-based table
 */

/**
 * `POST /api/tables/{id}/join`.
 * @typedef {object} JoinTable
 * @property {string} player
 * @property {string | null} [token] the seat's secret, chosen by the client
 */

/**
 * `POST /api/tutorial`.
 * @typedef {object} StartTutorial
 * @property {string} player
 */

/**
 * `POST /api/tables/{id}/tutorial`.
 * @typedef {object} TutorialStep
 * @property {boolean} [skip]
 * @property {number | null} [read]
 */

/**
 * `POST /api/tables/{id}/bots`.
 * @typedef {object} AddBot
 * @property {string} [bot]
 */

/**
 * `POST /api/tables/{id}/ready`.
 * @typedef {object} Ready
 * @property {boolean} [ready]
 */

/**
 * `POST /api/games/{game_id}/coach`.
 * @typedef {object} CoachRequest
 * @property {number} seat
 */

// ---------------------------------------------------------------------- REST: answers

/**
 * `{"detail": {...}}`: every error answer.
 * @typedef {object} ErrorAnswer
 * @property {ErrorDetail} detail
 */

/**
 * @typedef {object} ErrorDetail
 * @property {string} code
 * @property {string} message
 */

/**
 * A seat taken (create, join, tutorial).
 * @typedef {object} SeatGranted
 * @property {TableState} table
 * @property {number} seat
 * @property {string} token
 */

/**
 * @typedef {object} TableAnswer
 * @property {TableState} table
 */

/**
 * A table of `GET /api/tables`, and whether this browser hosts it (one of the seat tokens
 * the list was asked with, `X-Seat-Tokens`, is the host's: `TableChat.host`).
 * @typedef {object} ListedTable
 * @property {string} id
 * @property {string} name
 * @property {"waiting" | "playing" | "over"} state
 * @property {Seat[]} seats
 * @property {Rules} rules
 * @property {number | null} turn_timer seconds
 * @property {boolean} bust_odds
 * @property {boolean} [rated]
 * @property {string} created_at
 * @property {number} game_number
 * @property {"live" | "turn_based"} [pace]
 * @property {number | null} [move_hours] hours per decision at a turn-based table
 * @property {boolean} [hosting]
 */

/**
 * `GET /api/tables`.
 * @typedef {object} TableList
 * @property {ListedTable[]} tables
 */

/**
 * A finished game in the lobby's list.
 * @typedef {object} RecentGame
 * @property {string} id
 * @property {string} table the table's id
 * @property {string} table_name
 * @property {string} finished_at
 * @property {string[]} players
 * @property {number[] | null} winners
 * @property {number[] | null} totals
 */

/**
 * `GET /api/games`.
 * @typedef {object} RecentGames
 * @property {RecentGame[]} games
 */

/**
 * One game of a table, in `GET /api/tables/{id}/games`.
 * @typedef {object} TableGame
 * @property {string} id
 * @property {number} number
 * @property {string[]} players
 * @property {boolean} over
 * @property {number[] | null} winners
 * @property {number[] | null} totals
 * @property {string} started_at
 * @property {string | null} finished_at
 */

/**
 * `GET /api/tables/{id}/games`: every game of the table, open or closed.
 * @typedef {object} GameList
 * @property {TableGame[]} games
 */

/**
 * One step of a replay: its events and the table as a spectator (or a seat) saw it.
 * @typedef {object} ReplayStep
 * @property {GameEvent[]} events
 * @property {GameView} game
 */

/**
 * One page of a replay.
 * @typedef {object} ReplayAnswer
 * @property {GameRecord} record
 * @property {number} total_steps
 * @property {number} offset
 * @property {ReplayStep[]} steps
 * @property {number[]} [round_starts] the step of each round's start
 */

/**
 * `POST /api/replays`.
 * @typedef {object} ReplayCreated
 * @property {string} id
 */

/**
 * `GET /api/server`: where friends can reach this server.
 * @typedef {object} ServerInfo
 * @property {string | null} public_url
 * @property {string[]} addresses
 * @property {boolean} loopback_only
 * @property {boolean} [email] whether it sends turn alerts by e-mail
 */

/**
 * An identity's address for turn alerts.
 * @typedef {object} EmailAddressState
 * @property {string} address
 * @property {boolean} verified
 * @property {boolean} alerts
 */

/**
 * `GET/PUT/PATCH/DELETE /api/players/me/email`: whether the server sends e-mail, and your
 * address (null: none).
 * @typedef {object} EmailStatus
 * @property {boolean} offered
 * @property {EmailAddressState | null} email
 */

/**
 * GET /api/push/key: the server's VAPID public key (base64url), a browser's
 * applicationServerKey for Web Push.
 * @typedef {object} PushKey
 * @property {string} public_key
 */

/**
 * POST and DELETE /api/players/me/push: whether this browser takes turn alerts by push.
 * @typedef {object} PushState
 * @property {boolean} subscribed
 */

/**
 * A bot level.
 * @typedef {object} BotLevel
 * @property {string} name
 * @property {string} spec
 * @property {string} blurb
 */

/**
 * `GET /api/bots`.
 * @typedef {object} BotList
 * @property {string[]} bots
 * @property {BotLevel[]} levels
 * @property {string} default
 */

/**
 * `GET /api/limits`: the limits a client meets (README, "Limits").
 * @typedef {object} Limits
 * @property {number} max_message_bytes
 * @property {number} rate_per_second
 * @property {number} rate_burst
 * @property {number} rate_strikes
 * @property {number} send_queue_limit
 * @property {number} frames_per_second_per_address
 * @property {number} frames_burst_per_address
 * @property {number} bytes_per_minute_per_address
 * @property {number} bytes_burst_per_address
 * @property {number} connections_per_address
 * @property {number} open_connections_per_address
 * @property {number} handshakes_per_minute
 * @property {number} handshakes_burst
 * @property {number} flood_cooloff
 * @property {number} hello_timeout
 * @property {number} header_timeout
 * @property {number} tables_per_minute
 * @property {number} tables_burst
 * @property {number} joins_per_minute
 * @property {number} joins_burst
 * @property {number} min_turn_timer
 * @property {number} waiting_table_ttl
 * @property {number} idle_table_ttl
 * @property {number} suspended_table_ttl
 * @property {number} email_codes_per_minute
 * @property {number} email_codes_burst
 * @property {number} unattended_table_ttl
 * @property {number} handover_grace
 * @property {number} handover_auto
 * @property {number} rematch_wait
 * @property {number} lobby_hide_after
 * @property {number} bot_seconds_per_minute
 * @property {number} owner_bot_seconds_per_minute
 * @property {number} search_bots_per_table
 * @property {number} search_bot_tables_per_owner
 * @property {number} uploads_per_minute
 * @property {number} uploads_burst
 * @property {number} max_record_bytes
 * @property {number} max_record_draws
 * @property {number} max_record_decisions
 * @property {number} max_record_target_score
 * @property {number} max_target_score
 * @property {number} welcome_history_bytes
 * @property {number} spectator_welcome_bytes_per_minute
 * @property {number} spectator_welcome_bytes_burst
 * @property {number} replay_pages_per_minute
 * @property {number} replay_pages_burst
 * @property {number} replay_page_steps
 * @property {number} coach_per_minute
 * @property {number} coach_burst
 * @property {number} replay_jobs_per_address
 * @property {number} coach_jobs_per_address
 * @property {number} players_per_minute
 * @property {number} players_burst
 * @property {number} transfer_codes_per_minute
 * @property {number} transfer_codes_burst
 * @property {number} claims_per_minute
 * @property {number} claims_burst
 * @property {number} scorecards_per_minute
 * @property {number} scorecards_burst
 * @property {number} scorecard_rounds_per_minute
 * @property {number} scorecard_rounds_burst
 * @property {number} renames_per_minute
 * @property {number} renames_burst
 * @property {number} scorecard_ttl
 * @property {number} player_name_chars
 * @property {number} table_name_chars
 * @property {number} chat_max_chars
 * @property {number} chat_per_minute
 * @property {number} chat_burst
 * @property {number} chat_per_minute_per_address
 * @property {number} chat_burst_per_address
 * @property {number} chat_history
 * @property {number} spectator_chat_per_minute
 * @property {number} spectator_chat_burst
 * @property {number} rated_min_target_score
 * @property {number} rated_games_per_pair_per_day
 * @property {number} ipv4_block_prefix
 * @property {number} ipv6_block_prefix
 * @property {number} rating_network_ipv4_prefix
 * @property {number} rating_network_ipv6_prefix
 */

/**
 * One rule option: `min` for integers, `choices` for a choice.
 * @typedef {object} RuleOption
 * @property {string} name
 * @property {"bool" | "int" | "choice"} type
 * @property {boolean | number | string} default
 * @property {Array<boolean | number | string> | null} choices
 * @property {number | null} [min]
 */

/**
 * What `/api/rules` says of one option: its section of RULES.md, a line of help, what
 * changing it does, and words for its values.
 * @typedef {object} RuleAbout
 * @property {string} [section]
 * @property {string} [help]
 * @property {string} [changes]
 * @property {Record<string, string>} [values]
 */

/**
 * A kind of card of the deck (RECORD.md §1) and how many a deck holds.
 * @typedef {object} DeckCard
 * @property {string} code
 * @property {"number" | "modifier" | "action"} kind
 * @property {number} value
 * @property {number} penalty
 * @property {number} count
 */

/**
 * `GET /api/rules`: the rule options and the numbers of the rules a page needs.
 * @typedef {object} RulesAnswer
 * @property {RuleOption[]} options
 * @property {Record<string, RuleAbout>} about
 * @property {{min: number, min_two_players: number, max: number, one_deck_max: number, table_max: number}} players
 * @property {number[]} decks
 * @property {{cards: number, bonus: number}} flip7
 * @property {{neutral_options: string[]}} rated
 * @property {DeckCard[]} cards
 */

/**
 * What a card does, in the reader's language.
 * @typedef {object} CardText
 * @property {string} code
 * @property {string} name
 * @property {string} kind
 * @property {string} text
 */

/**
 * `GET /api/cards`.
 * @typedef {object} CardsAnswer
 * @property {Rules} rules
 * @property {CardText[]} cards
 */

/**
 * @typedef {object} CoachProgress
 * @property {number} done
 * @property {number} total
 */

/**
 * `POST`/`GET /api/games/{game_id}/coach`: a seat's analysis.
 * @typedef {object} CoachAnswer
 * @property {"queued" | "running" | "done" | "failed"} status
 * @property {CoachProgress} progress
 * @property {CoachReport | null} [result] once done
 * @property {string | null} [message] why it failed
 */

// ---------------------------------------------------------------------- the scorekeeper

/**
 * A player's final line: its cards and whether it busted.
 * @typedef {object} FinalLine
 * @property {string[]} [cards]
 * @property {boolean} [busted]
 */

/**
 * In Brutal, the Flip 7 player takes the bonus off seat `minus15`'s total.
 * @typedef {object} Minus15Choice
 * @property {number} minus15
 */

/** @typedef {"bonus" | Minus15Choice} Flip7Choice */

/**
 * `POST /api/scorecards`.
 * @typedef {object} CreateScorecard
 * @property {string} name
 * @property {string[]} players
 * @property {Rules} [rules]
 * @property {number | null} [decks]
 */

/**
 * `POST /api/scorecards/{id}/check`: a round to score without saving it.
 * @typedef {object} CheckRound
 * @property {FinalLine[]} lines
 * @property {Flip7Choice | null} [flip7_choice]
 * @property {number | null} [number]
 */

/**
 * `POST /api/scorecards/{id}/rounds`.
 * @typedef {object} NewRound
 * @property {FinalLine[]} lines
 * @property {Flip7Choice | null} [flip7_choice]
 * @property {number} number
 */

/**
 * `PUT /api/scorecards/{id}/rounds/{number}`.
 * @typedef {object} EditRound
 * @property {FinalLine[]} lines
 * @property {Flip7Choice | null} [flip7_choice]
 * @property {number} revision
 */

/**
 * @typedef {object} CardEvent
 * @property {"card"} type
 * @property {number} seat
 * @property {string} card
 */

/**
 * @typedef {object} StayEvent
 * @property {"stay"} type
 * @property {number} seat
 */

/**
 * @typedef {object} MoveEvent
 * @property {"move"} type
 * @property {string} card
 * @property {number} from
 * @property {number} to
 */

/**
 * @typedef {object} DiscardEvent
 * @property {"discard"} type
 * @property {string} card
 * @property {number} from
 */

/**
 * @typedef {object} ReshuffleEvent
 * @property {"reshuffle"} type
 */

/**
 * @typedef {object} Flip4Event
 * @property {"flip4"} type
 * @property {number} from
 * @property {number} to
 */

/**
 * @typedef {object} GiveEvent
 * @property {"give"} type
 * @property {string} card
 * @property {number} from
 * @property {number} to
 */

/**
 * @typedef {object} UseEvent
 * @property {"use"} type
 * @property {string} card
 * @property {number} from
 */

/**
 * An event of a live round, as the keeper enters it.
 * @typedef {CardEvent | StayEvent | MoveEvent | DiscardEvent | ReshuffleEvent | Flip4Event | GiveEvent | UseEvent} LiveEvent
 */

/**
 * `PUT /api/scorecards/{id}/live`: the live round's events so far.
 * @typedef {object} LiveUpdate
 * @property {LiveEvent[]} events
 * @property {number} based_on the live revision they replace (0: a new live round)
 */

/**
 * A problem the server found with a round: `code` and `params` say it in any language.
 * @typedef {object} Problem
 * @property {number | null} seat
 * @property {string} message
 * @property {string | null} [code]
 * @property {Record<string, unknown> | null} [params]
 */

/**
 * The `detail` of a scorecard's error answer: a round's problems (`invalid_round`), or
 * the scorecard as it is now (409).
 * @typedef {object} ScorecardErrorDetail
 * @property {string} code
 * @property {string} message
 * @property {Problem[] | null} [problems]
 * @property {Scorecard | null} [scorecard]
 */

// The scorekeeper's answers are built by flip7.scorekeeper (to_json, summary_json): no
// schema; tests/test_js_protocol.py compares these with real answers.

/**
 * A scored round: the check's answer (`POST .../check`) and, with `revision` and `live`,
 * a round of the scorecard.
 * @typedef {object} RoundCheck
 * @property {number} number
 * @property {Array<Required<FinalLine>>} lines
 * @property {Flip7Choice | null} flip7_choice
 * @property {number | null} flip7_seat
 * @property {number | null} minus15
 * @property {number[]} busted
 * @property {number[]} scores
 * @property {number[]} totals
 * @property {boolean} over
 * @property {number[]} winners
 */

/**
 * A round of a scorecard.
 * @typedef {object} ScorecardRound
 * @property {number} number
 * @property {number} revision
 * @property {Array<Required<FinalLine>>} lines
 * @property {Flip7Choice | null} flip7_choice
 * @property {number | null} flip7_seat
 * @property {number | null} minus15
 * @property {number[]} busted
 * @property {number[]} scores
 * @property {number[]} totals
 * @property {boolean} live entered in live mode
 */

/**
 * The advisor's figures for the player to decide in a live round.
 * @typedef {object} LiveAdvice
 * @property {number} seat
 * @property {"hit" | "stay"} recommendation
 * @property {string} reason in English
 * @property {boolean} must_hit
 * @property {number} p_bust_next
 * @property {string} p_bust_next_exact
 * @property {number} p_flip7_next
 * @property {string} p_flip7_next_exact
 * @property {number} p_flip7_keep_hitting
 * @property {string} p_flip7_keep_hitting_exact
 * @property {number} ev_stay
 * @property {number} ev_hit
 * @property {boolean} keeps_modifiers
 * @property {number} cards_left
 */

/**
 * A Flip Four under way in a live round: what it waits for (`next`) from whom (`seat`).
 * @typedef {object} FlipFour
 * @property {"play" | "draw" | "give" | "use"} next
 * @property {number} seat
 * @property {number} cards the cards a Flip Four deals
 * @property {number} depth
 * @property {number} drawn
 * @property {string[]} set_aside
 * @property {boolean} after_action
 * @property {string | null} card
 * @property {number[]} targets
 * @property {boolean} revealed
 */

/**
 * A round entered live, card by card, as the server replayed it.
 * @typedef {object} LiveRound
 * @property {number} number
 * @property {number} revision
 * @property {LiveEvent[]} events
 * @property {Array<Required<FinalLine>>} lines
 * @property {Array<"active" | "stayed" | "busted">} statuses
 * @property {number | null} flip7_seat
 * @property {boolean} over
 * @property {number[]} scores
 * @property {number | null} to_decide
 * @property {Record<string, number>} draw_pile
 * @property {Record<string, number>} discard_pile
 * @property {number} cards_left
 * @property {LiveAdvice | null} advice
 * @property {string[]} notes
 * @property {FlipFour | null} flip_four
 */

/**
 * A scorecard (`GET /api/scorecards/{id}`, and the answer of every change to it).
 * @typedef {object} Scorecard
 * @property {string} id
 * @property {string} name
 * @property {string[]} players
 * @property {Rules} rules every option, defaults included
 * @property {number} decks
 * @property {number} version
 * @property {"playing" | "over"} status
 * @property {boolean} over
 * @property {number[]} winners
 * @property {string[]} winner_names
 * @property {number[]} leaders
 * @property {string | null} leader
 * @property {boolean} extra_round
 * @property {string} message in English
 * @property {number} target
 * @property {number[]} totals
 * @property {ScorecardRound[]} rounds
 * @property {LiveRound | null} live
 * @property {string} created
 * @property {string} updated
 */

/**
 * `POST /api/scorecards`: the new scorecard and its edit key.
 * @typedef {object} ScorecardCreated
 * @property {string} id
 * @property {string} key
 * @property {Scorecard} scorecard
 */

/**
 * A scorecard in the list (`GET /api/scorecards`).
 * @typedef {object} ScorecardListItem
 * @property {string} id
 * @property {string} name
 * @property {string[]} players
 * @property {number} rounds
 * @property {string | null} leader
 * @property {number[]} winners
 * @property {number[]} totals
 * @property {"playing" | "over"} status
 * @property {string} created
 * @property {string} updated
 */

/**
 * `GET /api/scorecards`.
 * @typedef {object} ScorecardList
 * @property {ScorecardListItem[]} scorecards
 */

// ---------------------------------------------------------------------- records, the coach

/**
 * A game's record, `flip7-record/1` (RECORD.md): everything a replay needs. `meta` is the
 * server's (the table's name, the game's number...), absent from a record made elsewhere.
 * @typedef {object} GameRecord
 * @property {"flip7-record/1"} format
 * @property {string[]} players
 * @property {Rules} rules
 * @property {number} decks
 * @property {number} dealer
 * @property {string[]} draws
 * @property {string[]} decisions
 * @property {{table_name?: string, number?: number, [field: string]: unknown}} [meta]
 */

/**
 * One legal option of a graded decision: its win chance (percent) and expected points.
 * @typedef {object} GradedOption
 * @property {string} decision
 * @property {Decision | null} [decision_object] in the server's answer: `decision` as an object (docs/protocol.md, "The coach")
 * @property {number} value
 * @property {number} points
 * @property {number} samples
 */

/**
 * One decision of the seat, graded (flip7.coach.report.GradedDecision).
 * @typedef {object} GradedDecision
 * @property {number} index
 * @property {number} round
 * @property {number} draw
 * @property {number} step the replay step that shows it
 * @property {string} kind
 * @property {string} made
 * @property {string} best
 * @property {Decision | null} [made_object] in the server's answer: `made` as an object (docs/protocol.md, "The coach")
 * @property {Decision | null} [best_object] in the server's answer: `best` as an object
 * @property {"best" | "inaccuracy" | "mistake" | "blunder"} grade
 * @property {"win" | "points"} measure
 * @property {number} value_made
 * @property {number} value_best
 * @property {number} loss
 * @property {number} error
 * @property {GradedOption[]} options
 * @property {string} note in English
 * @property {string | null} [card] the card the decision is about (an Action or Modifier to aim)
 * @property {number | null} [score] the seat's round score, at a hit or stay
 * @property {number | null} [bust_risk] the chance to bust on a hit, percent, at a hit or stay
 * @property {number | null} [leader] the seat leading by total then
 * @property {number | null} [lead] its lead over this seat (over the next when this seat leads)
 */

/**
 * The coach's report, `flip7-coach/1` (flip7.coach.report.CoachReport.to_json).
 * @typedef {object} CoachReport
 * @property {"flip7-coach/1"} format
 * @property {number} seat
 * @property {string} name
 * @property {"win"} measure
 * @property {string} unit
 * @property {number} seed
 * @property {boolean} over
 * @property {Record<string, number>} thresholds the least loss of each grade below best
 * @property {{decisions: number, best: number, inaccuracy: number, mistake: number, blunder: number, accuracy: number, loss: number}} summary
 * @property {GradedDecision[]} decisions
 */

// ---------------------------------------------------------------------- players

// Built by flip7.server.players (no schema): tests/test_js_protocol.py compares these with
// the answers after a rated game.

/**
 * An identity (`POST /api/players`, `POST /api/players/claim`): its key is in this
 * answer only.
 * @typedef {object} Identity
 * @property {string} id
 * @property {string} name
 * @property {string} key
 */

/**
 * `POST /api/players/me/transfer`: a one-time code for another device.
 * @typedef {object} TransferCode
 * @property {string} code
 * @property {string} expires_at
 * @property {string} url
 */

/**
 * A rating: its parts, the number shown (`display`: the mean, 1000 + 40 (mu - 25)) and
 * whether it is still provisional (too few games to be sure of: sigma above 6).
 * @typedef {object} Rating
 * @property {number} mu
 * @property {number} sigma
 * @property {number} display
 * @property {boolean} provisional
 */

/**
 * A player's figures over their games (flip7.analysis.stats.StatsTotals).
 * @typedef {object} PlayerStats
 * @property {number} games
 * @property {number} wins
 * @property {number} rounds
 * @property {number} points
 * @property {number} round_score_avg
 * @property {number} busts
 * @property {number} bust_rate
 * @property {number} flip7s
 * @property {number} attacks_given
 * @property {number} attacks_received
 * @property {number} attack_points_given
 * @property {number} attack_points_received
 * @property {Array<{name: string, player_id: string | null, count: number}>} favourite_targets
 */

/**
 * The rating after one rated game.
 * @typedef {object} RatingPoint
 * @property {string} game_id
 * @property {string} at
 * @property {number} display
 * @property {number} delta
 */

/**
 * `GET /api/players/{id}` (and `/api/players/me`, with `self`).
 * @typedef {object} Profile
 * @property {string} id
 * @property {string} name
 * @property {boolean} bot_account a bot account (the bot API): a program, not a person
 * @property {string} created_at
 * @property {(Rating & {games: number, wins: number}) | null} rating
 * @property {PlayerStats} stats
 * @property {RatingPoint[]} rating_history oldest first
 * @property {true} [self]
 */

/**
 * A seat of a finished game in a player's history.
 * @typedef {object} GameSeat
 * @property {number} seat
 * @property {string} name
 * @property {string | null} player_id
 * @property {string | null} bot
 * @property {number} total
 */

/**
 * A finished game of a player (`GET /api/players/{id}/games`).
 * @typedef {object} PlayerGame
 * @property {string} game_id
 * @property {string | null} table_name
 * @property {string} finished_at
 * @property {number} seat the player's
 * @property {GameSeat[]} players
 * @property {number[]} winners
 * @property {boolean} rated whether the game rated this player
 * @property {string | null} unrated_because why a rated table's game did not rate this
 *   player: "pair_limit" (rated games of a pair a day), "same_network" (one address block)
 * @property {number | null} rating_delta
 */

/**
 * A taken seat of one of "Your games".
 * @typedef {object} YourTableSeat
 * @property {number} seat
 * @property {string} name
 * @property {"human" | "bot"} kind
 */

/**
 * A table you hold a seat at ("Your games"): `to_decide` is the seat its game waits for
 * (null between games); `waits_until`, for a suspended table, when it is closed unless
 * someone comes back.
 * @typedef {object} YourTable
 * @property {string} id
 * @property {string} name
 * @property {"waiting" | "playing" | "over" | "suspended"} state
 * @property {number} seat yours
 * @property {YourTableSeat[]} seats
 * @property {number | null} to_decide
 * @property {string} updated_at
 * @property {string | null} waits_until
 * @property {"live" | "turn_based"} pace
 * @property {string | null} deadline at a turn-based table: when the running decision is made by a bot
 */

/**
 * `GET /api/players/me/tables`: your games, the one waiting for you first.
 * @typedef {object} YourTables
 * @property {YourTable[]} tables
 */

/**
 * `GET /api/players/{id}/games`: a page of a player's finished games, newest first.
 * @typedef {object} PlayerGames
 * @property {PlayerGame[]} games
 * @property {number} total
 */

/**
 * @typedef {object} LeaderboardPlayer
 * @property {number} rank
 * @property {string} id
 * @property {string} name
 * @property {boolean} bot_account a bot account (the bot API)
 * @property {number} mu
 * @property {number} sigma
 * @property {number} display
 * @property {boolean} provisional listed after every settled rating
 * @property {number} games
 * @property {number} wins
 */

/**
 * @typedef {object} LeaderboardBot
 * @property {number} rank
 * @property {string} level
 * @property {number} mu
 * @property {number} sigma
 * @property {number} display
 * @property {boolean} provisional
 * @property {number} games
 * @property {number} wins
 */

/**
 * `GET /api/leaderboard`.
 * @typedef {object} Leaderboard
 * @property {LeaderboardPlayer[]} players
 * @property {LeaderboardBot[]} bots
 */

/**
 * A seat's figures in one game.
 * @typedef {object} EndSeatStats
 * @property {number} rounds
 * @property {number} round_score_avg
 * @property {number} busts
 * @property {number} bust_rate
 * @property {number} flip7s
 * @property {number} attacks_given
 * @property {number} attacks_received
 * @property {number} attack_points_given
 * @property {number} attack_points_received
 * @property {number | null} favourite_target a seat
 */

/**
 * A seat of the game just finished, on its end screen.
 * @typedef {object} EndSeat
 * @property {number} seat
 * @property {string} name
 * @property {string | null} player_id
 * @property {string | null} bot
 * @property {number} total
 * @property {boolean} winner
 * @property {{before: number, after: number, delta: number, provisional: boolean} | null} rating
 * @property {string | null} unrated_because an identity's seat that the (rated) game did
 *   not rate: "pair_limit" or "same_network" (as PlayerGame's)
 * @property {EndSeatStats} stats
 */

/**
 * `GET /api/games/{game_id}/summary`: a finished game at a glance.
 * @typedef {object} EndSummary
 * @property {string} game_id
 * @property {boolean} rated
 * @property {number} rounds
 * @property {EndSeat[]} seats
 */

export {};
