"""The store: writes, audit, change events, user listing, limits, purge and revert."""
import sqlite3
import threading
import time
from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core_helpers import WriterHolder
from store_backends import SQLITE_ONLY
from kiraos_desktop.core.memory.changes import ChangeEvent
from kiraos_desktop.core.storage.revert import revert_change, revert_changes
from kiraos_desktop.core.memory.records import LimitError, ValidationError
from kiraos_desktop.core.storage.protocol import WriterBusy
from kiraos_desktop.core.storage.sqlite.store import SqliteStore
from kiraos_desktop.core.storage.rows import live_head


@pytest.fixture
def store(new_store):
    return new_store()


def iso(delta: timedelta) -> str:
    return (datetime.now() + delta).isoformat()


def test_set_update_delete_profile_with_audit(store):
    store.set_profile("u1", "城市", "北京", actor="gui", confidence=0.8)
    store.set_profile("u1", "城市", "上海", actor="api", category="basic", confidence=0.9)
    entry = store.get_profile("u1", "城市")
    assert (entry.value, entry.confidence) == ("上海", 0.9)
    assert store.delete_profile("u1", "城市", actor="cli") is True
    assert store.delete_profile("u1", "城市", actor="cli") is False
    changes = store.list_changes("u1")
    assert [(c.action, c.actor) for c in changes] == [("profile_delete", "cli"), ("profile_set", "api"),
                                                      ("profile_set", "gui")]
    assert changes[1].before["value"] == "北京" and changes[1].after["value"] == "上海"


@pytest.mark.parametrize("kwargs,field", [
    ({"user_id": "", "key": "k", "value": "v"}, "user_id"),
    ({"user_id": "u", "key": " ", "value": "v"}, "key"),
    ({"user_id": "u", "key": "k", "value": ""}, "value"),
    ({"user_id": "u", "key": "k", "value": "v", "confidence": 1.5}, "confidence"),
    ({"user_id": "u", "key": "k", "value": "v", "confidence": "high"}, "confidence"),
    ({"user_id": "u", "key": "k", "value": "v", "category": "misc"}, "category"),
    ({"user_id": "u", "key": "k", "value": "v", "expires_at": "next week"}, "expires_at"),
])
def test_bad_input_is_refused_and_changes_nothing(store, kwargs, field):
    with pytest.raises(ValidationError) as info:
        store.set_profile(actor="gui", **kwargs)
    assert info.value.field == field
    assert store.stats().total_profiles == 0 and store.list_changes() == []


def test_events_newest_first_update_delete_and_ownership(store):
    first = store.add_event("u1", "通过面试", actor="gui", created_at="2025-02-28T10:00:00")
    second = store.add_event("u1", "完成半马", actor="gui", created_at="2025-03-01T10:00:00")
    other = store.add_event("u2", "别人的事", actor="gui")
    assert [e.summary for e in store.get_events("u1")] == ["完成半马", "通过面试"]
    assert store.update_event("u1", first, "通过了面试", actor="gui")
    assert not store.update_event("u1", other, "偷改", actor="gui")  # belongs to u2
    assert store.get_event(other).summary == "别人的事"
    assert store.delete_event("u1", second, actor="gui")
    assert not store.delete_event("u1", second, actor="gui")
    with pytest.raises(ValidationError):
        store.add_event("u1", "x" * 1001, actor="gui")


def test_event_keep_limit_trims_oldest_and_zero_is_unlimited(new_store):
    store = new_store(max_event_keep=3)
    for i in range(5):
        store.add_event("u", f"e{i}", actor="gui", created_at=f"2025-01-0{i + 1}T00:00:00")
    assert [e.summary for e in store.get_events("u")] == ["e4", "e3", "e2"]
    store.max_event_keep = 0
    for i in range(5):
        store.add_event("u", f"f{i}", actor="gui")
    assert len(store.get_events("u")) == 8
    store.close()


def test_profile_limit_counts_only_unexpired_and_zero_is_unlimited(new_store):
    store = new_store(max_profiles_per_user=2)
    store.set_profile("u", "a", "1", actor="gui")
    store.set_profile("u", "old", "x", actor="gui", expires_at=iso(-timedelta(days=1)))
    store.set_profile("u", "b", "2", actor="gui")  # the expired entry does not count
    with pytest.raises(LimitError):
        store.set_profile("u", "c", "3", actor="gui")
    store.set_profile("u", "a", "changed", actor="gui")  # updating an existing key is always fine
    store.max_profiles_per_user = 0
    for i in range(10):
        store.set_profile("u", f"k{i}", "v", actor="gui")
    assert len(store.get_profiles("u", include_expired=False)) == 12
    store.close()


