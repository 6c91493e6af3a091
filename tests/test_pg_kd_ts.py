"""kd_ts() (PostgreSQL) reads a stored time as SQLite's datetime() does, so both backends (and the plugin)
agree on what has expired."""
from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

import psycopg
import pytest

from kiraos_desktop.core.storage.postgres.store import PgMemoryStore
from kiraos_desktop.core.timeutil import now_iso, to_iso

_AWARE = datetime(2026, 1, 1, 2, 30, 15, 250000, tzinfo=timezone(timedelta(hours=8)))
TEXTS = [
    # what our code writes (naive local ISO, timeutil.to_iso) and what the plugin writes (isoformat)
    to_iso(datetime(2026, 3, 4, 5, 6, 7)), to_iso(datetime(2026, 3, 4, 5, 6, 7, 891011)), now_iso(),
    # an aware isoformat(): the offset converts to UTC, across a day and a year
    _AWARE.isoformat(), _AWARE.astimezone(timezone.utc).isoformat(), "2026-01-01T10:00:00-05:30",
    "2026-12-31T20:00:00-05:00", "2026-01-01 10:00:00+08:00", "2026-01-01T10:00:00 +08:00 ",
    "2026-01-01T10:00:00Z", "2026-01-01T10:00:00z", "2026-01-01T10:00:00.9996+08:00", "2026-01-01T10:00:00.5-00:30",
    # what a form or a hand may write: date only, minutes only, space or T, blanks around
    "2026-01-01", "2026-01-01T", "2026-01-01 ", "2026-01-01T10:00", "2026-01-01 10:00", "2026-01-01 T 10:00",
    "2026-01-01\t10:00:00", "2026-01-01T23:59:59.9996", "10:00", "10:00:00+01:00",
    # no time for either
    "tomorrow", "today", "soon", "epoch", "infinity", "Jan 1 2026", "", " 2026-01-01", "2026-1-1", "20260101",
    "2026-13-01", "2026-00-10", "2026-01-32", "2026-01-01T25:00", "2026-01-01T10:60", "2026-01-01T10:00:60",
    "2026-01-01T10:00:00+0800", "2026-01-01T10:00:00+08", "2026-01-01T10:00:00+15:00", "2026-01-01+08:00",
    "2026-01-01T10:00:00.", "2026-01-01t10:00", "9999-12-31T23:59:59.9995", "2026-01-01T10:00:00 UTC",
]


def _sqlite(texts: list[str]) -> list[str | None]:
    conn = sqlite3.connect(":memory:")
    try:
        return [conn.execute("SELECT datetime(?)", (text,)).fetchone()[0] for text in texts]
    finally:
        conn.close()


def _postgres(url: str, texts: list[str]) -> list[str | None]:
    with psycopg.connect(url, autocommit=True) as conn:
        return [conn.execute("SELECT to_char(kd_ts(%s), 'YYYY-MM-DD HH24:MI:SS')", (text,)).fetchone()[0]
                for text in texts]


@pytest.fixture
def pg_schema_url(pg_url):
    PgMemoryStore(pg_url).close()  # creates the schema, kd_ts() with it
    return pg_url


def test_kd_ts_reads_every_text_as_sqlites_datetime_does(pg_schema_url):
    expected = _sqlite(TEXTS)
    assert expected[TEXTS.index(_AWARE.isoformat())] == "2025-12-31 18:30:15"  # SQLite applies the offset
    assert dict(zip(TEXTS, _postgres(pg_schema_url, TEXTS))) == dict(zip(TEXTS, expected))


def test_an_existing_database_gets_the_new_kd_ts_when_opened(pg_url):
    PgMemoryStore(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:  # the definition of an earlier version
        conn.execute("CREATE OR REPLACE FUNCTION kd_ts(t text) RETURNS timestamp LANGUAGE plpgsql IMMUTABLE AS $$ "
                     "BEGIN RETURN t::timestamp; EXCEPTION WHEN others THEN RETURN NULL; END $$")
    assert _postgres(pg_url, ["2026-01-01T10:00:00+08:00", "tomorrow"])[0] == "2026-01-01 10:00:00"
    PgMemoryStore(pg_url).close()
    assert _postgres(pg_url, ["2026-01-01T10:00:00+08:00", "tomorrow"]) == ["2026-01-01 02:00:00", None]


def test_an_entry_is_live_or_expired_alike_on_both_backends(new_store):
    """The live condition over odd stored expiries (written by hand or by another program)."""
    store = new_store()
    expiries = {"offset": "2000-01-01T10:00:00+08:00", "word": "tomorrow", "future": "2999-01-01",
                "zulu": "2999-01-01T00:00:00Z"}
    for key in expiries:
        store.set_profile("u", key, "v", actor="gui")
    with store.batch("gui") as batch:
        for key, expiry in expiries.items():
            batch.execute("UPDATE user_profiles SET expires_at = ? WHERE user_id = 'u' AND memory_key = ?",
                          (expiry, key))
    live = sorted(p.key for p in store.get_profiles("u", include_expired=False))
    assert live == ["future", "zulu"]  # SQLite's datetime('tomorrow') is NULL: never live
