"""The store's SQL in PostgreSQL's words: the few places where SQLite's SQL differs, converted once per statement.

The store's hot SQL is written once, in SQLite's dialect (store_rows.py, write_batch.py, the
recall index). On PostgreSQL each statement text goes through `pg_sql()` once (cached):
- `?` placeholders become `%s` (a literal `%` becomes `%%`);
- `datetime(x)` (SQLite's reading of an ISO-8601 text as a UTC time: an offset such as `+08:00`
  or `Z` applied, the fraction of a second dropped, NULL when it is no time) becomes `kd_ts(x)`,
  the function of pg_schema.py that reads a text the same way, so the live condition compares
  times on both backends while the columns stay text;
- `LIMIT -1` (no limit) becomes `LIMIT ALL`;
- `instr(a, b)` becomes `strpos(a, b)`;
- a subquery in FROM gets the alias PostgreSQL requires;
- `LIKE` becomes `ILIKE` (SQLite's LIKE ignores ASCII case);
- the LIMIT of a recursive CTE's walk moves to the query that reads it.
What cannot be converted word for word (audit ids from a sequence instead of sqlite_sequence,
`RETURNING id` instead of lastrowid, the recall queue's locking) is written for each backend
where it is used (pg_store.py, pg_recall.py).
"""
from __future__ import annotations

import re

_REWRITES = (
    (re.compile(r"\bdatetime\("), "kd_ts("),
    (re.compile(r"\bLIMIT -1\b"), "LIMIT ALL"),
    (re.compile(r"\binstr\("), "strpos("),
    (re.compile(r"(LIMIT \d+\)) WHERE\b"), r"\1 AS kd_sub WHERE"),
    (re.compile(r"\bLIKE\b"), "ILIKE"),
    # PostgreSQL has no LIMIT inside a recursive CTE; outside it, it still stops the walk early.
    (re.compile(r" LIMIT (%s)\) SELECT ([^;]*?) FROM (\w+)$"), r") SELECT \2 FROM \3 LIMIT \1"),
)
_cache: dict[str, str] = {}

# A time column as text on SQLite. KiraOS plugin 2.x stores expiries as integer epoch seconds, and
# another writer may put a number in any time column: SQLite keeps it as it is (type affinity), so
# every read of a time goes through this expression, which gives a number as the naive local ISO
# text the rest of the program reads (a number no date can be made of as its text), and text as it
# is. PostgreSQL's columns are text: there it is the column itself.
_TIME_TEXT = ("(CASE WHEN typeof({c}) IN ('integer', 'real') THEN coalesce(strftime('%Y-%m-%dT%H:%M:%S', {c}, "
              "'unixepoch', 'localtime'), CAST({c} AS TEXT)) ELSE {c} END)")
_time_texts: dict[str, str] = {}


def time_text(column: str) -> str:
    """SQL for a time column read as text (see _TIME_TEXT), in SQLite's dialect; pg_sql() makes it the
    column itself."""
    expression = _TIME_TEXT.format(c=column)
    _time_texts[expression] = column
    return expression


def pg_sql(sql: str) -> str:
    """The PostgreSQL text of a statement written for SQLite (cached by its text)."""
    converted = _cache.get(sql)
    if converted is None:
        converted = sql
        for expression, column in _time_texts.items():
            converted = converted.replace(expression, column)
        converted = converted.replace("%", "%%").replace("?", "%s")
        for pattern, replacement in _REWRITES:
            converted = pattern.sub(replacement, converted)
        if len(_cache) < 4096:  # statements built with a varying number of rows are many
            _cache[sql] = converted
    return converted


class PgConnection:
    """A psycopg connection that runs the store's SQLite-dialect SQL (what recall_index.py asks of a
    connection: execute() returning a cursor, executemany())."""

    def __init__(self, conn) -> None:
        self.raw = conn

    def execute(self, sql: str, params=()):
        return self.raw.execute(pg_sql(sql), tuple(params))

    def executemany(self, sql: str, rows) -> None:
        with self.raw.cursor() as cursor:
            cursor.executemany(pg_sql(sql), list(rows))

    def cursor(self):
        return _PgCursor(self.raw.cursor())


class _PgCursor:
    def __init__(self, cursor) -> None:
        self._cursor = cursor

    def execute(self, sql: str, params=()):
        self._cursor.execute(pg_sql(sql), tuple(params))
        return self._cursor

    def close(self) -> None:
        self._cursor.close()
