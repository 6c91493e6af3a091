"""The user search index on PostgreSQL: user_search_index.py's tables, drain and build, user_search.py's queries.

The same index as on SQLite (models.py's tables, filled from the queue that pg_schema.py's triggers
write), so a search finds the same users on both backends. What differs:
- The drain and the build run on the calling thread's own connection, not on the store's writer:
  they touch only the index tables, so the API's writes never wait for them.
- One process at a time drains or builds (a transaction-level advisory lock, tried: a process that
  finds it taken skips its turn). Counting words in and out twice would make the index wrong, and
  the search is exact meanwhile anyway: it confirms the users with queued changes from their rows.
- A search reads one snapshot (REPEATABLE READ, read only), as SQLite's read transaction does.

Measured on 20,000 users (200,000 profile entries, 1,000,000 events; docs/postgresql.md): the index
answers a word in milliseconds where scanning the memory tables took seconds. pg_trgm was not
an option: with the C locale it leaves Han characters out of its trigrams, and a two-character
word (面试) has no trigram at all.
"""
from __future__ import annotations

from typing import Callable, TypeVar

from kiraos_desktop.core.storage import search_index as user_search_index
from kiraos_desktop.core.storage.dialect import PgConnection
from kiraos_desktop.core.storage.search_index import BuildState

#: pg_try_advisory_xact_lock key of the user search index's drain and build ("kd_usrch").
_INDEX_LOCK = 0x6B645F7573726368
T = TypeVar("T")


class _InTransaction(PgConnection):
    """A connection inside the transaction opened here (user_search.py opens none of its own then)."""

    in_transaction = True


def _locked(conn) -> bool:
    return conn.execute("SELECT pg_try_advisory_xact_lock(%s)", (_INDEX_LOCK,)).fetchone()[0]


def drain(conn, state: BuildState, limit: int = user_search_index.DRAIN_BATCH) -> int:
    """Move up to `limit` queue rows into the index in a transaction of `conn` (a psycopg connection
    in autocommit mode); 0 when the queue is empty or another process is draining."""
    with conn.transaction():
        if not _locked(conn):
            return 0
        adapted = PgConnection(conn)
        if not state.complete:  # read again: another process may have moved the build on
            state = user_search_index.read_build_state(adapted)
        return user_search_index.drain(adapted, state, limit)


def build_step(conn, users: int, events: int) -> tuple[BuildState, tuple[int, int]]:
    """user_search_index.build_step() in a transaction of `conn`, unless another process is at it;
    (the build's state, its progress) either way."""
    with conn.transaction():
        adapted = PgConnection(conn)
        if _locked(conn):
            state = user_search_index.build_step(adapted, users, events)
        else:
            state = user_search_index.read_build_state(adapted)
        return state, user_search_index.build_progress(adapted)


def read(conn, work: Callable[[PgConnection], T]) -> T:
    """`work(connection)` (user_search.py's functions) inside one read-only snapshot of `conn`."""
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        return work(_InTransaction(conn))
