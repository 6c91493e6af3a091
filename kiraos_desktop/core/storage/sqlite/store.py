"""The memory store on SQLite: its backend (connections, the one writer, transactions, the word indexes' upkeep,
checkpoints) under storage/sql_store.py's SqlStore, which holds what SQLite and PostgreSQL share."""
from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import peewee

from kiraos_desktop.core.storage import recall_index
from kiraos_desktop.core.storage import search_index as user_search_index
from kiraos_desktop.core.memory.changes import ChangeBus, ChangeEvent
from kiraos_desktop.core.storage.coded_users import CodedUsers
from kiraos_desktop.core.storage.audit_rows import GroupAudit, write_audit_rows
from kiraos_desktop.core.storage.profile_hints import ProfileHints
from kiraos_desktop.core.storage.sqlite.schema import ensure_schema
from kiraos_desktop.core.storage.rows import EVENT_SELECT, LIVE_CONDITION, NEWEST_EVENTS_FIRST, PROFILE_SELECT
from kiraos_desktop.core.storage.sql_backend import savepoint_name
from kiraos_desktop.core.storage.sql_store import SqlStore
from kiraos_desktop.core.storage.plugin_layout import PluginLayout, connection_layout
from kiraos_desktop.core.storage.errors import BUSY, classify, store_error
from kiraos_desktop.core.storage.protocol import WriterBusy
from kiraos_desktop.core.storage.sql_write_batch import WriteBatch
from kiraos_desktop.core.storage.sqlite import wal_checkpoints
from kiraos_desktop.core.storage.sqlite.index_upkeep import IndexUpkeep
from kiraos_desktop.core.storage.sqlite.write_gaps import WriteGaps

BUSY_TIMEOUT_S = 10
# A bigger page cache for the writer and memory-mapped reads: the default 2 MB cache makes
# every write to a random user of a large database re-read its index pages.
CACHE_PRAGMAS = [("cache_size", -32768), ("mmap_size", 256 * 1024 * 1024)]
T = TypeVar("T")


