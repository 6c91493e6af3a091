"""Copying a SQLite memory database into an empty PostgreSQL database: one transaction, bulk COPY, verified counts.

Everything is copied with its ids: profiles, events, the audit log (with each user's chain), the
user summaries, our meta records, and the recall and user search indexes with their queues and
build states (copied rather than rebuilt: they are consistent with the rows of the same snapshot,
and copying them takes a fraction of segmenting every event again; the store rebuilds an index
whose word list or layout differs from the target's version). The target is checked and written in one transaction, so a refusal,
a failure or a cancel leaves it as it was: nothing of the copy is ever visible there.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import peewee
import psycopg

from kiraos_desktop.core.storage.database_url import DatabaseUrl
from kiraos_desktop.core.storage.dialect import time_text
from kiraos_desktop.core.storage.postgres.notify import CHANNEL
from kiraos_desktop.core.memory.records import StoreError
from kiraos_desktop.core.transfer.export_import import Cancelled

#: Copy order: parents of nothing in particular (no foreign keys), the meta records first.
TABLES = ("kiraos_desktop_meta", "user_profiles", "event_logs", "memory_changes", "user_summary",
          "recall_users", "recall_terms", "recall_queue",
          "usersearch_terms", "usersearch_profile_users", "usersearch_queue")
#: Tables whose rows are counted per user as well.
PER_USER = ("user_profiles", "event_logs", "memory_changes")
META = "kiraos_desktop_meta"
#: Meta records the target's own schema writes (its schema version stays the target's).
_TARGET_META = ("schema_version",)
#: Rows between progress reports and cancel checks.
STEP_ROWS = 2000

Progress = Callable[[int, int], None]  # (rows copied, rows in all)
IsCancelled = Callable[[], bool]
Say = Callable[[str], None]


#: The time columns of the memory tables.
_TIME_COLUMNS = {"user_profiles": ("updated_at", "expires_at"), "event_logs": ("created_at",)}


class MigrationError(StoreError):
    """The copy was refused or failed; the target is unchanged. One line, never a password."""


@dataclass(frozen=True)
class TableCount:
    table: str
    source: int
    target: int


@dataclass
class MigrationReport:
    """What was copied, as counted on both sides after the copy (inside its transaction)."""

    target: str  # the redacted URL
    tables: list[TableCount] = field(default_factory=list)
    users: int = 0  # users whose per-table counts were compared (all of them)
    skipped: list[str] = field(default_factory=list)  # source tables the target has no place for

    @property
    def rows(self) -> int:
        return sum(t.target for t in self.tables)

    def lines(self) -> list[str]:
        width = max((len(t.table) for t in self.tables), default=0)
        out = [f"{t.table:<{width}}  {t.source:>9} -> {t.target:>9}" for t in self.tables]
        out.append(f"per-user counts of {', '.join(PER_USER)} equal for {self.users} user(s)")
        if self.skipped:
            out.append("not copied (no such table in the target): " + ", ".join(self.skipped))
        return out


def _source_snapshot(path: Path) -> sqlite3.Connection:
    """A read-only connection holding one read transaction: the copy and the counts see one state,
    while the window or the API may go on writing."""
    if not path.is_file():
        raise MigrationError(f"there is no database at {path}")
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, isolation_level=None, timeout=10)
    conn.execute("BEGIN")
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # the snapshot starts here
    return conn


def _source_columns(conn: sqlite3.Connection) -> dict[str, list[str]]:
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                         "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    return {t: [r[1] for r in conn.execute(f'PRAGMA table_info("{t}")')] for t in tables}


def _target_tables(db: peewee.PostgresqlDatabase) -> list[str]:
    return [r[0] for r in db.execute_sql(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
        "AND table_type = 'BASE TABLE' ORDER BY table_name").fetchall()]


def _target_columns(db: peewee.PostgresqlDatabase, table: str) -> list[str]:
    return [r[0] for r in db.execute_sql(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name = %s ORDER BY ordinal_position", (table,)).fetchall()]


def _refuse_if_not_empty(db: peewee.PostgresqlDatabase, redacted: str) -> None:
    for table in _target_tables(db):
        if table == META:
            continue
        if db.execute_sql(f'SELECT EXISTS (SELECT 1 FROM "{table}")').fetchone()[0]:
            raise MigrationError(f"{redacted} is not empty (table {table} has rows); migrate copies into an "
                                 "empty database only: create a new one or empty this one")


Execute = Callable[[str], object]  # sqlite3's execute or peewee's execute_sql: SQL -> cursor


def _count(execute: Execute, table: str) -> int:
    return int(execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])


def _per_user(execute: Execute, table: str) -> dict[str, int]:
    return {user: int(n) for user, n in execute(f'SELECT user_id, count(*) FROM "{table}" GROUP BY user_id').fetchall()}


class _Copier:
    def __init__(self, source: sqlite3.Connection, db: peewee.PostgresqlDatabase, total: int,
                 progress: Progress | None, is_cancelled: IsCancelled | None) -> None:
        self.source, self.db, self.total = source, db, total
        self.progress, self.is_cancelled = progress, is_cancelled
        self.done = 0

    def _tick(self, rows: int) -> None:
        self.done += rows
        if self.is_cancelled is not None and self.is_cancelled():
            raise Cancelled("migration cancelled; the target database was left as it was")
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total)

    def copy_table(self, table: str, columns: list[str]) -> None:
        names = ", ".join(f'"{c}"' for c in columns)
        # A time KiraOS plugin 2.x (or another writer) stored as a number goes over as the text the
        # PostgreSQL store reads (its columns are text).
        read = ", ".join(time_text(f'"{c}"') if c in _TIME_COLUMNS.get(table, ()) else f'"{c}"' for c in columns)
        rows = self.source.execute(f'SELECT {read} FROM "{table}"')
        cursor = self.db.connection().cursor()
        pending = 0
        with cursor.copy(f'COPY "{table}" ({names}) FROM STDIN') as copy:
            for row in rows:
                copy.write_row(row)
                pending += 1
                if pending == STEP_ROWS:
                    self._tick(pending)
                    pending = 0
        self._tick(pending)

    def copy_meta(self, columns: list[str], skipped: list[str]) -> None:
        """Meta records replace the target schema's own, except its schema version and the records of
        an index whose tables the target does not have (recall_*, usersearch_*: their family's state)."""
        if columns[:2] != ["key", "value"]:
            raise MigrationError(f"unexpected columns in {META}: {', '.join(columns)}")
        rows = self.source.execute(f"SELECT key, value FROM {META}").fetchall()
        for key, value in rows:
            if key in _TARGET_META or _family(key) in {_family(table) for table in skipped}:
                continue
            self.db.execute_sql(f"INSERT INTO {META} (key, value) VALUES (%s, %s) "
                                "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, str(value)))
        self._tick(len(rows))


def _family(name: str) -> str:
    """The index a table or meta record belongs to: recall_terms, recall_version -> recall."""
    return name.split("_", 1)[0]


def _plan(source_columns: dict[str, list[str]], db: peewee.PostgresqlDatabase) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """(table, columns) to copy, in order, and the source tables left out. A source column the
    target lacks is an error: copying without it would lose data."""
    present = set(_target_tables(db))
    ordered = [t for t in TABLES if t in source_columns] + sorted(t for t in source_columns if t not in TABLES)
    plan, skipped = [], []
    for table in ordered:
        if table not in present:
            skipped.append(table)
            continue
        target = set(_target_columns(db, table))
        lost = [c for c in source_columns[table] if c not in target]
        if lost:
            raise MigrationError(f"the target's table {table} has no column {lost[0]}; update KiraOS Desktop "
                                 "or the target's schema first")
        plan.append((table, source_columns[table]))
    return plan, skipped


def _verify(source: sqlite3.Connection, db: peewee.PostgresqlDatabase, plan: list[tuple[str, list[str]]],
            report: MigrationReport) -> None:
    for table, _ in plan:
        if table == META:  # the target keeps its own schema version; every other record must be there
            here = dict(source.execute(f"SELECT key, value FROM {META}").fetchall())
            there = dict(db.execute_sql(f"SELECT key, value FROM {META}").fetchall())
            wrong = [k for k in here if k not in _TARGET_META and str(here[k]) != there.get(k)]
            # A recall index of other words than this version's is rebuilt by the store, and an index
            # the target has no tables for keeps the target's own records: theirs may differ.
            rebuilt = {"recall"} | {_family(table) for table in report.skipped}
            wrong = [k for k in wrong if _family(k) not in rebuilt]
            if wrong:
                raise MigrationError(f"verification failed: meta record {wrong[0]} differs; nothing was kept there")
            report.tables.append(TableCount(table, len(here), len(there)))
            continue
        source_n, target_n = _count(source.execute, table), _count(db.execute_sql, table)
        report.tables.append(TableCount(table, source_n, target_n))
        if source_n != target_n:
            raise MigrationError(f"verification failed: {table} has {source_n} rows here but {target_n} in the "
                                 "target; nothing was kept there")
    users: set[str] = set()
    copied = {table for table, _ in plan}
    for table in PER_USER:
        if table not in copied:
            continue
        here, there = _per_user(source.execute, table), _per_user(db.execute_sql, table)
        if here != there:
            user = next(u for u in sorted(set(here) | set(there)) if here.get(u) != there.get(u))
            raise MigrationError(f"verification failed: user {user!r} has {here.get(user, 0)} rows of {table} here "
                                 f"but {there.get(user, 0)} in the target; nothing was kept there")
        users |= set(here)
    report.users = len(users)


def open_target(url: DatabaseUrl) -> peewee.PostgresqlDatabase:
    """A connected peewee database on the target; StoreUnavailable (one line) when it cannot be used."""
    from kiraos_desktop.core.storage.postgres.connections import connect_error

    db = peewee.PostgresqlDatabase(url.connect_url(), autoconnect=False)
    try:
        db.connect()
    except (psycopg.Error, peewee.DatabaseError, peewee.InterfaceError) as exc:
        error = connect_error(url.connect_url(), exc)
        error.args = (url.hide_secrets(str(error)),)
        raise error from None
    return db


def bring_source_up_to_date(source_path: Path) -> None:
    """Give a database written by an older version (or by the plugin alone) this version's tables,
    as opening it in the window does, before it is copied."""
    from kiraos_desktop.core.storage.sqlite.store import SqliteStore

    SqliteStore(source_path).close()


def migrate(source_path: Path, target: DatabaseUrl, progress: Progress | None = None,
            is_cancelled: IsCancelled | None = None, say: Say | None = None) -> MigrationReport:
    """Copy the SQLite database at `source_path` into the empty PostgreSQL database `target`.

    `progress(done, total)` gets rows copied; `is_cancelled()` is asked as often (True: Cancelled,
    the target rolled back); `say(text)` gets a line per stage, the first once the target was found
    usable and empty. Raises MigrationError (refused or failed; the target unchanged) or
    StoreUnavailable (the server cannot be used).
    """
    from kiraos_desktop.core.storage.postgres.schema import ensure_pg_schema

    say = say or (lambda _text: None)
    redacted = target.redacted()
    report = MigrationReport(redacted)
    source = _source_snapshot(Path(source_path))
    try:
        source_columns = _source_columns(source)
        db = open_target(target)
        try:
            with db.atomic():
                _refuse_if_not_empty(db, redacted)  # before anything is created there
                say(f"copying {source_path} into {redacted}: creating the tables")
                ensure_pg_schema(db)
                plan, report.skipped = _plan(source_columns, db)
                tables = [table for table, _ in plan]
                # Nothing else may write meanwhile; the tables' own triggers (summaries, recall queue,
                # notifications) stay off: the copy brings the rows they would have made.
                db.execute_sql("LOCK TABLE " + ", ".join(f'"{t}"' for t in tables) + " IN EXCLUSIVE MODE")
                _refuse_if_not_empty(db, redacted)
                for table in tables:
                    db.execute_sql(f'ALTER TABLE "{table}" DISABLE TRIGGER USER')
                total = sum(_count(source.execute, table) for table in tables)
                copier = _Copier(source, db, total, progress, is_cancelled)
                for table, columns in plan:
                    say(f"copying {table} ({_count(source.execute, table)} rows)")
                    if table == META:
                        copier.copy_meta(columns, report.skipped)
                    else:
                        copier.copy_table(table, columns)
                for table in tables:
                    db.execute_sql(f'ALTER TABLE "{table}" ENABLE TRIGGER USER')
                say("verifying the counts")
                ensure_pg_schema(db)  # sequences past the copied ids; a recall index of other words is rebuilt
                _verify(source, db, plan, report)
                # With the triggers off the copy notified no one: instances already on this database
                # hear "every user changed" (an empty payload) when it commits.
                db.execute_sql("SELECT pg_notify(%s, '')", (CHANNEL,))
            say("verified and committed")
        except (psycopg.Error, peewee.DatabaseError) as exc:
            raise _failed(exc, target) from None
        finally:
            db.close()
    finally:
        source.close()
    return report


def _failed(exc: BaseException, target: DatabaseUrl) -> StoreError:
    """A database error during the copy, as one line (the transaction was rolled back)."""
    from kiraos_desktop.core.storage.postgres.connections import connect_error

    conn_lost = isinstance(exc, psycopg.OperationalError) and "server closed" in str(exc)
    if conn_lost:
        return connect_error(target.connect_url(), exc)
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return MigrationError(target.hide_secrets(f"the copy failed and the target was left as it was: {first}"))
