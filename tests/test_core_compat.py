"""Compatibility with the KiraOS plugin's database, and concurrent writers across processes."""
import sqlite3
import subprocess
import sys
import textwrap
import threading

from core_helpers import OLD_PLUGIN_DDL, PLUGIN_DDL, make_engine, plugin_db
from kiraos_desktop.core.engine import Engine


def test_a_plugin_database_opens_and_shows_its_rows(tmp_path):
    kira = tmp_path / "kira"
    conn = plugin_db(kira / "memory" / "kiraos.db", PLUGIN_DDL)
    conn.execute("INSERT INTO user_profiles VALUES ('qq_1', '昵称', '小明', '2025-03-01T10:00:00', 0.9, 'basic', NULL)")
    conn.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES ('qq_1', '完成半马', '2025-03-01T10:00:00')")
    conn.commit()
    conn.close()
    engine = Engine.open(kira_data=kira)
    try:
        assert engine.paths.companion
        assert engine.context.build(["qq_1"]).text == "[qq_1:basic] 昵称=小明(✓)\n[qq_1:events] 2025-03-01 完成半马"
        assert engine.store.user_summary("qq_1").profile_count == 1
    finally:
        engine.close()


def test_an_old_plugin_database_is_migrated_in_place(tmp_path):
    db = tmp_path / "kiraos.db"
    conn = plugin_db(db, OLD_PLUGIN_DDL)
    conn.execute("INSERT INTO user_profiles (user_id, memory_key, memory_value, updated_at) "
                 "VALUES ('u', '城市', '北京', '2024-01-01T00:00:00')")
    conn.commit()
    conn.close()
    engine = Engine.open(data_dir=tmp_path / "data", db=db)
    try:
        assert "added columns confidence, category, expires_at" in engine.store.migrations
        entry = engine.store.get_profile("u", "城市")
        assert (entry.value, entry.confidence, entry.category, entry.expires_at) == ("北京", 0.5, "basic", None)
        assert engine.context.build(["u"]).text == "[u:basic] 城市=北京(?)"
    finally:
        engine.close()
    columns = [r[1:3] for r in sqlite3.connect(db).execute("PRAGMA table_info(user_profiles)")]
    assert columns[-3:] == [("confidence", "REAL"), ("category", "TEXT"), ("expires_at", "DATETIME")]


def test_the_plugins_own_sql_reads_what_we_wrote(data_dir):
    engine = make_engine(data_dir)
    engine.memory_tools.update("u", [
        {"op": "set", "key": "长期", "value": "a", "confidence": 0.9},
        {"op": "set", "key": "短期", "value": "b", "ttl": "7d"},
        {"op": "event", "value": "e"}], actor="tool")
    engine.store.set_profile("u", "过期", "c", actor="gui", expires_at="2001-01-01T00:00:00")
    path = engine.paths.db_path
    engine.close()
    conn = sqlite3.connect(path)
    from datetime import datetime
    now = datetime.now().isoformat()
    rows = conn.execute(
        "SELECT memory_key FROM user_profiles WHERE user_id = ? AND "
        "(expires_at IS NULL OR datetime(expires_at) > datetime(?)) ORDER BY memory_key", ("u", now)).fetchall()
    assert [r[0] for r in rows] == ["短期", "长期"]
    events = conn.execute("SELECT event_summary FROM event_logs WHERE user_id = 'u' "
                          "ORDER BY datetime(created_at) DESC").fetchall()
    assert events == [("e",)]


_EXTERNAL_WRITER = textwrap.dedent("""
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], timeout=30)
    for i in range(int(sys.argv[2])):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO user_profiles (user_id, memory_key, memory_value) VALUES ('ext', ?, 'v')", (f"k{i}",))
        conn.execute("INSERT INTO event_logs (user_id, event_summary) VALUES ('ext', ?)", (f"e{i}",))
        conn.commit()
    print("done")
""")


