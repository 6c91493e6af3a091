"""A write group's calls leave their audit rows for the group's commit: one statement, rows in call order, a
failed call's rows gone with its savepoint, a failed group's rows gone with it (storage/audit_rows.py)."""
from __future__ import annotations

import pytest
from core_helpers import make_engine

from kiraos_desktop.core.memory.records import ValidationError
from kiraos_desktop.core.tool_registry import MEMORY_UPDATE


@pytest.fixture
def engine(data_dir):
    engine = make_engine(data_dir)
    yield engine
    engine.close()


def update(engine, user_id: str, *operations: dict) -> None:
    """A memory_update call as the API's write queue makes it, inside the open group."""
    engine.tools.call(MEMORY_UPDATE, user_id, {"operations": list(operations)}, actor="api")


def audit_inserts(store) -> list[str]:
    """Start recording the writer's statements that insert audit rows."""
    seen: list[str] = []
    store.writer.connection().set_trace_callback(
        lambda sql: seen.append(sql) if sql.startswith("INSERT INTO memory_changes") else None)
    return seen


def chain(engine, user_id: str) -> list[tuple]:
    """The user's history as the window shows it (walking prev_id), oldest first: (action, target)."""
    return [(c.action, c.after.get("summary") if c.action == "event_add" else c.target)
            for c in reversed(engine.store.list_changes(user_id, limit=-1))]


def test_a_groups_calls_write_their_audit_rows_in_one_statement_in_call_order(engine):
    store = engine.store
    store.set_profile("amy", "宠物", "橘猫", actor="gui")  # a head to chain from, written before the group
    inserts = audit_inserts(store)
    with store.group():
        update(engine, "amy", {"op": "set", "key": "城市", "value": "北京"}, {"op": "event", "value": "搬家"})
        update(engine, "bob", {"op": "set", "key": "城市", "value": "上海"})
        update(engine, "amy", {"op": "del", "key": "宠物"})
        assert not inserts  # held back until the commit
    assert len(inserts) == 1
    store.writer.connection().set_trace_callback(None)
    assert chain(engine, "amy") == [("profile_set", "宠物"), ("profile_set", "城市"), ("event_add", "搬家"),
                                    ("profile_delete", "宠物")]
    assert chain(engine, "bob") == [("profile_set", "城市")]
    ids = [c.id for c in reversed(store.list_changes(None, limit=-1))]
    assert ids == sorted(ids) and [c.user_id for c in reversed(store.list_changes(None, limit=-1))] == \
        ["amy", "amy", "amy", "bob", "amy"]


def test_a_failed_call_of_a_group_leaves_no_audit_row_and_the_others_chain_past_it(engine):
    store = engine.store
    with store.group():
        update(engine, "amy", {"op": "set", "key": "a", "value": "1"})
        with pytest.raises(ValidationError), store.batch("api") as batch:
            batch.set_profile("amy", "b", "2")
            batch.set_profile("amy", "", "refused")  # rolls this call back, audit rows and all
        with pytest.raises(ValidationError), store.batch("api") as outer:
            with store.batch("api") as inner:  # done: its rows wait for the commit ...
                inner.set_profile("amy", "d", "4")
            outer.set_profile("amy", "", "refused")  # ... until the call around it is rolled back
        update(engine, "amy", {"op": "set", "key": "c", "value": "3"})
    assert chain(engine, "amy") == [("profile_set", "a"), ("profile_set", "c")]
    assert store.get_profile("amy", "b") is None and store.get_profile("amy", "d") is None


def test_a_group_that_fails_before_its_commit_leaves_no_audit_rows_for_the_next(engine):
    store = engine.store
    with pytest.raises(RuntimeError), store.group():
        update(engine, "amy", {"op": "set", "key": "a", "value": "1"})
        raise RuntimeError("the group's commit does not happen")
    with store.group():
        update(engine, "bob", {"op": "set", "key": "b", "value": "2"})
    assert [(c.user_id, c.target) for c in store.list_changes(None, limit=-1)] == [("bob", "b")]
    assert store.get_profile("amy", "a") is None


def test_a_batch_of_a_group_that_asks_for_its_change_ids_has_its_rows_written_at_once(engine):
    store = engine.store
    with store.group():
        update(engine, "amy", {"op": "set", "key": "a", "value": "1"})
        with store.batch("gui") as batch:
            batch.set_profile("amy", "b", "2")
            ids = batch.change_ids
        assert [row[0] for row in store.writer.connection().execute(
            "SELECT id FROM memory_changes WHERE target = 'b'")] == ids
    # Each of the user's rows is in the history; the one written at once has the smaller id.
    assert sorted(t for _, t in chain(engine, "amy")) == ["a", "b"]
    assert store.list_changes("amy", limit=-1)[-1].id == ids[0]
