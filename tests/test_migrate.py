"""migrate: a seeded SQLite memory into an empty PostgreSQL database (ids, audit chains, summaries, meta,
recall index), verified; non-empty, unreachable and refused targets (exit 2, one line, no password, target
unchanged); a cancel or a failure mid-copy leaves the target empty."""
import sqlite3

import psycopg
import pytest

from kiraos_desktop.cli import main
from kiraos_desktop.core.storage.database_url import parse_database_url
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.transfer.migrate import TABLES, MigrationError, migrate
from kiraos_desktop.core.transfer.export_import import Cancelled
from migrate_helpers import pg_table_names, seed_memory

# Which columns order each table's rows, to compare both sides row for row.
ORDER = {"kiraos_desktop_meta": "key", "user_profiles": "user_id, memory_key", "event_logs": "id",
         "memory_changes": "id", "user_summary": "user_id", "recall_users": "num",
         "recall_terms": "u, term, event_id", "recall_queue": "seq", "usersearch_terms": "term, user_id",
         "usersearch_profile_users": "user_id", "usersearch_queue": "seq"}


@pytest.fixture
def seeded(data_dir, index_every_user):
    engine = Engine.open(data_dir=data_dir)
    seed_memory(engine)
    engine.store.user_search_catch_up(everything=True)
    with engine.store.group():  # an API write group leaves its changes queued for a later one
        engine.store.add_event("user-3", "后来的事 半马", actor="api")  # queued for both indexes
    engine.close()
    return data_dir


def _rows(execute, table):
    return [tuple(r) for r in execute(f'SELECT * FROM "{table}" ORDER BY {ORDER[table]}').fetchall()]


def _sqlite_tables(db_path):
    conn = sqlite3.connect(str(db_path))
    try:
        return {t: _rows(conn.execute, t) for t in TABLES}
    finally:
        conn.close()


def _sqlite_table_names(db_path):
    conn = sqlite3.connect(str(db_path))
    try:
        return [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                           "AND name NOT LIKE 'sqlite_%'")]
    finally:
        conn.close()


