"""The recall index: the event words of users with many events, kept current from a queue that plain-SQL triggers fill.

Layout (our tables only, defined in models.py; the plugin's are untouched):
- `recall_terms (u, term, event_id)`: one row per distinct word of an event, clustered by user, so
  a user's words sit on a few pages (writing and looking up one user touches only those).
- `recall_users (num, user_id)`: the small number that stands for a user in `recall_terms`. A user
  has one exactly when all of their events are in `recall_terms` (later changes reach it through
  the queue): only users with more than INDEX_PAST events get one. Every recall of a user with
  fewer reads all of their events anyway (recall_rows(); the context cache holds the same newest
  SCAN_LIMIT), so their words would be written for every event and never read; with the default
  `max_event_keep` (100, the plugin's default too) no user gets there. A user who does is indexed
  whole (`_backfill`) by the first drain or build step that sees it.
- `recall_queue`: every insert, update and delete on `event_logs`, by any process, adds a row with
  the text to unindex and/or to index. The triggers are built-in SQL only, so the plugin's own
  INSERT never needs anything of ours. This process segments the text (rjieba) and moves it into
  `recall_terms`: before each of its own commits, and on the watcher's ticks for other processes'
  writes. A query also reads the queue rows of its user, so nothing waits for a drain.
- An existing database is indexed by a resumable build (`build_step`): the users past INDEX_PAST
  events, in user order; later events come through the queue.
"""
from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from kiraos_desktop.core.storage.errors import queued_rows_skipped_on_error
from kiraos_desktop.core.recall.text import MAX_SCORED_CHARS, TERMS_VERSION, terms
from kiraos_desktop.core.storage.rows import EVENT_COLUMNS, EVENT_ROW_SUMMARY, EVENT_SELECT, NEWEST_EVENTS_FIRST

log = logging.getLogger(__name__)

#: Queue rows moved into the index before one of our commits (our own writes of a group add ~64).
DRAIN_PER_COMMIT = 1000
#: Events indexed per transaction of the build, about (whole users: at least one; short, so other
#: writers never wait long).
BUILD_BATCH = 2000
#: A user's newest events up to this many are searched inside their text for every word (SQL's
#: instr() on lower(): Chinese words the segmenter cut differently, English in any ASCII case);
#: older ones are found through the index.
SCAN_LIMIT = 200
#: Users with more events than this have their events in the index (see the module's docstring).
#: Never above SCAN_LIMIT: a user below it must be one whose every event a recall reads.
INDEX_PAST = SCAN_LIMIT

#: Candidate events read from the index per statement (newest first, until MAX_SCORED_CHARS of text).
_FETCH_CHUNK = 100

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
# ON CONFLICT DO NOTHING: the same words on both backends (PostgreSQL's through dialect.PgConnection).
_INSERT_TERM = "INSERT INTO recall_terms (u, term, event_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
_DELETE_TERM = "DELETE FROM recall_terms WHERE u = ? AND term = ? AND event_id = ?"
#: "A user past INDEX_PAST events whose events are not in the index yet" (of user_summary).
_TO_INDEX = ("event_count > ? AND NOT EXISTS (SELECT 1 FROM recall_users AS r "
             "WHERE r.user_id = user_summary.user_id)")
#: Stands for "no user yet" in the build's cursor (every user id sorts after it).
_START = ""


def index_version() -> str:
    """What the index holds, as kiraos_desktop_meta's recall_version records it: an index of another
    version is rebuilt. 2: only users past INDEX_PAST events; then the words' own version."""
    return f"2/{TERMS_VERSION}"


def ensure_recall_schema(conn: sqlite3.Connection) -> list[str]:
    """Create the index's triggers (inside the schema transaction, its tables made from models.py by
    schema.py); returns what was done."""
    for name in RECALL_TRIGGER_NAMES:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    for ddl in RECALL_TRIGGERS:
        conn.execute(ddl)
    return mark_for_build(conn)


def mark_for_build(conn) -> list[str]:
    """A new index, or one of another version (index_version()), is emptied and marked for a build of
    the users past INDEX_PAST events (either backend, inside the schema transaction); returns what
    was done."""
    version = conn.execute(_META, ("recall_version",)).fetchone()
    if version is not None and version[0] == index_version():
        return []
    conn.execute("DELETE FROM recall_terms")
    conn.execute("DELETE FROM recall_users")
    events = conn.execute(f"SELECT coalesce(sum(event_count), 0) FROM user_summary WHERE {_TO_INDEX}",
                          (INDEX_PAST,)).fetchone()[0]
    conn.execute(_SET_META, ("recall_version", index_version()))
    conn.execute(_SET_META, ("recall_build_upto", str(events)))
    conn.execute(_SET_META, ("recall_build_done", "0"))
    conn.execute(_SET_META, ("recall_build_after", _START))
    return ["recall index to build"] if events else []


