"""Reading the audit log (memory_changes) in the SQL SQLite and PostgreSQL share: the newest changes
of everyone, or the walk down one user's chain (storage/sqlite/schema.py keeps it)."""
from __future__ import annotations

import json
from typing import Any, Callable

from kiraos_desktop.core.memory.records import ChangeRecord
from kiraos_desktop.core.storage.rows import CHANGE_COLUMNS

#: A read in SQLite's words (`?` parameters) on the caller's database.
Rows = Callable[[str, tuple], list[tuple]]


def list_changes(rows: Rows, user_id: str | None, limit: int, before_id: int | None) -> list[ChangeRecord]:
    """The newest `limit` changes first (of one user, or of all), older than `before_id` when given."""
    if user_id is not None:
        return _user_changes(rows, user_id, limit, before_id)
    where, params = ("WHERE id < ?", (before_id,)) if before_id is not None else ("", ())
    found = rows(f"SELECT {CHANGE_COLUMNS} FROM memory_changes {where} ORDER BY id DESC LIMIT ?", params + (limit,))
    return [_change_from_row(row) for row in found]


def _user_changes(rows: Rows, user_id: str, limit: int, before_id: int | None) -> list[ChangeRecord]:
    # Along the user's chain, from its head or from the change before before_id.
    # `m.id < c.id` in the walks: ids fall along a chain, so even a damaged one cannot loop.
    if before_id is not None:
        found = rows("SELECT user_id, prev_id FROM memory_changes WHERE id = ?", (before_id,))
        if found and found[0][0] == user_id:  # paging on: the common case
            start = found[0][1]
        else:  # walk down from the head to the first change older than before_id
            found = rows(
                "WITH RECURSIVE walk(id, prev_id) AS (SELECT id, prev_id FROM memory_changes "
                "WHERE id = (SELECT last_change_id FROM user_summary WHERE user_id = ?) "
                "UNION ALL SELECT m.id, m.prev_id FROM memory_changes AS m JOIN walk AS w "
                "ON m.id = w.prev_id AND m.id < w.id WHERE w.id >= ?) "
                "SELECT id FROM walk WHERE id < ?", (user_id, before_id, before_id))
            start = found[0][0] if found else None
    else:
        found = rows("SELECT last_change_id FROM user_summary WHERE user_id = ?", (user_id,))
        start = found[0][0] if found else None
    if start is None:
        return []
    found = rows(
        f"WITH RECURSIVE chain AS (SELECT {CHANGE_COLUMNS}, prev_id FROM memory_changes WHERE id = ? "
        f"UNION ALL SELECT {_CHANGE_COLUMNS_OF_M}, m.prev_id FROM memory_changes AS m "
        "JOIN chain AS c ON m.id = c.prev_id AND m.id < c.id LIMIT ?) "
        f"SELECT {CHANGE_COLUMNS} FROM chain", (start, limit))
    return [_change_from_row(row) for row in found]


def get_change(rows: Rows, change_id: int) -> ChangeRecord | None:
    found = rows(f"SELECT {CHANGE_COLUMNS} FROM memory_changes WHERE id = ?", (change_id,))
    return _change_from_row(found[0]) if found else None


_CHANGE_COLUMNS_OF_M = ", ".join("m." + name for name in CHANGE_COLUMNS.split(", "))


def _json_or_none(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _change_from_row(row: tuple) -> ChangeRecord:
    """The record of a row of CHANGE_COLUMNS (a chain walk may add prev_id after them)."""
    change_id, at, user_id, actor, action, target, before, after = row[:8]
    return ChangeRecord(change_id, at, user_id, actor, action, target, _json_or_none(before), _json_or_none(after))
