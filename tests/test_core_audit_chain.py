"""The per-user audit chain (schema 2): history by user, its migration, and users with only history."""
from __future__ import annotations

import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core_helpers import PLUGIN_DDL, make_engine, plugin_db
from store_backends import SQLITE_ONLY
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.storage.revert import revert_change
from kiraos_desktop.core.memory.records import ValidationError
from kiraos_desktop.core.storage.schema_version import SCHEMA_VERSION, SchemaTooNewError

pytestmark = pytest.mark.usefixtures("engine_backend")  # every test on SQLite and PostgreSQL

# The audit tables as version 1 (schema 1) created them: an index by user, no chain.
V1_DDL = """
CREATE TABLE kiraos_desktop_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE memory_changes (id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, user_id TEXT NOT NULL,
    actor TEXT NOT NULL, action TEXT NOT NULL, target TEXT, before TEXT, after TEXT);
CREATE INDEX idx_memory_changes_user ON memory_changes (user_id, id DESC);
CREATE TABLE user_summary (user_id TEXT PRIMARY KEY, profile_count INTEGER NOT NULL DEFAULT 0,
    event_count INTEGER NOT NULL DEFAULT 0, last_activity TEXT);
INSERT INTO kiraos_desktop_meta VALUES ('schema_version', '1');
"""


def _by_filter(store, user_id: str) -> list[int]:
    """A user's change ids, newest first, found without the chain."""
    return [c.id for c in store.list_changes(None, limit=-1) if c.user_id == user_id]


def _paged(store, user_id: str, page: int) -> list[int]:
    ids: list[int] = []
    while True:
        rows = store.list_changes(user_id, limit=page, before_id=ids[-1] if ids else None)
        ids += [c.id for c in rows]
        if len(rows) < page:
            return ids


def _audit_v1_row(conn, user_id: str, key: str) -> None:
    conn.execute("INSERT INTO memory_changes (at, user_id, actor, action, target, before, after) "
                 "VALUES ('2026-01-01T00:00:00', ?, 'gui', 'profile_delete', ?, ?, NULL)",
                 (user_id, key, f'{{"user_id": "{user_id}", "key": "{key}", "value": "v", '
                                 '"updated_at": "2026-01-01T00:00:00", "confidence": 0.5, "category": "basic", '
                                 '"expires_at": null}'))


_USERS = st.sampled_from(["a", "b", "c"])
_STEPS = st.lists(st.one_of(
    st.tuples(st.just("set"), _USERS, st.sampled_from(["k1", "k2"])),
    st.tuples(st.just("delete"), _USERS, st.sampled_from(["k1", "k2"])),
    st.tuples(st.just("event"), _USERS, st.just("")),
    st.tuples(st.just("update"), _USERS, st.sampled_from(["k1", "k2"])),
    st.tuples(st.just("group"), _USERS, st.sampled_from(["k1", "k2"])),
    st.tuples(st.just("clear"), _USERS, st.just("")),
    st.tuples(st.just("revert_last"), _USERS, st.just("")),
    st.tuples(st.just("failing_batch"), _USERS, st.just("")),
    st.tuples(st.just("plugin_delete"), _USERS, st.just("")),
), min_size=1, max_size=25)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=_STEPS)
@SQLITE_ONLY
def test_a_users_history_is_every_change_of_that_user(tmp_path_factory, steps):
    engine = make_engine(tmp_path_factory.mktemp("chain"), max_event_keep=3)
    store = engine.store
    conn = sqlite3.connect(engine.paths.db_path)
    try:
        for kind, user, key in steps:
            if kind == "set":
                store.set_profile(user, key, "v", actor="gui")
            elif kind == "delete":
                store.delete_profile(user, key, actor="gui")
            elif kind == "event":
                store.add_event(user, "e", actor="tool")
            elif kind == "update":  # several audit rows of one user in one statement
                engine.memory_tools.update(user, [{"op": "set", "key": key, "value": "u"},
                                                  {"op": "event", "value": "e"}, {"op": "del", "key": "k1"}])
            elif kind == "group":  # batches of several users in one transaction
                with store.group():
                    for who in (user, "a", user):
                        store.set_profile(who, key, "g", actor="tool")
            elif kind == "clear":
                store.clear_user(user, actor="gui")
            elif kind == "revert_last" and store.list_changes(user, limit=1):
                revert_change(store, store.list_changes(user, limit=1)[0].id, actor="gui")
            elif kind == "failing_batch":
                with pytest.raises(ValidationError), store.batch("gui") as batch:
                    batch.set_profile(user, "k1", "undone")
                    batch.set_profile(user, "", "refused")  # rolls the whole batch back
            elif kind == "plugin_delete":
                conn.execute("DELETE FROM user_profiles WHERE user_id = ?", (user,))
                conn.execute("DELETE FROM event_logs WHERE user_id = ?", (user,))
                conn.commit()
        everything = [c.id for c in store.list_changes(None, limit=-1)]
        for user in ("a", "b", "c"):
            expected = _by_filter(store, user)
            assert [c.id for c in store.list_changes(user, limit=-1)] == expected
            assert _paged(store, user, 2) == expected
            assert [c.id for c in store.list_changes(user, limit=2)] == expected[:2]
            for other in everything[::3]:  # paging from an id that is not the user's
                assert [c.id for c in store.list_changes(user, limit=-1, before_id=other)] == \
                       [i for i in expected if i < other]
        assert everything == sorted(everything, reverse=True) and len(set(everything)) == len(everything)
    finally:
        conn.close()
        engine.close()


