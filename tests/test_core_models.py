"""One schema for both backends: the models' SQLite DDL is the plugin's; PostgreSQL gets the same tables."""
import sqlite3

import peewee
import psycopg
import pytest

from core_helpers import PLUGIN_DDL
from kiraos_desktop.core.storage.postgres.schema import NOTIFY_CHANNEL, ensure_pg_schema
from kiraos_desktop.core.storage.sqlite.schema import ensure_schema
from kiraos_desktop.core.storage.schema_version import SCHEMA_VERSION

TABLES = ("user_profiles", "event_logs", "memory_changes", "user_summary", "kiraos_desktop_meta",
          "recall_users", "recall_terms", "recall_queue",
          "usersearch_terms", "usersearch_profile_users", "usersearch_queue")

# The index tables as the versions before the models wrote them (their own DDL): a database made then
# keeps them, so the models must describe the same columns.
OLD_INDEX_DDL = """
CREATE TABLE recall_users (num INTEGER PRIMARY KEY, user_id TEXT NOT NULL UNIQUE);
CREATE TABLE recall_terms (u INTEGER NOT NULL, term TEXT NOT NULL, event_id INTEGER NOT NULL,
    PRIMARY KEY (u, term, event_id)) WITHOUT ROWID;
CREATE TABLE recall_queue (seq INTEGER PRIMARY KEY, user_id TEXT NOT NULL, event_id INTEGER, old_text TEXT,
    new_text TEXT);
CREATE TABLE usersearch_terms (term TEXT NOT NULL, user_id TEXT NOT NULL, ev INTEGER NOT NULL DEFAULT 0,
    pr INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (term, user_id)) WITHOUT ROWID;
CREATE TABLE usersearch_profile_users (user_id TEXT PRIMARY KEY, terms TEXT NOT NULL);
CREATE TABLE usersearch_queue (seq INTEGER PRIMARY KEY, user_id TEXT NOT NULL, event_id INTEGER, old_text TEXT,
    new_text TEXT);
"""


def _table_info(conn, table):
    return conn.execute(f"PRAGMA table_info({table})").fetchall()