def test_expired_entries_hidden_from_live_reads_and_purged(store):
    store.set_profile("u", "live", "1", actor="gui", expires_at=iso(timedelta(days=1)))
    store.set_profile("u", "dead", "2", actor="gui", expires_at=iso(-timedelta(minutes=1)))
    assert [p.key for p in store.get_profiles("u", include_expired=False)] == ["live"]
    assert {p.key for p in store.get_profiles("u")} == {"live", "dead"}
    assert store.purge_expired(actor="gui") == 1
    assert [p.key for p in store.get_profiles("u")] == ["live"]
    assert store.list_changes("u")[0].action == "purge_expired"


def test_profiles_sorted_by_category_then_confidence_then_recency(store):
    store.set_profile("u", "o", "1", actor="gui", category="other", confidence=0.9)
    store.set_profile("u", "b-low", "1", actor="gui", confidence=0.3)
    store.set_profile("u", "b-old", "1", actor="gui", confidence=0.8)
    store.set_profile("u", "p", "1", actor="gui", category="preference")
    store.set_profile("u", "b-new", "1", actor="gui", confidence=0.8)
    assert [p.key for p in store.get_profiles("u")] == ["b-new", "b-old", "b-low", "p", "o"]


def test_user_list_counts_search_sort_and_paging(store):
    for i in range(30):
        uid = f"user_{i:02d}"
        for k in range(i % 4):
            store.set_profile(uid, f"k{k}", "值" if i == 7 else "v", actor="gui")
        store.add_event(uid, "唯一的事件" if i == 11 else "e", actor="gui")
    assert store.count_users() == 30
    page = store.list_users(offset=10, limit=5)
    assert [u.user_id for u in page] == [f"user_{i}" for i in range(10, 15)]
    top = store.list_users(order_by="profile_count", descending=True, limit=1)[0]
    assert top.profile_count == 3 and top.event_count == 1
    assert [u.user_id for u in store.list_users(search="user_2")] == [f"user_{i}" for i in range(20, 30)]
    assert store.count_users(search="唯一") == 0
    assert [u.user_id for u in store.list_users(search="唯一", in_content=True)] == ["user_11"]
    assert [u.user_id for u in store.list_users(search="值", in_content=True)] == ["user_07"]
    assert store.list_users(search="%") == []  # LIKE wildcards are literal
    stats = store.stats()
    assert (stats.total_users, stats.total_events) == (30, 30)
    store.clear_user("user_03", actor="gui")
    assert store.user_summary("user_03") is None and store.count_users() == 29


def test_change_events_after_commit_only(store):
    seen: list[ChangeEvent] = []
    store.changes.subscribe(seen.append)
    store.set_profile("u", "k", "v", actor="api")
    assert seen == [ChangeEvent("u", "profile_set", "api")]
    with pytest.raises(RuntimeError):
        with store.batch("gui") as batch:
            batch.set_profile("u", "k2", "v")
            raise RuntimeError("abort")
    assert len(seen) == 1 and store.get_profile("u", "k2") is None  # rolled back, nothing published


def test_a_failing_subscriber_does_not_break_writes(store):
    def broken(_event):
        raise ValueError("boom")

    store.changes.subscribe(broken)
    store.set_profile("u", "k", "v", actor="gui")
    assert store.get_profile("u", "k").value == "v"


def test_revert_restores_every_kind_of_change(store):
    store.set_profile("u", "城市", "北京", actor="gui")
    store.set_profile("u", "城市", "上海", actor="api")
    change = store.list_changes("u")[0]
    revert_change(store, change.id, actor="gui")
    assert store.get_profile("u", "城市").value == "北京"
    event_id = store.add_event("u", "e1", actor="gui")
    store.delete_event("u", event_id, actor="gui")
    revert_change(store, store.list_changes("u")[0].id, actor="gui")
    assert store.get_event(event_id).summary == "e1"
    before = (store.get_profiles("u"), store.get_events("u"))
    store.clear_user("u", actor="gui")
    new_ids = revert_change(store, store.list_changes("u")[0].id, actor="gui")
    assert (store.get_profiles("u"), store.get_events("u")) == before
    revert_changes(store, new_ids, actor="gui")  # the revert of a revert: a redo
    assert store.get_profiles("u") == [] and store.get_events("u") == []


def test_concurrent_threads_lose_nothing(store):
    errors = []

    def worker(n):
        try:
            for i in range(50):
                store.set_profile(f"t{n}", f"k{i}", "v", actor="api")
                store.add_event(f"t{n}", f"e{i}", actor="api")
        except Exception as exc:  # pragma: no cover - the assertion below reports it
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.stats().total_profiles == 400 and store.stats().total_events == 400



