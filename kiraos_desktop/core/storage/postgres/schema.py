"""The PostgreSQL side of the schema: models.py's tables, plpgsql triggers (summary, index queues, NOTIFY)."""
from __future__ import annotations

import peewee
from playhouse.migrate import PostgresqlMigrator

from kiraos_desktop.core.storage import recall_index
from kiraos_desktop.core.storage import search_index as user_search_index
from kiraos_desktop.core.storage.dialect import PgConnection
from kiraos_desktop.core.storage.models import ALL_MODELS, INDEXES
from kiraos_desktop.core.storage.repeat_keys import ensure_repeat_schema
from kiraos_desktop.core.storage.schema_version import SCHEMA_VERSION, add_missing_columns, check_version, stored_version

#: The channel other processes LISTEN on; the payload is the user id a write touched.
NOTIFY_CHANNEL = "kiraos_desktop_changes"
#: pg_advisory_xact_lock key that serialises schema creation of processes starting at once.
_SCHEMA_LOCK = 0x6B645F736368656D  # "kd_schem"

# user_summary as storage/sqlite/schema.py's SQLite triggers keep it (same rules, see there): profile counts are
# recounted, event counts incremented; a row stays while its user has history.
_FUNCTIONS = (
    # Text read as a time the way SQLite's datetime() reads it, so that both backends (and the plugin)
    # agree on what has expired: [-]YYYY-MM-DD, then (after any blanks or T) HH:MM[:SS[.fraction]]
    # and an offset [+-]HH:MM or Z, or such a time alone (on 2000-01-01); an offset converts to UTC
    # (the milliseconds rounded first), and the fraction of a second is dropped. NULL (never "live")
    # for anything else, as for SQLite, and for what SQLite reads but no program of ours writes
    # ('now', a Julian day number).
    r"""CREATE OR REPLACE FUNCTION kd_ts(t text) RETURNS timestamp LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
        p text[];
        y int;
        fields timestamp;
        exact timestamp;
    BEGIN
        p := regexp_match(t, '^(?:(-?\d{4})-(\d\d)-(\d\d)[\sT]*)?'
                             '(?:(\d\d):(\d\d)(?::(\d\d)(\.\d+)?)?\s*(?:([+-])(\d\d):(\d\d)|[Zz])?\s*)?$');
        IF p IS NULL OR (p[1] IS NULL AND p[4] IS NULL) OR p[2]::int NOT BETWEEN 1 AND 12
                OR p[3]::int NOT BETWEEN 1 AND 31 OR p[4]::int > 24 OR p[5]::int > 59 OR p[6]::int > 59
                OR p[9]::int > 14 OR p[10]::int > 59 THEN
            RETURN NULL;
        END IF;
        y := coalesce(p[1], '2000')::int;
        IF y <= 0 THEN
            y := y - 1;  -- PostgreSQL counts 1 BC where SQLite counts year 0
        END IF;
        fields := make_date(y, coalesce(p[2], '1')::int, 1)
            + make_interval(days => coalesce(p[3], '1')::int - 1, hours => coalesce(p[4], '0')::int,
                            mins => coalesce(p[5], '0')::int, secs => coalesce(p[6], '0')::int);
        exact := fields + round(('0' || coalesce(p[7], ''))::numeric, 3) * interval '1 second';
        IF p[8] IS NOT NULL THEN
            exact := exact - (p[8] || (p[9]::int * 60 + p[10]::int))::int * interval '1 minute';
        END IF;
        IF exact > '9999-12-31 23:59:59.999' OR exact < '4714-11-24 12:00:00 BC' THEN
            RETURN NULL;  -- outside SQLite's range of Julian days
        END IF;
        RETURN CASE WHEN p[8] IS NULL THEN fields ELSE date_trunc('second', exact) END;
    END $$""",
    """CREATE OR REPLACE FUNCTION kd_later(a text, b text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
        SELECT GREATEST(coalesce(a, '') COLLATE "C", coalesce(b, '') COLLATE "C")
    $$""",
    """CREATE OR REPLACE FUNCTION kd_recount(uid text, stamp text) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO user_summary (user_id, profile_count, event_count, last_activity)
        VALUES (uid, (SELECT count(*) FROM user_profiles WHERE user_id = uid),
                (SELECT count(*) FROM event_logs WHERE user_id = uid), stamp)
        ON CONFLICT (user_id) DO UPDATE SET
            profile_count = excluded.profile_count,
            event_count = excluded.event_count,
            last_activity = kd_later(user_summary.last_activity, excluded.last_activity);
        DELETE FROM user_summary WHERE user_id = uid AND profile_count = 0 AND event_count = 0
            AND last_change_id IS NULL;
    END $$""",
    # The user search queue (storage/search_index.py) gets "this user's entries changed" for an insert
    # or delete here, for an update of the user, key or value in kd_usearch_profile_changed().
    """CREATE OR REPLACE FUNCTION kd_profiles_summary() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            PERFORM kd_recount(NEW.user_id, NEW.updated_at);
            INSERT INTO usersearch_queue (user_id) VALUES (NEW.user_id);
        ELSIF TG_OP = 'DELETE' THEN
            PERFORM kd_recount(OLD.user_id, NULL);
            INSERT INTO usersearch_queue (user_id) VALUES (OLD.user_id);
        ELSE
            UPDATE user_summary SET last_activity = kd_later(last_activity, NEW.updated_at)
                WHERE user_id = NEW.user_id;
        END IF;
        RETURN NULL;
    END $$""",
    # The test is in the body, for any update: a WHEN clause or an UPDATE OF naming these columns
    # would forbid an operator's ALTER COLUMN ... TYPE (a collation) on them.
    """CREATE OR REPLACE FUNCTION kd_usearch_profile_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF NEW.user_id <> OLD.user_id OR NEW.memory_key <> OLD.memory_key
                OR NEW.memory_value <> OLD.memory_value THEN
            INSERT INTO usersearch_queue (user_id) VALUES (OLD.user_id);
            IF NEW.user_id <> OLD.user_id THEN
                INSERT INTO usersearch_queue (user_id) VALUES (NEW.user_id);
            END IF;
        END IF;
        RETURN NULL;
    END $$""",
    # Both index queues (storage/recall_index.py, storage/search_index.py) get an event's text leaving and/or
    # arriving; an event deleted or changed loses its repeat code (storage/repeat_keys.py).
    """CREATE OR REPLACE FUNCTION kd_events_summary() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO user_summary (user_id, profile_count, event_count, last_activity)
            VALUES (NEW.user_id, 0, 1, NEW.created_at)
            ON CONFLICT (user_id) DO UPDATE SET
                event_count = user_summary.event_count + 1,
                last_activity = kd_later(user_summary.last_activity, excluded.last_activity);
            INSERT INTO recall_queue (user_id, event_id, new_text) VALUES (NEW.user_id, NEW.id, NEW.event_summary);
            INSERT INTO usersearch_queue (user_id, event_id, new_text) VALUES (NEW.user_id, NEW.id, NEW.event_summary);
        ELSIF TG_OP = 'DELETE' THEN
            UPDATE user_summary SET event_count = event_count - 1 WHERE user_id = OLD.user_id;
            DELETE FROM user_summary WHERE user_id = OLD.user_id AND profile_count = 0 AND event_count <= 0
                AND last_change_id IS NULL;
            INSERT INTO recall_queue (user_id, event_id, old_text) VALUES (OLD.user_id, OLD.id, OLD.event_summary);
            INSERT INTO usersearch_queue (user_id, event_id, old_text) VALUES (OLD.user_id, OLD.id, OLD.event_summary);
            DELETE FROM event_repeat_keys WHERE event_id = OLD.id;
        ELSE
            DELETE FROM event_repeat_keys WHERE event_id = OLD.id;
            INSERT INTO recall_queue (user_id, event_id, old_text) VALUES (OLD.user_id, OLD.id, OLD.event_summary);
            INSERT INTO recall_queue (user_id, event_id, new_text) VALUES (NEW.user_id, NEW.id, NEW.event_summary);
            INSERT INTO usersearch_queue (user_id, event_id, old_text) VALUES (OLD.user_id, OLD.id, OLD.event_summary);
            INSERT INTO usersearch_queue (user_id, event_id, new_text) VALUES (NEW.user_id, NEW.id, NEW.event_summary);
        END IF;
        RETURN NULL;
    END $$""",
    # NOTIFY dedups equal payloads within a transaction: one notification per user and commit.
    f"""CREATE OR REPLACE FUNCTION kd_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            PERFORM pg_notify('{NOTIFY_CHANNEL}', OLD.user_id);
        END IF;
        IF TG_OP <> 'DELETE' THEN
            PERFORM pg_notify('{NOTIFY_CHANNEL}', NEW.user_id);
        END IF;
        RETURN NULL;
    END $$""",
)

