"""The flood of writes: scorecards created, rounds entered on them and identities renamed,
as fast as the server answers, from the flood's addresses. Every one is a row or more in
the database (the report says how much the database grew, where it is a file)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from flip7.client.attack.flood import Flood

SCORECARD = {"name": "flood", "players": ["Ann", "Ben", "Cy"]}
LINES = [{"cards": ["5"]}, {"cards": ["7"]}, {"cards": ["3"]}]
IDENTITIES = 4  # per address, made in the setup


@dataclass(slots=True)
class _Scorecard:
    id: str
    key: str
    rounds: int = 0  # entered, or being entered


class Writes(Flood):
    async def setup(self) -> None:
        # per address: the identities to rename (id, key), the scorecards made
        self.identities: dict[str, list[tuple[str, str]]] = {a: [] for a in self.addresses}
        self.cards: dict[str, list[_Scorecard]] = {a: [] for a in self.addresses}
        for address in self.addresses:
            for i in range(IDENTITIES):
                made = await self.identity(address, f"writer {i}")
                if made is not None:
                    self.identities[address].append(made)

    async def run(self, deadline: float) -> None:
        turn = itertools.count()

        async def work(index: int) -> None:
            step = next(turn)
            address = self.addresses[step % len(self.addresses)]
            kind = step // len(self.addresses) % 3
            cards = self.cards[address]
            if kind == 1 and cards:
                await self._round(address, cards[step % len(cards)])
            elif kind == 2 and self.identities[address]:
                ids = self.identities[address]
                _, key = ids[step % len(ids)]
                await self.request(address, "PATCH", "/api/players/me", "rename",
                                   json={"name": f"w{step % 100_000}"},
                                   headers={"X-Player-Key": key})  # fmt: skip
            else:
                response = await self.request(address, "POST", "/api/scorecards", "scorecard",
                                              json=SCORECARD)  # fmt: skip
                if response is not None and response.status_code == 201:
                    data = response.json()
                    cards.append(_Scorecard(str(data["id"]), str(data["key"])))

        await self.workers(int(self.config.get("workers", 16)), deadline, work)
        codes = self.figures.codes
        self.figures.note(
            f"{codes['scorecard: 201']} scorecards, {codes['round: 201']} rounds and "
            f"{codes['rename: 200']} renames stored from {len(self.addresses)} address(es)"
        )

    async def _round(self, address: str, card: _Scorecard) -> None:
        card.rounds += 1  # taken now: two workers never enter the same round
        await self.request(address, "POST", f"/api/scorecards/{card.id}/rounds", "round",
                           json={"number": card.rounds, "lines": LINES},
                           headers={"X-Scorecard-Key": card.key})  # fmt: skip
