"""The floods of ``flip7 attack``, by attack name."""

from flip7.client.attack.flood import Flood
from flip7.client.attack.floods.malformed import Malformed
from flip7.client.attack.floods.many import ChatMany, TablesMany
from flip7.client.attack.floods.queues import Queues
from flip7.client.attack.floods.ratings import Ratings
from flip7.client.attack.floods.searchbots import SearchBots
from flip7.client.attack.floods.sockets import Frames, Idle
from flip7.client.attack.floods.tables import Bots, Tables
from flip7.client.attack.floods.uploads import Uploads
from flip7.client.attack.floods.welcomes import Welcomes
from flip7.client.attack.floods.writes import Writes

FLOODS: dict[str, type[Flood]] = {
    "uploads": Uploads,
    "tables": Tables,
    "bots12": Bots,
    "bots60": Bots,
    "frames": Frames,
    "idle": Idle,
    "malformed": Malformed,
    "searchbots": SearchBots,
    "tables-many": TablesMany,
    "chat-many": ChatMany,
    "welcomes": Welcomes,
    "writes": Writes,
    "queues": Queues,
    "ratings": Ratings,
}

__all__ = [
    "FLOODS",
    "Bots",
    "ChatMany",
    "Frames",
    "Idle",
    "Malformed",
    "Queues",
    "Ratings",
    "SearchBots",
    "Tables",
    "TablesMany",
    "Uploads",
    "Welcomes",
    "Writes",
]