def test_threads_and_another_process_write_at_once(data_dir):
    engine = make_engine(data_dir, max_profiles_per_user=0, max_event_keep=0)
    store = engine.store
    proc = subprocess.Popen([sys.executable, "-c", _EXTERNAL_WRITER, str(engine.paths.db_path), "300"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    errors = []

    def worker(n):
        try:
            for i in range(60):
                engine.memory_tools.update(f"t{n}", [{"op": "set", "key": f"k{i}", "value": "v"},
                                                      {"op": "event", "value": f"e{i}"}], actor="api")
        except Exception as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out, err = proc.communicate(timeout=120)
    assert errors == [] and proc.returncode == 0, (errors, err)
    assert out.strip() == "done"
    for n in range(8):
        summary = store.user_summary(f"t{n}")
        assert (summary.profile_count, summary.event_count) == (60, 60)
    assert store.user_summary("ext").profile_count == 300 and store.user_summary("ext").event_count == 300
    stats = store.stats()
    assert (stats.total_profiles, stats.total_events) == (780, 780)
    engine.close()


def test_user_counts_stay_exact_under_the_plugins_insert_or_replace(data_dir):
    engine = make_engine(data_dir)
    engine.store.set_profile("u", "k", "v", actor="gui")
    conn = sqlite3.connect(engine.paths.db_path)
    for value in ("a", "b", "c"):  # REPLACE deletes without firing delete triggers
        conn.execute("INSERT OR REPLACE INTO user_profiles (user_id, memory_key, memory_value) VALUES ('u', 'k', ?)",
                     (value,))
    conn.execute("INSERT OR REPLACE INTO user_profiles (user_id, memory_key, memory_value) VALUES ('u', 'k2', 'x')")
    conn.execute("DELETE FROM user_profiles WHERE memory_key = 'k2'")
    conn.commit()
    conn.close()
    summary = engine.store.user_summary("u")
    assert (summary.profile_count, summary.event_count) == (1, 0)
    engine.store.delete_profile("u", "k", actor="gui")
    assert engine.store.user_summary("u") is None
    engine.close()


def test_summary_equals_a_recount_after_every_kind_of_event_write(data_dir):
    """Event counts are incremented by triggers: adds, trims, deletes, restores, clears, reverts and
    the plugin's own SQL must leave exactly what counting the rows gives."""
    from kiraos_desktop.core.storage.revert import revert_change

    engine = make_engine(data_dir, max_event_keep=5)
    store = engine.store
    for n in range(8):  # past max_event_keep: trimmed
        store.add_event("u", f"e{n}", actor="tool")
    store.set_profile("u", "k", "v", actor="gui")
    trim = next(c for c in store.list_changes("u") if c.action == "event_trim")
    revert_change(store, trim.id, actor="gui")  # the trimmed events come back with their ids
    first = store.get_events("u")[-1]
    store.delete_event("u", first.id, actor="gui")
    deletion = store.list_changes("u")[0].id
    revert_change(store, deletion, actor="gui")  # restore_event
    revert_change(store, deletion, actor="gui")  # again: the event exists, it is replaced
    store.add_event("v", "only events", actor="tool")
    conn = sqlite3.connect(engine.paths.db_path)
    conn.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES ('w', 'plugin', '2026-01-01')")
    conn.execute("DELETE FROM event_logs WHERE user_id = 'u' AND id NOT IN "
                 "(SELECT id FROM event_logs WHERE user_id = 'u' ORDER BY created_at DESC LIMIT 3)")
    conn.commit()
    clear = store.clear_user("v", actor="gui")
    assert clear == (0, 1)
    revert_change(store, store.list_changes("v")[0].id, actor="gui")
    counted = dict(((uid, (p, e)) for uid, p, e in conn.execute(
        "SELECT user_id, sum(p), sum(e) FROM (SELECT user_id, 1 AS p, 0 AS e FROM user_profiles UNION ALL "
        "SELECT user_id, 0, 1 FROM event_logs) GROUP BY user_id")))
    kept = {s.user_id: (s.profile_count, s.event_count) for s in store.list_users()}
    conn.close()
    assert kept == counted and counted["u"] == (1, 3) and counted["v"] == (0, 1) and counted["w"] == (0, 1)
    engine.close()
