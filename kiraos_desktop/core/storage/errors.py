"""One classification of database errors for every entry point (window, API, MCP, command line).

Both stores turn what their driver raises at a transaction's end into one of these, in words that
say what to do; what is not classified stays as it was (a bug is not dressed up as a busy database).

- busy: another writer holds the lock longer than we wait (SQLite's busy timeout, PostgreSQL's
  lock_timeout): StoreBusy, nothing written.
- conflict: PostgreSQL chose the transaction as a deadlock or serialization victim: StoreBusy with
  `retryable` (running the whole operation again is safe; the store's own methods do it).
- disk full, permission: StoreUnavailable saying what to fix.
- connection lost: the stores already say it themselves (StoreUnavailable).
Every StoreUnavailable is a 503 on the API and a message box in the window.
"""
from __future__ import annotations

import logging
import sqlite3
from contextlib import contextmanager
from typing import Iterator

from kiraos_desktop.core.memory.records import StoreUnavailable

log = logging.getLogger(__name__)

BUSY, CONFLICT, DISK_FULL, PERMISSION = "busy", "conflict", "disk full", "permission"

#: How long a PostgreSQL statement waits for a row or advisory lock before it fails as busy.
LOCK_TIMEOUT_MS = 10_000

_SQLSTATES = {
    "40P01": CONFLICT,  # deadlock_detected
    "40001": CONFLICT,  # serialization_failure
    "55P03": BUSY,  # lock_not_available (lock_timeout)
    "53100": DISK_FULL,  # disk_full
    "42501": PERMISSION,  # insufficient_privilege
}

#: SQLite's primary result codes (sqlite3.SQLITE_BUSY and so on, named here for Python 3.10).
_SQLITE_CODES = {
    5: BUSY,  # SQLITE_BUSY: another connection holds the lock past our busy timeout
    6: BUSY,  # SQLITE_LOCKED: a conflict within one shared-cache connection set
    13: DISK_FULL,  # SQLITE_FULL
    8: PERMISSION,  # SQLITE_READONLY
    3: PERMISSION,  # SQLITE_PERM
}


class StoreBusy(StoreUnavailable):
    """Another writer kept the lock too long, or won a deadlock; nothing of the operation was written.
    `retryable`: the operation may simply run again."""

    def __init__(self, message: str, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


def classify(exc: BaseException) -> str | None:
    """BUSY, CONFLICT, DISK_FULL, PERMISSION, or None for anything else."""
    state = getattr(exc, "sqlstate", None)
    if state in _SQLSTATES:
        return _SQLSTATES[state]
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+, on errors SQLite raised
        if code is not None:
            return _SQLITE_CODES.get(code & 0xFF)  # the primary code of an extended one
        text = str(exc).lower()  # Python 3.10, or an error made by hand: its text is all there is
        if "locked" in text or "busy" in text:
            return BUSY
        if "disk is full" in text or "disk full" in text:
            return DISK_FULL
        if "readonly" in text or "read-only" in text or "permission" in text:
            return PERMISSION
    return None


def store_error(exc: BaseException, where: str) -> StoreUnavailable | None:
    """The StoreUnavailable (or StoreBusy) to raise instead of `exc`, or None when it is none of
    classify()'s kinds. `where`: the database, for the message (never a password)."""
    kind = classify(exc)
    made = _made(kind, where)
    if made is not None:
        made.kind = kind  # a window says it in its own language
    return made


def _made(kind: str | None, where: str) -> StoreUnavailable | None:
    if kind == BUSY:
        return StoreBusy(f"The memory database ({where}) is busy: another program kept its lock too long. "
                         "Nothing was written; try again in a moment.")
    if kind == CONFLICT:
        return StoreBusy(f"Another KiraOS Desktop instance wrote the same memory at the same moment ({where}). "
                         "Nothing was written; try again.", retryable=True)
    if kind == DISK_FULL:
        return StoreUnavailable(f"The disk of the memory database ({where}) is full. Nothing was written; "
                                "free some space and try again.")
    if kind == PERMISSION:
        return StoreUnavailable(f"The memory database ({where}) may not be written by this user. Nothing was "
                                "written; check the file's or the database role's permissions.")
    return None


@contextmanager
def queued_rows_skipped_on_error(conn, savepoint: str, what: str, count: int) -> Iterator[None]:
    """Index work on `count` queued rows inside SAVEPOINT `savepoint` (SQLite or psycopg connection): an
    error of the rows' data rolls that work back and is logged, the rows skipped (they would fail the
    same way at every drain); one of the database's state (classify(): full, busy) fails the write."""
    conn.execute(f"SAVEPOINT {savepoint}")
    try:
        yield
    except Exception as exc:
        if classify(exc) is not None:
            raise
        conn.execute(f"ROLLBACK TO {savepoint}")
        log.exception("the %s could not take %d queued changes; they are skipped", what, count)
    conn.execute(f"RELEASE {savepoint}")