@dataclass(frozen=True)
class BuildState:
    """The build has indexed the users up to `after` (in code point order) past INDEX_PAST events:
    `done` events of about `upto`; complete when done >= upto."""

    done: int
    upto: int
    after: str = _START

    @property
    def complete(self) -> bool:
        return self.done >= self.upto


def read_build_state(conn: sqlite3.Connection) -> BuildState:
    def meta(key: str, default: str) -> str:
        row = conn.execute(_META, (key,)).fetchone()
        return row[0] if row else default
    return BuildState(int(meta("recall_build_done", "0")), int(meta("recall_build_upto", "0")),
                      meta("recall_build_after", _START))


def users_to_index(conn, user_ids) -> list[str]:
    """Those of `user_ids` (distinct, in code point order) past INDEX_PAST events whose events are not
    in the index yet (either backend)."""
    listed = sorted(set(user_ids))
    found: list[str] = []
    for start in range(0, len(listed), 500):
        chunk = listed[start:start + 500]
        found.extend(row[0] for row in conn.execute(
            f"SELECT user_id FROM user_summary WHERE user_id IN ({','.join('?' * len(chunk))}) AND {_TO_INDEX}",
            (*chunk, INDEX_PAST)))
    return sorted(found)


def user_event_terms(conn, user_id: str, num: int) -> list[tuple]:
    """The index keys (num, term, event_id) of every event of a user (either backend)."""
    return [(num, term, event_id) for event_id, text in conn.execute(
        "SELECT id, event_summary FROM event_logs WHERE user_id = ?", (user_id,)) for term in terms(text or "")]


def _backfill(conn: sqlite3.Connection, user_id: str) -> int:
    """Give a user a number and put all of their events in the index (write transaction); the number."""
    num = conn.execute("INSERT INTO recall_users (user_id) VALUES (?)", (user_id,)).lastrowid
    _apply(conn, [], user_event_terms(conn, user_id, num))
    return num


def _indexed_nums(conn: sqlite3.Connection, user_ids) -> dict[str, int]:
    """The numbers of those of `user_ids` whose events are in the index, those past INDEX_PAST events
    indexed first (write transaction)."""
    listed = sorted(set(user_ids))
    nums: dict[str, int] = {}
    for start in range(0, len(listed), 500):
        chunk = listed[start:start + 500]
        nums.update(conn.execute(f"SELECT user_id, num FROM recall_users WHERE user_id IN "
                                 f"({','.join('?' * len(chunk))})", chunk).fetchall())
    for user_id in users_to_index(conn, [user_id for user_id in listed if user_id not in nums]):
        nums[user_id] = _backfill(conn, user_id)
    return nums


