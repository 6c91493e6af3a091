"""The recall index on PostgreSQL: the queue drained by several processes at once, without waiting on each other.

Same tables, triggers (pg_schema.py) and results as recall_index.py. What differs: each drain takes
only queue rows no other transaction holds (FOR UPDATE SKIP LOCKED) and deletes exactly those, term
rows are inserted with ON CONFLICT DO NOTHING, and user numbers come from a sequence.
"""
from __future__ import annotations

import logging

from kiraos_desktop.core.recall_index import (
    BUILD_BATCH,
    DRAIN_PER_COMMIT,
    BuildState,
    queued_term_changes,
    read_build_state,
)
from kiraos_desktop.core.recall_text import terms

log = logging.getLogger(__name__)

_INSERT_TERM = "INSERT INTO recall_terms (u, term, event_id) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING"
_DELETE_TERM = "DELETE FROM recall_terms WHERE u = %s AND term = %s AND event_id = %s"
_SET_META = ("INSERT INTO kiraos_desktop_meta (key, value) VALUES (%s, %s) "
             "ON CONFLICT (key) DO UPDATE SET value = excluded.value")


class _Nums:
    """User numbers looked up (or created) once per drain or build step."""

    def __init__(self, conn) -> None:
        self._conn = conn
        self._known: dict[str, int] = {}

    def __call__(self, user_id: str) -> int:
        num = self._known.get(user_id)
        if num is None:
            row = self._conn.execute("INSERT INTO recall_users (user_id) VALUES (%s) ON CONFLICT (user_id) "
                                     "DO NOTHING RETURNING num", (user_id,)).fetchone()
            if row is None:
                row = self._conn.execute("SELECT num FROM recall_users WHERE user_id = %s", (user_id,)).fetchone()
            num = self._known[user_id] = row[0]
        return num


def _numbered(conn, user_ids) -> _Nums:
    """A _Nums holding the numbers of `user_ids`, new users' rows created in code point order: two
    drains creating the same new users in different orders would each wait on a row the other has
    inserted and not committed (a deadlock, which would skip their queued changes)."""
    nums = _Nums(conn)
    for user_id in sorted(set(user_ids)):
        nums(user_id)
    return nums


def _apply(conn, removed: list, added: list) -> None:
    # Keys in one order in every process, for the same reason as _numbered().
    with conn.cursor() as cursor:
        if removed:
            cursor.executemany(_DELETE_TERM, sorted(removed))
        if added:
            cursor.executemany(_INSERT_TERM, sorted(added))


def drain(conn, limit: int = DRAIN_PER_COMMIT) -> int:
    """Move up to `limit` queue rows into the index (inside a write transaction of `conn`, a psycopg
    connection). A row that cannot be segmented is dropped with a log line, as recall_index.drain()."""
    rows = conn.execute("SELECT seq, user_id, event_id, old_text, new_text FROM recall_queue "
                        "ORDER BY seq LIMIT %s FOR UPDATE SKIP LOCKED", (limit,)).fetchall()
    if not rows:
        return 0
    conn.execute("SAVEPOINT kd_recall")
    try:
        nums = _numbered(conn, [row[1] for row in rows if row[2] is not None])
        removed, added = queued_term_changes(rows, nums)
        with conn.pipeline():  # its own sync: an error surfaces here, not at the commit
            _apply(conn, removed, added)
    except Exception:
        conn.execute("ROLLBACK TO kd_recall")
        log.exception("the recall index could not take %d queued changes; they are skipped", len(rows))
    conn.execute("RELEASE kd_recall")
    conn.execute("DELETE FROM recall_queue WHERE seq = ANY(%s)", ([row[0] for row in rows],))
    return len(rows)


def build_step(conn, adapted, batch: int = BUILD_BATCH) -> BuildState:
    """recall_index.build_step() on PostgreSQL (`adapted`: the same connection as a dialect.PgConnection)."""
    state = read_build_state(adapted)
    if state.complete:
        return state
    rows = conn.execute("SELECT id, user_id, event_summary FROM event_logs WHERE id > %s AND id <= %s "
                        "ORDER BY id LIMIT %s", (state.done, state.upto, batch)).fetchall()
    nums = _numbered(conn, [row[1] for row in rows])
    _apply(conn, [], [(nums(user_id), term, event_id) for event_id, user_id, text in rows
                      for term in terms(text or "")])
    done = rows[-1][0] if len(rows) == batch else state.upto
    conn.execute(_SET_META, ("recall_build_done", str(done)))
    return BuildState(done, state.upto)
