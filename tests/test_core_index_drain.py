"""Both word indexes (recall, user search) take their queues in our own commits; write groups every few groups."""
from __future__ import annotations

from core_helpers import make_engine

from kiraos_desktop.core.storage.sqlite import index_upkeep


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


def test_write_groups_take_the_recall_queue_every_few_groups_and_the_watcher_once_they_stop(data_dir, monkeypatch, index_every_user):
    engine = make_engine(data_dir)
    try:
        store = engine.store
        every = index_upkeep.GROUPS_PER_DRAIN
        assert every > 1
        for n in range(every - 1):  # the API's groups leave their changes queued ...
            with store.group():
                store.add_event(f"g{n}", f"第{n}次去冰岛旅行", actor="api")
        assert _queued(store) == (every - 1, every - 1)
        # ... readers see them all the same: recall reads its user's queued rows, a search takes the queue
        assert "冰岛" in engine.context.build(["g0"], query="冰岛").text
        assert store.search_user_ids("冰岛") == [f"g{n}" for n in range(every - 1)]
        for n in range(every):  # ... and the group that completes the count takes the recall queue
            with store.group():
                store.add_event("h", f"面试第{n}轮", actor="api")
            assert _queued(store) == ((0, every) if n == every - 1 else (n + 1, n + 1))
        assert _count(store, "SELECT count(*) FROM recall_terms WHERE term = '面试'") == every
        # The watcher leaves the queues to the groups while they come, and takes them once they stop.
        with store.group():
            store.add_event("h", "又去面试", actor="api")
        monkeypatch.setattr(index_upkeep, "DRAIN_IDLE_S", 3600.0)
        assert store.recall_catch_up() == 0 and store.user_search_catch_up() == 0
        assert _queued(store) == (1, every + 1)
        monkeypatch.setattr(index_upkeep, "DRAIN_IDLE_S", 0.0)
        assert store.user_search_catch_up() == every + 1  # (its commit takes the recall queue too)
        assert _queued(store) == (0, 0)
        assert _count(store, "SELECT count(*) FROM recall_terms WHERE term = '面试'") == every + 1
        assert _count(store, "SELECT ev FROM usersearch_terms WHERE term = '面试' AND user_id = 'h'") == every + 1
    finally:
        engine.close()


def test_the_user_search_queue_waits_for_idle_time_unless_it_grows_past_its_backlog(data_dir, monkeypatch, index_every_user):
    """Under the API's write groups the user-search queue is taken in idle time, in short
    transactions; past USER_SEARCH_BACKLOG rows the groups take it themselves (sustained load)."""
    monkeypatch.setattr(index_upkeep, "DRAIN_IDLE_S", 3600.0)  # the groups keep coming
    engine = make_engine(data_dir)
    try:
        store = engine.store
        every = index_upkeep.GROUPS_PER_DRAIN
        for n in range(every * 3):
            with store.group():
                store.add_event(f"u{n}", f"第{n}次学吉他", actor="api")
        assert _queued(store) == (0, every * 3)
        monkeypatch.setattr(index_upkeep, "USER_SEARCH_BACKLOG", every * 3)
        for n in range(every):
            with store.group():
                store.add_event("v", f"第{n}次学钢琴", actor="api")
        assert _queued(store) == (0, 0)  # the fourth group found more than the backlog queued
        assert store.search_user_ids("钢琴") == ["v"]
        # Idle time takes the queue IDLE_DRAIN_ROWS rows a transaction, within its budget.
        monkeypatch.setattr(index_upkeep, "USER_SEARCH_BACKLOG", 10 ** 9)
        for n in range(every * 2):
            with store.group():
                store.add_event(f"w{n}", f"第{n}次学小提琴", actor="api")
        monkeypatch.setattr(index_upkeep, "DRAIN_IDLE_S", 0.0)
        monkeypatch.setattr(index_upkeep, "IDLE_DRAIN_ROWS", 3)
        monkeypatch.setattr(index_upkeep, "IDLE_DRAIN_BUDGET_S", 3600.0)
        commits = []
        store.writer.connection().set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
        assert store.user_search_catch_up() == every * 2
        assert len(commits) == -(-every * 2 // 3)  # 3 rows a transaction
        assert _queued(store) == (0, 0)
    finally:
        engine.close()
