"""Issue 52: one retry policy for every batch, wherever it was opened. The store's own one-line writes
ran again when PostgreSQL chose their transaction as a deadlock or serialization victim; a batch a
caller opened itself (a revert, the window's writes, a memory_update call, an import) failed instead.
Each now goes through MemoryStore.run_batch(), which runs the whole batch again as the store's policy
says: on PostgreSQL a victim is retried, on SQLite (one writer picks no victims) nothing is."""
from __future__ import annotations

import pytest

from kiraos_desktop.core.storage import revert
from kiraos_desktop.core.storage.errors import StoreBusy
from kiraos_desktop.core.tools import memory_tools


def victim_once(real):
    """`real`, failing its first call as PostgreSQL fails a deadlock victim's statement."""
    calls = []

    def call(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise StoreBusy("deadlock detected", retryable=True)
        return real(*args, **kwargs)

    return call


def test_a_revert_chosen_as_a_victim_runs_again_whole(new_store, backend, monkeypatch):
    store = new_store()
    store.add_event("u1", "学吉他", actor="api")
    [change] = [c.id for c in store.list_changes("u1")]
    monkeypatch.setattr(revert, "apply_revert", victim_once(revert.apply_revert))
    if backend == "sqlite":
        with pytest.raises(StoreBusy):  # SQLite's policy: once
            revert.revert_changes(store, [change], "gui")
        assert len(store.get_events("u1")) == 1
        return
    new_ids = revert.revert_changes(store, [change], "gui")
    assert len(new_ids) == 1 and store.get_events("u1") == []
    assert [c.action for c in store.list_changes("u1")][0] == "event_delete"


def test_a_memory_update_and_a_window_write_chosen_as_victims_run_again(new_store, backend, monkeypatch):
    store = new_store()
    tools = memory_tools.MemoryTools(store, lambda: None)
    monkeypatch.setattr(tools, "_apply", victim_once(tools._apply))
    if backend == "sqlite":
        with pytest.raises(StoreBusy):
            tools.update_result("u1", [{"op": "set", "key": "城市", "value": "北京"}])
        return
    reply, is_error = tools.update_result("u1", [{"op": "set", "key": "城市", "value": "北京"}])
    assert not is_error and store.get_profile("u1", "城市").value == "北京"
    result, change_ids = store.run_batch("gui", victim_once(lambda batch: batch.add_event("u1", "一次")))
    assert [e.summary for e in store.get_events("u1")] == ["一次"] and len(change_ids) == 1
