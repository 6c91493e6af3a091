"""store.batch(actor, users=[...]) on both backends: a batch that names the users it writes."""
from __future__ import annotations

from store_backends import SQLITE_ONLY

from kiraos_desktop.core.storage.revert import revert_changes, users_of


def test_a_batch_over_declared_users_and_its_revert_write_every_one_of_them(new_store):
    store = new_store()
    store.set_profile("b", "k", "old", actor="gui")
    with store.batch("gui", users=["b", "a"]) as batch:
        batch.set_profile("a", "k", "new")
        batch.set_profile("b", "k", "new")
        batch.add_event("a", "e")
    assert [store.get_profile(u, "k").value for u in ("a", "b")] == ["new", "new"]
    revert_changes(store, batch.change_ids, actor="gui")
    assert store.get_profile("a", "k") is None and store.get_profile("b", "k").value == "old"
    assert store.get_events("a") == []


def test_the_users_of_a_change_include_those_its_snapshot_restores(new_store):
    store = new_store()
    store.set_profile("u", "k", "v", actor="gui", expires_at="2020-01-01T00:00:00")
    store.set_profile("w", "k", "v", actor="gui", expires_at="2020-01-01T00:00:00")
    store.purge_expired(actor="gui")
    purges = [c for c in store.list_changes(None) if c.action == "purge_expired"]
    assert sorted(u for c in purges for u in users_of(c)) == ["u", "w"]
    revert_changes(store, [c.id for c in purges], actor="gui")
    assert store.get_profile("u", "k") is not None and store.get_profile("w", "k") is not None


@SQLITE_ONLY
def test_sqlite_ignores_the_declared_users(new_store):
    store = new_store()
    with store.batch("gui", users=["a"]) as batch:
        batch.set_profile("c", "k", "v")  # one writer: nothing to lock, nothing to check
    assert store.get_profile("c", "k").value == "v"