_TRIGGERS = (
    ("kd_profiles_ins", "user_profiles", "AFTER INSERT", "kd_profiles_summary"),
    ("kd_usearch_pr_upd", "user_profiles", "AFTER UPDATE", "kd_usearch_profile_changed"),
    ("kd_profiles_del", "user_profiles", "AFTER DELETE", "kd_profiles_summary"),
    ("kd_profiles_upd", "user_profiles", "AFTER UPDATE OF updated_at", "kd_profiles_summary"),
    ("kd_events_ins", "event_logs", "AFTER INSERT", "kd_events_summary"),
    ("kd_events_del", "event_logs", "AFTER DELETE", "kd_events_summary"),
    ("kd_events_upd", "event_logs", "AFTER UPDATE OF id, user_id, event_summary", "kd_events_summary"),
    ("kd_profiles_notify", "user_profiles", "AFTER INSERT OR UPDATE OR DELETE", "kd_notify"),
    ("kd_events_notify", "event_logs", "AFTER INSERT OR UPDATE OR DELETE", "kd_notify"),
    ("kd_changes_notify", "memory_changes", "AFTER INSERT OR UPDATE OR DELETE", "kd_notify"),
)

#: Tables whose ids come from a sequence, which must stay past every id copied in.
_SEQUENCED = (("event_logs", "id"), ("memory_changes", "id"), ("recall_users", "num"), ("recall_queue", "seq"),
              ("usersearch_queue", "seq"))
