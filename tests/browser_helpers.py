"""What the browser tests share (the ``chromium_browser`` fixture is in conftest.py): pages
that record script errors, and screenshots in ``test-artifacts/`` at the repository root."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
TIMEOUT_MS = 15_000


def new_page(browser: Any, width: int = 1280, height: int = 800) -> tuple[Any, list[str]]:
    """A page in a fresh context (own localStorage) that records script errors. A request
    the test makes fail on purpose logs "Failed to load resource": only other errors count."""
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console",
        lambda msg: (
            errors.append(msg.text)
            if msg.type == "error" and not msg.text.startswith("Failed to load resource")
            else None
        ),
    )
    return page, errors


def shot(target: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    target.screenshot(path=str(ARTIFACTS / name))
