"""The user-search word index: which users have a word in their keys, values or events.

Layout (our tables only, defined in models.py; the plugin's are untouched):
- `usersearch_terms (term, user_id, ev, pr)`: a row per word a user has; ev = how many of the user's
  events hold it, pr = 1 when one of their profile keys or values does. Ordered by word, then user:
  the users of a word are one range of the table, in the user list's order, and counting them
  reads only that range.
- `usersearch_profile_users (user_id, terms)`: the words of the user's profile entries (what to
  take back when they change).
- `usersearch_queue`: every insert, update and delete on `event_logs` (with the text to count out
  and/or in) and on `user_profiles` (the user only), by any process. The triggers are built-in SQL
  only, so the plugin's own writes never need anything of ours. This process moves the queue into
  the index (`drain`): a user's profile words are recomputed from their rows (the plugin's
  INSERT OR REPLACE deletes without a delete trigger, so counting would drift), event words are
  counted in and out. On PostgreSQL (pg_schema.py) plpgsql triggers fill the same queue, and one
  process at a time drains it (a transaction-level advisory lock; the others skip their turn).
- An existing database is indexed by a resumable build (`build_step`): profiles user by user, then
  events up to the id that was the newest when the index was created; later writes come through
  the queue. The queue is drained before each build step, in the same transaction, so a change
  is never counted twice.
Words are those of recall (`recall_text.terms`): the index is rebuilt when they change.
"""
from __future__ import annotations

import logging
import sqlite3
from collections import Counter
from dataclasses import dataclass

from kiraos_desktop.core.storage.errors import queued_rows_skipped_on_error
from kiraos_desktop.core.storage.profile_hints import pairs
from kiraos_desktop.core.recall.text import TERMS_VERSION, terms

log = logging.getLogger(__name__)

#: Bump when the layout changes (the words' own version is TERMS_VERSION): the index is rebuilt.
INDEX_VERSION = "2"
#: Queue rows moved into the index per transaction (short, so other writers never wait long).
DRAIN_BATCH = 2000
#: Users (profiles) or events indexed per transaction of the build.
BUILD_USERS = 2000
BUILD_EVENTS = 5000

USER_SEARCH_TRIGGER_NAMES = ("kd_usearch_ev_ins", "kd_usearch_ev_del", "kd_usearch_ev_upd",
                             "kd_usearch_pr_ins", "kd_usearch_pr_del", "kd_usearch_pr_upd")

# A queue row with an event id is an event's text leaving (old_text) and/or arriving (new_text);
# one without is "this user's profile entries changed".
USER_SEARCH_TRIGGERS = (
    """CREATE TRIGGER kd_usearch_ev_ins AFTER INSERT ON event_logs BEGIN
        INSERT INTO usersearch_queue (user_id, event_id, new_text) VALUES (NEW.user_id, NEW.id, NEW.event_summary);
    END""",
    """CREATE TRIGGER kd_usearch_ev_del AFTER DELETE ON event_logs BEGIN
        INSERT INTO usersearch_queue (user_id, event_id, old_text) VALUES (OLD.user_id, OLD.id, OLD.event_summary);
    END""",
    """CREATE TRIGGER kd_usearch_ev_upd AFTER UPDATE OF id, user_id, event_summary ON event_logs BEGIN
        INSERT INTO usersearch_queue (user_id, event_id, old_text) VALUES (OLD.user_id, OLD.id, OLD.event_summary);
        INSERT INTO usersearch_queue (user_id, event_id, new_text) VALUES (NEW.user_id, NEW.id, NEW.event_summary);
    END""",
    """CREATE TRIGGER kd_usearch_pr_ins AFTER INSERT ON user_profiles BEGIN
        INSERT INTO usersearch_queue (user_id) VALUES (NEW.user_id);
    END""",
    """CREATE TRIGGER kd_usearch_pr_del AFTER DELETE ON user_profiles BEGIN
        INSERT INTO usersearch_queue (user_id) VALUES (OLD.user_id);
    END""",
    """CREATE TRIGGER kd_usearch_pr_upd AFTER UPDATE OF user_id, memory_key, memory_value ON user_profiles
        WHEN OLD.user_id IS NOT NEW.user_id OR OLD.memory_key IS NOT NEW.memory_key
            OR OLD.memory_value IS NOT NEW.memory_value BEGIN
        INSERT INTO usersearch_queue (user_id) VALUES (OLD.user_id);
        INSERT INTO usersearch_queue (user_id) SELECT NEW.user_id WHERE NEW.user_id IS NOT OLD.user_id;
    END""",
)

