"""The flood of search bots against another table's bots: from one address, tables each
seating as many search bots as the server lets a stranger have (``mcts`` walked down to
the public ceilings, every parameter the server caps at its ceiling), the human staying
and playing at once so that the bots keep thinking. What it costs the others is the
victim table's wait per bot move (:mod:`flip7.client.attack.victim`)."""

from __future__ import annotations

from typing import Any

from flip7.client.attack.figures import FloodFigures
from flip7.client.attack.floods.tables import STRONG_BOT, Bots

# Every parameter the server puts a ceiling on, asked for far above it: each refusal names
# one ceiling ("iters may be at most 2000"), which the next try asks for. The library's
# own maxima (reach 1000, depth 6) are asked for where a value above them would be
# refused as a bad bot rather than walked down.
SEARCH_BOT = STRONG_BOT + ",reach=1000,depth=6"
MOST_SEATS = 18  # a table's most seats (one deck)


class SearchBots(Bots):
    """``search_tables`` tables of ``search_seats`` seats from the flood's first address,
    every seat but the human's given the strongest search bot the server takes (no
    cheaper bot instead: a refused seat stays empty), each game started with the human
    taking its decisions at once."""

    strongest = SEARCH_BOT
    fallbacks = ("mcts",)

    def __init__(self, config: dict[str, Any], figures: FloodFigures) -> None:
        super().__init__(config, figures)
        self.count = int(config.get("search_tables", 10))
        self.seats = max(2, min(MOST_SEATS, int(config.get("search_seats", MOST_SEATS))))
        self.mode = "play"
        self.seated: list[int] = []  # search bots seated, per table

    async def setup(self) -> None:
        await super().setup()
        self.figures.note(
            f"search bots seated per table: {', '.join(map(str, self.seated)) or 'none'} "
            f"(of {self.seats - 1} asked for each)"
        )

    async def _one(self, index: int) -> None:
        address = self.addresses[0]
        made = await self.new_table(address, self.seats)
        if made is None:
            return
        table, token = made
        headers = {"Authorization": f"Bearer {token}"}
        seated = 0
        for _ in range(self.seats - 1):
            if not await self._bot_spec(address, table, headers):
                break  # refused: a cap on search bots, the spec's ceiling, a budget
            seated += 1
        self.seated.append(seated)
        await self.request(address, "POST", f"/api/tables/{table}/start", "setup",
                           headers=headers)  # fmt: skip
        self.tables.append((table, token, address, True))
