"""Batches over many users on PostgreSQL (imports, reverts of big purges): one lock for the whole
database instead of one per user, so they fit in any server's lock table, and still exclude every
other instance's writes to those users while they run."""
from __future__ import annotations

import threading

import psycopg
import pytest

from kiraos_desktop.core.storage.postgres import write_batch as pg_write_batch
from kiraos_desktop.core.transfer import export_import as transfer
from kiraos_desktop.core.storage.revert import revert_changes
from kiraos_desktop.core.storage.postgres.store import PgMemoryStore
from kiraos_desktop.core.memory.records import EventEntry, LimitError, ProfileEntry
from kiraos_desktop.core.transfer.export_import import ImportPlan

#: More users than the test server's lock table holds (tests/pg_server.py sets max_locks_per_transaction
#: to 10: about 5 000 advisory locks fit); one lock per user failed here with "out of shared memory".
MANY_USERS = 8000

_LOCKS = ("SELECT l.pid, l.granted, l.mode FROM pg_locks AS l WHERE l.locktype = 'advisory' "
          "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())")


def _profile(user_id: str, key: str, value: str = "v") -> ProfileEntry:
    return ProfileEntry(user_id, key, value, "2026-01-01T00:00:00", 0.5, "basic", None)


def _advisory_locks(url: str) -> list[tuple[int, bool, str]]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(_LOCKS).fetchall()


def _wait_until(condition, what: str) -> None:
    for _ in range(3000):  # a bound, so that a broken test fails instead of hanging
        if condition():
            return
        threading.Event().wait(0.01)
    raise AssertionError(f"timed out waiting until {what}")


class _Thread(threading.Thread):
    """A worker whose exception is kept for the test to re-raise."""

    def __init__(self, work) -> None:
        super().__init__(daemon=True)
        self._work = work
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._work()
        except BaseException as exc:  # re-raised by finish()
            self.error = exc

    def finish(self) -> None:
        self.join(60)
        assert not self.is_alive(), "the worker did not finish"
        if self.error is not None:
            raise self.error


@pytest.fixture
def stores(pg_url):
    """stores(n, **limits): n instances on the test's database, closed after the test."""
    made = []

    def make(count: int, **limits) -> list[PgMemoryStore]:
        made.extend(PgMemoryStore(pg_url, **limits) for _ in range(count))
        return made[-count:]

    yield make
    for store in made:
        store.close()


@pytest.fixture
def bulk_over_three(monkeypatch):
    """Batches declaring more than 3 users take the bulk path (keeps the tests small)."""
    monkeypatch.setattr(pg_write_batch, "BULK_USERS", 3)