def drain(conn: sqlite3.Connection, limit: int = DRAIN_PER_COMMIT) -> int:
    """Move up to `limit` queue rows into the index, oldest first (inside a write transaction): the
    rows of users whose events are in the index (a user past INDEX_PAST events is indexed whole
    first); the others' rows are only taken off the queue.

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
    with queued_rows_skipped_on_error(conn, "kd_recall", "recall index", len(rows)):
        nums = _indexed_nums(conn, [row[1] for row in rows if row[2] is not None])
        if nums:
            _apply(conn, *queued_term_changes([row for row in rows if row[1] in nums], nums.__getitem__))
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


def next_build_users(conn, state: BuildState, batch: int) -> tuple[list[str], int]:
    """The users the next build step indexes (either backend): those after the build's cursor past
    INDEX_PAST events and not indexed yet, in code point order, about `batch` events' worth (at
    least one user); and their events."""
    picked, events = [], 0
    for user_id, count in conn.execute(
            f"SELECT user_id, event_count FROM user_summary WHERE user_id > ? AND {_TO_INDEX} "
            "ORDER BY user_id LIMIT 500", (state.after, INDEX_PAST)):
        if picked and events + count > batch:
            break
        picked.append(user_id)
        events += count
    return picked, events


def advance_build(conn, state: BuildState, users: list[str], events: int) -> BuildState:
    """Record a build step that indexed `users` (`events` events); the new state (either backend)."""
    if users:
        state = BuildState(min(state.upto, state.done + events), state.upto, users[-1])
        if state.complete:  # more users crossed INDEX_PAST meanwhile than were counted: go on
            state = BuildState(state.done, state.done + 1, state.after)
    else:
        state = BuildState(state.upto, state.upto, state.after)
    conn.execute(_SET_META, ("recall_build_done", str(state.done)))
    conn.execute(_SET_META, ("recall_build_upto", str(state.upto)))
    conn.execute(_SET_META, ("recall_build_after", state.after))
    return state


def build_step(conn: sqlite3.Connection, batch: int = BUILD_BATCH) -> BuildState:
    """Index the next users of the build (inside a write transaction); returns the new state."""
    state = read_build_state(conn)
    if state.complete:
        return state
    users, events = next_build_users(conn, state, batch)
    for user_id in users:
        _backfill(conn, user_id)
    return advance_build(conn, state, users, events)


def build_progress(conn: sqlite3.Connection) -> tuple[int, int]:
    """(events indexed, events to index) of the build (an estimate: users keep writing meanwhile)."""
    state = read_build_state(conn)
    if state.complete:
        return 1, 1
    return state.done, max(1, state.upto)


def recall_rows(conn: sqlite3.Connection, user_id: str, words: tuple[str, ...], newest: int,
                scan: bool = True) -> tuple[list[tuple], list[tuple]]:
    """Rows (EVENT_COLUMNS) of `user_id`: (the `newest` newest, newest first; those that may hold one
    of `words`, a superset the caller scores from their text).

    Candidates of a user whose events are in the index: the user's newest SCAN_LIMIT events that
    hold a word anywhere in their text, the index's matches and the user's queued events (the index
    may not hold them yet); without `scan`, only the last two (for a caller that searched the newest
    SCAN_LIMIT itself). Of any other user (up to INDEX_PAST events, or one who just passed it and
    is not indexed yet): every event; without `scan`, every event but the newest SCAN_LIMIT.
    """
    # The queue, then the user's number, then the index: a drain committing in between moves rows
    # from the queue to the index, or indexes the user whole, and read in this order every event
    # is seen at least once.
    ids: set[int] = {r[0] for r in conn.execute(
        "SELECT event_id FROM recall_queue WHERE user_id = ? AND event_id IS NOT NULL", (user_id,))}
    num = conn.execute("SELECT num FROM recall_users WHERE user_id = ?", (user_id,)).fetchone()
    if num is None:
        found = conn.execute(f"{EVENT_SELECT} WHERE user_id = ? {NEWEST_EVENTS_FIRST} LIMIT -1 OFFSET ?",
                             (user_id, 0 if scan else SCAN_LIMIT)).fetchall()
    else:
        if words:
            ids.update(r[0] for r in conn.execute(
                f"SELECT DISTINCT event_id FROM recall_terms WHERE u = ? AND term IN ({','.join('?' * len(words))})",
                (num[0], *words)))
        found = conn.execute(
            f"SELECT {EVENT_COLUMNS} FROM ({EVENT_SELECT} WHERE user_id = ? {NEWEST_EVENTS_FIRST} LIMIT {SCAN_LIMIT}) "
            f"WHERE {' OR '.join(['instr(lower(event_summary), ?) > 0'] * len(words)) or 'false'}",
            (user_id, *words)).fetchall() if scan else []
    ids.difference_update(row[0] for row in found)
    # Newest written first, and no more than a query scores (ranking.MAX_SCORED_CHARS of text): a
    # word every event holds would otherwise read the whole history of a user with long events.
    listed = sorted(ids, reverse=True)
    text = 0
    for start in range(0, len(listed), _FETCH_CHUNK):
        if text > MAX_SCORED_CHARS:
            break
        chunk = listed[start:start + _FETCH_CHUNK]
        rows = conn.execute(f"{EVENT_SELECT} WHERE id IN ({','.join('?' * len(chunk))}) AND user_id = ?",
                            (*chunk, user_id)).fetchall()
        text += sum(len(row[EVENT_ROW_SUMMARY] or "") for row in rows)
        found.extend(rows)
    latest = conn.execute(f"{EVENT_SELECT} WHERE user_id = ? {NEWEST_EVENTS_FIRST} LIMIT ?",
                          (user_id, newest)).fetchall() if newest else []
    return latest, found