_META = "SELECT value FROM kiraos_desktop_meta WHERE key = ?"
_SET_META = ("INSERT INTO kiraos_desktop_meta (key, value) VALUES (?, ?) "
             "ON CONFLICT(key) DO UPDATE SET value = excluded.value")
# The same SQL on both backends (PostgreSQL's through dialect.PgConnection): no two-argument max().
_ADD_EVENTS = ("INSERT INTO usersearch_terms (term, user_id, ev) VALUES (?, ?, ?) "
               "ON CONFLICT(term, user_id) DO UPDATE SET ev = CASE WHEN usersearch_terms.ev + ? > 0 "
               "THEN usersearch_terms.ev + ? ELSE 0 END")
_ADD_PROFILE = ("INSERT INTO usersearch_terms (term, user_id, pr) VALUES (?, ?, 1) "
                "ON CONFLICT(term, user_id) DO UPDATE SET pr = 1")
_DROP_PROFILE = "UPDATE usersearch_terms SET pr = 0 WHERE term = ? AND user_id = ?"
_DROP_EMPTY = "DELETE FROM usersearch_terms WHERE term = ? AND user_id = ? AND ev = 0 AND pr = 0"
#: Tables of earlier versions of the index.
_OLD_TABLES = ("usersearch_events", "usersearch_profiles")
#: Stands for "no user yet" in the profile build's cursor (every user id sorts after it).
_START = ""


def _version() -> str:
    return f"{INDEX_VERSION}/{TERMS_VERSION}"


def ensure_user_search_schema(conn: sqlite3.Connection) -> list[str]:
    """Create the index's SQLite triggers (inside the schema transaction, its tables made from
    models.py by schema.py); returns what was done."""
    for table in _OLD_TABLES:
        conn.execute(f"DROP TABLE IF EXISTS {table}")
    for name in USER_SEARCH_TRIGGER_NAMES:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    for ddl in USER_SEARCH_TRIGGERS:
        conn.execute(ddl)
    return mark_for_build(conn)


def mark_for_build(conn) -> list[str]:
    """A new index (or one of another version) on a database with data is marked for a build (either
    backend, inside the schema transaction); returns what was done."""
    done = []
    version = conn.execute(_META, ("usersearch_version",)).fetchone()
    if version is None or version[0] != _version():
        for table in ("usersearch_terms", "usersearch_profile_users", "usersearch_queue"):
            conn.execute(f"DELETE FROM {table}")
        newest = conn.execute("SELECT coalesce(max(id), 0) FROM event_logs").fetchone()[0]
        has_profiles = conn.execute("SELECT 1 FROM user_profiles LIMIT 1").fetchone() is not None
        conn.execute(_SET_META, ("usersearch_version", _version()))
        conn.execute(_SET_META, ("usersearch_events_upto", str(newest)))
        conn.execute(_SET_META, ("usersearch_events_done", "0"))
        conn.execute(_SET_META, ("usersearch_profiles_after", _START))
        conn.execute(_SET_META, ("usersearch_profiles_done", "0" if has_profiles else "1"))
        if newest or has_profiles:
            done.append("user search index to build")
    return done


@dataclass(frozen=True)
class BuildState:
    """Profiles of users after `profiles_after` (unless `profiles_done`) and events with ids in
    (events_done, events_upto] are not in the index yet."""

    profiles_after: str
    profiles_done: bool
    events_done: int
    events_upto: int

    @property
    def complete(self) -> bool:
        return self.profiles_done and self.events_done >= self.events_upto

    def event_pending(self, event_id: int) -> bool:
        return self.events_done < event_id <= self.events_upto


COMPLETE = BuildState(_START, True, 0, 0)


def read_build_state(conn: sqlite3.Connection) -> BuildState:
    def meta(key: str, default: str) -> str:
        row = conn.execute(_META, (key,)).fetchone()
        return row[0] if row else default
    return BuildState(meta("usersearch_profiles_after", _START), meta("usersearch_profiles_done", "1") == "1",
                      int(meta("usersearch_events_done", "0")), int(meta("usersearch_events_upto", "0")))


