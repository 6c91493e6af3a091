"""The recall index: each user's event words, kept current from a queue that plain-SQL triggers fill.

Layout (our tables only, defined in models.py; the plugin's are untouched):
- `recall_terms (u, term, event_id)`: one row per distinct word of an event, clustered by user, so
  a user's words sit on a few pages (writing and looking up one user touches only those).
- `recall_users (num, user_id)`: the small number that stands for a user in `recall_terms`.
- `recall_queue`: every insert, update and delete on `event_logs`, by any process, adds a row with
  the text to unindex and/or to index. The triggers are built-in SQL only, so the plugin's own
  INSERT never needs anything of ours. This process segments the text (rjieba) and moves it into
  `recall_terms`: before each of its own commits, and on the watcher's ticks for other processes'
  writes. A query also reads the queue rows of its user, so nothing waits for a drain.
- An existing database is indexed by a resumable build (`build_step`): events up to the id that
  was the newest when the index was created; later events come through the queue.
"""
from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from kiraos_desktop.core.recall_text import TERMS_VERSION, terms
from kiraos_desktop.core.store_rows import EVENT_COLUMNS, EVENT_SELECT, NEWEST_EVENTS_FIRST

log = logging.getLogger(__name__)

#: Queue rows moved into the index before one of our commits (our own writes of a group add ~64).
DRAIN_PER_COMMIT = 1000
#: Events indexed per transaction of the build (short, so other writers never wait long).
BUILD_BATCH = 2000

RECALL_TRIGGER_NAMES = ("kd_recall_ins", "kd_recall_del", "kd_recall_upd")

RECALL_TRIGGERS = (
    """CREATE TRIGGER kd_recall_ins AFTER INSERT ON event_logs BEGIN
        INSERT INTO recall_queue (user_id, event_id, new_text) VALUES (NEW.user_id, NEW.id, NEW.event_summary);
    END""",
    """CREATE TRIGGER kd_recall_del AFTER DELETE ON event_logs BEGIN
        INSERT INTO recall_queue (user_id, event_id, old_text) VALUES (OLD.user_id, OLD.id, OLD.event_summary);
    END""",
    """CREATE TRIGGER kd_recall_upd AFTER UPDATE OF id, user_id, event_summary ON event_logs BEGIN
        INSERT INTO recall_queue (user_id, event_id, old_text) VALUES (OLD.user_id, OLD.id, OLD.event_summary);
        INSERT INTO recall_queue (user_id, event_id, new_text) VALUES (NEW.user_id, NEW.id, NEW.event_summary);
    END""",
)

_META = "SELECT value FROM kiraos_desktop_meta WHERE key = ?"
_SET_META = ("INSERT INTO kiraos_desktop_meta (key, value) VALUES (?, ?) "
             "ON CONFLICT(key) DO UPDATE SET value = excluded.value")
_INSERT_TERM = "INSERT OR IGNORE INTO recall_terms (u, term, event_id) VALUES (?, ?, ?)"
_DELETE_TERM = "DELETE FROM recall_terms WHERE u = ? AND term = ? AND event_id = ?"


def ensure_recall_schema(conn: sqlite3.Connection, existed: bool) -> list[str]:
    """Create the index's triggers (inside the schema transaction, its tables made from models.py by
    schema.py); returns what was done. `existed`: whether the tables were there before.

    A new index on a database that has events, or one built with other words (TERMS_VERSION),
    is marked for a build up to the newest event id.
    """
    done = []
    for name in RECALL_TRIGGER_NAMES:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    for ddl in RECALL_TRIGGERS:
        conn.execute(ddl)
    version = conn.execute(_META, ("recall_version",)).fetchone()
    if not existed or version is None or version[0] != TERMS_VERSION:
        if existed:
            conn.execute("DELETE FROM recall_terms")
        newest = conn.execute("SELECT coalesce(max(id), 0) FROM event_logs").fetchone()[0]
        conn.execute(_SET_META, ("recall_version", TERMS_VERSION))
        conn.execute(_SET_META, ("recall_build_upto", str(newest)))
        conn.execute(_SET_META, ("recall_build_done", "0"))
        if newest:
            done.append("recall index to build")
    return done


