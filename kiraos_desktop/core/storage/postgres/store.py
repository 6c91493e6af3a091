"""The memory store on PostgreSQL: the store protocol (storage/protocol.py) with the SQLite store's semantics, for several processes on one database.

What differs from SQLite, and why:
- A group() is one transaction with a savepoint per batch, as on SQLite, except that a batch about
  to wait for a user another instance holds first commits what the group did so far (split_group()):
  holding several users' locks while waiting could deadlock with that instance.
- Before reading a user's rows a batch takes that user's advisory transaction lock, so the profile
  limit, event retention and audit chain hold across instances (postgres/write_batch.py). A lock
  kept past lock_timeout, or a deadlock all the same, is StoreBusy (storage/errors.py).
- Audit ids come from a sequence; other instances' commits arrive through LISTEN/NOTIFY (the
  triggers of postgres/schema.py), so checkpoint() and poll_external_change() have nothing to do.
- Every thread writes on its own connection, with its own transaction state (_ThreadWriter): several
  threads of one process write at once, and wait for each other only where instances do (the
  users' advisory locks). SQLite's store has one writer for the process.
- A lost or refused connection is StoreUnavailable (the transaction rolled back); the thread's next
  operation connects again.
"""
from __future__ import annotations

import threading
import weakref
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import peewee
import psycopg

from kiraos_desktop.core.storage.postgres import recall as pg_recall
from kiraos_desktop.core.storage.postgres import user_search as pg_user_search
from kiraos_desktop.core.storage import recall_index
from kiraos_desktop.core.storage import search_index as user_search_index
from kiraos_desktop.core.memory.changes import ChangeBus
from kiraos_desktop.core.storage import errors
from kiraos_desktop.core.storage.errors import StoreBusy, store_error
from kiraos_desktop.core.storage.dialect import PgConnection, pg_sql
from kiraos_desktop.core.storage.postgres.connections import (
    DB_ERRORS,
    close_quietly,
    connect_error,
    connection_lost,
    dead,
    shown_url,
    server_address,
)
from kiraos_desktop.core.storage.postgres.write_batch import PgWriteBatch
from kiraos_desktop.core.memory.records import StoreUnavailable
from kiraos_desktop.core.storage.postgres.schema import ensure_pg_schema
from kiraos_desktop.core.storage.sql_backend import savepoint_name
from kiraos_desktop.core.storage.sql_store import SqlStore
from kiraos_desktop.core.storage.plugin_layout import PluginLayout
from kiraos_desktop.core.storage.rows import EVENT_SELECT, LIVE_CONDITION, NEWEST_EVENTS_FIRST, PROFILE_SELECT

CONNECT_TIMEOUT_S = 5
#: How often a batch that lost a deadlock or serialization race is run again (store methods only).
RETRIES = 5
T = TypeVar("T")


class _ThreadWriter(threading.local):
    """One thread's side of the writer: its write state (SqlBackend's depth, deferred and in_group),
    the audit ids of its open transaction, and a lock only that thread takes (it counts the thread's
    own nesting; SQLite's backend has one lock for every thread)."""

    def __init__(self) -> None:
        self.depth = 0
        self.deferred = None
        self.next_change_id = None
        self.in_group = False
        self.lock = threading.RLock()
        self.alive = _ThreadEnd()  # dropped when the thread ends: then its connection is closed
        self.closer: weakref.finalize | None = None


class _ThreadEnd:
    """An object only a thread's _ThreadWriter refers to (something to hang a finalizer on)."""


def _per_thread(name: str) -> property:
    """A store attribute that each thread has its own value of (in the store's _ThreadWriter)."""
    return property(lambda self: getattr(self._thread, name),
                    lambda self, value: setattr(self._thread, name, value))