def profile_terms(rows) -> set[str]:
    """The words of profile entries given as (key, value) rows."""
    found: set[str] = set()
    for key, value in rows:
        found.update(terms(key or ""))
        found.update(terms(value or ""))
    return found


def _reindex_profiles(conn: sqlite3.Connection, user_ids, hints: dict | None = None) -> None:
    """Recompute the profile words of these users from their rows (read 500 users a query, except
    those in `hints`: user -> every profile row the user has, known without reading; see
    profile_hints.py); the index rows of all of them change in one sorted pass."""
    hints = hints or {}
    listed = sorted(set(user_ids))
    gone: list[tuple[str, str]] = []
    added: list[tuple[str, str]] = []
    for start in range(0, len(listed), 500):
        chunk = listed[start:start + 500]
        marks = ",".join("?" * len(chunk))
        rows: dict[str, list] = {user_id: pairs(hints[user_id]) if user_id in hints else [] for user_id in chunk}
        unknown = [user_id for user_id in chunk if user_id not in hints]
        if unknown:
            for user_id, key, value in conn.execute(
                    "SELECT user_id, memory_key, memory_value FROM user_profiles WHERE user_id IN "
                    f"({','.join('?' * len(unknown))})", unknown):
                rows[user_id].append((key, value))
        known = dict(conn.execute(f"SELECT user_id, terms FROM usersearch_profile_users WHERE user_id IN ({marks})",
                                  chunk).fetchall())
        kept, dropped = [], []
        for user_id in chunk:
            new = profile_terms(rows[user_id])
            old_text = known.get(user_id)
            old = set(old_text.split(" ")) if old_text else set()
            gone.extend((term, user_id) for term in old - new)
            added.extend((term, user_id) for term in new - old)
            # Words are runs of letters and digits (see recall_text), so a space separates them.
            text = " ".join(sorted(new))
            if new and text != old_text:
                kept.append((user_id, text))
            elif not new and old_text is not None:
                dropped.append((user_id,))
        conn.executemany("INSERT INTO usersearch_profile_users (user_id, terms) VALUES (?, ?) "
                         "ON CONFLICT(user_id) DO UPDATE SET terms = excluded.terms", kept)
        conn.executemany("DELETE FROM usersearch_profile_users WHERE user_id = ?", dropped)
    gone.sort()
    added.sort()
    conn.executemany(_DROP_PROFILE, gone)
    conn.executemany(_DROP_EMPTY, gone)
    conn.executemany(_ADD_PROFILE, added)


def _count_events(conn: sqlite3.Connection, deltas: Counter) -> None:
    """Add the (term, user_id) -> change of event count to the index; rows that reach 0 go."""
    changed = sorted((term, user_id, max(0, n), n, n) for (term, user_id), n in deltas.items() if n)
    if not changed:
        return
    conn.executemany(_ADD_EVENTS, changed)
    gone = [(term, user_id) for term, user_id, _, n, _ in changed if n < 0]
    if gone:
        conn.executemany(_DROP_EMPTY, gone)


def backlog(conn: sqlite3.Connection) -> int:
    """About how many rows the queue holds, in two look-ups (its rows leave oldest first, so the
    range of their numbers is their count)."""
    # Two subqueries: SQLite reads min() or max() of a key at one end of its index only when alone.
    low, high = conn.execute("SELECT (SELECT min(seq) FROM usersearch_queue), "
                             "(SELECT max(seq) FROM usersearch_queue)").fetchone()
    return 0 if low is None else high - low + 1


