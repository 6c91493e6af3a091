"""Database schema: creation and in-place migration (SQLite here, PostgreSQL in pg_schema.py) of models.py's tables."""
from __future__ import annotations

import peewee
from playhouse.migrate import SqliteMigrator

from kiraos_desktop.core.storage.dialect import time_text
from kiraos_desktop.core.storage.models import (
    ALL_MODELS,
    DESKTOP_MODELS,
    INDEX_MODELS,
    INDEXES,
    PLUGIN_MODELS,
    REPEAT_MODELS,
)
from kiraos_desktop.core.storage.recall_index import ensure_recall_schema
from kiraos_desktop.core.storage.repeat_keys import ensure_repeat_schema
from kiraos_desktop.core.storage.schema_version import SCHEMA_VERSION, add_missing_columns, check_version, stored_version
from kiraos_desktop.core.storage.search_index import ensure_user_search_schema


# Times are copied into user_summary as text whatever their stored type (dialect.time_text).
#
# The tables are the peewee models of storage/models.py (the plugin's column for column, ours, the recall
# and user search indexes). What follows is the rest of the SQLite schema: the triggers, which
# peewee has no words for. They must stay plain SQL (no function of ours): the plugin's own
# connection fires them too. The index tables' triggers are in storage/recall_index.py and
# storage/search_index.py.
#
# Our additions: new tables and triggers only. The triggers keep per-user counts current even
# for writes made by the plugin itself, so the user list never aggregates millions of rows.
#
# A user's audit history is a chain: each change names the same user's previous one (prev_id) and
# user_summary.last_change_id names the newest. An index on (user_id, id) would cost every API
# write a random index page per call (a fifth of the pages it writes); the summary row that holds
# the head is written by every write anyway. So a summary row stays, with zero counts, while its
# user has history, and the user lists leave such rows out (storage/user_queries.USER_HAS_DATA).
#
# No indexes on the counts or the activity: every write would update them (more pages per
# commit on the API's hot path), while sorting 100k summary rows without one takes ~50 ms.
_DROPPED_INDEXES = ("idx_user_summary_activity", "idx_user_summary_profiles", "idx_user_summary_events")

# Profile counts are recomputed from the (indexed, per-user) rows rather than incremented: the
# plugin's INSERT OR REPLACE on user_profiles deletes without firing delete triggers, so increments
# would drift. Events are only ever inserted and deleted (no REPLACE, by the plugin or by us), so
# their count is incremented: recounting a user's events on every new one costs a scan per write.
_RECOUNT = """
        INSERT INTO user_summary (user_id, profile_count, event_count, last_activity)
        VALUES ({uid},
                (SELECT count(*) FROM user_profiles WHERE user_id = {uid}),
                (SELECT count(*) FROM event_logs WHERE user_id = {uid}),
                {stamp})
        ON CONFLICT(user_id) DO UPDATE SET
            profile_count = excluded.profile_count,
            event_count = excluded.event_count,
            last_activity = max(coalesce(user_summary.last_activity, ''), coalesce(excluded.last_activity, ''));
        DELETE FROM user_summary WHERE user_id = {uid} AND profile_count = 0 AND event_count = 0
            AND last_change_id IS NULL;"""

TRIGGER_NAMES = ("kd_profiles_ins", "kd_profiles_del", "kd_profiles_upd", "kd_events_ins", "kd_events_del")

TRIGGERS = (
    f"""CREATE TRIGGER kd_profiles_ins AFTER INSERT ON user_profiles BEGIN
        {_RECOUNT.format(uid="NEW.user_id", stamp=time_text("NEW.updated_at"))}
    END""",
    f"""CREATE TRIGGER kd_profiles_del AFTER DELETE ON user_profiles BEGIN
        {_RECOUNT.format(uid="OLD.user_id", stamp="NULL")}
    END""",
    f"""CREATE TRIGGER kd_profiles_upd AFTER UPDATE OF updated_at ON user_profiles BEGIN
        UPDATE user_summary SET
            last_activity = max(coalesce(last_activity, ''), coalesce({time_text("NEW.updated_at")}, ''))
            WHERE user_id = NEW.user_id;
    END""",
    # A user without a summary row has no profiles either (the row goes only when both counts are 0).
    f"""CREATE TRIGGER kd_events_ins AFTER INSERT ON event_logs BEGIN
        INSERT INTO user_summary (user_id, profile_count, event_count, last_activity)
        VALUES (NEW.user_id, 0, 1, {time_text("NEW.created_at")})
        ON CONFLICT(user_id) DO UPDATE SET
            event_count = event_count + 1,
            last_activity = max(coalesce(last_activity, ''), coalesce(excluded.last_activity, ''));
    END""",
    """CREATE TRIGGER kd_events_del AFTER DELETE ON event_logs BEGIN
        UPDATE user_summary SET event_count = event_count - 1 WHERE user_id = OLD.user_id;
        DELETE FROM user_summary WHERE user_id = OLD.user_id AND profile_count = 0 AND event_count <= 0
            AND last_change_id IS NULL;
    END""",
)

