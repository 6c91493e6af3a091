"""Backup, export and import: faithful round trips and all-or-nothing imports, on both backends alike."""
import json
import sqlite3

import pytest

from core_helpers import make_engine
from kiraos_desktop.core.transfer import export_import as transfer
from kiraos_desktop.core.storage.postgres.store import PgMemoryStore
from kiraos_desktop.core.storage.sqlite.store import SqliteStore
from kiraos_desktop.core.transfer.export_import import Cancelled, TransferError


@pytest.fixture
def stores(backend, tmp_path, request):
    """A factory of stores, each on its own empty memory of the test's backend."""
    opened, databases = [], []

    def make():
        if backend == "postgres":
            server = request.getfixturevalue("pg_server")
            databases.append(server.new_database())
            opened.append(PgMemoryStore(databases[-1]))
        else:
            opened.append(SqliteStore(tmp_path / f"m{len(opened)}.db"))
        return opened[-1]

    yield make
    for store in opened:
        store.close()
    for url in databases:
        request.getfixturevalue("pg_server").drop_database(url)


def store_rows(store):
    profiles = store._rows("SELECT user_id, memory_key, memory_value, updated_at, confidence, category, expires_at "
                           "FROM user_profiles")
    events = store._rows("SELECT user_id, event_summary, created_at FROM event_logs")
    return sorted(map(tuple, profiles)), sorted(map(tuple, events))


def seed_store(store):
    store.set_profile("u1", "昵称", "小明", actor="gui", confidence=0.9)
    store.set_profile("u1", "城市", "北京", actor="gui", category="basic", expires_at="2099-01-01T00:00:00")
    store.set_profile("u1", "爱好", "吉他", actor="gui", category="preference")
    store.set_profile("u2", "喜欢", "猫", actor="gui", category="preference", confidence=0.4)
    for i in range(3):
        store.add_event("u1", f"事件{i}", actor="gui", created_at=f"2025-01-0{i + 1}T08:00:00")
    store.add_event("u1", "同一时刻", actor="gui", created_at="2025-01-01T08:00:00")
    store.add_event("u2", "e", actor="gui", created_at="2025-02-01T00:00:00")
    store.add_event("u3", "100% 的 _x_", actor="gui")
    store.clear_user("u3", actor="gui")  # history only: not exported


def _exported(store, user_ids=None):
    data = transfer.export_data(store, user_ids)
    del data["exported_at"]
    return data


def test_export_is_what_the_store_shows_and_imports_back_exactly(stores):
    source = stores()
    seed_store(source)
    seen = []
    data = transfer.export_data(source, progress=lambda d, t: seen.append((d, t)))
    assert [u["user_id"] for u in data["users"]] == ["u1", "u2"]
    for user in data["users"]:  # the entries in the store's order, the events oldest first
        uid = user["user_id"]
        assert [p["key"] for p in user["profiles"]] == [p.key for p in source.get_profiles(uid)]
        assert [(e["event_summary"], e["created_at"]) for e in user["events"]] == \
            [(e.summary, e.created_at) for e in reversed(source.get_events(uid))]
    assert seen[-1] == (2, 2)
    target = stores()
    plan = transfer.validate_import(json.loads(json.dumps(data)))
    assert transfer.apply_import(target, plan) == (4, 5)
    assert store_rows(target) == store_rows(source)
    assert transfer.apply_import(target, plan) == (4, 0)  # importing twice duplicates nothing
    assert store_rows(target) == store_rows(source)
    assert _exported(target) == _exported(source)
    assert [u["user_id"] for u in _exported(source, ["u2", "nobody"])["users"]] == ["u2", "nobody"]
    changes = target.list_changes()
    assert {c.user_id for c in changes if c.action == "import"} == {"u1", "u2"}


def test_identical_events_in_one_file_are_stored_once(stores):
    target = stores()
    target.add_event("u1", "已有", actor="gui", created_at="2025-01-01T00:00:00")
    data = {"format": "kiraos-desktop-export", "version": 1, "users": [{"user_id": "u1", "events": [
        {"event_summary": "已有", "created_at": "2025-01-01T00:00:00"},
        {"event_summary": "新的", "created_at": "2025-01-02T00:00:00"},
        {"event_summary": "新的", "created_at": "2025-01-02T00:00:00"},
        {"event_summary": "新的", "created_at": "2025-01-03T00:00:00"}]}]}
    assert transfer.apply_import(target, transfer.validate_import(data)) == (0, 2)
    assert [(e.summary, e.created_at) for e in target.get_events("u1")] == [
        ("新的", "2025-01-03T00:00:00"), ("新的", "2025-01-02T00:00:00"), ("已有", "2025-01-01T00:00:00")]


