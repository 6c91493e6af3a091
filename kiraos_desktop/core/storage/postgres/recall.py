"""The recall index on PostgreSQL: the queue drained by several processes at once, without waiting on each other.

Same tables, triggers (pg_schema.py), rules and results as recall_index.py. What differs: each drain
takes only queue rows no other transaction holds (FOR UPDATE SKIP LOCKED) and deletes exactly those,
user numbers come from a sequence, and two processes may index the same user at once (see _backfill).
"""
from __future__ import annotations

from kiraos_desktop.core.storage.errors import queued_rows_skipped_on_error
from kiraos_desktop.core.storage import recall_index
from kiraos_desktop.core.storage.dialect import PgConnection
from kiraos_desktop.core.storage.recall_index import (
    BUILD_BATCH,
    DRAIN_PER_COMMIT,
    BuildState,
    queued_term_changes,
    read_build_state,
)


_INSERT_TERM = "INSERT INTO recall_terms (u, term, event_id) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING"
_DELETE_TERM = "DELETE FROM recall_terms WHERE u = %s AND term = %s AND event_id = %s"


def _backfill(conn, adapted, user_id: str) -> int:
    """recall_index._backfill() on PostgreSQL: a drain or build step of another process may index the
    same user at the same time; the later one waits for the earlier's row and adds nothing new."""
    row = conn.execute("INSERT INTO recall_users (user_id) VALUES (%s) ON CONFLICT (user_id) DO NOTHING "
                       "RETURNING num", (user_id,)).fetchone()
    if row is None:
        return conn.execute("SELECT num FROM recall_users WHERE user_id = %s", (user_id,)).fetchone()[0]
    _apply(conn, [], recall_index.user_event_terms(adapted, user_id, row[0]))
    return row[0]


def _indexed_nums(conn, adapted, user_ids) -> dict[str, int]:
    """recall_index._indexed_nums() on PostgreSQL. New users' rows are created in code point order:
    two drains creating the same new users in different orders would each wait on a row the other
    has inserted and not committed (a deadlock, which would skip their queued changes).

    A known gap, left: while another process indexes a user (its row not committed yet), a drain
    that reads the user's count at INDEX_PAST or below (events were deleted meanwhile) takes the
    user's queue rows off unindexed; an event among them that the other's backfill did not read is
    then missing from the index. It needs two processes draining at once, a user at the threshold
    and a deletion in that moment, and the event is still found while among the user's newest
    SCAN_LIMIT."""
    listed = sorted(set(user_ids))
    nums = dict(conn.execute("SELECT user_id, num FROM recall_users WHERE user_id = ANY(%s)", (listed,)).fetchall())
    for user_id in recall_index.users_to_index(adapted, [user_id for user_id in listed if user_id not in nums]):
        nums[user_id] = _backfill(conn, adapted, user_id)
    return nums


def _apply(conn, removed: list, added: list) -> None:
    # Keys in one order in every process, for the same reason as _indexed_nums().
    with conn.cursor() as cursor:
        if removed:
            cursor.executemany(_DELETE_TERM, sorted(removed))
        if added:
            cursor.executemany(_INSERT_TERM, sorted(added))


def drain(conn, limit: int = DRAIN_PER_COMMIT) -> int:
    """Move up to `limit` queue rows into the index (inside a write transaction of `conn`, a psycopg
    connection), as recall_index.drain(): only users whose events are in the index. A row that
    cannot be segmented is dropped with a log line, as there."""
    rows = conn.execute("SELECT seq, user_id, event_id, old_text, new_text FROM recall_queue "
                        "ORDER BY seq LIMIT %s FOR UPDATE SKIP LOCKED", (limit,)).fetchall()
    if not rows:
        return 0
    with queued_rows_skipped_on_error(conn, "kd_recall", "recall index", len(rows)):
        nums = _indexed_nums(conn, PgConnection(conn), [row[1] for row in rows if row[2] is not None])
        if nums:
            removed, added = queued_term_changes([row for row in rows if row[1] in nums], nums.__getitem__)
            with conn.pipeline():  # its own sync: an error surfaces here, not at the commit
                _apply(conn, removed, added)
    conn.execute("DELETE FROM recall_queue WHERE seq = ANY(%s)", ([row[0] for row in rows],))
    return len(rows)


def build_step(conn, adapted, batch: int = BUILD_BATCH) -> BuildState:
    """recall_index.build_step() on PostgreSQL (`adapted`: the same connection as a dialect.PgConnection)."""
    state = read_build_state(adapted)
    if state.complete:
        return state
    users, events = recall_index.next_build_users(adapted, state, batch)
    for user_id in users:
        _backfill(conn, adapted, user_id)
    return recall_index.advance_build(adapted, state, users, events)
