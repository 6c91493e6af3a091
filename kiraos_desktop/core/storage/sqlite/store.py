"""The memory store: every read and write of profiles, events and the audit log goes through here."""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

import peewee

from kiraos_desktop.core.recall import index as recall_index
from kiraos_desktop.core.search import queries as user_queries
from kiraos_desktop.core.search import user_search
from kiraos_desktop.core.search import index as user_search_index
from kiraos_desktop.core.memory.changes import ChangeBus, ChangeEvent
from kiraos_desktop.core.storage.sqlite.profile_hints import ProfileHints
from kiraos_desktop.core.memory.records import (
    ChangeRecord,
    EventEntry,
    ProfileEntry,
    Stats,
    UserSummary,
    check_user_id,
)
from kiraos_desktop.core.storage.sqlite.schema import ensure_schema
from kiraos_desktop.core.storage.rows import (
    CHANGE_COLUMNS,
    EVENT_SELECT,
    LIVE_CONDITION,
    NEWEST_EVENTS_FIRST,
    TAGGED_EVENT_SELECT,
    PROFILE_SELECT,
    event_from_row,
    summary_from_row,
    profile_from_row,
    sort_profiles,
)
from kiraos_desktop.core.timeutil import now_iso
from kiraos_desktop.core.storage.plugin_layout import PluginLayout, connection_layout
from kiraos_desktop.core.storage.errors import BUSY, classify, store_error
from kiraos_desktop.core.storage.protocol import KEEP_TAG, WriterBusy
from kiraos_desktop.core.storage.sqlite.write_batch import WriteBatch
from kiraos_desktop.core.storage.sqlite.write_gaps import WriteGaps

BUSY_TIMEOUT_S = 10
# A bigger page cache for the writer and memory-mapped reads: the default 2 MB cache makes
# every write to a random user of a large database re-read its index pages.
# Checkpoints (copying the WAL back into the database, with an fsync) cost a good part of a write,
# and a writer that runs them stalls whoever waits for it (the API's event loop) for tens of ms.
# The watcher thread runs them instead (checkpoint_if_due()) every CHECKPOINT_AFTER_COMMITS
# commits; the writer still checkpoints past this many pages, for processes without a watcher.
WRITER_AUTOCHECKPOINT_PAGES = 40000
# The API commits groups of memory_update calls (up to 32, about 7 at 8 connections; ~35 WAL frames
# a group): after 100 of them the passive checkpoint has ~3500 frames to copy beside the writer, and
# little is left for the part done under the write lock. (400 commits came close to CHECKPOINT_COMPLETE_FRAMES by themselves.)
CHECKPOINT_AFTER_COMMITS = 100
CHECKPOINT_COMPLETE_FRAMES = 16000
# Past it, passes beside the writer go on while each finds more than CHECKPOINT_LOCKED_FRAMES frames
# written during the one before (CHECKPOINT_CATCH_UP_PASSES at most): the pass under the write lock
# then has few frames left to copy, and writes wait mostly for its fsyncs (measured under the API's
# writes: 2-70 ms, median 22, instead of 15-93 ms, median 60, with a single pass before the lock).
CHECKPOINT_LOCKED_FRAMES = 500
CHECKPOINT_CATCH_UP_PASSES = 3
CACHE_PRAGMAS = [("cache_size", -32768), ("mmap_size", 256 * 1024 * 1024)]
# Both word indexes take their queues before a commit, in the same transaction. A write group's
# commit (the API under load) takes them every GROUPS_PER_DRAIN-th group only: the index pages that
# several groups share (the same words' ranges, the queues' tails) are then written once, some 20%
# less work per call, and the group that takes the queues carries a few ms more. Readers never wait
# for it (recall reads its user's queued rows, a user search takes the queue first); once the API
# has been idle DRAIN_IDLE_S, the watcher takes what is left.
GROUPS_PER_DRAIN = 4
DRAIN_IDLE_S = 0.1
USER_SORT_COLUMNS = tuple(user_queries.SORT_COLUMNS)


