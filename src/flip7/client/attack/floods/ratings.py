"""The rating farms: two puppet identities of one address at a rated two-player table
with the shortest game the server takes, and a third alone against two Beginner bots,
every seat scoring at once so that each game lasts a round, a rematch asked for at every
end screen. The figures are the rated games counted and the ratings reached (the
profiles, the leaderboard's ranks, the Beginner level's rating)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any

from flip7.client.attack.flood import Flood, score_at_once
from flip7.client.table_client import TableState

# The target scores asked for, shortest first: the first one a rated table takes is played.
TARGETS = (1, 10, 50, 100, 200)
BEGINNER = "Beginner"


class Ratings(Flood):
    async def setup(self) -> None:
        address = self.addresses[0]
        self.players: dict[str, tuple[str, str]] = {}  # role -> (id, key)
        for role in ("puppet A", "puppet B", "solo"):
            made = await self.identity(address, role.replace(" ", "")[:20])
            if made is not None:
                self.players[role] = made
        self.seats: list[tuple[str, str, str]] = []  # (role, table, token)
        self.games: Counter[str] = Counter()  # end screens seen, per table's role
        self.beginner_before = await self._beginner()
        if {"puppet A", "puppet B"} <= self.players.keys():
            made = await self._rated_table("puppet A", 2, {"allow_two_players": True})
            if made is not None:
                table, token = made
                self.seats.append(("puppet A", table, token))
                response = await self.request(
                    address, "POST", f"/api/tables/{table}/join", "setup",
                    json={"player": "puppetB"},
                    headers={"X-Player-Key": self.players["puppet B"][1]},
                )  # fmt: skip
                if response is not None and response.status_code == 200:
                    self.seats.append(("puppet B", table, str(response.json()["token"])))
                await self._start(table, token)
        if "solo" in self.players:
            made = await self._rated_table("solo", 3, {})
            if made is not None:
                table, token = made
                for _ in range(2):
                    await self.request(address, "POST", f"/api/tables/{table}/bots", "setup",
                                       json={"bot": BEGINNER},
                                       headers={"Authorization": f"Bearer {token}"})
                self.seats.append(("solo", table, token))
                await self._start(table, token)

    async def _rated_table(
        self, role: str, seats: int, rules: dict[str, Any]
    ) -> tuple[str, str] | None:
        """A rated table created by ``role`` with the shortest target score it takes."""
        address = self.addresses[0]
        # One note for all the targets refused (the first answer's text): the notes are
        # few, and the report's own lines must still fit after them.
        refused: list[str] = []
        first = ""
        for target in TARGETS:
            body = {"name": "farm", "player": role.replace(" ", ""), "seats": seats,
                    "rules": {**rules, "target_score": target}, "rated": True}  # fmt: skip
            response = await self.request(address, "POST", "/api/tables", "setup", json=body,
                                          headers={"X-Player-Key": self.players[role][1]})
            if response is None:
                break
            if response.status_code == 201:
                data = response.json()
                rated = data["table"].get("rated")
                self._refused(role, refused, first)
                self.figures.note(f"{role}'s table plays to {target} points (rated: {rated})")
                return str(data["table"]["id"]), str(data["token"])
            refused.append(str(target))
            first = first or response.text[:160]
        self._refused(role, refused, first)
        return None

    def _refused(self, role: str, targets: list[str], first: str) -> None:
        if targets:
            self.figures.note(f"{role}: rated tables to {', '.join(targets)} points refused: "
                              f"{first}")

    async def _start(self, table: str, token: str) -> None:
        await self.request(self.addresses[0], "POST", f"/api/tables/{table}/start", "setup",
                           headers={"Authorization": f"Bearer {token}"})  # fmt: skip

    async def _beginner(self) -> str:
        board = await self.json_of(self.addresses[0], "/api/leaderboard?limit=100", "board")
        bots = board.get("bots") if isinstance(board, dict) else None
        for row in bots or []:
            if isinstance(row, dict) and str(row.get("level", "")).casefold() == "beginner":
                return str(row.get("display"))
        return "unrated"

    async def run(self, deadline: float) -> None:
        address = self.addresses[0]
        seen: dict[str, set[object]] = {}

        def over(role: str) -> Callable[[TableState], None]:
            def count(state: TableState) -> None:
                done = seen.setdefault(role, set())
                if state.finished_game not in done:
                    done.add(state.finished_game)
                    self.games[role] += 1

            return count

        await asyncio.gather(*(
            self.play_seat(address, table, token, deadline, policy=score_at_once,
                           on_over=over(role))
            for role, table, token in self.seats
        ))  # fmt: skip
        await self._report()

    async def _report(self) -> None:
        board = await self.json_of(self.addresses[0], "/api/leaderboard?limit=100", "board")
        ranks = {str(row.get("id")): row.get("rank")
                 for row in (board.get("players") if isinstance(board, dict) else None) or []
                 if isinstance(row, dict)}  # fmt: skip
        for role, (player, _key) in self.players.items():
            profile = await self.json_of(self.addresses[0], f"/api/players/{player}", "profile")
            rating = profile.get("rating") if isinstance(profile, dict) else None
            if isinstance(rating, dict):
                games, shown = int(rating.get("games", 0)), rating.get("display")
                self.figures.codes[f"{role}: rated games"] = games
                extra = ", provisional" if rating.get("provisional") else ""
                text = f"rating {shown}{extra} after {games} rated games"
            else:
                text = "no rating"
            rank = ranks.get(player)
            self.figures.note(
                f"{role}: {self.games[role]} games over; {text}; leaderboard rank "
                f"{rank if rank is not None else '-'}"
            )
        self.figures.note(
            f"the Beginner level's rating: {self.beginner_before} before, "
            f"{await self._beginner()} after"
        )
