"""The game's vocabulary and its rules, each written once: cards, rule options, lines,
scoring, decisions, events, errors and seeds.

Standard library only; a module here imports only other modules here. Everything else in
flip7 (the engine, the advisor, the scorekeeper, bots, the server, the CLI and, through the
server, the browser) takes its rules from these modules.
"""