def _pg_tables(url):
    with psycopg.connect(url) as conn:
        present = {r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")}
        return {t: _rows(conn.execute, t) for t in TABLES if t in present}


def test_migrate_copies_everything_with_its_ids_and_verifies(seeded, pg_url):
    db_path = seeded / "memory" / "kiraos.db"
    stages, steps = [], []
    report = migrate(db_path, parse_database_url(pg_url), progress=lambda d, t: steps.append((d, t)),
                     say=stages.append)
    source, target = _sqlite_tables(db_path), _pg_tables(pg_url)
    meta = dict(target.pop("kiraos_desktop_meta"))
    source_meta = dict(source.pop("kiraos_desktop_meta"))
    assert target == source  # every row of every table, ids included
    assert source["memory_changes"] and source["recall_terms"] and len(source["event_logs"]) > 10
    assert source["usersearch_terms"] and source["usersearch_queue"]  # the index and what it has yet to take
    assert report.skipped == []  # the target has a place for every table
    left_out = {table.split("_")[0] for table in report.skipped}  # an index the target has no tables for
    assert {k: v for k, v in meta.items() if k != "schema_version" and k.split("_")[0] not in left_out} == \
        {k: v for k, v in source_meta.items() if k != "schema_version" and k.split("_")[0] not in left_out}
    counted = {t.table: (t.source, t.target) for t in report.tables}
    assert counted["event_logs"] == (len(source["event_logs"]),) * 2
    assert counted["memory_changes"] == (len(source["memory_changes"]),) * 2
    assert report.users == 12 and report.rows > 0
    with psycopg.connect(pg_url) as conn:  # only what the target's schema has no table for is left out
        present = {r[0] for r in conn.execute("SELECT table_name FROM information_schema.tables "
                                              "WHERE table_schema = current_schema()")}
    assert set(report.skipped) == set(_sqlite_table_names(db_path)) - present
    assert steps and steps[-1][0] == steps[-1][1]
    assert stages[-1] == "verified and committed" and "verifying the counts" in stages
    with psycopg.connect(pg_url) as conn:  # new ids come after the copied ones
        new_event = conn.execute("INSERT INTO event_logs (user_id, event_summary) VALUES ('n', 'x') "
                                 "RETURNING id").fetchone()[0]
        assert new_event > max(row[0] for row in source["event_logs"])
        conn.rollback()


def test_the_copy_is_a_working_store_with_the_same_memory(seeded, pg_url):
    from kiraos_desktop.core.storage.sqlite.store import SqliteStore
    from kiraos_desktop.core.storage.postgres.store import PgMemoryStore

    db_path = seeded / "memory" / "kiraos.db"
    migrate(db_path, parse_database_url(pg_url))
    sqlite_store, pg_store = SqliteStore(db_path), PgMemoryStore(pg_url)
    try:
        assert pg_store.stats() == sqlite_store.stats()
        assert pg_store.list_users() == sqlite_store.list_users()
        for user in ("user-0", "user-5", "user-7"):
            assert pg_store.get_profiles(user) == sqlite_store.get_profiles(user)
            assert pg_store.get_events(user) == sqlite_store.get_events(user)
            assert pg_store.list_changes(user) == sqlite_store.list_changes(user)  # the chain walks alike
        for text in ("北京", "半马", "小明3", "user-1", "马", "改名 北京"):
            assert pg_store.search_user_ids(text) == sqlite_store.search_user_ids(text), text
        assert pg_store._rows("SELECT count(*) FROM usersearch_queue")[0][0] == 0
        assert sorted(pg_store._rows("SELECT * FROM usersearch_terms")) == \
            sorted(sqlite_store._rows("SELECT * FROM usersearch_terms"))
        before = pg_store.last_change_id()
        pg_store.add_event("user-7", "迁移之后", actor="cli")
        assert pg_store.last_change_id() > before
        assert pg_store.list_changes("user-7")[0].after is not None
    finally:
        sqlite_store.close()
        pg_store.close()


def test_cli_migrate_reports_the_verified_counts_without_the_password(seeded, pg_url, capsys):
    code = main(["migrate", "--to", pg_url, "--data-dir", str(seeded)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "verified" in out and "event_logs" in out and "equal for 12 user(s)" in out
    assert "rows (100%)" in err and "copying event_logs (" in err
    assert "test-secret" not in out + err and ":***@" in out


def test_a_target_with_rows_is_refused_and_left_unchanged(seeded, pg_url, capsys):
    assert main(["migrate", "--to", pg_url, "--data-dir", str(seeded)]) == 0
    before = _pg_tables(pg_url)
    capsys.readouterr()
    code = main(["migrate", "--to", pg_url, "--data-dir", str(seeded)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "is not empty (table " in err
    assert "test-secret" not in err
    assert _pg_tables(pg_url) == before


def test_a_database_of_other_data_is_refused_and_nothing_is_created(seeded, pg_url, capsys):
    with psycopg.connect(pg_url) as conn:
        conn.execute("CREATE TABLE invoices (n int)")
        conn.execute("INSERT INTO invoices VALUES (1)")
    code = main(["migrate", "--to", pg_url, "--data-dir", str(seeded)])
    err = capsys.readouterr().err
    assert code == 2 and "table invoices has rows" in err
    assert pg_table_names(pg_url) == ["invoices"]


@pytest.mark.parametrize("target", ["unreachable", "wrong password", "no database", "malformed"])
def test_unusable_targets_are_one_line_exit_2_without_the_password(seeded, pg_server, capsys, target):
    secret = "Wr0ng-Secret-42"
    url = {"unreachable": f"postgresql://kiraos_test:{secret}@127.0.0.1:1/kd",
           "wrong password": pg_server.url("postgres", password=secret),
           "no database": pg_server.url("kd_missing_db"),
           "malformed": f"postgresql://kiraos_test:{secret}@127.0.0.1:99999/kd"}[target]
    code = main(["migrate", "--to", url, "--data-dir", str(seeded)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert secret not in err and "test-secret" not in err


def test_cancel_leaves_the_target_empty(seeded, pg_url):
    calls = []

    def cancelled():
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(Cancelled):
        migrate(seeded / "memory" / "kiraos.db", parse_database_url(pg_url), is_cancelled=cancelled)
    assert len(calls) == 3
    assert pg_table_names(pg_url) == []


def test_a_failure_mid_copy_leaves_the_target_empty(seeded, pg_url):
    db_path = seeded / "memory" / "kiraos.db"
    conn = sqlite3.connect(str(db_path))
    conn.execute("INSERT INTO user_profiles (user_id, memory_key, memory_value, confidence) "
                 "VALUES ('zz-last', 'k', 'v', 'not a number')")  # SQLite keeps it; PostgreSQL cannot
    conn.commit()
    conn.close()
    with pytest.raises(MigrationError) as caught:
        migrate(db_path, parse_database_url(pg_url))
    assert "the copy failed and the target was left as it was" in str(caught.value)
    assert "\n" not in str(caught.value) and "test-secret" not in str(caught.value)
    assert pg_table_names(pg_url) == []


def test_instances_already_on_the_target_hear_of_the_copy(seeded, pg_url):
    with psycopg.connect(pg_url, autocommit=True) as listener:
        listener.execute("LISTEN kiraos_desktop_changes")
        migrate(seeded / "memory" / "kiraos.db", parse_database_url(pg_url))
        notes = list(listener.notifies(timeout=5, stop_after=1))
    assert [note.payload for note in notes] == [""]  # every user changed


def test_numbers_as_times_go_over_as_the_text_both_stores_read(data_dir, pg_url):
    """A database where a 2.x plugin (or another writer) stored times as epoch seconds: PostgreSQL's
    columns are text, so they arrive as the ISO text SQLite's store reads them as, and stay live."""
    from datetime import datetime, timedelta

    from kiraos_desktop.core.storage.postgres.store import PgMemoryStore
    from kiraos_desktop.core.storage.sqlite.store import SqliteStore

    engine = Engine.open(data_dir=data_dir)
    db_path = engine.paths.db_path
    engine.close()
    conn = sqlite3.connect(db_path)
    later = int((datetime.now() + timedelta(days=3)).timestamp())
    conn.execute("INSERT INTO user_profiles VALUES ('u', '城市', '北京', '2026-01-01T00:00:00', 0.9, 'basic', ?)", (later,))
    conn.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES ('u', '完成半马', ?)",
                 (int(datetime(2026, 3, 2, 9, 0).timestamp()),))
    conn.commit()
    conn.close()
    migrate(db_path, parse_database_url(pg_url))
    sqlite_store, pg_store = SqliteStore(db_path), PgMemoryStore(pg_url)
    try:
        assert pg_store.get_profiles("u", include_expired=False) == sqlite_store.get_profiles("u", include_expired=False)
        assert [p.key for p in pg_store.get_profiles("u", include_expired=False)] == ["城市"]
        assert pg_store.get_events("u") == sqlite_store.get_events("u")
        assert pg_store.get_events("u")[0].created_at == "2026-03-02T09:00:00"
    finally:
        sqlite_store.close()
        pg_store.close()