def test_a_cleared_user_keeps_its_history_but_leaves_the_lists(data_dir):
    engine = make_engine(data_dir)
    store = engine.store
    store.set_profile("gone", "k", "v", actor="gui")
    store.add_event("gone", "e", actor="tool")
    store.set_profile("stays", "k", "v", actor="gui")
    store.clear_user("gone", actor="gui")
    assert [c.action for c in store.list_changes("gone")][1:] == ["event_add", "profile_set"]
    assert store.user_summary("gone") is None
    assert [u.user_id for u in store.list_users()] == ["stays"] and store.count_users() == 1
    assert store.count_users("gon") == 0 and store.all_user_ids() == ["stays"]
    assert store.stats().total_users == 1
    revert_change(store, store.list_changes("gone")[0].id, actor="gui")  # undo the clear
    assert (store.user_summary("gone").profile_count, store.user_summary("gone").event_count) == (1, 1)
    assert store.count_users() == 2
    engine.close()


@SQLITE_ONLY
def test_a_version_1_database_is_chained_and_loses_the_index(tmp_path):
    db = tmp_path / "kiraos.db"
    conn = plugin_db(db, PLUGIN_DDL + V1_DDL)
    for user, key in [("u", "a"), ("w", "x"), ("u", "b"), ("cleared", "c"), ("u", "c")]:
        _audit_v1_row(conn, user, key)
    conn.execute("INSERT INTO user_profiles (user_id, memory_key, memory_value) VALUES ('u', 'k', 'v')")
    conn.execute("INSERT INTO user_summary VALUES ('u', 1, 0, NULL)")
    conn.commit()
    conn.close()
    engine = Engine.open(data_dir=tmp_path / "data", db=db)
    try:
        store = engine.store
        assert "chained the audit history per user" in store.migrations
        assert [c.id for c in store.list_changes("u")] == [5, 3, 1]
        assert [c.id for c in store.list_changes("cleared")] == [4]
        assert [c.id for c in store.list_changes("u", before_id=5)] == [3, 1]
        assert [u.user_id for u in store.list_users()] == ["u"]
        store.set_profile("u", "new", "v", actor="gui")
        assert [c.id for c in store.list_changes("u")] == [6, 5, 3, 1]
    finally:
        engine.close()
    check = sqlite3.connect(db)
    indexes = {r[0] for r in check.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    version = check.execute("SELECT value FROM kiraos_desktop_meta WHERE key = 'schema_version'").fetchone()[0]
    check.close()
    assert "idx_memory_changes_user" not in indexes and version == str(SCHEMA_VERSION)


@SQLITE_ONLY
def test_rows_an_older_version_wrote_meanwhile_are_chained_on_the_next_open(data_dir):
    engine = make_engine(data_dir)
    engine.store.set_profile("u", "a", "v", actor="gui")
    path = engine.paths.db_path
    engine.close()
    conn = sqlite3.connect(path)  # what version 1 does: plain rows, and it stores its version
    _audit_v1_row(conn, "u", "old")
    conn.execute("UPDATE kiraos_desktop_meta SET value = '1' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    engine = make_engine(data_dir)
    try:
        assert [c.target for c in engine.store.list_changes("u")] == ["old", "a"]
        engine.store.set_profile("u", "b", "v", actor="gui")
        assert [c.target for c in engine.store.list_changes("u")] == ["b", "old", "a"]
    finally:
        engine.close()


@SQLITE_ONLY
def test_a_database_of_a_newer_version_is_refused_untouched(data_dir):
    engine = make_engine(data_dir)
    engine.store.set_profile("u", "a", "v", actor="gui")
    path = engine.paths.db_path
    engine.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE kiraos_desktop_meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    before = conn.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall()
    conn.close()
    with pytest.raises(SchemaTooNewError, match="newer KiraOS Desktop.*schema version 99"):
        Engine.open(data_dir=data_dir)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall() == before
    assert conn.execute("SELECT value FROM kiraos_desktop_meta WHERE key = 'schema_version'").fetchone()[0] == "99"
    conn.close()


@SQLITE_ONLY
def test_audit_ids_keep_growing_past_a_rolled_back_call(data_dir):
    engine = make_engine(data_dir)
    store = engine.store
    store.set_profile("u", "a", "v", actor="gui")
    first = store.last_change_id()
    with store.group():
        with pytest.raises(ValidationError), store.batch("gui") as batch:
            batch.set_profile("u", "b", "v")
            batch.flush_audit()
            batch.set_profile("u", "", "refused")
        with store.batch("gui") as batch:
            batch.set_profile("u", "c", "v")
    conn = sqlite3.connect(engine.paths.db_path)
    seq = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'memory_changes'").fetchone()[0]
    conn.close()
    assert [c.target for c in store.list_changes("u")] == ["c", "a"]
    assert store.last_change_id() > first and seq == store.last_change_id()
    engine.close()


_OTHER_APP = """
import sys, time
from kiraos_desktop.core.engine import Engine
engine = Engine.open(data_dir=sys.argv[1])
print("ready", flush=True)
end, i = time.monotonic() + 1.0, 0
while time.monotonic() < end or i < 60:  # a second beside the test's writers, 60 rounds at least
    i += 1
    engine.memory_tools.update("shared", [{"op": "set", "key": f"p{i % 7}", "value": str(i)},
                                          {"op": "event", "value": f"p{i}"}], actor="tool")
    engine.memory_tools.update("theirs", [{"op": "event", "value": f"t{i}"}], actor="tool")
    time.sleep(0.002)  # lets the test's writers in: SQLite's busy wait is not fair
engine.close()
print("done")
"""


@SQLITE_ONLY
def test_two_processes_of_this_app_keep_every_users_chain(data_dir):
    import subprocess
    import sys
    import threading
    import time

    engine = make_engine(data_dir)
    store = engine.store
    other = subprocess.Popen([sys.executable, "-c", _OTHER_APP, str(data_dir)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert other.stdout.readline().strip() == "ready"  # writing from now on, beside the threads below
    errors = []

    def ours(user):
        try:
            end, i = time.monotonic() + 1.0, 0
            # A second of writing beside the other process, and at least 60 rounds on a loaded machine.
            while time.monotonic() < end or i < 60:
                i += 1
                engine.memory_tools.update(user, [{"op": "set", "key": f"o{i % 5}", "value": str(i)},
                                                  {"op": "event", "value": f"o{i}"}], actor="gui")
                time.sleep(0.002)  # lets the other process in: SQLite's busy wait is not fair
        except Exception as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=ours, args=(user,)) for user in ("shared", "mine")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out, err = other.communicate(timeout=120)
    assert errors == [] and other.returncode == 0 and out.strip() == "done", (errors, err)
    everything = store.list_changes(None, limit=-1)
    assert len({c.id for c in everything}) == len(everything)
    for user in ("shared", "mine", "theirs"):
        expected = [c.id for c in everything if c.user_id == user]
        assert [c.id for c in store.list_changes(user, limit=-1)] == expected
        assert _paged(store, user, 50) == expected
    counts = {user: len([c for c in everything if c.user_id == user]) for user in ("shared", "mine", "theirs")}
    assert min(counts.values()) > 50, counts
    engine.close()