_REBUILD_SUMMARY = f"""
    INSERT INTO user_summary (user_id, profile_count, event_count, last_activity)
    SELECT user_id, sum(p), sum(e), max(ts) FROM (
        SELECT user_id, count(*) AS p, 0 AS e, max({time_text("updated_at")}) AS ts FROM user_profiles GROUP BY user_id
        UNION ALL
        SELECT user_id, 0, count(*), max({time_text("created_at")}) FROM event_logs GROUP BY user_id
    ) GROUP BY user_id
"""

def _chain_history(db: peewee.Database) -> None:
    """(Re)build the per-user audit chain from scratch, then drop the index it replaces.

    Also run when an older version (which neither keeps the chain nor knows of it) wrote to the
    file since: it stores schema version 1 again, and its rows have no prev_id.
    """
    db.execute_sql("CREATE INDEX IF NOT EXISTS idx_memory_changes_user ON memory_changes (user_id, id DESC)")
    db.execute_sql("UPDATE memory_changes SET prev_id = (SELECT max(p.id) FROM memory_changes AS p "
                   "WHERE p.user_id = memory_changes.user_id AND p.id < memory_changes.id)")
    db.execute_sql("UPDATE user_summary SET last_change_id = NULL")
    db.execute_sql("INSERT INTO user_summary (user_id, profile_count, event_count, last_activity, last_change_id) "
                   "SELECT user_id, 0, 0, NULL, max(id) FROM memory_changes WHERE true GROUP BY user_id "
                   "ON CONFLICT(user_id) DO UPDATE SET last_change_id = excluded.last_change_id")
    db.execute_sql("DROP INDEX idx_memory_changes_user")


def _create_tables(db: peewee.Database, models) -> None:
    """Create the models' tables that do not exist; an existing table is left as it is (a database of
    an older version keeps its own DDL of the same columns, and no second index beside its own)."""
    with db.bind_ctx(models):
        for model in models:
            if not db.table_exists(model._meta.table_name):
                model.create_table()


def ensure_schema(db: peewee.Database) -> list[str]:
    """Create or upgrade the schema of a SQLite database in place (an empty database, a plugin's or
    one of ours); returns what was done (for logs and tests). PostgreSQL's: pg_schema.ensure_pg_schema."""
    done: list[str] = []
    with db.atomic():
        stored = stored_version(db)
        check_version(stored)
        had_summary = db.table_exists("user_summary")
        _create_tables(db, PLUGIN_MODELS + DESKTOP_MODELS)
        db.execute_sql(INDEXES[0])
        with db.bind_ctx(ALL_MODELS):
            missing = add_missing_columns(db, SqliteMigrator(db))
        if missing:
            done.append("added columns " + ", ".join(missing))
        for name in _DROPPED_INDEXES:
            db.execute_sql(f"DROP INDEX IF EXISTS {name}")
        # Triggers are recreated on every open so a newer version's definitions always apply.
        for name in TRIGGER_NAMES:
            db.execute_sql(f"DROP TRIGGER IF EXISTS {name}")
        for ddl in TRIGGERS:
            db.execute_sql(ddl)
        if not had_summary:
            db.execute_sql(_REBUILD_SUMMARY)
            done.append("built user_summary")
        if stored < 2 or not had_summary:
            _chain_history(db)
            done.append("chained the audit history per user")
        _create_tables(db, INDEX_MODELS)
        db.execute_sql(INDEXES[1])
        done.extend(ensure_recall_schema(db.connection()))
        done.extend(ensure_user_search_schema(db.connection()))
        _create_tables(db, REPEAT_MODELS)
        db.execute_sql(INDEXES[2])
        done.extend(ensure_repeat_schema(db.connection()))
        db.execute_sql(
            "INSERT INTO kiraos_desktop_meta (key, value) VALUES ('schema_version', ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (str(SCHEMA_VERSION),),
        )
    return done
