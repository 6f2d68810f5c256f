"""Watching the SQLite file under a running server.

SQLite keeps writing to a file that was deleted or replaced (its connections hold the old
one open), so without a look at the path the server would acknowledge moves that vanish on
the next restart. :class:`DatabaseFile` remembers which file was opened (device and inode)
and says what is wrong with it now: gone, replaced, read-only, or its disk nearly full.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["LOW_DISK_BYTES", "DatabaseFile"]

# Below this much free space the disk is reported as full: SQLite needs room for the WAL
# and its checkpoints, and a failed checkpoint is worse than a refused move.
LOW_DISK_BYTES = 8 * 1024 * 1024


class DatabaseFile:
    """The SQLite file a store opened, identified by its device and inode."""

    def __init__(self, path: Path) -> None:
        self.path = path
        info = os.stat(path)
        self.identity = (info.st_dev, info.st_ino)

    def lost(self) -> str | None:
        """Why writes must stop (the path no longer leads to the opened file), or None.

        Cheap (one ``stat``): checked before every commit."""
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return f"the database file {self.path} was deleted"
        except OSError as exc:
            return f"the database file {self.path} cannot be reached: {exc.strerror}"
        if (info.st_dev, info.st_ino) != self.identity:
            return f"the database file {self.path} was replaced by another file"
        return None

    def problem(self) -> str | None:
        """What health reports: :meth:`lost`, or the file read-only, or its disk full."""
        lost = self.lost()
        if lost is not None:
            return lost
        try:
            info = os.stat(self.path)
            disk = os.statvfs(self.path.parent)
        except OSError as exc:
            return f"the database file {self.path} cannot be reached: {exc.strerror}"
        # No write bit at all counts too: a server running as root would still write, but
        # the next one, started as anyone else, could not.
        if (
            disk.f_flag & os.ST_RDONLY
            or not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
            or not os.access(self.path, os.W_OK)
        ):
            return f"the database file {self.path} is read-only"
        free = disk.f_bavail * disk.f_frsize
        if free < LOW_DISK_BYTES:
            return (
                f"the disk holding the database file {self.path} is full ({free // 1024} KiB free)"
            )
        return None
