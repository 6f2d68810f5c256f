"""``flip7 attack``: floods against the server, each next to a control table that is timed.

Every attack runs for a fixed window (``--duration``) while a *control table* plays next to
it: three seated humans (WebSocket clients from ``127.0.0.1``, exactly as ``flip7 loadtest``
drives them) who move 50 ms after their decision comes up. A control move's latency is the
time from sending it to the moment the update carrying its version has reached all three
clients. ``GET /api/health`` is timed every 100 ms from the same address. The first row is
a baseline with no flood.

The floods run in a separate process (so that their event loop never delays the control
clients' clocks), at a lower CPU priority (``nice``: a real attacker's CPU is another
machine's), and from other loopback source addresses (``127.0.0.2`` and up), so that the
server's per-address budgets see them as strangers and never throttle the control table.
They go to loopback only; every one is bounded in count and time:

``uploads``    POST /api/replays with an oversize record (a huge target score and 20,000
               decisions) and with a large one just within the limits, and GET the replay
               (its pages) of a finished game and of an uploaded record;
``tables``     POST /api/tables as fast as possible (at most ``--create-max``);
``bots12``     12 tables of four search bots (``mcts`` at the highest parameters a stranger
``bots60``     may ask for; a refusal is recorded and a weaker spec tried), the human gone;
``frames``     ``--frame-sockets`` WebSockets sending binary and text frames flat out;
``idle``       ``--idle`` silent TCP sockets, as many HTTP requests whose headers never end
               and as many WebSockets that never say hello (each reopened when closed);
``malformed``  odd bodies, paths and frames: lone surrogates, invalid UTF-8, deep nesting,
               chunked oversize bodies, strings and huge numbers as versions, ...

Without ``--url`` every attack gets a fresh ``flip7 serve`` subprocess (a free loopback
port, a fresh SQLite file), so that one flood's leftovers (bot tables still playing,
connections the server has not noticed are gone) do not weigh on the next row.

The parts: :mod:`.control` (a row: the control table and the health probe),
:mod:`.flood_process` (a flood's own process), :mod:`.flood` and :mod:`.floods` (the
floods), :mod:`.figures` (the rows and the report), :mod:`.command` (the command line).
"""

from flip7.client.attack.command import DESCRIPTION, add_arguments, main, run
from flip7.client.attack.control import attack_row
from flip7.client.attack.figures import (
    ATTACKS,
    AttackRow,
    FloodFigures,
    report,
    verdict_reasons,
)
from flip7.client.attack.flood import flood_addresses
from flip7.client.attack.flood_process import flood_main

__all__ = [
    "ATTACKS",
    "DESCRIPTION",
    "AttackRow",
    "FloodFigures",
    "add_arguments",
    "attack_row",
    "flood_addresses",
    "flood_main",
    "main",
    "report",
    "run",
    "verdict_reasons",
]