def test_an_import_of_more_users_than_the_servers_lock_table_holds_succeeds(pg_server, pg_url, stores):
    users = [f"u{n:05d}" for n in range(MANY_USERS)]
    if pg_server.managed:  # our own cluster: make sure one lock per user would not fit
        with psycopg.connect(pg_url, autocommit=True) as conn:
            per_tx, connections = (int(conn.execute(f"SHOW {name}").fetchone()[0])
                                   for name in ("max_locks_per_transaction", "max_connections"))
        assert MANY_USERS > per_tx * (connections + 30)
    [store] = stores(1)
    store.set_profile("u00001", "old", "v", actor="gui")
    plan = ImportPlan([_profile(u, "k", u) for u in users],
                      [EventEntry(0, u, f"event of {u}", "2026-01-02T00:00:00") for u in users[::100]], users)
    assert transfer.apply_import(store, plan) == (MANY_USERS, MANY_USERS // 100)
    stats = store.stats()
    assert (stats.total_users, stats.total_profiles, stats.total_events) == (
        MANY_USERS, MANY_USERS + 1, MANY_USERS // 100)
    assert store.get_profile("u06999", "k").value == "u06999"
    chain = store.list_changes("u00001")
    assert [c.action for c in chain] == ["import", "profile_set"]
    assert chain[0].after == {"profiles": 1, "events": 0}
    assert len(store.list_changes(None, limit=-1)) == MANY_USERS + 1


def test_a_bulk_batch_holds_one_lock_and_other_instances_writes_wait_for_it_then_count_exactly(
        stores, pg_url, bulk_over_three):
    """While a batch over more than BULK_USERS users runs, writes of other instances wait, and then
    read what it wrote: the profile limit and retention count its entries, the audit chain goes on
    from its changes."""
    bulk, *others = stores(4, max_profiles_per_user=3, max_event_keep=2)
    bulk.set_profile("b", "k1", "v", actor="api")
    bulk.set_profile("b", "k2", "v", actor="api")
    bulk.add_event("a", "e0", actor="api")
    over_limit = _Thread(lambda: others[0].set_profile("b", "k4", "late", actor="api"))
    retained = _Thread(lambda: others[1].add_event("a", "e2", actor="api"))
    bystander = _Thread(lambda: others[2].add_event("z", "not in the bulk batch", actor="api"))
    with bulk.batch("gui", users=["a", "b", "c", "d"]) as batch:
        for user in "abcd":
            batch.set_profile(user, "k3", "bulk")
        batch.add_event("a", "e1")
        assert _advisory_locks(pg_url) == [(bulk.writer_pid(), True, "ExclusiveLock")]  # not one per user
        for thread in (over_limit, retained, bystander):
            thread.start()
        _wait_until(lambda: sum(not granted for _, granted, _ in _advisory_locks(pg_url)) == 3,
                    "the three writes of the other instances wait")
    with pytest.raises(LimitError):  # b's third entry is the bulk batch's k3
        over_limit.finish()
    retained.finish()
    bystander.finish()
    assert sorted(p.key for p in bulk.get_profiles("b")) == ["k1", "k2", "k3"]
    assert [e.summary for e in bulk.get_events("a")] == ["e2", "e1"]  # e0 trimmed
    assert [c.action for c in bulk.list_changes("a")] == [
        "event_trim", "event_add", "event_add", "profile_set", "event_add"]
    assert [e.summary for e in bulk.get_events("z")] == ["not in the bulk batch"]


def test_a_purge_of_more_users_expired_entries_than_bulk_users_takes_the_bulk_path(stores, pg_url, bulk_over_three):
    store, other = stores(2)
    users = ["a", "b", "c", "d"]
    for user in users:
        store.set_profile(user, "old", "v", actor="gui", expires_at="2020-01-01T00:00:00")
    with store.batch("gui") as batch:
        assert batch.purge_expired(None) == 4
        assert _advisory_locks(pg_url) == [(store.writer_pid(), True, "ExclusiveLock")]
        waiting = _Thread(lambda: other.set_profile("a", "new", "v", actor="api"))
        waiting.start()
        _wait_until(lambda: len(_advisory_locks(pg_url)) == 2, "the other instance's write waits")
    waiting.finish()
    assert [p.key for p in store.get_profiles("a")] == ["new"] and store.stats().total_profiles == 1
    assert [c.action for c in store.list_changes("a")] == ["profile_set", "purge_expired", "profile_set"]


def test_two_bulk_batches_of_two_instances_run_one_after_the_other(stores, pg_url, bulk_over_three):
    first, second = stores(2)
    users = ["a", "b", "c", "d", "e"]
    second_done = threading.Event()

    def second_import():
        transfer.apply_import(second, ImportPlan([_profile(u, "k", "second") for u in reversed(users)], [], users))
        second_done.set()

    worker = _Thread(second_import)
    with first.batch("gui", users=users) as batch:
        for user in users:
            batch.set_profile(user, "k", "first")
        worker.start()
        _wait_until(lambda: any(not granted for _, granted, _ in _advisory_locks(pg_url)),
                    "the second import waits")
        assert not second_done.is_set()
    worker.finish()
    for user in users:
        assert first.get_profile(user, "k").value == "second"
        chain = first.list_changes(user)
        assert [c.action for c in chain] == ["import", "profile_set"]
        assert chain[0].after == {"profiles": 1, "events": 0}


def test_bulk_and_small_batches_and_single_writes_of_two_instances_never_deadlock(stores, bulk_over_three):
    """Rounds of every kind of write on two instances at once, the orders of users alternating:
    imports and reverts over more users than BULK_USERS, declared batches under it, and groups of
    single-user writes as the API writes them. Nothing fails, nothing is lost."""
    rounds, users = 8, ["a", "b", "c", "d", "e"]
    two = stores(2, max_profiles_per_user=0, max_event_keep=0)
    for user in users:
        two[0].add_event(user, "seed", actor="api")

    def worker(index):
        store = two[index]

        def work():
            for i in range(rounds):
                order = users if (i + index) % 2 else list(reversed(users))
                tag = f"w{index}r{i}"
                transfer.apply_import(store, ImportPlan([_profile(u, tag) for u in order], [], users))
                with store.batch("gui", users=order[:2]) as batch:  # under the threshold: a lock per user
                    for user in order[:2]:
                        batch.set_profile(user, f"{tag}-small", "v")
                revert_changes(store, batch.change_ids, actor="gui")
                with store.group():
                    for user in order:
                        store.add_event(user, tag, actor="api")
                with store.batch("gui", users=order) as batch:
                    for user in order:
                        batch.delete_profile(user, tag)
                revert_changes(store, batch.change_ids, actor="gui")  # five users: the bulk path
        return work

    threads = [_Thread(worker(0)), _Thread(worker(1))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.finish()
    check = two[0]
    for user in users:
        assert len(check.get_profiles(user)) == 2 * rounds
        assert len(check.get_events(user)) == 1 + 2 * rounds
        chain = check.list_changes(user, limit=-1)
        small = 2 * 2 * (rounds // 2) if user != "c" else 0  # set and its revert, every other round
        assert len(chain) == 1 + 2 * rounds * 4 + small
        assert [c.id for c in chain] == sorted((c.id for c in chain), reverse=True)
