"""The repeat check's index: the repeat key (recall_text.repeat_key) of events, so that "is this event
one the user already has since yesterday" is one indexed look-up instead of normalising every recent
event's text for every new one.

Layout (our table, `event_repeat_keys` in models.py; the plugin's tables are untouched):
`(event_id, u, k)`: k is a 64-bit code of the event's repeat key, looked up by (u, k). A row is made
by the check itself: before its first look-up for a user, a write batch codes the user's events of
the window that have no row yet (new events of the plugin, or of any writer that did not check), and
an event the batch adds gets its row at once. Built-in SQL triggers drop the row of an event that is
deleted or whose text or owner changes (the plugin's connection fires them too), so a row is never
stale; the next check codes the event again. A code match is confirmed on the texts themselves.
"""
from __future__ import annotations

import hashlib

from kiraos_desktop.core.recall.text import repeat_key

#: What the codes are made of: rows of another version are dropped on open (the codes change with
#: repeat_key() or the hash).
KEYS_VERSION = "1"

REPEAT_TRIGGER_NAMES = ("kd_rkey_del", "kd_rkey_upd")

REPEAT_TRIGGERS = (
    """CREATE TRIGGER kd_rkey_del AFTER DELETE ON event_logs BEGIN
        DELETE FROM event_repeat_keys WHERE event_id = OLD.id;
    END""",
    """CREATE TRIGGER kd_rkey_upd AFTER UPDATE OF id, user_id, event_summary ON event_logs BEGIN
        DELETE FROM event_repeat_keys WHERE event_id = OLD.id;
    END""",
)

#: The user's events since a day (an ISO date: the prefix bounds the index range whatever the stored
#: time format) that have no code yet.
UNCODED = ("SELECT e.id, e.event_summary FROM event_logs AS e WHERE e.user_id = ? AND e.created_at >= ? "
           "AND NOT EXISTS (SELECT 1 FROM event_repeat_keys AS r WHERE r.event_id = e.id)")
INSERT_CODE = "INSERT INTO event_repeat_keys (event_id, u, k) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
#: The texts and times of the user's events since a day whose code is the given one.
SAME_CODE = ("SELECT e.event_summary, e.created_at FROM event_repeat_keys AS r "
             "JOIN event_logs AS e ON e.id = r.event_id WHERE r.u = ? AND r.k = ? AND e.created_at >= ?")

_META = "SELECT value FROM kiraos_desktop_meta WHERE key = 'repeat_keys_version'"
_SET_META = ("INSERT INTO kiraos_desktop_meta (key, value) VALUES ('repeat_keys_version', ?) "
             "ON CONFLICT(key) DO UPDATE SET value = excluded.value")


def key_code(key: str) -> int:
    """The 64-bit signed code of a repeat key (fits SQLite's INTEGER and PostgreSQL's BIGINT)."""
    return int.from_bytes(hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest(), "big", signed=True)


def text_code(text: str) -> int:
    return key_code(repeat_key(text))


def ensure_repeat_schema(conn, triggers: bool = True) -> list[str]:
    """Inside the schema transaction (either backend: PostgreSQL's triggers are in pg_schema.py, so
    `triggers` False there): the SQLite triggers, and no rows of another KEYS_VERSION."""
    if triggers:
        for name in REPEAT_TRIGGER_NAMES:
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        for ddl in REPEAT_TRIGGERS:
            conn.execute(ddl)
    stored = conn.execute(_META).fetchone()
    if stored is not None and stored[0] == KEYS_VERSION:
        return []
    conn.execute("DELETE FROM event_repeat_keys")
    conn.execute(_SET_META, (KEYS_VERSION,))
    return ["repeat keys of another version dropped"] if stored is not None else []
