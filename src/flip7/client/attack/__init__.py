"""``flip7 attack``: floods against the server, each next to a control table and a victim
bot table that are timed.

Every attack runs for a fixed window (``--duration``) while a *control table* plays next to
it: three seated humans (WebSocket clients from ``127.0.0.1``, exactly as ``flip7 loadtest``
drives them) who move 50 ms after their decision comes up. A control move's latency is the
time from sending it to the moment the update carrying its version has reached all three
clients. ``GET /api/health`` is timed every 100 ms from the same address. Beside it the
*victim bot table* (:mod:`.victim`: a human from 127.0.0.1 who Stays at once and two Expert
bots) is timed per bot move, first in a quiet window before the flood (``--quiet``), then
during it: the goal is its median within 1.5 times the quiet one. The first row is a
baseline with no flood.

The floods run in a separate process (so that their event loop never delays the control
clients' clocks), at a lower CPU priority (``nice`` 10, and the same for its session's
scheduling group where Linux groups sessions: a real attacker's CPU is another
machine's), and from other loopback source addresses (``127.0.0.2`` and up for the older
floods, a /16 of their own, ``127.B.X.Y``, for the newer ones), so that the server's
per-address budgets see them as strangers and never throttle the control table. They go
to loopback only; every one is bounded in count and time:

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
``searchbots`` ``--search-tables`` tables from one address, each with as many ``mcts``
               bots at the public ceilings as the server seats, the human playing;
``tables-many`` POST /api/tables from ``--many-addresses`` addresses of one block;
``chat-many``  chat spam from ``--chat-addresses`` spectators at one table, and what a
               newcomer's welcome then carries;
``welcomes``   a game to the highest target score taken, then ``--spectators`` spectators
               reading its welcome again and again;
``writes``     scorecards, their rounds and renames as fast as answered;
``queues``     uploads, replay pages and coach jobs from ``--queue-addresses`` addresses;
``ratings``    rating farms: two puppets of one address at a short rated table, and one
               player alone against two Beginner bots; the ratings reached.

The newer floods keep a *bystander* (another /16) asking for what they hold (a table slot,
a replay page, the coach) and report its answers. Without ``--url`` every attack gets a
fresh ``flip7 serve`` subprocess (a free loopback port, a fresh SQLite file), so that one
flood's leftovers (bot tables still playing, connections the server has not noticed are
gone) do not weigh on the next row; with ``--cluster`` a fresh cluster of the deployment
recipe (:mod:`.cluster`: HAProxy, ``--processes`` processes, PostgreSQL, Redis).

The parts: :mod:`.control` (a row: the control table, the victim and the health probe),
:mod:`.victim` (the victim bot table), :mod:`.flood_process` (a flood's own process),
:mod:`.flood` and :mod:`.floods` (the floods), :mod:`.figures` (the rows and the report),
:mod:`.cluster` (the cluster per attack), :mod:`.command` (the command line).
"""

from flip7.client.attack.command import DESCRIPTION, add_arguments, main, run
from flip7.client.attack.control import attack_row
from flip7.client.attack.figures import (
    ATTACKS,
    AttackRow,
    FloodFigures,
    WaitFigures,
    report,
    verdict_reasons,
)
from flip7.client.attack.flood import block_addresses, flood_addresses
from flip7.client.attack.flood_process import flood_main

__all__ = [
    "ATTACKS",
    "DESCRIPTION",
    "AttackRow",
    "FloodFigures",
    "WaitFigures",
    "add_arguments",
    "attack_row",
    "block_addresses",
    "flood_addresses",
    "flood_main",
    "main",
    "report",
    "run",
    "verdict_reasons",
]
