"""Issue 52: index and WAL upkeep is one call, MemoryStore.maintain(), the engine watcher's every tick:
other processes' commits are looked for only when asked to poll, the indexes take what was written."""
from __future__ import annotations

import sqlite3

from kiraos_desktop.core.storage.sqlite.store import SqliteStore


def test_maintain_publishes_another_processes_write_only_when_polling_and_indexes_it(tmp_path):
    store = SqliteStore(tmp_path / "m.db")
    try:
        store.add_event("u", "我们去爬山", actor="api")
        events = []
        store.changes.subscribe(events.append)
        other = sqlite3.connect(tmp_path / "m.db")
        other.execute("INSERT INTO event_logs (user_id, event_summary, created_at) "
                      "VALUES ('u', '周末去钓鱼', '2025-05-05T00:00:00')")
        other.commit()
        other.close()
        store.maintain()
        assert events == []
        store.maintain(poll=True)
        assert [(e.user_id, e.action) for e in events] == [(None, "external")]
        _, found, _ = store.recall_rows("u", ("钓鱼",), 0)
        assert "周末去钓鱼" in [e.summary for e in found]  # a superset of the matches
    finally:
        store.close()
