"""Audit rows (memory_changes): a batch's written in multi-row statements, a write group's all at once.

Each memory_update call of a write group (core/writes/update_queue.py) is a batch in its own
savepoint. Writing each call's audit rows at its end cost two statements a call (the rows and the
users' chain heads), about a tenth of a call's time under load; held back (GroupAudit), a group's
rows go in one INSERT just before its commit. They follow the savepoints: the rows of a call whose
savepoint is rolled back are dropped with it (mark()/undo()), and a group that fails drops them all.
"""
from __future__ import annotations

import itertools
from typing import Iterator, Sequence

# An audit row names the same user's previous change (see storage/sqlite/schema.py): the one before it in this
# statement, else the user's stored head.
_AUDIT_INSERT = ("INSERT INTO memory_changes (id, at, user_id, actor, action, target, before, after, prev_id) "
                 "VALUES ")
_AUDIT_VALUES = "(?, ?, ?, ?, ?, ?, ?, ?, coalesce(?, (SELECT last_change_id FROM user_summary WHERE user_id = ?)))"
_HEAD_UPSERT = ("INSERT INTO user_summary (user_id, profile_count, event_count, last_activity, last_change_id) "
                "VALUES ")
_HEAD_VALUES = "(?, 0, 0, NULL, ?)"
_HEAD_CONFLICT = " ON CONFLICT(user_id) DO UPDATE SET last_change_id = excluded.last_change_id"
_ROWS_PER_INSERT = 500  # at most 5000 variables: well below SQLite's limit


def write_audit_rows(execute, store, rows: list[tuple]) -> Sequence[int]:
    """Write audit rows (WriteBatch.audit()'s tuples), in order; their ids.

    Multi-row INSERTs instead of one per change, with ids allocated by the store (its allocate_change_ids(); the write
    lock is held), so that each row can name its user's previous change; then the users' chain heads move to
    their newest rows.
    """
    if not rows:
        return ()
    ids = store.allocate_change_ids(len(rows))
    heads: dict[str, int] = {}  # user -> the newest change id written for them here
    values = []
    for change_id, row in zip(ids, rows):
        user_id = row[1]
        values.append((change_id, *row, heads.get(user_id), user_id))
        heads[user_id] = change_id
    for chunk in _chunks(values):
        execute(_AUDIT_INSERT + ", ".join([_AUDIT_VALUES] * len(chunk)), _flat(chunk))
    for chunk in _chunks(list(heads.items())):
        execute(_HEAD_UPSERT + ", ".join([_HEAD_VALUES] * len(chunk)) + _HEAD_CONFLICT, _flat(chunk))
    return ids


def _chunks(items: list) -> Iterator[list]:
    for start in range(0, len(items), _ROWS_PER_INSERT):
        yield items[start:start + _ROWS_PER_INSERT]


def _flat(rows: list[tuple]) -> tuple:
    return tuple(itertools.chain.from_iterable(rows))


class GroupAudit:
    """Audit rows (WriteBatch.audit()'s tuples) waiting for the open group's commit, in call order."""

    __slots__ = ("rows",)

    def __init__(self) -> None:
        self.rows: list[tuple] = []

    def add(self, rows: list[tuple]) -> None:
        self.rows.extend(rows)

    def mark(self) -> int:
        """Where a savepoint starts: undo(mark) drops what was added after it."""
        return len(self.rows)

    def undo(self, mark: int) -> None:
        del self.rows[mark:]

    def take(self) -> list[tuple]:
        rows, self.rows = self.rows, []
        return rows