def drain(conn: sqlite3.Connection, state: BuildState, limit: int = DRAIN_BATCH, hints: dict | None = None) -> int:
    """Move up to `limit` queue rows into the index, oldest first (inside a write transaction).

    A batch that cannot be read or segmented is dropped with a log line: a write must never fail
    because of the index (and a search confirms the users it is unsure of from their rows).
    `hints`: users whose profile rows are known without reading them (profile_hints.py; SQLite).
    On PostgreSQL (`conn` a dialect.PgConnection, the caller holding pg_user_search's drain lock)
    exactly the rows read are deleted: other transactions commit queue rows meanwhile, with any seq.
    """
    try:
        rows = conn.execute("SELECT seq, user_id, event_id, old_text, new_text FROM usersearch_queue "
                            "ORDER BY seq LIMIT ?", (limit,)).fetchall()
    except sqlite3.OperationalError:  # e.g. text that is not UTF-8
        log.exception("the user search queue could not be read")
        rows = conn.execute("SELECT seq FROM usersearch_queue ORDER BY seq LIMIT ?", (limit,)).fetchall()
        if rows:
            conn.execute("DELETE FROM usersearch_queue WHERE seq <= ?", (rows[-1][0],))
        return len(rows)
    if not rows:
        return 0
    with queued_rows_skipped_on_error(conn, "kd_usearch", "user search index", len(rows)):
        profile_users: dict[str, None] = {}
        deltas: Counter = Counter()
        for _, user_id, event_id, old_text, new_text in rows:
            if event_id is None:
                profile_users[user_id] = None
            elif not state.event_pending(event_id):  # a pending event is read by the build as it is then
                for term in terms(old_text) if old_text else ():
                    deltas[(term, user_id)] -= 1
                for term in terms(new_text) if new_text else ():
                    deltas[(term, user_id)] += 1
        _count_events(conn, deltas)
        _reindex_profiles(conn, profile_users, hints)
    if isinstance(conn, sqlite3.Connection):  # one writer: nothing was queued meanwhile below the last
        conn.execute("DELETE FROM usersearch_queue WHERE seq <= ?", (rows[-1][0],))
    else:
        conn.execute("DELETE FROM usersearch_queue WHERE seq = ANY(?)", ([row[0] for row in rows],))
    return len(rows)


def build_step(conn: sqlite3.Connection, users: int = BUILD_USERS, events: int = BUILD_EVENTS) -> BuildState:
    """Drain the queue, then index the next users' profiles or the next events (inside a write
    transaction); returns the new state."""
    state = read_build_state(conn)
    while drain(conn, state):
        pass
    if state.complete:
        return state
    if not state.profiles_done:
        batch = [r[0] for r in conn.execute(
            "SELECT DISTINCT user_id FROM user_profiles WHERE user_id > ? ORDER BY user_id LIMIT ?",
            (state.profiles_after, users))]
        _reindex_profiles(conn, batch)
        finished = len(batch) < users
        after = batch[-1] if batch else state.profiles_after
        conn.execute(_SET_META, ("usersearch_profiles_after", after))
        conn.execute(_SET_META, ("usersearch_profiles_done", "1" if finished else "0"))
        return BuildState(after, finished, state.events_done, state.events_upto)
    rows = conn.execute("SELECT id, user_id, event_summary FROM event_logs WHERE id > ? AND id <= ? "
                        "ORDER BY id LIMIT ?", (state.events_done, state.events_upto, events)).fetchall()
    deltas: Counter = Counter()
    for _, user_id, text in rows:
        for term in terms(text or ""):
            deltas[(term, user_id)] += 1
    _count_events(conn, deltas)
    done = rows[-1][0] if len(rows) == events else state.events_upto
    conn.execute(_SET_META, ("usersearch_events_done", str(done)))
    return BuildState(state.profiles_after, True, done, state.events_upto)


def build_progress(conn: sqlite3.Connection) -> tuple[int, int]:
    """(done, total) of the build, estimated: profiles count as a tenth of it, events (by id) the rest."""
    state = read_build_state(conn)
    if state.complete:
        return 1, 1
    first = conn.execute("SELECT coalesce(min(id), 0) FROM event_logs").fetchone()[0]
    events_total = max(0, state.events_upto - first + 1)
    events_done = max(0, min(events_total, state.events_done - first + 1))
    profiles_total = max(1, events_total // 9)
    if not state.profiles_done:  # the share of users (in id order) up to the cursor
        users, done = conn.execute("SELECT count(*), coalesce(sum(CASE WHEN user_id <= ? THEN 1 ELSE 0 END), 0) "
                                   "FROM user_summary",
                                   (state.profiles_after,)).fetchone()
        return profiles_total * done // max(1, users), profiles_total + events_total
    return profiles_total + events_done, profiles_total + events_total
