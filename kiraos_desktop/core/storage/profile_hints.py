"""The profile entries our own memory_update calls left a user with, handed to the next user-search drain.

The user-search drain recomputes the words of every user whose profile entries changed from their
rows (see user_search_index.py). For a user one of our memory_update calls has just written, the
call already holds all of those rows (it read them once and kept them current), so the drain takes
them from here instead of reading them again: about a third of its work per call under load.

They stand for the database only while nothing else wrote since, which the store ensures:
- any batch of ours that did not leave such rows (the window, an import, a revert, another tool)
  and any rollback clear them all;
- another connection's commit (another process: the plugin, a second window) moves SQLite's
  data_version, and take() then returns nothing (the drain reads every user's rows).
They live until the next drain at most, which under load is the next idle moment: at most
MAX_USERS users are kept (the drain reads the others' rows).
"""
from __future__ import annotations

from typing import Callable

from kiraos_desktop.core.storage.rows import ROW_KEY, ROW_VALUE

#: Users whose rows are kept at most (some 13 entries each: a few MB).
MAX_USERS = 2000


class ProfileHints:
    """Per user, the rows (by key: ProfileRow, see store_rows.py) of one of our committed or
    committing memory_update calls; one store's, used under its write lock only."""

    def __init__(self) -> None:
        self._rows: dict[str, dict] = {}
        self._version: int | None = None  # the writer's data_version when the first was noted

    def note(self, user_id: str, rows: dict, data_version: Callable[[], int]) -> None:
        """`rows`: every profile entry the user has now (inside the transaction that wrote them)."""
        if not self._rows:
            self._version = data_version()
        if len(self._rows) < MAX_USERS or user_id in self._rows:
            self._rows[user_id] = rows

    def clear(self) -> None:
        self._rows.clear()

    def take(self, data_version: Callable[[], int]) -> dict[str, dict]:
        """The noted users' rows (pairs() gives their keys and values), or nothing when another
        connection committed since the first was noted; none are kept afterwards."""
        rows, self._rows = self._rows, {}
        if not rows or data_version() != self._version:
            return {}
        return rows


def pairs(rows: dict) -> list[tuple[str, str]]:
    """(key, value) of each of a user's rows as noted."""
    return [(row[ROW_KEY], row[ROW_VALUE]) for row in rows.values()]