def test_a_cancelled_import_leaves_the_store_as_it_was(stores):
    target = stores()
    target.set_profile("keep", "k", "v", actor="gui")
    before = store_rows(target)
    data = {"format": "kiraos-desktop-export", "version": 1,
            "users": [{"user_id": f"u{i}", "profiles": [{"key": "k", "value": "v"}],
                       "events": [{"event_summary": "e"}]} for i in range(2500)]}
    plan = transfer.validate_import(data)
    calls = []
    with pytest.raises(Cancelled):
        transfer.apply_import(target, plan, is_cancelled=lambda: calls.append(1) or len(calls) > 1)
    assert store_rows(target) == before


@pytest.mark.backends("sqlite")
def test_the_file_is_the_same_from_either_backend(stores, pg_url):
    sqlite_store, pg_store = stores(), PgMemoryStore(pg_url)
    try:
        seed_store(sqlite_store)
        transfer.apply_import(pg_store, transfer.validate_import(json.loads(json.dumps(
            transfer.export_data(sqlite_store)))))
        assert _exported(pg_store) == _exported(sqlite_store)
        assert store_rows(pg_store) == store_rows(sqlite_store)
    finally:
        pg_store.close()


def seed(engine):
    store = engine.store
    store.set_profile("u1", "昵称", "小明", actor="gui", confidence=0.9)
    store.set_profile("u1", "城市", "北京", actor="gui", category="basic", expires_at="2099-01-01T00:00:00")
    store.set_profile("u2", "喜欢", "猫", actor="gui", category="preference", confidence=0.4)
    for i in range(3):
        store.add_event("u1", f"事件{i}", actor="gui", created_at=f"2025-01-0{i + 1}T08:00:00")
    store.add_event("u2", "e", actor="gui", created_at="2025-02-01T00:00:00")


def rows(engine):
    conn = sqlite3.connect(engine.paths.db_path)
    profiles = conn.execute("SELECT user_id, memory_key, memory_value, updated_at, confidence, category, expires_at "
                            "FROM user_profiles ORDER BY user_id, memory_key").fetchall()
    events = conn.execute("SELECT user_id, event_summary, created_at FROM event_logs "
                          "ORDER BY user_id, created_at").fetchall()
    conn.close()
    return profiles, events


def test_export_then_import_into_an_empty_data_dir_reproduces_every_row(tmp_path):
    source = make_engine(tmp_path / "a")
    seed(source)
    transfer.export_file(source.store, tmp_path / "x.json")
    target = make_engine(tmp_path / "b")
    plan = transfer.read_import_file(tmp_path / "x.json")
    assert transfer.apply_import(target.store, plan) == (3, 4)
    assert rows(target) == rows(source)
    assert transfer.apply_import(target.store, plan) == (3, 0)  # importing twice duplicates nothing
    assert rows(target) == rows(source)
    one = json.loads(json.dumps(transfer.export_data(source.store, ["u2"])))
    assert [u["user_id"] for u in one["users"]] == ["u2"]
    source.close()
    target.close()


@pytest.mark.parametrize("mutate,problem", [
    (lambda d: d.update(version=99), "version"),
    (lambda d: d.update(version=True), "version"),  # true == 1 in Python, not in JSON
    (lambda d: d.update(format="other"), "format"),
    (lambda d: d["users"][1].update(user_id=""), "users[1].user_id"),
    (lambda d: d["users"][0]["profiles"][1].update(confidence=2), "users[0].profiles[1].confidence"),
    (lambda d: d["users"][0]["profiles"][0].update(expires_at="someday"), "users[0].profiles[0].expires_at"),
    (lambda d: d["users"][0]["profiles"][0].update(category="x"), "users[0].profiles[0].category"),
    (lambda d: d["users"][0]["events"][2].update(event_summary=""), "users[0].events[2].event_summary"),
    (lambda d: d["users"][0]["events"][0].update(colour="red"), "users[0].events[0]"),
    (lambda d: d["users"].append(dict(d["users"][0])), "appears twice"),
])
def test_a_malformed_import_changes_nothing_and_names_the_first_problem(tmp_path, mutate, problem):
    source = make_engine(tmp_path / "a")
    seed(source)
    data = transfer.export_data(source.store)
    mutate(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    target = make_engine(tmp_path / "b")
    target.store.set_profile("keep", "k", "v", actor="gui")
    before = rows(target)
    with pytest.raises(TransferError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        transfer.read_import_file(path)
    assert rows(target) == before
    source.close()
    target.close()


def test_not_json_names_the_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "format": ,\n}', encoding="utf-8")
    with pytest.raises(TransferError, match="line 2"):
        transfer.read_import_file(path)


def test_a_file_saved_with_a_byte_order_mark_imports(tmp_path):
    # Windows editors save UTF-8 with a BOM: the file is still an export of this program.
    path = tmp_path / "bom.json"
    data = {"format": "kiraos-desktop-export", "version": 1, "users": [{"user_id": "u1", "events": [],
                                                                        "profiles": [{"key": "k", "value": "v"}]}]}
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(data).replace(", ", ",\r\n").encode("utf-8"))
    plan = transfer.read_import_file(path)
    assert plan.user_ids == ["u1"] and [(p.key, p.value) for p in plan.profiles] == [("k", "v")]