_SET_META = ("INSERT INTO kiraos_desktop_meta (key, value) VALUES (%s, %s) "
             "ON CONFLICT (key) DO UPDATE SET value = excluded.value")


def ensure_pg_schema(db: peewee.PostgresqlDatabase) -> list[str]:
    """Create or upgrade the schema of a PostgreSQL database (empty, or one of ours) in one transaction.

    Safe to run by several processes at once (an advisory lock serialises them) and again after a
    bulk copy: the id sequences are moved past the ids copied in.
    """
    done: list[str] = []
    with db.atomic():
        db.execute_sql("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
        stored = stored_version(db)
        check_version(stored)
        fresh = not db.table_exists("event_logs")
        clustered = [model for model in ALL_MODELS if model._meta.without_rowid]
        for model in clustered:
            model._meta.without_rowid = False  # an SQLite storage option
        try:
            with db.bind_ctx(ALL_MODELS):
                for model in ALL_MODELS:
                    model.create_table(safe=True)
        finally:
            for model in clustered:
                model._meta.without_rowid = True
        with db.bind_ctx(ALL_MODELS):
            added = add_missing_columns(db, PostgresqlMigrator(db))  # a database of an older version
        if added:
            done.append("added columns " + ", ".join(added))
        for ddl in INDEXES:
            db.execute_sql(ddl)
        for ddl in _FUNCTIONS:
            db.execute_sql(ddl)
        for name, table, when, function in _TRIGGERS:
            db.execute_sql(f"DROP TRIGGER IF EXISTS {name} ON {table}")
            db.execute_sql(f"CREATE TRIGGER {name} {when} ON {table} FOR EACH ROW EXECUTE FUNCTION {function}()")
        if fresh:
            done.append("created the tables")
        moved = sync_sequences(db)
        if moved:
            done.append("moved sequences past the ids of " + ", ".join(moved))
        done.extend(recall_index.mark_for_build(PgConnection(db.connection())))
        done.extend(user_search_index.mark_for_build(PgConnection(db.connection())))
        done.extend(ensure_repeat_schema(PgConnection(db.connection()), triggers=False))
        db.execute_sql(_SET_META, ("schema_version", str(SCHEMA_VERSION)))
    return done


def sync_sequences(db: peewee.PostgresqlDatabase) -> list[str]:
    """Move each id sequence past the largest id of its table (after rows were copied in with their ids)."""
    moved = []
    for table, column in _SEQUENCED:
        sequence = db.execute_sql("SELECT pg_get_serial_sequence(%s, %s)", (table, column)).fetchone()[0]
        if sequence is None:
            continue
        row = db.execute_sql(
            f"SELECT (SELECT coalesce(max({column}), 0) FROM {table}), "
            f"CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM {sequence}").fetchone()
        if row[0] > row[1]:
            db.execute_sql("SELECT setval(%s, %s)", (sequence, row[0]))
            moved.append(table)
    return moved
