"""The recall index holds the events of users past INDEX_PAST events only; every recall is the same."""
import sqlite3

import pytest

from core_helpers import PLUGIN_DDL, make_engine, plugin_db
from store_backends import SQLITE_ONLY
from kiraos_desktop.core.storage import recall_index
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.recall.ranking import build_index

pytestmark = pytest.mark.usefixtures("engine_backend")  # every test on SQLite and PostgreSQL

PLANTED = "养了一只橘猫叫咪咪"
WIDE = "拿到了ＰｈＤ学位"  # full-width letters: SQL's lower() never matches "phd" in it, recall's folding does
OLD = "2024-03-01T10:00:00"


def _postings(store, user: str) -> int:
    return store._rows("SELECT count(*) FROM recall_terms WHERE u = (SELECT num FROM recall_users "
                       f"WHERE user_id = '{user}')")[0][0]


def _is_indexed(store, user: str) -> bool:
    return bool(store._rows(f"SELECT count(*) FROM recall_users WHERE user_id = '{user}'")[0][0])


def _add_events(store, user: str, count: int, start: int = 0) -> None:
    with store.batch("gui") as batch:
        for i in range(start, start + count):
            batch.add_event(user, f"第{i}次打卡上班", created_at=f"2026-{1 + i // 28 % 12:02d}-{1 + i % 28:02d}T09:00:00")


def test_a_user_with_few_events_has_none_in_the_index_and_is_recalled_all_the_same(data_dir):
    engine = make_engine(data_dir)
    try:
        store = engine.store
        store.add_event("u", PLANTED, actor="gui", created_at=OLD)
        store.add_event("u", WIDE, actor="gui", created_at=OLD)
        _add_events(store, "u", 40)
        assert not _is_indexed(store, "u") and store._rows("SELECT count(*) FROM recall_terms")[0][0] == 0
        assert store._rows("SELECT count(*) FROM recall_queue")[0][0] == 0  # taken, not indexed
        assert PLANTED in engine.context.build(["u"], query="咪咪还好吗").text
        assert WIDE in engine.context.build(["u"], query="PhD").text
        assert PLANTED in engine.tools.call("memory_query", "u", {"query": "咪咪"}).content
        assert WIDE in engine.tools.call("memory_query", "u", {"query": "phd"}).content
    finally:
        engine.close()


def test_a_user_passing_index_past_is_indexed_whole_and_recalled_beyond_the_scan(data_dir):
    engine = make_engine(data_dir, max_event_keep=0)
    try:
        store = engine.store
        store.add_event("u", PLANTED, actor="gui", created_at=OLD)
        _add_events(store, "u", recall_index.INDEX_PAST - 1)
        assert not _is_indexed(store, "u")
        _add_events(store, "u", 30, start=recall_index.INDEX_PAST)  # past it, and past SCAN_LIMIT
        assert _is_indexed(store, "u")
        indexed = {r[0] for r in store._rows("SELECT DISTINCT event_id FROM recall_terms")}
        assert indexed == {e.id for e in store.get_events("u")}  # every event, the oldest too
        latest, found, total = store.recall_rows("u", ("咪咪",), 3)
        assert [e.summary for e in found] == [PLANTED] and total == recall_index.INDEX_PAST + 30
        assert PLANTED in engine.context.build(["u"], query="咪咪还好吗").text
        store.add_event("u", "又养了一只猫叫咪咪二号", actor="gui")  # later events follow the queue
        assert _postings(store, "u") > len(indexed)
    finally:
        engine.close()


@SQLITE_ONLY
def test_a_user_the_plugin_pushes_past_index_past_is_recalled_before_and_after_the_catch_up(data_dir):
    engine = make_engine(data_dir, max_event_keep=0)
    try:
        store = engine.store
        store.add_event("u", PLANTED, actor="gui", created_at=OLD)
        other = sqlite3.connect(engine.paths.db_path)
        other.executemany("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES ('u', ?, ?)",
                          [(f"日常记录{i}", f"2026-10-{1 + i % 28:02d}T00:00:00")
                           for i in range(recall_index.SCAN_LIMIT + 10)])
        other.commit()
        other.close()
        assert store.poll_external_change()
        assert not _is_indexed(store, "u")  # not yet: every event of the user is a candidate
        assert PLANTED in engine.context.build(["u"], query="咪咪").text
        assert store.recall_catch_up() > 0
        assert _is_indexed(store, "u") and _postings(store, "u") >= recall_index.SCAN_LIMIT + 11
        assert PLANTED in engine.context.build(["u"], query="咪咪").text
    finally:
        engine.close()


@SQLITE_ONLY
def test_an_index_of_every_user_is_rebuilt_for_the_users_past_index_past(tmp_path):
    db = tmp_path / "kiraos.db"
    engine = Engine.open(data_dir=tmp_path / "data", db=db)
    engine.update_settings(engine.settings.replace(max_event_keep=0))
    engine.store.add_event("small", PLANTED, actor="gui", created_at=OLD)
    _add_events(engine.store, "big", recall_index.INDEX_PAST + 5)
    engine.close()
    conn = sqlite3.connect(db)  # as the last version left it: every user in the index
    conn.execute("UPDATE kiraos_desktop_meta SET value = '1' WHERE key = 'recall_version'")
    conn.execute("DELETE FROM recall_terms")
    conn.execute("DELETE FROM recall_users")
    conn.execute("INSERT INTO recall_users (user_id) VALUES ('small')")
    conn.execute("INSERT INTO recall_terms (u, term, event_id) VALUES (1, '咪咪', 1)")
    conn.commit()
    conn.close()
    engine = Engine.open(data_dir=tmp_path / "data", db=db)
    try:
        store = engine.store
        assert "recall index to build" in store.migrations and not store.recall_build_complete
        assert not _is_indexed(store, "small") and store._rows("SELECT count(*) FROM recall_terms")[0][0] == 0
        assert build_index(store)
        assert _is_indexed(store, "big") and not _is_indexed(store, "small")
        assert _postings(store, "big") >= recall_index.INDEX_PAST + 5
        assert PLANTED in engine.context.build(["small"], query="咪咪").text
    finally:
        engine.close()


def test_index_past_is_never_above_the_scan():
    assert recall_index.INDEX_PAST <= recall_index.SCAN_LIMIT
