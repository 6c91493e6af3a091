"""Which users have every event of a day coded for the repeat check, known across our write transactions.

Before its first repeat check for a user, a write batch codes the user's uncoded events since the
check's day (storage/repeat_keys.py): one query per call, even when the previous call for that user
coded them all a moment ago. The store keeps what committed batches coded, so the next batch skips
that query. It stands for the database only while nothing else added events without codes:
- another connection's commit (the plugin, a second window) moves SQLite's data_version: checked at
  the start of each of our transactions, and everything known is dropped;
- a batch of ours that is not a memory_update call (the window, an import, a revert: they may add or
  change events by other paths) and a batch that failed drop it all as well;
- what a batch coded becomes known only when its transaction commits (a rollback takes its codes back).
"""
from __future__ import annotations

#: Users known at most (a dict entry each); past it, everything known is dropped.
MAX_USERS = 50000


class CodedUsers:
    """Used under the store's write lock only."""

    def __init__(self) -> None:
        self._days: dict[str, str] = {}  # user -> the day since which their events are coded
        self._staged: dict[str, str] = {}  # coded by batches of the open transaction ("" : no longer)
        self._version: int | None = None

    def begin(self, data_version: int) -> None:
        """A transaction of ours begins; `data_version`: the writer's, read inside it."""
        if data_version != self._version:
            self._days.clear()
            self._version = data_version
        self._staged.clear()

    def day_of(self, user_id: str) -> str | None:
        """The day since which the user's events all have codes, as far as committed batches know."""
        return self._days.get(user_id)

    def stage(self, coded: dict[str, str]) -> None:
        """A memory_update batch of the open transaction succeeded with these users coded ("" : one of
        its writes left the user's events uncoded)."""
        self._staged.update(coded)

    def committed(self) -> None:
        if len(self._days) + len(self._staged) > MAX_USERS:
            self._days.clear()
        for user_id, day in self._staged.items():
            if day:
                self._days[user_id] = day
            else:
                self._days.pop(user_id, None)
        self._staged.clear()

    def forget(self) -> None:
        """Drop everything known (a rollback, another kind of batch)."""
        self._days.clear()
        self._staged.clear()
