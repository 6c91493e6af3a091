"""The user-search drain takes a memory_update call's profile rows instead of reading them, only while they stand."""
from __future__ import annotations

import sqlite3

import pytest
from core_helpers import make_engine

from kiraos_desktop.core.storage.sqlite import index_upkeep
from kiraos_desktop.core.tool_registry import MEMORY_UPDATE


@pytest.fixture
def engine(data_dir, monkeypatch):
    # Groups leave the queues to a later drain, so something can happen between a call and the drain.
    monkeypatch.setattr(index_upkeep, "GROUPS_PER_DRAIN", 1000)
    engine = make_engine(data_dir)
    engine.store.set_profile("amy", "城市", "北京", actor="gui")
    engine.store.set_profile("amy", "宠物", "橘猫", actor="gui")
    yield engine
    engine.close()


def set_city(engine, city: str) -> None:
    with engine.store.group():
        engine.tools.call(MEMORY_UPDATE, "amy", {"operations": [{"op": "set", "key": "城市", "value": city}]},
                          actor="api")


def profile_reads(store) -> list[str]:
    """Start recording the SQL of the store's writer that reads profile rows for the user-search index."""
    seen: list[str] = []
    store.writer.connection().set_trace_callback(
        lambda sql: seen.append(sql) if "memory_value FROM user_profiles WHERE user_id IN" in sql else None)
    return seen


def test_the_drain_takes_the_calls_rows_instead_of_reading_them(engine):
    store = engine.store
    set_city(engine, "杭州")
    set_city(engine, "成都")
    reads = profile_reads(store)
    assert store.search_user_ids("成都") == ["amy"]  # drains first
    assert reads == []
    assert store.search_user_ids("杭州") == store.search_user_ids("北京") == []
    assert store.search_user_ids("橘猫") == ["amy"]  # the entries the calls did not touch stay


def test_another_connections_commit_makes_the_drain_read_the_rows(engine):
    store = engine.store
    set_city(engine, "杭州")
    plugin = sqlite3.connect(store.path)  # the plugin, writing after our call and before the drain
    plugin.execute("INSERT OR REPLACE INTO user_profiles (user_id, memory_key, memory_value) VALUES ('amy', '城市', '冰岛')")
    plugin.commit()
    plugin.close()
    reads = profile_reads(store)
    assert store.search_user_ids("冰岛") == ["amy"]
    assert store.search_user_ids("杭州") == []
    assert reads != []


def test_another_batch_of_ours_drops_the_rows(engine):
    store = engine.store
    set_city(engine, "杭州")
    store.set_profile("amy", "城市", "冰岛", actor="gui")  # the window, through no memory_update
    assert store.search_user_ids("冰岛") == ["amy"]
    assert store.search_user_ids("杭州") == []
    set_city(engine, "杭州")
    store.delete_profile("amy", "宠物", actor="gui")
    assert store.search_user_ids("橘猫") == []



def test_past_max_users_the_drain_reads_the_rows_of_the_users_not_kept(engine, monkeypatch):
    from kiraos_desktop.core.storage import profile_hints

    monkeypatch.setattr(profile_hints, "MAX_USERS", 1)
    store = engine.store
    set_city(engine, "杭州")  # amy: kept
    with store.group():
        engine.tools.call(MEMORY_UPDATE, "bob", {"operations": [{"op": "set", "key": "城市", "value": "拉萨"}]},
                          actor="api")
    assert list(store.backend._profile_hints._rows) == ["amy"]
    set_city(engine, "成都")  # a user already kept is kept current
    reads = profile_reads(store)
    assert store.search_user_ids("拉萨") == ["bob"] and store.search_user_ids("成都") == ["amy"]
    assert store.search_user_ids("杭州") == []
    assert len(reads) == 1  # bob's rows only