#: Writer threads of a server on PostgreSQL (a group of writes waits on round trips and on its
#: commit's flush, its thread idle meanwhile). Each thread writes on its own connection, so that
#: several groups wait at once; each gets a share of the users, so more threads also mean smaller
#: groups: more commits, hence more CPU, per call. On a 2-core machine with the database on it
#: (docs/postgresql.md), where CPU and not waiting is the limit, 2 threads wrote as fast as 1
#: (within the noise) at about 30% more CPU per call, 4 and 8 no faster at about 50% and more; 2
#: overlaps a group's waits with the next group's work where the database is farther away, and
#: keeps groups large enough (about 3 calls at 8 connections).
PG_WRITER_THREADS = 2


class PgBackend:
    """PostgreSQL's side of the store (storage/sql_backend.py), on a postgresql:// URL."""

    @property
    def writers(self) -> int:
        return PG_WRITER_THREADS  # read when a server is built (a benchmark may set it first)

    inline_ok = False  # every statement is a round trip to the server, every commit waits for its flush
    like = "ILIKE"
    layout: PluginLayout | None = None  # the KiraOS plugin's data is never on PostgreSQL
    epoch_expiries = False
    event_tags = False

    def __init__(self, url: str, *, max_profiles_per_user: int = 50, max_event_keep: int = 100,
                 location: str | None = None):
        """`location`: what to show for the database (default: `url` without its secrets)."""
        self.url = url
        self._location = location or shown_url(url)
        self.max_profiles_per_user = max_profiles_per_user
        self.max_event_keep = max_event_keep
        self.changes = ChangeBus()
        params: dict = {} if "connect_timeout" in url else {"connect_timeout": CONNECT_TIMEOUT_S}
        if "lock_timeout" not in url:  # a lock another instance keeps fails as StoreBusy, not a wait without end
            params["options"] = f"-c lock_timeout={errors.LOCK_TIMEOUT_MS}"
        # One connection per thread for each (peewee keeps them in thread-local state). The writer
        # connections are also listed here, with their thread's name, for close() and writer_pids().
        self.writer = peewee.PostgresqlDatabase(url, thread_safe=True, **params)
        self.reader = peewee.PostgresqlDatabase(url, **params)
        self._thread = _ThreadWriter()
        self._writers: weakref.WeakKeyDictionary[psycopg.Connection, str] = weakref.WeakKeyDictionary()
        self._writers_lock = threading.Lock()
        self.commits_since_checkpoint = 0
        self._where = server_address(url)[0]
        with self._write_lock:
            self._connect_writer()
            try:
                self.migrations = ensure_pg_schema(self.writer)
                adapted = PgConnection(self.writer.connection())
                self._recall_state = recall_index.read_build_state(adapted)
                self._search_state = user_search_index.read_build_state(adapted)
                self._change_sequence = self.writer.execute_sql(
                    "SELECT pg_get_serial_sequence('memory_changes', 'id')").fetchone()[0]
            except DB_ERRORS as exc:
                self._raise_if_lost(self.writer, exc)
                raise

    # The write side's state is the calling thread's (see _ThreadWriter).
    depth = _per_thread("depth")
    deferred = _per_thread("deferred")
    _next_change_id = _per_thread("next_change_id")
    in_group = _per_thread("in_group")

    @property
    def _write_lock(self) -> threading.RLock:
        return self._thread.lock

    # ---- connections ---------------------------------------------------------------------

    def _lost(self) -> StoreUnavailable:
        return StoreUnavailable(f"Lost the connection to PostgreSQL at {self._where}; nothing of the "
                                "operation was written. Retry once the server is back.")

    def _connect_writer(self) -> None:
        """Connect this thread's writer when it has no connection (yet, or since one was lost)."""
        if self.writer.is_closed():
            try:
                self.writer.connect()
            except DB_ERRORS as exc:
                raise connect_error(self.url, exc) from None
            conn = self.writer.connection()
            with self._writers_lock:
                self._writers[conn] = threading.current_thread().name
            state = self._thread
            if state.closer is not None:
                state.closer.detach()  # its connection was closed when it was found lost
            state.closer = weakref.finalize(state.alive, close_quietly, conn)

    @staticmethod
    def _close(db: peewee.PostgresqlDatabase) -> None:
        try:
            db.close()
        except DB_ERRORS:
            pass

    def _raise_if_lost(self, db: peewee.PostgresqlDatabase, exc: BaseException) -> None:
        """After a failed statement: when the connection is gone, forget it and say so."""
        conn = None if db.is_closed() else db.connection()
        if dead(conn) or connection_lost(exc):
            self._close(db)
            raise self._lost() from None

    def _read(self, work: Callable[[psycopg.Connection], T]) -> T:
        """Run a read on this thread's connection; once more on a new one when the old one was dead
        (a server restarted since), StoreUnavailable when the server cannot be reached."""
        for attempt in range(2):
            try:
                conn = self.reader.connection()
            except DB_ERRORS as exc:
                self._close(self.reader)
                raise connect_error(self.url, exc) from None
            try:
                return work(conn)
            except DB_ERRORS:
                if not dead(conn):
                    raise
                self._close(self.reader)
                if attempt:
                    raise self._lost() from None
        raise AssertionError("unreachable")

    def writer_pid(self) -> int | None:
        """The server process of the calling thread's writer connection (None when it has none)."""
        if self.writer.is_closed():
            return None
        conn = self.writer.connection()
        return None if dead(conn) else conn.info.backend_pid

    def writer_pids(self) -> dict[str, int]:
        """The server process of every open writer connection of this store, by its thread's name: a
        notification (pg_schema.NOTIFY_CHANNEL) from one of them is one of this store's own commits,
        which were already published on `changes`."""
        with self._writers_lock:
            found = list(self._writers.items())
        return {name: conn.info.backend_pid for conn, name in found if not dead(conn)}

    @property
    def location(self) -> str:
        return self._location

    @property
    def local_file(self) -> Path | None:
        return None  # on a server: nothing to back up or copy as a file

    def close(self) -> None:
        """Close every thread's writer connection and this thread's reader (the other threads'
        readers close when their threads end). A thread that writes afterwards connects again."""
        with self._writers_lock:
            found = list(self._writers)
            self._writers.clear()
        for conn in found:
            close_quietly(conn)
        self._close(self.writer)
        self._close(self.reader)

    # ---- writing -------------------------------------------------------------------------

    def new_batch(self, actor: str) -> PgWriteBatch:
        return PgWriteBatch(self, actor)

    def after_batch(self, batch) -> None:
        """No profile hints: several instances drain PostgreSQL's queue, each reading the rows."""

    def release(self) -> None:
        self._write_lock.release()

    def split_group(self) -> None:
        """Commit the open group's finished batches and go on in a new transaction (a batch that has
        not written yet is about to wait for another instance's lock; holding this group's locks
        while it waits could deadlock with that instance). Their change events go out now."""
        conn = self.writer.connection()
        name = savepoint_name(1)  # the savepoint of the waiting batch, directly inside the group
        with conn.pipeline():
            conn.execute(f"RELEASE {name}")
            pg_recall.drain(conn)
            conn.execute("COMMIT")
            conn.execute("BEGIN")
            conn.execute(f"SAVEPOINT {name}")
        pending = self.deferred or []
        for index, event in enumerate(pending):
            if event is not None:
                self.changes.publish(event)
                pending[index] = None  # keeps the list's length: the batches' marks stay right

    def acquire(self, wait: bool) -> None:
        """Take this thread's writer: other threads write on their own connections meanwhile, so this
        never waits for them and never raises WriterBusy (a batch waits on the database, for a user
        another thread or instance holds)."""
        self._write_lock.acquire()
        try:
            self._connect_writer()
        except BaseException:
            self._write_lock.release()
            raise

    def _begin(self) -> psycopg.Connection:
        """BEGIN on the writer; a connection found dead (a restarted server) is replaced once."""
        for attempt in range(2):
            self._connect_writer()
            conn = self.writer.connection()
            try:
                conn.execute("BEGIN")
                return conn
            except DB_ERRORS:
                if not dead(conn):
                    raise
                self._close(self.writer)
                if attempt:
                    raise self._lost() from None
        raise AssertionError("unreachable")

    @contextmanager
    def transaction(self, wait: bool) -> Iterator[None]:
        depth = self.depth
        if depth:
            conn = self.writer.connection()
            name = savepoint_name(depth)
            conn.execute(f"SAVEPOINT {name}")
            self.depth = depth + 1
            try:
                yield
            except BaseException:
                if not dead(conn):
                    conn.execute(f"ROLLBACK TO {name}")
                    conn.execute(f"RELEASE {name}")
                raise
            finally:
                self.depth = depth
            conn.execute(f"RELEASE {name}")
            return
        conn = self._begin()
        self.depth = 1
        try:
            # Pipeline mode: statements whose results nobody reads go out with the next one that is
            # read, instead of a round trip each (a memory_update: 8 round trips instead of 17).
            with conn.pipeline():
                yield
                pg_recall.drain(conn)
                conn.execute("COMMIT")
        except BaseException as exc:
            if not dead(conn):
                try:
                    conn.execute("ROLLBACK")
                except DB_ERRORS:
                    pass
            if isinstance(exc, DB_ERRORS):
                self._raise_if_lost(self.writer, exc)
                translated = store_error(exc, self._where)
                if translated is not None:
                    raise translated from exc
            raise
        finally:
            self.depth = 0
            self._next_change_id = None

    def allocate_change_ids(self, count: int) -> list[int]:
        """`count` new audit ids from the sequence, ascending (other instances take ids in between)."""
        rows = self.writer.connection().execute(
            "SELECT nextval(%s) FROM generate_series(1, %s)", (self._change_sequence, count)).fetchall()
        return sorted(row[0] for row in rows)

    def retrying(self, work: Callable[[], T]) -> T:
        """Run a whole batch again when PostgreSQL chose it as a deadlock or serialization victim."""
        for attempt in range(RETRIES):
            try:
                return work()
            except StoreBusy as exc:
                if not exc.retryable or attempt == RETRIES - 1:
                    raise
        raise AssertionError("unreachable")

    # ---- other processes, maintenance ----------------------------------------------------

    def poll_external_change(self) -> bool:
        """Nothing to poll: other instances' writes arrive as notifications (see pg_schema.NOTIFY_CHANNEL)."""
        return False

    def checkpoint(self) -> None:
        """PostgreSQL checkpoints by itself."""

    def checkpoint_if_due(self) -> bool:
        return False

    # ---- recall index --------------------------------------------------------------------

    def recall_catch_up(self) -> int:
        """Index what was queued and not drained (the watcher calls this every tick); 0 while the server
        cannot be reached: the change listener reports that, and the next write says so."""
        try:
            if not self.rows("SELECT 1 FROM recall_queue LIMIT 1"):
                return 0
            with self._write_lock:
                self._connect_writer()
                with self.transaction(wait=True):
                    return pg_recall.drain(self.writer.connection())
        except StoreUnavailable:
            return 0

    def recall_build_step(self, batch: int = recall_index.BUILD_BATCH) -> tuple[int, int]:
        with self._write_lock:
            self._connect_writer()
            with self.transaction(wait=True):
                conn = self.writer.connection()
                adapted = PgConnection(conn)
                self._recall_state = pg_recall.build_step(conn, adapted, batch)
                progress = recall_index.build_progress(adapted)
        return progress

    def recall_progress(self) -> tuple[int, int]:
        return self._read(lambda conn: recall_index.build_progress(PgConnection(conn)))

    def recall_rows(self, user_id: str, words: tuple[str, ...], newest: int,
                    scan: bool) -> tuple[list[tuple], list[tuple], int]:
        def work(conn):
            latest, found = recall_index.recall_rows(PgConnection(conn), user_id, words, newest, scan)
            counted = conn.execute("SELECT event_count FROM user_summary WHERE user_id = %s", (user_id,)).fetchone()
            return latest, found, counted[0] if counted else 0

        return self._read(work)

    # ---- user search index (storage/postgres/user_search.py) -------------------------------------------

    def user_search_catch_up(self, everything: bool = False) -> int:
        """Index what the user-search queue holds, on this thread's own connection (the writer's
        work never waits for it); 0 while another process drains or the server cannot be reached."""
        taken = 0
        try:
            while self.rows("SELECT 1 FROM usersearch_queue LIMIT 1"):
                moved = self._read(lambda conn: pg_user_search.drain(conn, self._search_state))
                taken += moved
                if not everything or not moved:
                    break
        except StoreUnavailable:
            pass
        return taken

    def user_search_build_step(self, users: int = user_search_index.BUILD_USERS,
                               events: int = user_search_index.BUILD_EVENTS) -> tuple[int, int]:
        self._search_state, progress = self._read(lambda conn: pg_user_search.build_step(conn, users, events))
        return progress

    def user_search(self, work: Callable[..., T]) -> T:
        return self._read(lambda conn: pg_user_search.read(conn, lambda adapted: work(adapted, self._search_state)))

    # ---- reading -------------------------------------------------------------------------

    def query(self, query) -> list[tuple]:
        sql, params = self.reader.get_sql_context().sql(query).query()  # PostgreSQL's words already
        return self._read(lambda conn: conn.execute(sql, tuple(params)).fetchall())

    def rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        text = pg_sql(sql)
        return self._read(lambda conn: conn.execute(text, tuple(params)).fetchall())

    def context_rows(self, user_id: str, max_events: int, now: str) -> tuple[list[tuple], list[tuple]]:
        def work(conn):
            with conn.pipeline():  # both queries in one round trip
                profiles = conn.execute(_CONTEXT_PROFILES, (user_id, now))
                events = conn.execute(_CONTEXT_EVENTS, (user_id, max_events)) if max_events > 0 else None
            return profiles.fetchall(), events.fetchall() if events is not None else []

        return self._read(work)

    def newest_event_rows(self, user_id: str, limit: int) -> list[tuple]:
        return self._read(lambda conn: conn.execute(_CONTEXT_EVENTS, (user_id, limit)).fetchall())

    @property
    def recall_build_complete(self) -> bool:
        return self._recall_state.complete

    @property
    def user_search_build_complete(self) -> bool:
        return self._search_state.complete


class PgMemoryStore(SqlStore):
    """The memory store on a PostgreSQL database given by a postgresql:// URL."""

    backend: PgBackend

    def __init__(self, url: str, *, max_profiles_per_user: int = 50, max_event_keep: int = 100,
                 location: str | None = None):
        """`location`: what to show for the database (default: `url` without its secrets)."""
        super().__init__(PgBackend(url, max_profiles_per_user=max_profiles_per_user,
                                   max_event_keep=max_event_keep, location=location))
        self.url = url
        self.path = None  # no file: backups and file copies do not apply
        self.writer = self.backend.writer  # the writer connections (one a thread), for tests that inspect them
        self.reader = self.backend.reader
        self.migrations = self.backend.migrations

    def writer_pid(self) -> int | None:
        return self.backend.writer_pid()

    def writer_pids(self) -> dict[str, int]:
        return self.backend.writer_pids()


_CONTEXT_PROFILES = pg_sql(f"{PROFILE_SELECT} WHERE user_id = ? AND {LIVE_CONDITION}")
_CONTEXT_EVENTS = pg_sql(f"{EVENT_SELECT} WHERE user_id = ? {NEWEST_EVENTS_FIRST} LIMIT ?")
