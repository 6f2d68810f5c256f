"""``flip7 loadtest``: many tables of bot clients playing over real WebSockets, timed.

Every client is a seated human as far as the server knows: it takes its seat over REST, connects
to ``/ws/tables/{id}``, says ``hello`` with its token and, whenever its view has legal decisions,
waits about ``think`` seconds (human thinking time; 0 = flat out) and sends a ``move``. When a
game is over, every client says it is ready for the next one (``POST .../rematch``: the next
game starts once every player is ready), so every table keeps playing.

A move's latency is the time from sending it to the moment the ``update`` that carries the
resulting version (the ``version`` of the move's ``result``) has reached *every* client at the
table. All clients live in this one process, so their monotonic clocks agree. Without ``--url``
the server is started as a separate process (``flip7 serve`` on a free loopback port with a fresh
SQLite file), so that clients and server do not share one interpreter.

Any ``error`` frame, unexpected close, failed HTTP call or timeout is an error.

The parts: :mod:`.clients` (the tables and their clients), :mod:`.session` (one load test,
:func:`load_test`), :mod:`.figures` (:class:`LoadResult`), :mod:`.command` (the command
line).

"""

from flip7.client.loadtest.command import DESCRIPTION, add_arguments, main, run
from flip7.client.loadtest.figures import LoadResult, Second
from flip7.client.loadtest.session import load_test

__all__ = ["DESCRIPTION", "LoadResult", "Second", "add_arguments", "load_test", "main", "run"]