class SqliteBackend(IndexUpkeep):
    """SQLite's side of the store (storage/sql_backend.py): reads use one connection per
    thread; writes are serialised on one writer connection.

    The single writer makes `PRAGMA data_version` on it change only when another process
    commits, which is exactly the signal companion mode needs.
    """

    like = "LIKE"  # SQLite's ignores ASCII case, as the user list's search should
    #: SQLite's reads and writes happen in this process (and group(wait=False) refuses a write that
    #: would wait for another one), so they cost less on an event loop than a handoff to a thread.
    inline_ok = True
    writers = 1  # SQLite takes one writer at a time: more threads would only wait on its lock

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
                     ("wal_autocheckpoint", wal_checkpoints.WRITER_AUTOCHECKPOINT_PAGES)] + CACHE_PRAGMAS, **common)
        self.reader = peewee.SqliteDatabase(
            str(self.path), pragmas=[("busy_timeout", BUSY_TIMEOUT_S * 1000)] + CACHE_PRAGMAS, **common)
        self._write_lock = threading.RLock()
        # The write state (see SqlBackend): it only changes while the write lock is held.
        self.depth = 0
        self.deferred: list[ChangeEvent | None] | None = None
        self.in_group = False
        self._next_change_id: int | None = None  # audit ids handed out in the open transaction
        # Group commits since the queues were last taken, and when the last one was (read without the
        # lock by the watcher: estimates are enough).
        self.groups_undrained = 0
        self.last_group_commit = 0.0
        self.commits_since_checkpoint = 0  # read without the lock: an estimate is enough
        self._profile_hints = ProfileHints()  # for the user-search drain (see storage/profile_hints.py)
        self._search_drained = False  # the open transaction has taken some of the user-search queue
        self._coded_users = CodedUsers()  # for the repeat check (see storage/coded_users.py)
        self._group_audit = GroupAudit()  # a write group's audit rows (see storage/audit_rows.py)
        self._gaps = WriteGaps(self.path)  # the write lock left free for another process (storage/sqlite/write_gaps.py)
        with self._write_lock:
            self.writer.connect()
            self.migrations = ensure_schema(self.writer)
            #: Which KiraOS plugin layout the database has (storage/plugin_layout.py).
            self.layout: PluginLayout | None = connection_layout(self.writer.connection())
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

    def new_batch(self, actor: str) -> WriteBatch:
        return WriteBatch(self, actor, self._coded_users, self._group_audit if self.in_group else None)

    def retrying(self, work: Callable[[], T]) -> T:
        """Once: one writer picks no deadlock victims."""
        return work()

    def after_batch(self, batch: WriteBatch | None) -> None:
        """A batch's writes are done (None: it failed): the rows a memory_update call left its user
        with are noted for the next user-search drain; any other batch may have changed any user's
        entries, so the noted ones are dropped."""
        if batch is None or batch.profile_rows_left is None:
            self._profile_hints.clear()
            self._coded_users.forget()
        else:
            user_id, rows = batch.profile_rows_left
            self._profile_hints.note(user_id, rows, self._data_version_now)
            self._coded_users.stage(batch.coded_users)

    def _data_version_now(self) -> int:
        return self.writer.data_version

    def release(self) -> None:
        self._write_lock.release()

    def acquire(self, wait: bool) -> None:
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
    def transaction(self, wait: bool) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT at the outermost level, a savepoint below it (write lock held).

        Plain SQL on the writer's connection rather than peewee's atomic(): the write path runs
        this for every API call, and the SQL is all there is to it.
        """
        execute = self.writer.connection().execute
        depth = self.depth
        if depth:
            name = savepoint_name(depth)
            execute(f"SAVEPOINT {name}")
            self.depth = depth + 1
            audit_mark = self._group_audit.mark()
            try:
                yield
            except BaseException:
                self._group_audit.undo(audit_mark)
                execute(f"ROLLBACK TO {name}")
                execute(f"RELEASE {name}")
                raise
            finally:
                self.depth = depth
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
        self.depth = 1
        self._search_drained = False
        try:
            self._coded_users.begin(self.writer.data_version)
            yield
            write_audit_rows(execute, self, self._group_audit.take())
            # Our own writes (queued by the triggers) reach both word indexes in the same commit, and
            # with them whatever another process queued meanwhile (a write group: every few groups).
            deferred = self._leaves_queues()
            if not deferred:
                self._drain_before_commit()
            execute("COMMIT")
            self._coded_users.committed()
            self.commits_since_checkpoint += 1
            self.groups_undrained = self.groups_undrained + 1 if deferred else 0
            if self.in_group:
                self.last_group_commit = time.monotonic()
        except BaseException as exc:
            self._group_audit.take()
            self._profile_hints.clear()
            self._coded_users.forget()
            if self.writer.connection().in_transaction:
                execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                self._raise_classified(exc)
            raise
        finally:
            self.depth = 0
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

    def recall_rows(self, user_id: str, words: tuple[str, ...], newest: int,
                    scan: bool) -> tuple[list[tuple], list[tuple], int]:
        """(the newest rows, the rows that may hold a word, the user's event count) (SqlStore.recall_rows())."""
        conn = self.reader.connection()
        latest, found = recall_index.recall_rows(conn, user_id, words, newest, scan)
        counted = conn.execute("SELECT event_count FROM user_summary WHERE user_id = ?", (user_id,)).fetchone()
        return latest, found, counted[0] if counted else 0

    def checkpoint(self) -> None:
        """Copy committed WAL frames into the database (see storage/sqlite/wal_checkpoints.py)."""
        self.commits_since_checkpoint = 0
        wal_checkpoints.checkpoint(self._passive_checkpoint, self._write_lock)

    def _passive_checkpoint(self) -> int:
        """One PASSIVE checkpoint on the reader's connection; the frames the WAL holds."""
        return self.reader.execute_sql("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]

    def checkpoint_if_due(self) -> bool:
        """checkpoint() once this process has committed CHECKPOINT_AFTER_COMMITS times since the last."""
        if not wal_checkpoints.due(self.commits_since_checkpoint):
            return False
        self.checkpoint()
        return True

    # ---- reading -------------------------------------------------------------------------

    def rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        return self.reader.execute_sql(sql, params).fetchall()

    def query(self, query) -> list[tuple]:
        """The rows of a peewee query (user_queries.py), compiled for SQLite."""
        return self.rows(*self.reader.get_sql_context().sql(query).query())

    def user_search(self, work: Callable[..., T]) -> T:
        return work(self.reader.connection(), self._search_state)

    def context_rows(self, user_id: str, max_events: int, now: str) -> tuple[list[tuple], list[tuple]]:
        """What the context block needs, in two indexed queries on this thread's connection."""
        cursor = self.reader.connection().cursor()
        profiles = cursor.execute(f"{PROFILE_SELECT} WHERE user_id = ? AND {LIVE_CONDITION}", (user_id, now)).fetchall()
        events: list[tuple] = []
        if max_events > 0:
            events = cursor.execute(f"{EVENT_SELECT} WHERE user_id = ? {NEWEST_EVENTS_FIRST} LIMIT ?",
                                    (user_id, max_events)).fetchall()
        cursor.close()
        return profiles, events

    def newest_event_rows(self, user_id: str, limit: int) -> list[tuple]:
        """The user's `limit` newest events as rows (EVENT_COLUMNS), newest first: what recall holds per user."""
        return self.reader.connection().execute(
            f"{EVENT_SELECT} WHERE user_id = ? {NEWEST_EVENTS_FIRST} LIMIT ?", (user_id, limit)).fetchall()


class SqliteStore(SqlStore):
    """The memory store in an SQLite database file (a KiraOS plugin's 1.x/2.x one, or our own)."""

    backend: SqliteBackend

    def __init__(self, db_path: Path | str, *, max_profiles_per_user: int = 50, max_event_keep: int = 100):
        super().__init__(SqliteBackend(db_path, max_profiles_per_user=max_profiles_per_user,
                                       max_event_keep=max_event_keep))
        self.path = self.backend.path
        self.writer = self.backend.writer  # the writer's connection, for the tests and tools that inspect it
        self.reader = self.backend.reader
        self.migrations = self.backend.migrations


# As AUTOINCREMENT would number it: past every id ever used, even of rows since deleted.
_NEXT_CHANGE_ID = ("SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'memory_changes'), 0), "
                   "coalesce((SELECT max(id) FROM memory_changes), 0)) + 1")