def test_the_models_create_the_plugins_tables_column_for_column(tmp_path):
    ours = peewee.SqliteDatabase(str(tmp_path / "ours.db"))
    ensure_schema(ours)
    plugin = sqlite3.connect(tmp_path / "plugin.db")
    plugin.executescript(PLUGIN_DDL)
    for table in ("user_profiles", "event_logs"):
        assert _table_info(ours.connection(), table) == _table_info(plugin, table)
        sql = ours.execute_sql("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
        assert ("AUTOINCREMENT" in sql) == (table == "event_logs")
    index = "PRAGMA index_xinfo(idx_event_logs_user)"
    assert ours.execute_sql(index).fetchall() == plugin.execute(index).fetchall()
    ours.close()


def _pg(url):
    return peewee.PostgresqlDatabase(url)


def test_ensure_schema_prepares_an_empty_postgresql_database_and_is_idempotent(pg_url):
    db = _pg(pg_url)
    assert "created the tables" in ensure_pg_schema(db)
    assert set(TABLES) <= set(db.get_tables())
    assert ensure_pg_schema(db) == []
    assert db.execute_sql("SELECT value FROM kiraos_desktop_meta WHERE key = 'schema_version'").fetchone()[0] \
        == str(SCHEMA_VERSION)
    db.close()


def test_postgresql_triggers_keep_the_summary_and_notify_the_user(pg_url):
    db = _pg(pg_url)
    ensure_pg_schema(db)
    db.close()
    with psycopg.connect(pg_url, autocommit=True) as listener, psycopg.connect(pg_url, autocommit=True) as conn:
        listener.execute(f"LISTEN {NOTIFY_CHANNEL}")
        with conn.transaction():
            conn.execute("INSERT INTO user_profiles (user_id, memory_key, memory_value, updated_at) "
                         "VALUES ('u1', 'k', 'v', '2025-01-01T00:00:00'), ('u1', 'k2', 'v', '2025-01-02T00:00:00')")
            conn.execute("INSERT INTO event_logs (user_id, event_summary, created_at) "
                         "VALUES ('u2', 'e', '2025-01-03T00:00:00')")
            conn.execute("INSERT INTO memory_changes (at, user_id, actor, action) VALUES ('x', 'u3', 'a', 'b')")
        rows = conn.execute("SELECT user_id, profile_count, event_count, last_activity FROM user_summary "
                            "ORDER BY user_id").fetchall()
        assert rows == [("u1", 2, 0, "2025-01-02T00:00:00"), ("u2", 0, 1, "2025-01-03T00:00:00")]
        conn.execute("DELETE FROM event_logs WHERE user_id = 'u2'")
        assert conn.execute("SELECT count(*) FROM user_summary WHERE user_id = 'u2'").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM recall_queue").fetchone()[0] == 2
        payloads = [n.payload for n in listener.notifies(timeout=1, stop_after=4)]
        assert sorted(payloads) == ["u1", "u2", "u2", "u3"]  # one per user and commit
        # The live condition's time comparison: text that is no time is NULL, never an error.
        assert conn.execute("SELECT kd_ts('2025-01-01T10:00:00') > kd_ts('2025-01-01 09:59:59'), "
                            "kd_ts('soon')").fetchone() == (True, None)


def test_postgresql_sequences_move_past_copied_ids(pg_url):
    db = _pg(pg_url)
    ensure_pg_schema(db)
    db.execute_sql("INSERT INTO event_logs (id, user_id, event_summary) VALUES (41, 'u', 'e')")
    assert ensure_pg_schema(db) == ["moved sequences past the ids of event_logs"]
    assert db.execute_sql("INSERT INTO event_logs (user_id, event_summary) VALUES ('u', 'f') RETURNING id"
                          ).fetchone()[0] == 42
    db.close()


def test_a_postgresql_database_without_a_later_column_gets_it(pg_url):
    db = _pg(pg_url)
    ensure_pg_schema(db)
    db.execute_sql("ALTER TABLE user_profiles DROP COLUMN expires_at")
    assert ensure_pg_schema(db) == ["added columns expires_at"]
    db.execute_sql("INSERT INTO user_profiles (user_id, memory_key, memory_value) VALUES ('u', 'k', 'v')")
    assert db.execute_sql("SELECT confidence, category, expires_at FROM user_profiles").fetchone() == \
        (0.5, "basic", None)
    db.close()


def test_the_index_tables_are_the_models_on_both_backends(tmp_path, pg_url):
    from kiraos_desktop.core.storage.models import INDEX_MODELS

    assert {m._meta.table_name for m in INDEX_MODELS} == set(TABLES[5:])
    ours = peewee.SqliteDatabase(str(tmp_path / "ours.db"))
    ensure_schema(ours)
    old = sqlite3.connect(":memory:")
    old.executescript(OLD_INDEX_DDL)
    for model in INDEX_MODELS:
        table = model._meta.table_name
        mine = [(name, kind.upper(), pk) for _, name, kind, _, _, pk in _table_info(ours.connection(), table)]
        assert mine == [(name, kind.upper(), pk) for _, name, kind, _, _, pk in _table_info(old, table)]
        assert [c.name for c in ours.get_columns(table)] == list(model._meta.sorted_field_names)
    ours.close()
    pg = _pg(pg_url)
    ensure_pg_schema(pg)
    for model in INDEX_MODELS:
        assert [c.name for c in pg.get_columns(model._meta.table_name)] == list(model._meta.sorted_field_names)
    pg.close()


def test_a_sqlite_database_with_the_old_index_ddl_opens_unchanged(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(PLUGIN_DDL + OLD_INDEX_DDL)
    conn.execute("INSERT INTO recall_users (user_id) VALUES ('u')")
    conn.commit()
    ddl = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'recall_users'").fetchone()[0]
    conn.close()
    db = peewee.SqliteDatabase(str(path))
    ensure_schema(db)
    assert db.execute_sql("SELECT sql FROM sqlite_master WHERE name = 'recall_users'").fetchone()[0] == ddl
    # An index of another version (recall_index.index_version()) is emptied for a rebuild; its tables stay.
    assert db.execute_sql("SELECT count(*) FROM recall_users").fetchone()[0] == 0
    db.execute_sql("INSERT INTO recall_users (user_id) VALUES ('v')")
    assert db.execute_sql("SELECT num, user_id FROM recall_users").fetchall() == [(1, "v")]
    # No second unique index beside the table's own: the tables that exist are left as they are.
    assert db.execute_sql("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'recall_users' "
                          "AND sql IS NOT NULL").fetchone()[0] == 0
    db.close()


def test_a_postgresql_database_of_the_last_version_gets_the_user_search_index(pg_url):
    db = _pg(pg_url)
    ensure_pg_schema(db)
    db.execute_sql("INSERT INTO event_logs (user_id, event_summary) VALUES ('u', '今天去面试了')")
    for table in TABLES[8:]:  # the last version had no user search index on PostgreSQL
        db.execute_sql(f"DROP TABLE {table}")
    db.execute_sql("DELETE FROM kiraos_desktop_meta WHERE key LIKE 'usersearch%%'")
    db.execute_sql("DROP TRIGGER kd_usearch_pr_upd ON user_profiles")
    assert "user search index to build" in ensure_pg_schema(db)
    assert set(TABLES) <= set(db.get_tables())
    assert ensure_pg_schema(db) == []
    db.execute_sql("INSERT INTO user_profiles (user_id, memory_key, memory_value) VALUES ('u', 'k', 'v')")
    db.execute_sql("UPDATE user_profiles SET updated_at = 'x'")  # not the key or value: nothing to index again
    db.execute_sql("UPDATE user_profiles SET memory_value = 'w'")
    db.execute_sql("DELETE FROM event_logs")
    queued = db.execute_sql("SELECT user_id, event_id IS NULL, old_text, new_text FROM usersearch_queue "
                            "ORDER BY seq").fetchall()
    assert queued == [("u", True, None, None), ("u", True, None, None), ("u", False, "今天去面试了", None)]
    db.close()
