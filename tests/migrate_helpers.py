"""A SQLite memory worth migrating, and looks at a PostgreSQL target (tables, rows)."""
from __future__ import annotations

import psycopg

from kiraos_desktop.core.engine import Engine


def seed_memory(engine: Engine, users: int = 12) -> None:
    """Users with entries, expiring entries, events beyond the retention (so deleted ids leave gaps),
    edits, deletions and a user with only history; the recall index built."""
    engine.update_settings(engine.settings.replace(max_event_keep=5))
    store = engine.store
    for n in range(users):
        user = f"user-{n}"
        with store.batch("cli") as batch:
            batch.set_profile(user, "昵称", f"小明{n}", confidence=0.9)
            batch.set_profile(user, "城市", "北京", category="basic", confidence=0.7)
            batch.set_profile(user, "临时", "x", category="other", expires_at="2020-01-01T00:00:00")
            for e in range(n % 8):
                batch.add_event(user, f"第{e}件事 完成半马 {n}")
        if n % 3 == 0:
            store.delete_profile(user, "城市", actor="api")
        if n % 4 == 0:
            store.set_profile(user, "昵称", "改名", actor="gui")
    store.clear_user("user-5", actor="gui")  # history only: a summary row with zero counts
    while not store.recall_build_complete:
        store.recall_build_step()


def pg_table_names(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return sorted(r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"))


def pg_count(url: str, table: str) -> int:
    with psycopg.connect(url) as conn:
        return conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
