"""The web app: its page for every address a player may open or share, and its files under
``/static`` (plain ES modules, style sheets, catalogues: no build step)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["STATIC", "router"]

STATIC = Path(__file__).parents[2] / "static"
# Every address of the web app, all served the same page (its script reads the address).
PAGES = (
    "/", "/t/{table_id}", "/replay/game/{game_id}", "/replay/{replay_id}",
    "/scorekeeper", "/scorekeeper/{scorecard_id}", "/rules",
    # players (issue 16): profiles, the leaderboard, the coach, transfer links
    "/me", "/players/{player_id}", "/leaderboard", "/coach/{game_id}/{seat}", "/link/{code}",
    # the links of the turn alerts' e-mails (flip7.server.services.mail)
    "/email/verify/{token}", "/email/unsubscribe/{token}",
)

router = APIRouter(include_in_schema=False)


async def index() -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html")


for _path in PAGES:
    router.add_api_route(_path, index)


@router.get("/sw.js")
async def service_worker() -> FileResponse:
    """The service worker (turn alerts by Web Push), at the root so that its scope is the
    whole site; never cached, so a new version is found at the next visit."""
    return FileResponse(STATIC / "js" / "sw.js", media_type="text/javascript",
                        headers={"Cache-Control": "no-cache"})

if STATIC.is_dir():
    router.mount("/static", StaticFiles(directory=STATIC), name="static")
