"""The Users page's search in keys, values and events: through the index, lazy, count and list agreeing."""
from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import Qt

from core_helpers import PLUGIN_DDL, plugin_db
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.ui.main_window import PAGE_USERS
from kiraos_desktop.ui.recall_build import RecallBuildIndicator
from kiraos_desktop.ui.users.users_model import COL_EVENTS, PAGE_SIZE
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, shown_window

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)

RUNNERS = 450


@pytest.fixture
def engine(engine):
    with engine.store.batch("cli") as batch:
        for n in range(RUNNERS):
            batch.add_event(f"r{n:03d}", "参加了城市马拉松", created_at="2025-03-01T10:00:00")
            if n % 2:
                batch.add_event(f"r{n:03d}", "又跑了一次", created_at="2025-03-02T10:00:00")
        batch.set_profile("zed", "爱好", "Marathon running", category="preference")
        batch.set_profile("amy", "城市", "上海")
    return engine


def test_the_window_searches_words_lazily_with_the_count_agreeing(qtbot, engine, tmp_path):
    with shown_window(qtbot, engine, tmp_path, ScriptedPrompts()) as window:
        window.show_page(PAGE_USERS)
        page = window.users_page
        page.content_box.setChecked(True)
        page.search_edit.setText("马拉松")
        qtbot.waitUntil(lambda: page.model.search_text == "马拉松" and not page.model.busy, timeout=5000)
        model = page.model
        assert model.total == RUNNERS and f"{RUNNERS} users match" in page.count_label.text()
        assert model.rowCount() == PAGE_SIZE and model.canFetchMore()  # only the first page is read
        page.view.scrollToBottom()  # the view asks for more as it scrolls
        qtbot.waitUntil(lambda: model.rowCount() > PAGE_SIZE, timeout=3000)
        while model.canFetchMore():
            model.fetchMore()
        assert [model.row_at(r).user_id for r in range(model.rowCount())] == [f"r{n:03d}" for n in range(RUNNERS)]
        page.view.sortByColumn(COL_EVENTS, Qt.SortOrder.DescendingOrder)  # the search runs again, sorted
        qtbot.waitUntil(lambda: not model.busy and model.rowCount() and model.row_at(0).event_count == 2, timeout=5000)
        assert model.total == RUNNERS
        page.search_edit.setText("MARATHON")  # English: a whole word, any case
        qtbot.waitUntil(lambda: model.search_text == "MARATHON" and not model.busy
                        and [model.row_at(r).user_id for r in range(model.rowCount())] == ["zed"], timeout=5000)
        assert "1 user matches" in page.count_label.text() or "1 users match" in page.count_label.text()
        other = sqlite3.connect(engine.store.path)  # the plugin writes; Enter runs the search again
        other.execute("INSERT INTO user_profiles (user_id, memory_key, memory_value) VALUES ('yan', 'sport', 'marathon')")
        other.commit()
        other.close()
        page.search_edit.setFocus()
        qtbot.keyClick(page.search_edit, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: not model.busy and model.total == 2, timeout=5000)


def test_the_window_builds_the_search_index_of_an_existing_database(qtbot, tmp_path):
    db = tmp_path / "kiraos.db"
    conn = plugin_db(db, PLUGIN_DDL)
    conn.executemany("INSERT INTO user_profiles (user_id, memory_key, memory_value) VALUES (?, '城市', ?)",
                     [(f"u{n}", "北京" if n % 2 else "上海") for n in range(30)])
    conn.executemany("INSERT INTO event_logs (user_id, event_summary) VALUES (?, '学会了游泳')",
                     [(f"u{n}",) for n in range(0, 30, 3)])
    conn.commit()
    conn.close()
    engine = Engine.open(data_dir=tmp_path / "data", db=db)
    try:
        store = engine.store
        store.recall_build_step(10_000)
        assert store.recall_build_complete and not store.user_search_build_complete
        indicator = RecallBuildIndicator(store)
        qtbot.addWidget(indicator)
        messages = []
        indicator.message.connect(messages.append)
        assert indicator.start()
        assert indicator.label.text() == "Indexing users for search"
        qtbot.waitUntil(lambda: not indicator.is_running(), timeout=10000)
        assert store.user_search_build_complete
        assert messages == ["Search index built: keys, values and events are searched quickly."]
        assert store.search_user_ids("北京 游泳") == [f"u{n}" for n in sorted(range(3, 30, 6), key=str)]
        assert not indicator.start()
    finally:
        engine.close()