@dataclass(frozen=True)
class BuildState:
    """Events with ids in (done, upto] are not in the index yet."""

    done: int
    upto: int

    @property
    def complete(self) -> bool:
        return self.done >= self.upto


def read_build_state(conn: sqlite3.Connection) -> BuildState:
    upto = conn.execute(_META, ("recall_build_upto",)).fetchone()
    done = conn.execute(_META, ("recall_build_done",)).fetchone()
    return BuildState(int(done[0]) if done else 0, int(upto[0]) if upto else 0)


def user_num(conn: sqlite3.Connection, user_id: str, create: bool) -> int | None:
    row = conn.execute("SELECT num FROM recall_users WHERE user_id = ?", (user_id,)).fetchone()
    if row is not None:
        return row[0]
    if not create:
        return None
    return conn.execute("INSERT INTO recall_users (user_id) VALUES (?)", (user_id,)).lastrowid


class _Nums:
    """User numbers looked up (or created) once per drain or build step."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._known: dict[str, int] = {}

    def __call__(self, user_id: str) -> int:
        num = self._known.get(user_id)
        if num is None:
            num = self._known[user_id] = user_num(self._conn, user_id, create=True)
        return num


def drain(conn: sqlite3.Connection, limit: int = DRAIN_PER_COMMIT) -> int:
    """Move up to `limit` queue rows into the index, oldest first (inside a write transaction).

    A row that cannot be read or segmented is dropped with a log line: a write must never fail
    because of the index, and the query side checks every candidate against `event_logs` anyway.
    """
    try:
        rows = conn.execute("SELECT seq, user_id, event_id, old_text, new_text FROM recall_queue "
                            "ORDER BY seq LIMIT ?", (limit,)).fetchall()
    except sqlite3.OperationalError:  # e.g. text that is not UTF-8: drop the batch, see below
        log.exception("the recall queue could not be read")
        rows = conn.execute("SELECT seq FROM recall_queue ORDER BY seq LIMIT ?", (limit,)).fetchall()
        if rows:
            conn.execute("DELETE FROM recall_queue WHERE seq <= ?", (rows[-1][0],))
        return len(rows)
    if not rows:
        return 0
    conn.execute("SAVEPOINT kd_recall")
    try:
        _apply(conn, *queued_term_changes(rows, _Nums(conn)))
    except Exception:
        conn.execute("ROLLBACK TO kd_recall")
        log.exception("the recall index could not take %d queued changes; they are skipped", len(rows))
    conn.execute("RELEASE kd_recall")
    conn.execute("DELETE FROM recall_queue WHERE seq <= ?", (rows[-1][0],))
    return len(rows)


def queued_term_changes(rows, nums) -> tuple[list, list]:
    """(removed, added) index keys (num, term, event_id) of recall_queue rows (seq, user_id, event_id,
    old_text, new_text) in queue order: what each key is after the last row that touches it.
    `nums` maps a user id to its number (either backend's)."""
    final: dict[tuple, bool] = {}  # key -> present after the rows
    for _, user_id, event_id, old_text, new_text in rows:
        if event_id is None:
            continue
        num = nums(user_id)
        for term in terms(old_text) if old_text else ():
            final[(num, term, event_id)] = False
        for term in terms(new_text) if new_text else ():
            final[(num, term, event_id)] = True
    return [k for k, present in final.items() if not present], [k for k, present in final.items() if present]


def _apply(conn: sqlite3.Connection, removed: list, added: list) -> None:
    if removed:
        conn.executemany(_DELETE_TERM, removed)
    if added:
        conn.executemany(_INSERT_TERM, added)


def build_step(conn: sqlite3.Connection, batch: int = BUILD_BATCH) -> BuildState:
    """Index the next `batch` events of the build (inside a write transaction); returns the new state."""
    state = read_build_state(conn)
    if state.complete:
        return state
    rows = conn.execute("SELECT id, user_id, event_summary FROM event_logs WHERE id > ? AND id <= ? ORDER BY id LIMIT ?",
                   (state.done, state.upto, batch)).fetchall()
    nums = _Nums(conn)
    added = [(nums(user_id), term, event_id) for event_id, user_id, text in rows for term in terms(text or "")]
    _apply(conn, [], added)
    done = rows[-1][0] if len(rows) == batch else state.upto
    conn.execute(_SET_META, ("recall_build_done", str(done)))
    return BuildState(done, state.upto)


def build_progress(conn: sqlite3.Connection) -> tuple[int, int]:
    """(events indexed, events to index) of the build, counted from the ids (an estimate: ids have gaps)."""
    state = read_build_state(conn)
    if state.complete:
        return 1, 1
    first = conn.execute("SELECT coalesce(min(id), 0) FROM event_logs").fetchone()[0]
    total = max(1, state.upto - first + 1)
    return max(0, min(total, state.done - first + 1)), total


#: A user's newest events up to this many are searched inside their text for every word (SQL's
#: instr() on lower(): Chinese words the segmenter cut differently, English in any ASCII case);
#: older ones are found through the index.
SCAN_LIMIT = 200


def recall_rows(conn: sqlite3.Connection, user_id: str, words: tuple[str, ...], newest: int,
                state: BuildState, scan: bool = True) -> tuple[list[tuple], list[tuple]]:
    """Rows (EVENT_COLUMNS) of `user_id`: (the `newest` newest, newest first; those that may hold one
    of `words`, a superset the caller scores from their text).

    Candidates: the user's newest SCAN_LIMIT events that hold a word anywhere in their text, the
    index's matches, and what the index may not hold yet: the user's queued events and, while
    the build runs, the user's events above its progress. Without `scan`, only the index's matches
    and the queued events (for a caller that searched the newest SCAN_LIMIT itself).
    """
    # The queue before the index: a drain committing in between moves rows from one to the other,
    # and read in this order they are seen at least once (the state was read before both).
    ids: set[int] = {r[0] for r in conn.execute(
        "SELECT event_id FROM recall_queue WHERE user_id = ? AND event_id IS NOT NULL", (user_id,))}
    if words:
        marks = ",".join("?" * len(words))
        ids.update(r[0] for r in conn.execute(
            "SELECT DISTINCT event_id FROM recall_terms WHERE u = (SELECT num FROM recall_users WHERE user_id = ?) "
            f"AND term IN ({marks})", (user_id, *words)))
    found = []
    if scan:
        scans = ["instr(lower(event_summary), ?) > 0"] * len(words)
        params: list = [*words]
        if not state.complete:
            scans.append("(id > ? AND id <= ?)")
            params += [state.done, state.upto]
        found = conn.execute(
            f"SELECT {EVENT_COLUMNS} FROM ({EVENT_SELECT} WHERE user_id = ? "
            f"{NEWEST_EVENTS_FIRST} LIMIT {SCAN_LIMIT}) WHERE {' OR '.join(scans) or 'false'}",
            (user_id, *params)).fetchall()
    ids.difference_update(row[0] for row in found)
    listed = sorted(ids)
    for start in range(0, len(listed), 500):
        chunk = listed[start:start + 500]
        found.extend(conn.execute(
            f"{EVENT_SELECT} WHERE id IN ({','.join('?' * len(chunk))}) AND user_id = ?",
            (*chunk, user_id)))
    latest = conn.execute(f"{EVENT_SELECT} WHERE user_id = ? {NEWEST_EVENTS_FIRST} LIMIT ?",
                          (user_id, newest)).fetchall() if newest else []
    return latest, found