def test_group_commit_isolates_failures_and_publishes_after_commit(store):
    seen: list[ChangeEvent] = []
    store.changes.subscribe(seen.append)
    with store.group():
        store.set_profile("a", "k", "1", actor="api")
        with pytest.raises(ValidationError):
            with store.batch("api") as batch:
                batch.set_profile("b", "k", "2")
                batch.set_profile("b", "bad", "x", confidence=7)  # fails: only this batch is undone
        store.add_event("c", "e", actor="tool")
        assert seen == []  # nothing is published before the group commits
        # Another connection sees nothing of the group before its commit.
        assert store.get_profile("a", "k") is None
    assert store.get_profile("a", "k").value == "1" and store.get_profile("b", "k") is None
    assert [e.summary for e in store.get_events("c")] == ["e"]
    assert seen == [ChangeEvent("a", "profile_set", "api"), ChangeEvent("c", "event_add", "tool")]
    assert [c.action for c in store.list_changes()] == ["event_add", "profile_set"]  # the failed batch left no audit


def test_a_failed_group_commits_nothing_and_leaves_the_store_usable(store):
    seen: list[ChangeEvent] = []
    store.changes.subscribe(seen.append)
    with pytest.raises(RuntimeError):
        with store.group():
            store.set_profile("a", "k", "1", actor="api")
            raise RuntimeError("crash before commit")
    assert store.get_profile("a", "k") is None and seen == []
    store.set_profile("a", "k", "2", actor="api")
    assert store.get_profile("a", "k").value == "2"
    with pytest.raises(RuntimeError, match="do not nest"):
        with store.group():
            with store.group():
                pass


def test_nested_batches_are_savepoints(store):
    seen: list[ChangeEvent] = []
    store.changes.subscribe(seen.append)
    with store.batch("gui") as outer:
        outer.set_profile("u", "a", "1")
        with pytest.raises(ValidationError):
            with store.batch("gui") as inner:
                inner.set_profile("v", "b", "2")
                inner.add_event("v", "")  # invalid: undoes only the inner batch
        with store.batch("api") as inner:
            inner.set_profile("w", "k", "1")
        assert seen == []  # the inner batch's event waits for the outer commit
        outer.set_profile("u", "c", "3")
    assert seen == [ChangeEvent("w", "profile_set", "api"), ChangeEvent("u", "batch", "gui")]
    assert store.get_profile("v", "b") is None
    seen.clear()
    with pytest.raises(RuntimeError):
        with store.batch("gui"):
            with store.batch("api") as inner:
                inner.set_profile("x", "k", "1")
            raise RuntimeError("the outer batch fails after the inner one finished")
    assert seen == [] and store.get_profile("x", "k") is None
    assert sorted(p.key for p in store.get_profiles("u")) == ["a", "c"]
    assert [c.target for c in store.list_changes("u")] == ["c", "a"]


@SQLITE_ONLY  # on PostgreSQL every thread writes on its own connection (test_pg_writer_threads.py)
def test_group_without_waiting_refuses_when_another_thread_writes(store):
    with WriterHolder(store, "u", "k"):
        with pytest.raises(WriterBusy):
            with store.group(wait=False):
                store.set_profile("u", "k", "api", actor="api")
    assert store.get_profile("u", "k").value == "held"
    with store.group(wait=False):  # free again: written at once
        store.set_profile("u", "k", "api", actor="api")
    assert store.get_profile("u", "k").value == "api"


@SQLITE_ONLY
def test_group_without_waiting_refuses_when_another_process_writes(store):
    other = sqlite3.connect(store.path, isolation_level=None, timeout=0)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES ('x', 'plugin', '2026-01-01')")
    try:
        started = time.monotonic()
        with pytest.raises(WriterBusy):
            with store.group(wait=False):
                store.set_profile("u", "k", "api", actor="api")
        assert time.monotonic() - started < 1  # no busy wait
    finally:
        other.execute("COMMIT")
        other.close()
    store.set_profile("u", "k", "api", actor="api")  # the busy timeout is back: waits, then writes
    assert store.writer.connection().execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    assert store.get_profile("u", "k").value == "api" and store.get_events("x")[0].summary == "plugin"


