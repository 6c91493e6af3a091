"""Batches that write several users (revert, import, undo, purge) on one PostgreSQL database from two
instances: their users' locks are taken up front in one order, so they never deadlock."""
from __future__ import annotations

import threading

import psycopg
import pytest

from kiraos_desktop.core.transfer import export_import as transfer
from kiraos_desktop.core.storage.revert import revert_changes
from kiraos_desktop.core.storage.postgres.store import PgMemoryStore
from kiraos_desktop.core.storage.postgres.write_batch import PgWriteBatch, UndeclaredUser
from kiraos_desktop.core.memory.records import ProfileEntry
from kiraos_desktop.core.transfer.export_import import ImportPlan
from core_helpers import run_threads

_WAITERS = ("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")


def _locked_elsewhere(url: str, user_id: str) -> bool:
    """Whether another session holds the user's lock (tried from a new connection, released at once)."""
    with psycopg.connect(url, autocommit=True) as conn:
        return not conn.execute("SELECT pg_try_advisory_xact_lock(hashtextextended(%s, 0))", (user_id,)).fetchone()[0]


class _Rendezvous:
    """Makes two batches overlap at the worst moment: each one, after it wrote its first user, goes on
    only once the other has written its own first user too (then each holds one user the other
    needs), or once the other is waiting for a lock (it could not start: nothing is held crosswise)."""

    def __init__(self, url: str, method: str, monkeypatch) -> None:
        self._url = url
        self._wrote: list[threading.Event] = [threading.Event(), threading.Event()]
        self._local = threading.local()
        original = getattr(PgWriteBatch, method)
        rendezvous = self

        def hooked(batch, *args, **kwargs):
            result = original(batch, *args, **kwargs)
            rendezvous._after_first_write(batch)
            return result

        monkeypatch.setattr(PgWriteBatch, method, hooked)

    def role(self, index: int) -> None:
        self._local.index = index
        self._local.batch = None

    def _after_first_write(self, batch) -> None:
        index = getattr(self._local, "index", None)
        if index is None or self._local.batch is not None:
            return
        self._local.batch = batch
        self._wrote[index].set()
        other = self._wrote[1 - index]
        with psycopg.connect(self._url, autocommit=True) as watcher:
            for _ in range(3000):  # a bound so that a broken test fails instead of hanging
                if other.wait(0.01) or watcher.execute(_WAITERS).fetchone()[0]:
                    return
        raise AssertionError("the other batch neither wrote nor waited")


def _profile(user_id: str, key: str) -> ProfileEntry:
    return ProfileEntry(user_id, key, "v", "2026-01-01T00:00:00", 0.5, "basic", None)


@pytest.fixture
def two_stores(pg_url):
    stores = [PgMemoryStore(pg_url, max_profiles_per_user=0, max_event_keep=0) for _ in range(2)]
    yield stores
    for store in stores:
        store.close()


def test_a_declared_batch_holds_every_users_lock_before_its_first_read(two_stores, pg_url):
    store = two_stores[0]
    with store.batch("gui", users=["b", "a", "b"]) as batch:
        assert batch.profile("a", "k") is None  # a read: the pipeline has reached the server
        assert _locked_elsewhere(pg_url, "a") and _locked_elsewhere(pg_url, "b")
        assert not _locked_elsewhere(pg_url, "c")
        batch.set_profile("b", "k", "1")
    assert not _locked_elsewhere(pg_url, "a")
    assert store.get_profile("b", "k").value == "1"


def test_writing_an_undeclared_user_fails_clearly_and_writes_nothing(two_stores):
    store = two_stores[0]
    with pytest.raises(UndeclaredUser, match="'c'"):
        with store.batch("gui", users=["a", "b"]) as batch:
            batch.set_profile("a", "k", "1")
            batch.set_profile("c", "k", "1")
    assert store.get_profile("a", "k") is None and store.list_changes(None) == []
    with pytest.raises(UndeclaredUser):  # a batch that declared no user may write none
        with store.batch("gui", users=[]) as batch:
            batch.add_event("a", "e")
    assert store.stats().total_events == 0


def test_a_declared_batch_is_refused_inside_a_group_or_another_batch(two_stores):
    store = two_stores[0]
    with pytest.raises(RuntimeError, match="its own transaction"):
        with store.group():
            store.set_profile("a", "k", "1", actor="api")
            with store.batch("gui", users=["b"]):
                pass
    with pytest.raises(RuntimeError, match="its own transaction"):
        with store.batch("gui") as outer:
            outer.set_profile("a", "k", "2")
            with store.batch("gui", users=["a"]):
                pass
    assert store.get_profile("a", "k") is None


def _seed_reverts(store) -> tuple[list[int], list[int]]:
    """Changes whose reverts write a then b (first list) and b then a (second list): reverts go newest first."""
    ids = {}
    for user, key in (("a", "k1"), ("b", "k1"), ("a", "k2"), ("b", "k2")):
        with store.batch("gui") as batch:
            batch.set_profile(user, key, "v")
        ids[user + key] = batch.change_ids[0]
    return [ids["ak2"], ids["bk1"]], [ids["bk2"], ids["ak1"]]


