"""The floods of ``flip7 attack``, by attack name."""

from flip7.client.attack.flood import Flood
from flip7.client.attack.floods.malformed import Malformed
from flip7.client.attack.floods.sockets import Frames, Idle
from flip7.client.attack.floods.tables import Bots, Tables
from flip7.client.attack.floods.uploads import Uploads

FLOODS: dict[str, type[Flood]] = {
    "uploads": Uploads,
    "tables": Tables,
    "bots12": Bots,
    "bots60": Bots,
    "frames": Frames,
    "idle": Idle,
    "malformed": Malformed,
}

__all__ = ["FLOODS", "Bots", "Frames", "Idle", "Malformed", "Tables", "Uploads"]
