"""Database errors are classified once (core/storage/errors.py) for every entry point: a lock kept by
another program, a deadlock, a full disk become StoreBusy/StoreUnavailable (a 503 and a message that
says what to do), never a raw driver error or a 500; waits are bounded."""
from __future__ import annotations

import sqlite3
import threading
import time

import psycopg
import pytest

from kiraos_desktop.api.errors import from_store_error
from kiraos_desktop.core.storage import errors
from kiraos_desktop.core.storage.errors import BUSY, CONFLICT, DISK_FULL, PERMISSION, StoreBusy, classify
from kiraos_desktop.core.storage.sqlite import store as sqlite_store
from kiraos_desktop.core.storage.sqlite.store import SqliteStore

_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))"


def test_sqlite_errors_are_classified_by_what_they_mean():
    assert classify(sqlite3.OperationalError("database is locked")) == BUSY
    assert classify(sqlite3.OperationalError("database or disk is full")) == DISK_FULL
    assert classify(sqlite3.OperationalError("attempt to write a readonly database")) == PERMISSION
    assert classify(sqlite3.OperationalError("no such table: nothing")) is None  # a bug stays a bug
    assert classify(ValueError("database is locked")) is None


def test_errors_sqlite_raised_are_classified_by_their_code_not_their_words(tmp_path):
    """Issue 52: classified by message text, a missing table whose name says "locked" was a busy
    database (StoreBusy, "try again in a moment") instead of the bug it is."""
    conn = sqlite3.connect(tmp_path / "m.db", isolation_level=None)
    with pytest.raises(sqlite3.OperationalError) as missing:
        conn.execute("SELECT * FROM locked_or_busy")
    assert classify(missing.value) is None
    holder = sqlite3.connect(tmp_path / "m.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    waiter = sqlite3.connect(tmp_path / "m.db", timeout=0, isolation_level=None)
    with pytest.raises(sqlite3.OperationalError) as busy:
        waiter.execute("BEGIN IMMEDIATE")
    holder.execute("ROLLBACK")
    assert classify(busy.value) == BUSY
    (tmp_path / "ro").mkdir()
    made = sqlite3.connect(tmp_path / "ro" / "r.db")
    made.execute("CREATE TABLE t (x)")
    made.close()
    read_only = sqlite3.connect(f"file:{tmp_path / 'ro' / 'r.db'}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError) as refused:
        read_only.execute("INSERT INTO t VALUES (1)")
    assert classify(refused.value) == PERMISSION
    for opened in (conn, holder, waiter, read_only):
        opened.close()


def test_a_sqlite_lock_kept_by_another_program_is_busy_after_a_bounded_wait(tmp_path, monkeypatch):
    monkeypatch.setattr(sqlite_store, "BUSY_TIMEOUT_S", 0.3)
    store = SqliteStore(tmp_path / "m.db")
    other = sqlite3.connect(tmp_path / "m.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # the plugin in the middle of a long write
    try:
        started = time.monotonic()
        with pytest.raises(StoreBusy, match="busy") as caught:
            store.add_event("u", "学吉他", actor="test")
        assert time.monotonic() - started < 5
        assert not caught.value.retryable and caught.value.kind == BUSY
        assert from_store_error(caught.value).status == 503
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert store.get_events("u") == []  # nothing was written
    store.add_event("u", "学吉他", actor="test")  # and the store goes on once the lock is free
    store.close()


def test_a_postgres_lock_kept_by_another_instance_is_busy_after_lock_timeout(pg_url, monkeypatch):
    from kiraos_desktop.core.storage.postgres.store import PgMemoryStore

    monkeypatch.setattr(errors, "LOCK_TIMEOUT_MS", 300)
    store = PgMemoryStore(pg_url)
    with psycopg.connect(pg_url) as other:
        other.execute(_LOCK, ("u",))  # another instance writing this user, for a long time
        started = time.monotonic()
        with pytest.raises(StoreBusy, match="busy") as caught:
            store.add_event("u", "学吉他", actor="test")
        assert time.monotonic() - started < 5
        assert from_store_error(caught.value).status == 503
        other.rollback()
    assert store.get_events("u") == []
    store.add_event("u", "学吉他", actor="test")
    store.close()


def test_a_postgres_deadlock_victim_is_a_retryable_busy_not_a_driver_error(pg_url):
    from kiraos_desktop.core.storage.postgres.store import PgMemoryStore

    store = PgMemoryStore(pg_url)
    store.add_event("a", "warm-up", actor="test")  # the schema and this thread's connection ready
    holds_b, other_done = threading.Event(), []

    def other_instance():
        with psycopg.connect(pg_url) as conn:
            conn.execute(_LOCK, ("b",))
            holds_b.set()
            time.sleep(0.3)  # our batch is waiting for b by now; then it needs a, which we hold
            conn.execute(_LOCK, ("a",))
            conn.commit()
            other_done.append(True)

    with pytest.raises(StoreBusy) as caught:
        with store.batch("test") as batch:
            batch.add_event("a", "first")  # holds a
            thread = threading.Thread(target=other_instance)
            thread.start()
            holds_b.wait(5)
            batch.add_event("b", "second")  # waits for b first: PostgreSQL picks this one as the victim
    thread.join(10)
    assert caught.value.retryable and other_done == [True]
    assert classify(caught.value.__cause__) == CONFLICT
    assert [e.summary for e in store.get_events("a")] == ["warm-up"]  # nothing of the batch was written
    store.add_event("b", "once more", actor="test")  # retried by the caller, it goes through
    store.close()


def test_a_full_disk_is_a_clear_503_and_nothing_is_written(tmp_path):
    store = SqliteStore(tmp_path / "m.db")
    store.add_event("u", "before", actor="test")
    conn = store.writer.connection()
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLite answers as a full disk does (SQLITE_FULL)
    with pytest.raises(errors.StoreUnavailable, match="disk .* is full") as caught:
        store.add_event("u", "x" * 1000 * 1, actor="test")
        for n in range(200):
            store.add_event("u", f"{n} " + "y" * 900, actor="test")
    assert from_store_error(caught.value).status == 503 and caught.value.kind == DISK_FULL
    assert "free some space" in str(caught.value)
    store.close()