def test_reverts_of_two_instances_over_the_same_users_in_opposite_orders_do_not_deadlock(
        two_stores, pg_url, monkeypatch):
    one, two = _seed_reverts(two_stores[0])
    meeting = _Rendezvous(pg_url, "profile", monkeypatch)  # delete_profile reads the entry first

    def reverter(index, ids):
        def work():
            meeting.role(index)
            revert_changes(two_stores[index], ids, actor="gui")
        return work

    assert run_threads([reverter(0, one), reverter(1, two)]) == []
    check = two_stores[0]
    assert check.stats().total_profiles == 0  # all four entries reverted, by one or the other
    assert [c.action for c in check.list_changes(None, limit=-1)].count("profile_delete") == 4


def _plan(users: list[str], tag: str, keys: int = 3) -> ImportPlan:
    profiles = [_profile(user, f"{tag}-{n}") for user in users for n in range(keys)]
    return ImportPlan(profiles, [], sorted(users))


def test_imports_of_two_instances_over_the_same_users_in_opposite_orders_do_not_deadlock(
        two_stores, pg_url, monkeypatch):
    meeting = _Rendezvous(pg_url, "put_profile", monkeypatch)

    def importer(index, users):
        def work():
            meeting.role(index)
            transfer.apply_import(two_stores[index], _plan(users, f"w{index}"))
        return work

    assert run_threads([importer(0, ["a", "b"]), importer(1, ["b", "a"])]) == []
    check = two_stores[0]
    for user in ("a", "b"):
        assert sorted(p.key for p in check.get_profiles(user)) == [f"w{i}-{n}" for i in range(2) for n in range(3)]
    assert [c.action for c in check.list_changes(None, limit=-1)] == ["import"] * 4


def test_many_rounds_of_imports_and_reverts_on_two_instances_lose_nothing(two_stores):
    """Without a rendezvous: the orders of the two instances alternate for many rounds."""
    rounds, users = 12, ["a", "b", "c"]
    for user in users:
        two_stores[0].set_profile(user, "seed", "v", actor="gui")

    def worker(index):
        store = two_stores[index]

        def work():
            for i in range(rounds):
                order = users if (i + index) % 2 else list(reversed(users))
                transfer.apply_import(store, _plan(order, f"w{index}r{i}", keys=2))
                with store.batch("gui", users=order) as batch:
                    for user in order:
                        batch.set_profile(user, f"w{index}r{i}-x", "v")
                revert_changes(store, batch.change_ids, actor="gui")
        return work

    assert run_threads([worker(0), worker(1)]) == []
    check = two_stores[0]
    for user in users:
        keys = sorted(p.key for p in check.get_profiles(user))
        assert keys == sorted(["seed"] + [f"w{i}r{r}-{n}" for i in range(2) for r in range(rounds) for n in range(2)])
        summary = check.user_summary(user)
        assert summary.profile_count == len(keys)


def test_purging_every_users_expired_entries_locks_them_in_the_declared_order(two_stores, pg_url, monkeypatch):
    """The File menu's purge finds its users when it runs: it locks them in the same order as a declared
    batch (Python's order of the ids, whatever the database's collation), so it meets a revert safely."""
    store = two_stores[0]
    with psycopg.connect(pg_url, autocommit=True) as conn:  # a database whose collation is not C's
        if not conn.execute("SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu'").fetchone():
            pytest.skip("this PostgreSQL has no ICU collations")
        conn.execute('ALTER TABLE user_profiles ALTER COLUMN user_id TYPE text COLLATE "und-x-icu"')
    for user in ("B", "a"):  # "B" < "a" in code point order, "a" < "B" in the ICU collation
        store.set_profile(user, "old", "v", actor="gui", expires_at="2020-01-01T00:00:00")
    taken = []
    original = PgWriteBatch._lock_in_order

    def lock_in_order(batch, ordered):
        taken.extend(ordered)
        original(batch, ordered)

    monkeypatch.setattr(PgWriteBatch, "_lock_in_order", lock_in_order)
    with store.batch("gui") as batch:
        assert batch.purge_expired(None) == 2
    assert taken == ["B", "a"]
    assert store.stats().total_profiles == 0
    assert sorted(c.user_id for c in store.list_changes(None) if c.action == "purge_expired") == ["B", "a"]


def test_the_windows_undo_and_redo_of_a_change_to_several_users_declare_them(two_stores, qapp, monkeypatch):
    from PySide6.QtGui import QUndoStack

    from kiraos_desktop.ui.undo import GUI_ACTOR, UndoableWriter

    store = two_stores[0]
    for user in ("u2", "u1"):
        store.set_profile(user, "old", "v", actor="gui", expires_at="2020-01-01T00:00:00")
    writer = UndoableWriter(store, QUndoStack())
    with store.batch(GUI_ACTOR) as batch:  # the File menu's purge of every user's expired entries
        assert batch.purge_expired(None) == 2
    writer.record("purge", batch.change_ids)
    declared = []
    original = PgWriteBatch.declare_users
    monkeypatch.setattr(PgWriteBatch, "declare_users",
                        lambda batch, users: (declared.append(sorted(users)), original(batch, users)))
    writer.stack.undo()
    assert declared == [["u1", "u2"]] and store.stats().total_profiles == 2
    writer.stack.redo()
    assert declared == [["u1", "u2"]] * 2 and store.stats().total_profiles == 0