class _Events:
    """The change events of one batch, appended to those of the transaction it belongs to."""

    def __init__(self, pending: list[ChangeEvent]) -> None:
        self.all = pending
        self._mark = len(pending)
        self.publishable: list[ChangeEvent] = []  # set when the outermost transaction committed

    def extend(self, events) -> None:
        self.all.extend(events)

    def drop(self) -> None:
        del self.all[self._mark:]


class SqliteStore:
    """Reads use one connection per thread; writes are serialised on one writer connection.

    The single writer makes `PRAGMA data_version` on it change only when another process
    commits, which is exactly the signal companion mode needs.
    """

    _batch_class = WriteBatch
    _like = "LIKE"  # SQLite's ignores ASCII case, as the user list's search should
    #: Whether work on this store may run on an event loop. SQLite's reads and writes happen in this
    #: process (and group(wait=False) refuses a write that would wait for another one), so they
    #: cost less there than a handoff to a thread. False for a store whose every operation waits on
    #: another process over a connection: callers with an event loop hand all of it to threads.
    inline_ok = True
    #: Which KiraOS plugin layout the database has (storage/plugin_layout.py); None: not a plugin's database.
    layout: PluginLayout | None = None
    #: Expiries stored as epoch seconds (KiraOS plugin 2.x) rather than ISO text.
    epoch_expiries = False
    #: Events have a tag (KiraOS plugin 2.x): read with them, and add_event/update_event take one.
    event_tags = False

    def __init__(self, db_path: Path | str, *, max_profiles_per_user: int = 50, max_event_keep: int = 100):
        self.path = Path(db_path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.max_profiles_per_user = max_profiles_per_user
        self.max_event_keep = max_event_keep
        self.changes = ChangeBus()
        common = {"timeout": BUSY_TIMEOUT_S}
        self.writer = peewee.SqliteDatabase(
            str(self.path), thread_safe=False, check_same_thread=False, lock_type="IMMEDIATE",
            pragmas=[("journal_mode", "wal"), ("synchronous", "normal"),
                     ("busy_timeout", BUSY_TIMEOUT_S * 1000),
                     ("wal_autocheckpoint", WRITER_AUTOCHECKPOINT_PAGES)] + CACHE_PRAGMAS, **common)
        self.reader = peewee.SqliteDatabase(
            str(self.path), pragmas=[("busy_timeout", BUSY_TIMEOUT_S * 1000)] + CACHE_PRAGMAS, **common)
        self._write_lock = threading.RLock()
        # Both only change while the write lock is held: transaction nesting on the writer, and
        # the change events of an open group() that wait for its commit.
        self._depth = 0
        self._deferred: list[ChangeEvent] | None = None
        self._next_change_id: int | None = None  # audit ids handed out in the open transaction
        self._in_group = False  # the open transaction is a group()'s
        # Group commits since the queues were last taken, and when the last one was (read without the
        # lock by the watcher: estimates are enough).
        self.groups_undrained = 0
        self.last_group_commit = 0.0
        self.commits_since_checkpoint = 0  # read without the lock: an estimate is enough
        self._profile_hints = ProfileHints()  # for the user-search drain (see storage/sqlite/profile_hints.py)
        self._gaps = WriteGaps(self.path)  # the write lock left free for another process (storage/sqlite/write_gaps.py)
        with self._write_lock:
            self.writer.connect()
            self.migrations = ensure_schema(self.writer)
            self.layout = connection_layout(self.writer.connection())
            self.epoch_expiries = self.layout.epoch_expiries
            self.event_tags = self.layout.event_tags
            self._data_version = self.writer.data_version
            self._recall_state = recall_index.read_build_state(self.writer.connection())
            self._search_state = user_search_index.read_build_state(self.writer.connection())

    @property
    def location(self) -> str:
        return str(self.path)

    @property
    def local_file(self) -> Path | None:
        return self.path

    def close(self) -> None:
        with self._write_lock:
            if not self.writer.is_closed():
                self.writer.close()
        if not self.reader.is_closed():
            self.reader.close()
        self._gaps.close()

    # ---- writing -------------------------------------------------------------------------

    @contextmanager
    def batch(self, actor: str, users: Iterable[str] | None = None) -> Iterator[WriteBatch]:
        """One transaction; change events are published after it commits, never on rollback.

        Inside another batch or a group() on the same thread it is a savepoint: its failure undoes
        only its own writes (and drops its events), and its events wait for the outermost commit.
        `users`: every user the batch will write, for a caller that knows them before it starts and
        may write several (a revert, an import). SQLite ignores it; on PostgreSQL their locks are
        taken at once, in one order, and writing another user is an error (see PgWriteBatch).
        """
        self._acquire(wait=True)
        try:
            try:
                with self._collecting_events(wait=True) as events:
                    batch = self._batch_class(self, actor)
                    if users is not None:
                        batch.declare_users(users)
                    yield batch
                    batch.flush_audit()
                    events.extend(ChangeEvent(user_id, action, actor) for user_id, action in batch.touched())
                    self._after_batch(batch)  # before the commit: it drains the queues
            except BaseException:
                self._after_batch(None)
                raise
        finally:
            self._write_lock.release()
        for event in events.publishable:
            if event is not None:  # None: published already (a PostgreSQL group that committed early)
                self.changes.publish(event)

    def _after_batch(self, batch: WriteBatch | None) -> None:
        """A batch's writes are done (None: it failed): the rows a memory_update call left its user
        with are noted for the next user-search drain; any other batch may have changed any user's
        entries, so the noted ones are dropped."""
        if batch is None or batch.profile_rows_left is None:
            self._profile_hints.clear()
        else:
            user_id, rows = batch.profile_rows_left
            self._profile_hints.note(user_id, rows, self._data_version_now)

    def _data_version_now(self) -> int:
        return self.writer.data_version

    def _drain_user_search(self) -> int:
        """Move a batch of the user-search queue into the index (write lock held, in a transaction)."""
        hints = self._profile_hints.take(self._data_version_now)
        return user_search_index.drain(self.writer.connection(), self._search_state_now(), hints=hints)

    @contextmanager
    def group(self, wait: bool = True) -> Iterator[None]:
        """Group commit: the batches opened inside (on this thread) share one transaction.

        For a writer with several independent writes at hand (the API under load): the commit
        writes the pages the writes share once. Callers acknowledge each write only after this
        block has exited, that is after the commit. With wait=False it never blocks: WriterBusy
        (nothing written) when another thread holds the write lock or another process holds
        SQLite's, so an event loop can write inline when the way is free.
        """
        self._acquire(wait)
        try:
            if self._depth:
                raise RuntimeError("write groups do not nest, nor go inside a batch")
            self._in_group = True
            try:
                with self._collecting_events(wait) as events:
                    yield
            finally:
                self._in_group = False
        finally:
            self._write_lock.release()
        for event in events.publishable:
            if event is not None:  # None: published already (a PostgreSQL group that committed early)
                self.changes.publish(event)

    @contextmanager
    def _collecting_events(self, wait: bool) -> Iterator["_Events"]:
        """A transaction or savepoint whose change events are kept until the outermost one commits."""
        outermost = self._deferred is None
        if outermost:
            self._deferred = []
        events = _Events(self._deferred)
        try:
            with self._transaction(wait):
                yield events
        except BaseException:
            events.drop()  # rolled back: its events (and those of batches inside it) never happened
            raise
        finally:
            if outermost:
                self._deferred = None
        if outermost:
            events.publishable = events.all

    def _acquire(self, wait: bool) -> None:
        if not self._write_lock.acquire(blocking=wait):
            raise WriterBusy("another thread is writing to the store; retry with wait=True")
        if self.writer.is_closed():
            self._profile_hints.clear()  # data_version is counted per connection
            try:
                self.writer.connect()
            except BaseException:
                self._write_lock.release()
                raise

    @contextmanager
    def _transaction(self, wait: bool) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT at the outermost level, a savepoint below it (write lock held).

        Plain SQL on the writer's connection rather than peewee's atomic(): the write path runs
        this for every API call, and the SQL is all there is to it.
        """
        execute = self.writer.connection().execute
        depth = self._depth
        if depth:
            name = f"kd_batch_{depth}"
            execute(f"SAVEPOINT {name}")
            self._depth = depth + 1
            try:
                yield
            except BaseException:
                execute(f"ROLLBACK TO {name}")
                execute(f"RELEASE {name}")
                raise
            finally:
                self._depth = depth
            execute(f"RELEASE {name}")
            return
        pause = self._gaps.wait_needed()
        if pause:
            if not wait:
                raise WriterBusy("the write lock is left free for another process a moment; retry with wait=True")
            time.sleep(pause)
        try:
            self._begin(execute, wait)
        except sqlite3.Error as exc:
            self._raise_classified(exc)
            raise
        began = time.monotonic()
        self._depth = 1
        try:
            yield
            # Our own writes (queued by the triggers) reach both word indexes in the same commit, and
            # with them whatever another process queued meanwhile (a write group: every few groups).
            deferred = self._in_group and self.groups_undrained + 1 < GROUPS_PER_DRAIN
            if not deferred:
                recall_index.drain(self.writer.connection())
                self._drain_user_search()
            execute("COMMIT")
            self.commits_since_checkpoint += 1
            self.groups_undrained = self.groups_undrained + 1 if deferred else 0
            if self._in_group:
                self.last_group_commit = time.monotonic()
        except BaseException as exc:
            self._profile_hints.clear()
            if self.writer.connection().in_transaction:
                execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                self._raise_classified(exc)
            raise
        finally:
            self._depth = 0
            self._next_change_id = None
            self._gaps.ended(began)

    def allocate_change_ids(self, count: int) -> range:
        """`count` new audit ids, inside a transaction of the writer.

        Read once per transaction: nothing else can add audit rows while it is open. A savepoint
        rolled back leaves a gap, which is harmless (ids only have to grow).
        """
        if self._next_change_id is None:
            self._next_change_id = self.writer.connection().execute(_NEXT_CHANGE_ID).fetchone()[0]
        first = self._next_change_id
        self._next_change_id = first + count
        return range(first, first + count)

    def _raise_classified(self, exc: sqlite3.Error) -> None:
        """Raise what storage/errors.py makes of `exc` (a lock kept too long, a full disk, ...), if anything."""
        translated = store_error(exc, str(self.path))
        if translated is not None:
            raise translated from exc

    @staticmethod
    def _begin(execute, wait: bool) -> None:
        if wait:
            execute("BEGIN IMMEDIATE")
            return
        execute("PRAGMA busy_timeout = 0")  # fail at once when another process holds the write lock
        try:
            execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if classify(exc) == BUSY:
                raise WriterBusy("another process is writing to the database; retry with wait=True") from None
            raise
        finally:
            execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_S * 1000}")

    def set_profile(self, user_id: str, key: str, value: str, *, actor: str, confidence: float = 0.5,
                    category: str = "basic", expires_at: str | None = None) -> ProfileEntry:
        with self.batch(actor) as batch:
            return batch.set_profile(user_id, key, value, confidence=confidence, category=category,
                                     expires_at=expires_at)

    def delete_profile(self, user_id: str, key: str, *, actor: str) -> bool:
        with self.batch(actor) as batch:
            return batch.delete_profile(user_id, key)

    def add_event(self, user_id: str, summary: str, *, actor: str, created_at: str | None = None,
                  tag: str | None = None) -> int:
        with self.batch(actor) as batch:
            return batch.add_event(user_id, summary, created_at=created_at, tag=tag)

    def update_event(self, user_id: str, event_id: int, summary: str, *, actor: str, tag: Any = KEEP_TAG) -> bool:
        """A new text; with `tag`, a new tag too (event_tags data only; None removes it)."""
        with self.batch(actor) as batch:
            return batch.update_event(user_id, event_id, summary, tag)

    def delete_event(self, user_id: str, event_id: int, *, actor: str) -> bool:
        with self.batch(actor) as batch:
            return batch.delete_event(user_id, event_id)

    def clear_user(self, user_id: str, *, actor: str) -> tuple[int, int]:
        with self.batch(actor) as batch:
            return batch.clear_user(user_id)

    def purge_expired(self, *, actor: str, user_id: str | None = None) -> int:
        with self.batch(actor) as batch:
            return batch.purge_expired(user_id)

    # ---- companion mode ------------------------------------------------------------------

    def poll_external_change(self) -> bool:
        """True (and an event published) when another process committed since the last poll."""
        with self._write_lock:
            if self.writer.is_closed():
                return False
            version = self.writer.data_version
            changed = version != self._data_version
            self._data_version = version
        if changed:
            self.changes.publish(ChangeEvent(None, "external", "external"))
        return changed

    # ---- recall index --------------------------------------------------------------------

    def recall_catch_up(self) -> int:
        """Index what other processes queued (the watcher calls this); the number of queue rows taken.
        Nothing while the API's write groups, which take the queues every few groups, keep coming."""
        if self._groups_coming() or not self._rows("SELECT 1 FROM recall_queue LIMIT 1"):
            return 0
        with self._write_lock:
            if self.writer.is_closed():
                return 0
            conn = self.writer.connection()
            with self._transaction(wait=True):
                # _transaction drains before it commits; this drains first to learn how much.
                return recall_index.drain(conn)

    @property
    def recall_build_complete(self) -> bool:
        return self._recall_state.complete

    def recall_build_step(self, batch: int = recall_index.BUILD_BATCH) -> tuple[int, int]:
        """Index the next events of an existing database; (done, total) of the build, estimated."""
        with self._write_lock:
            if self.writer.is_closed():
                return 1, 1
            conn = self.writer.connection()
            with self._transaction(wait=True):
                self._recall_state = recall_index.build_step(conn, batch)
                progress = recall_index.build_progress(conn)
        return progress

    def recall_progress(self) -> tuple[int, int]:
        return recall_index.build_progress(self.reader.connection())

    def recall_rows(self, user_id: str, words: tuple[str, ...], newest: int,
                    scan: bool = True) -> tuple[list[EventEntry], list[EventEntry], int]:
        """The user's `newest` newest events (newest first), those that may hold one of the words (a
        superset), and how many events the user has."""
        conn = self.reader.connection()
        latest, found = recall_index.recall_rows(conn, user_id, words, newest, scan)
        counted = conn.execute("SELECT event_count FROM user_summary WHERE user_id = ?", (user_id,)).fetchone()
        total = max(len(found), counted[0] if counted else 0)
        return [event_from_row(row) for row in latest], [event_from_row(row) for row in found], total

    # ---- user search index (core/search/index.py) ------------------------------------

    def user_search_catch_up(self, everything: bool = False) -> int:
        """Index what the user-search queue holds (the watcher calls this; a search, `everything`); the
        number of rows taken. One batch per call unless `everything`; for the watcher, nothing while
        the API's write groups keep coming (as recall_catch_up)."""
        taken = 0
        if not everything and self._groups_coming():
            return taken
        while self._rows("SELECT 1 FROM usersearch_queue LIMIT 1"):
            with self._write_lock:
                if self.writer.is_closed():
                    return taken
                with self._transaction(wait=True):
                    # _transaction drains before it commits; this drains first to learn how much.
                    moved = self._drain_user_search()
            taken += moved
            if not everything or not moved:
                break
        return taken

    def _search_state_now(self) -> user_search_index.BuildState:
        """The user search build's state, read again while a build runs (maybe in another process);
        inside a write transaction."""
        state = self._search_state
        return state if state.complete else user_search_index.read_build_state(self.writer.connection())

    def _groups_coming(self) -> bool:
        """Whether the API's write groups left the queues for one of their next commits, and are coming."""
        return bool(self.groups_undrained) and time.monotonic() - self.last_group_commit < DRAIN_IDLE_S

    @property
    def user_search_build_complete(self) -> bool:
        return self._search_state.complete

    def user_search_build_step(self, users: int = user_search_index.BUILD_USERS,
                               events: int = user_search_index.BUILD_EVENTS) -> tuple[int, int]:
        """Index the next users' profiles or events of an existing database for user search; (done, total), estimated."""
        with self._write_lock:
            if self.writer.is_closed():
                return 1, 1
            conn = self.writer.connection()
            with self._transaction(wait=True):
                self._search_state = user_search_index.build_step(conn, users, events)
                progress = user_search_index.build_progress(conn)
        return progress

    def checkpoint(self) -> None:
        """Copy committed WAL frames into the database (PASSIVE: other processes may go on writing).

        Beside our writer first: the bulk of the work, in parallel with it. Under steady writing
        such a checkpoint never completes, and the WAL (and every lookup in it) keeps growing, so
        past CHECKPOINT_COMPLETE_FRAMES it is finished holding the write lock (writes wait for the
        frames written meanwhile and an fsync); the next write then starts the WAL over. Passes
        beside the writer catch up with it first, so that the one under the lock copies little.
        """
        self.commits_since_checkpoint = 0
        frames = self._passive_checkpoint()
        if frames < CHECKPOINT_COMPLETE_FRAMES:
            return
        for _ in range(CHECKPOINT_CATCH_UP_PASSES):
            now = self._passive_checkpoint()
            if now - frames <= CHECKPOINT_LOCKED_FRAMES:
                break
            frames = now
        with self._write_lock:
            self._passive_checkpoint()

    def _passive_checkpoint(self) -> int:
        """One PASSIVE checkpoint on the reader's connection; the frames the WAL holds."""
        return self.reader.execute_sql("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]

    def checkpoint_if_due(self) -> bool:
        """checkpoint() once this process has committed CHECKPOINT_AFTER_COMMITS times since the last."""
        if self.commits_since_checkpoint < CHECKPOINT_AFTER_COMMITS:
            return False
        self.checkpoint()
        return True

    # ---- reading -------------------------------------------------------------------------

    def _rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        return self.reader.execute_sql(sql, params).fetchall()

    def _query(self, query) -> list[tuple]:
        """The rows of a peewee query (user_queries.py), compiled for this backend."""
        return self._rows(*self.reader.get_sql_context().sql(query).query())

    def stats(self) -> Stats:
        row = self._query(user_queries.stats_query())[0]
        return Stats(int(row[0]), int(row[1]), int(row[2]))

    def _user_filter(self, search: str):
        return user_queries.id_filter(user_search.like_pattern(search) if search else None, self._like)

    def count_users(self, search: str = "", in_content: bool = False) -> int:
        if in_content and search.strip():
            return len(self.search_user_ids(search))
        return int(self._query(user_queries.count_query(self._user_filter(search)))[0][0])

    def list_users(self, search: str = "", in_content: bool = False, order_by: str = "user_id",
                   descending: bool = False, offset: int = 0, limit: int = 200) -> list[UserSummary]:
        if order_by not in USER_SORT_COLUMNS:
            raise ValueError(f"cannot sort users by {order_by!r}")
        if in_content and search.strip():
            ids = self.search_user_ids(search, order_by, descending)
            return self.user_summaries(ids[offset:] if limit < 0 else ids[offset:offset + limit])
        rows = self._query(user_queries.list_query(self._user_filter(search), order_by, descending, offset, limit))
        return [summary_from_row(row) for row in rows]

    def search_user_ids(self, search: str, order_by: str = "user_id", descending: bool = False) -> list[str]:
        """Ids of the users whose id contains `search` or whose keys, values or events match it (see
        core/search/user_search.py), in the list's order; what other processes queued is indexed first."""
        self.user_search_catch_up(everything=True)
        return user_search.search_user_ids(self.reader.connection(), search, self._search_state, order_by, descending)

    def search_users(self, search: str, order_by: str = "user_id", descending: bool = False,
                     page: int = 200) -> tuple[int, list[UserSummary], list[str] | None]:
        """(how many users match, the first `page` of them, every id when they were computed at once;
        None: read later pages with search_users_after)."""
        self.user_search_catch_up(everything=True)
        found = user_search.search(self.reader.connection(), search, self._search_state, order_by, descending, page)
        return found.total, self.user_summaries(found.first), found.ids

    def search_users_after(self, search: str, descending: bool, after: str, page: int = 200) -> list[UserSummary]:
        """The next page of a search in id order, after the user id `after`."""
        return self.user_summaries(user_search.page_after(self.reader.connection(), search, self._search_state,
                                                          descending, after, page))

    def user_summaries(self, user_ids: list[str]) -> list[UserSummary]:
        """The summaries of these users in the given order; users without entries or events left out."""
        found: dict[str, UserSummary] = {}
        for start in range(0, len(user_ids), 500):
            chunk = user_ids[start:start + 500]
            for row in self._query(user_queries.summaries_query(chunk)):
                found[row[0]] = summary_from_row(row)
        return [found[user_id] for user_id in user_ids if user_id in found]

    def user_summary(self, user_id: str) -> UserSummary | None:
        rows = self._query(user_queries.summaries_query([user_id]))
        return summary_from_row(rows[0]) if rows else None

    def all_user_ids(self) -> list[str]:
        return [r[0] for r in self._query(user_queries.all_ids_query())]

    def get_profile(self, user_id: str, key: str) -> ProfileEntry | None:
        rows = self._rows(f"{PROFILE_SELECT} WHERE user_id = ? AND memory_key = ?", (user_id, key))
        return profile_from_row(rows[0]) if rows else None

    def get_profiles(self, user_id: str, include_expired: bool = True, now: str | None = None) -> list[ProfileEntry]:
        check_user_id(user_id)
        if include_expired:
            rows = self._rows(f"{PROFILE_SELECT} WHERE user_id = ?", (user_id,))
        else:
            rows = self._rows(f"{PROFILE_SELECT} WHERE user_id = ? AND {LIVE_CONDITION}",
                              (user_id, now or now_iso()))
        return sort_profiles(profile_from_row(r) for r in rows)

    def get_events(self, user_id: str, limit: int | None = None, offset: int = 0) -> list[EventEntry]:
        """The user's events, newest first, with their tags where the data has them."""
        rows = self._rows(f"{self._events_read} WHERE user_id = ? {NEWEST_EVENTS_FIRST} LIMIT ? OFFSET ?",
                          (user_id, -1 if limit is None else limit, offset))
        return [event_from_row(row) for row in rows]

    @property
    def _events_read(self) -> str:
        return TAGGED_EVENT_SELECT if self.event_tags else EVENT_SELECT

    def get_event(self, event_id: int) -> EventEntry | None:
        rows = self._rows(f"{self._events_read} WHERE id = ?", (event_id,))
        return event_from_row(rows[0]) if rows else None

    def context_rows(self, user_id: str, max_events: int, now: str) -> tuple[list[ProfileEntry], list[EventEntry]]:
        """What the context block needs, in two indexed queries on this thread's connection."""
        cursor = self.reader.connection().cursor()
        profiles = [profile_from_row(r) for r in cursor.execute(
            f"{PROFILE_SELECT} WHERE user_id = ? AND {LIVE_CONDITION}", (user_id, now))]
        events = []
        if max_events > 0:
            events = [event_from_row(r) for r in cursor.execute(
                f"{EVENT_SELECT} WHERE user_id = ? {NEWEST_EVENTS_FIRST} LIMIT ?", (user_id, max_events))]
        cursor.close()
        return sort_profiles(profiles), events

    def newest_event_rows(self, user_id: str, limit: int) -> list[tuple]:
        """The user's `limit` newest events as rows (EVENT_COLUMNS), newest first: what recall holds per user."""
        return self.reader.connection().execute(
            f"{EVENT_SELECT} WHERE user_id = ? {NEWEST_EVENTS_FIRST} LIMIT ?", (user_id, limit)).fetchall()

    def list_changes(self, user_id: str | None = None, limit: int = 100,
                     before_id: int | None = None) -> list[ChangeRecord]:
        """The newest changes first (of one user, or of all), older than `before_id` when given."""
        if user_id is not None:
            return self._user_changes(user_id, limit, before_id)
        where, params = ("WHERE id < ?", (before_id,)) if before_id is not None else ("", ())
        rows = self._rows(f"SELECT {CHANGE_COLUMNS} FROM memory_changes {where} ORDER BY id DESC LIMIT ?",
                          params + (limit,))
        return [_change_from_row(row) for row in rows]

    def _user_changes(self, user_id: str, limit: int, before_id: int | None) -> list[ChangeRecord]:
        # Along the user's chain (see storage/sqlite/schema.py), from its head or from the change before before_id.
        # `m.id < c.id` in the walks: ids fall along a chain, so even a damaged one cannot loop.
        if before_id is not None:
            rows = self._rows("SELECT user_id, prev_id FROM memory_changes WHERE id = ?", (before_id,))
            if rows and rows[0][0] == user_id:  # paging on: the common case
                start = rows[0][1]
            else:  # walk down from the head to the first change older than before_id
                rows = self._rows(
                    "WITH RECURSIVE walk(id, prev_id) AS (SELECT id, prev_id FROM memory_changes "
                    "WHERE id = (SELECT last_change_id FROM user_summary WHERE user_id = ?) "
                    "UNION ALL SELECT m.id, m.prev_id FROM memory_changes AS m JOIN walk AS w "
                    "ON m.id = w.prev_id AND m.id < w.id WHERE w.id >= ?) "
                    "SELECT id FROM walk WHERE id < ?", (user_id, before_id, before_id))
                start = rows[0][0] if rows else None
        else:
            rows = self._rows("SELECT last_change_id FROM user_summary WHERE user_id = ?", (user_id,))
            start = rows[0][0] if rows else None
        if start is None:
            return []
        rows = self._rows(
            f"WITH RECURSIVE chain AS (SELECT {CHANGE_COLUMNS}, prev_id FROM memory_changes WHERE id = ? "
            f"UNION ALL SELECT {_CHANGE_COLUMNS_OF_M}, m.prev_id FROM memory_changes AS m "
            "JOIN chain AS c ON m.id = c.prev_id AND m.id < c.id LIMIT ?) "
            f"SELECT {CHANGE_COLUMNS} FROM chain", (start, limit))
        return [_change_from_row(row) for row in rows]

    def get_change(self, change_id: int) -> ChangeRecord | None:
        rows = self._rows(f"SELECT {CHANGE_COLUMNS} FROM memory_changes WHERE id = ?", (change_id,))
        return _change_from_row(rows[0]) if rows else None

    def last_change_id(self) -> int:
        return int(self._rows("SELECT coalesce(max(id), 0) FROM memory_changes")[0][0])


# As AUTOINCREMENT would number it: past every id ever used, even of rows since deleted.
_NEXT_CHANGE_ID = ("SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'memory_changes'), 0), "
                   "coalesce((SELECT max(id) FROM memory_changes), 0)) + 1")
_CHANGE_COLUMNS_OF_M = ", ".join("m." + name for name in CHANGE_COLUMNS.split(", "))


def _json_or_none(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _change_from_row(row: tuple) -> ChangeRecord:
    """The record of a row of CHANGE_COLUMNS (a chain walk may add prev_id after them)."""
    change_id, at, user_id, actor, action, target, before, after = row[:8]
    return ChangeRecord(change_id, at, user_id, actor, action, target, _json_or_none(before), _json_or_none(after))
