"""What the commands share for reading their input files."""

from __future__ import annotations

import sys

from flip7.core.errors import Flip7Error, RecordError

__all__ = ["CommandError", "read_text"]


class CommandError(Flip7Error):
    """A problem with a command's input that is not the engine's (unreadable file, bad JSON)."""


def read_text(path: str) -> str:
    """The text of ``path`` (``-``: standard input), or a :class:`CommandError` saying why not."""
    try:
        if path == "-":
            return sys.stdin.read()
        # open(), not pathlib: every command loads this module, few read a file.
        with open(path, encoding="utf-8") as file:
            return file.read()
    except UnicodeDecodeError as exc:
        raise RecordError("record", None, f"not UTF-8 text: {exc}") from None
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from None