def test_cancelled_import_rolls_back(tmp_path):
    source = make_engine(tmp_path / "a")
    for i in range(3000):
        pass
    data = {"format": "kiraos-desktop-export", "version": 1,
            "users": [{"user_id": f"u{i}", "profiles": [{"key": "k", "value": "v"}], "events": []}
                      for i in range(4500)]}
    plan = transfer.validate_import(data)
    target = make_engine(tmp_path / "b")
    with pytest.raises(Cancelled):
        transfer.apply_import(target.store, plan, is_cancelled=lambda: True)
    assert target.store.stats().total_profiles == 0
    source.close()
    target.close()


def test_backup_is_a_consistent_copy_and_refuses_to_overwrite(tmp_path):
    engine = make_engine(tmp_path / "a")
    seed(engine)
    seen = []
    out = transfer.backup(engine.store, tmp_path / "b.db", progress=lambda d, t: seen.append((d, t)))
    copy = sqlite3.connect(out)
    assert copy.execute("SELECT count(*) FROM user_profiles").fetchone()[0] == 3
    assert copy.execute("SELECT count(*) FROM event_logs").fetchone()[0] == 4
    copy.close()
    assert seen and seen[-1][0] == seen[-1][1]
    with pytest.raises(TransferError, match="already exists"):
        transfer.backup(engine.store, out)
    engine.close()


def test_a_killed_backups_copy_is_removed_by_the_next_backup(tmp_path):
    import os
    import time

    engine = make_engine(tmp_path / "a")
    seed(engine)
    folder = tmp_path / "backups"
    folder.mkdir()
    left = [folder / ".backup.killed1.tmp", folder / ".backup.killed1.tmp-journal"]
    for path in left:
        path.write_bytes(b"\0" * 4096)  # what a backup killed mid-copy leaves
        old = time.time() - transfer.STALE_PART_SECONDS - 60
        os.utime(path, (old, old))
    running = folder / ".backup.running.tmp"  # another backup, going on now
    running.write_bytes(b"\0")
    transfer.backup(engine.store, folder / "b.db")
    assert not any(path.exists() for path in left) and running.exists()
    assert sorted(p.name for p in folder.iterdir()) == [".backup.running.tmp", "b.db"]
    engine.close()


def test_a_cancelled_backup_leaves_no_part_behind(tmp_path):
    engine = make_engine(tmp_path / "a")
    seed(engine)
    folder = tmp_path / "backups"
    with pytest.raises(Cancelled):
        transfer.backup(engine.store, folder / "b.db", is_cancelled=lambda: True)
    assert list(folder.iterdir()) == []
    engine.close()


def test_export_reads_users_a_chunk_at_a_time(stores, monkeypatch):
    store = stores()
    transfer.apply_import(store, transfer.validate_import({"format": "kiraos-desktop-export", "version": 1, "users": [
        {"user_id": f"u{n:04d}", "profiles": [{"key": "k", "value": "v"}], "events": [{"event_summary": f"e{n}"}]}
        for n in range(700)]}))
    reads = []
    for name in ("rows", "query"):
        original = getattr(store.backend, name)
        monkeypatch.setattr(store.backend, name, lambda *a, _o=original: reads.append(a) or _o(*a))
    data = transfer.export_data(store)
    assert len(data["users"]) == 700 and data["users"][7]["events"][0]["event_summary"] == "e7"
    assert len(reads) <= 2 * (1 + 2 * 2)  # the ids, then two queries per 500 users (not two per user)