_HEAD_ROWS = st.lists(st.tuples(
    st.sampled_from(["basic", "preference", "social", "other", "", None, "zzz", "aaa"]),
    st.one_of(st.none(), st.floats(min_value=0, max_value=1), st.sampled_from([0.5, 0.8])),
    st.one_of(st.none(), st.sampled_from(["2026-01-01T10:00:00", "2026-01-01 10:00:00", "2025-06-01", ""])),
    st.sampled_from([None, "2000-01-01T00:00:00", "2999-01-01T00:00:00"]),
), max_size=14)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=_HEAD_ROWS, limit=st.integers(min_value=0, max_value=6))
def test_live_head_matches_the_display_order(store, rows, limit):
    """The memory_update reply's head (sorted on plain rows) is the order get_profiles() shows."""
    with store.batch("test") as batch:
        batch.execute("DELETE FROM user_profiles WHERE user_id = 'h'")
        for n, (category, confidence, updated_at, expires_at) in enumerate(rows):
            batch.execute("INSERT INTO user_profiles (user_id, memory_key, memory_value, updated_at, confidence, "
                          "category, expires_at) VALUES ('h', ?, ?, ?, ?, ?, ?)",
                          (f"k{n:02d}", f"v{n}", updated_at, confidence, category, expires_at))

    def shown() -> tuple[list[tuple[str, str]], int]:
        live = store.get_profiles("h", include_expired=False)
        return [(p.key, p.value) for p in live[:limit]], len(live)

    before = shown()
    with store.batch("test") as batch:
        known = batch.profile_rows("h")
        assert live_head(known, limit) == before
        batch.set_profile("h", "k00", "new", category="social", confidence=0.7, known=known)
        batch.delete_profile("h", "k01", known=known)
        batch.set_profile("h", "fresh", "x", expires_at="2999-01-01T00:00:00", known=known)
        assert known == batch.profile_rows("h")  # kept current by the writes
        after = live_head(known, limit)
    assert after == shown()


def wal_frames(store) -> int:
    """Frames in the WAL now (a PASSIVE checkpoint of an idle store copies them all and reports how many)."""
    other = sqlite3.connect(store.path)
    try:
        return other.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
    finally:
        other.close()


@SQLITE_ONLY
def test_checkpoints_are_due_after_enough_commits(store, monkeypatch):
    from kiraos_desktop.core.storage.sqlite import wal_checkpoints

    monkeypatch.setattr(wal_checkpoints, "CHECKPOINT_AFTER_COMMITS", 3)
    monkeypatch.setattr(wal_checkpoints, "CHECKPOINT_COMPLETE_FRAMES", 1)  # always finish under the lock
    for n in range(2):
        store.add_event("u", f"e{n}", actor="tool")
    assert store.checkpoint_if_due() is False and store.backend.commits_since_checkpoint == 2
    for n in range(40):
        store.add_event("u", f"more {n}", actor="tool")
    grown = wal_frames(store)
    assert store.checkpoint_if_due() is True and store.backend.commits_since_checkpoint == 0
    store.add_event("u", "after", actor="tool")  # the first write after a complete checkpoint restarts the WAL
    assert wal_frames(store) < grown / 4
    assert [e.summary for e in store.get_events("u", limit=1)] == ["after"]



@SQLITE_ONLY
def test_a_big_wal_is_caught_up_with_beside_the_writer_before_the_locked_pass(store, monkeypatch):
    """Past CHECKPOINT_COMPLETE_FRAMES, passes without the lock go on while writers add many frames
    during each; only the last pass holds the write lock."""
    from kiraos_desktop.core.storage.sqlite import wal_checkpoints

    monkeypatch.setattr(wal_checkpoints, "CHECKPOINT_COMPLETE_FRAMES", 16000)
    monkeypatch.setattr(wal_checkpoints, "CHECKPOINT_LOCKED_FRAMES", 500)
    reported = iter([20000, 23000, 23400, 23450])  # the WAL's frames, pass by pass (writers going on)
    passes: list[bool] = []  # whether each pass held the write lock

    def passive():
        passes.append(store.backend._write_lock._is_owned())
        return next(reported)

    monkeypatch.setattr(store.backend, "_passive_checkpoint", passive)
    store.checkpoint()
    assert passes == [False, False, False, True]  # 20000; +3000: go on; +400: enough; then under the lock
@pytest.mark.parametrize("user_id", ["u1", "x" * 256, "x" * 257, "", " ", "\u3000", " a ", None, 5, ["u"]])
def test_user_id_ok_agrees_with_check_user_id(user_id):
    from kiraos_desktop.core.memory.records import StoreError, check_user_id, user_id_ok

    try:
        check_user_id(user_id)
        accepted = True
    except StoreError:
        accepted = False
    assert user_id_ok(user_id) is accepted
