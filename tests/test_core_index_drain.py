"""Both word indexes (recall, user search) take their queues in our own commits; write groups every few groups."""
from __future__ import annotations

from core_helpers import make_engine

from kiraos_desktop.core.storage.sqlite import store as store_module


def _count(store, sql: str) -> int:
    return store._rows(sql)[0][0]


def _queued(store) -> tuple[int, int]:
    return (_count(store, "SELECT count(*) FROM recall_queue"), _count(store, "SELECT count(*) FROM usersearch_queue"))


def test_our_own_writes_reach_both_indexes_in_their_commit(data_dir, index_every_user):
    engine = make_engine(data_dir)
    try:
        store = engine.store
        store.add_event("amy", "今天去面试了", actor="gui")
        store.set_profile("amy", "喜欢的食物", "火锅", actor="gui")
        with store.batch("cli") as batch:
            batch.add_event("bob", "Learning Python")
            batch.set_profile("bob", "城市", "北京")
        assert _queued(store) == (0, 0)  # no watcher tick needed (nor its turn at the write lock)
        held = set(store._rows("SELECT term, user_id FROM usersearch_terms"))
        assert {("面试", "amy"), ("火锅", "amy"), ("python", "bob"), ("北京", "bob")} <= held
        assert _count(store, "SELECT count(*) FROM recall_terms WHERE term IN ('面试', 'python')") == 2
    finally:
        engine.close()


def test_write_groups_take_the_queues_every_few_groups_and_the_watcher_once_they_stop(data_dir, monkeypatch, index_every_user):
    engine = make_engine(data_dir)
    try:
        store = engine.store
        every = store_module.GROUPS_PER_DRAIN
        assert every > 1
        for n in range(every - 1):  # the API's groups leave their changes queued ...
            with store.group():
                store.add_event(f"g{n}", f"第{n}次去冰岛旅行", actor="api")
        assert _queued(store) == (every - 1, every - 1)
        # ... readers see them all the same: recall reads its user's queued rows, a search takes the queue
        assert "冰岛" in engine.context.build(["g0"], query="冰岛").text
        assert store.search_user_ids("冰岛") == [f"g{n}" for n in range(every - 1)]
        for n in range(every):  # ... and the group that completes the count takes them
            with store.group():
                store.add_event("h", f"面试第{n}轮", actor="api")
            assert _queued(store) == ((0, 0) if n == every - 1 else (n + 1, n + 1))
        assert _count(store, "SELECT ev FROM usersearch_terms WHERE term = '面试' AND user_id = 'h'") == every
        # The watcher leaves the queues to the groups while they come, and takes them once they stop.
        with store.group():
            store.add_event("h", "又去面试", actor="api")
        monkeypatch.setattr(store_module, "DRAIN_IDLE_S", 3600.0)
        assert store.recall_catch_up() == 0 and store.user_search_catch_up() == 0
        assert _queued(store) == (1, 1)
        monkeypatch.setattr(store_module, "DRAIN_IDLE_S", 0.0)
        assert store.recall_catch_up() == 1
        assert _queued(store) == (0, 0)
        assert _count(store, "SELECT count(*) FROM recall_terms WHERE term = '面试'") == every + 1
    finally:
        engine.close()
