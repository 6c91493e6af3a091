"""Users page: search (debounced, optionally inside memories), SQL sorting, keyboard, empty states."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from kiraos_desktop.ui.main_window import PAGE_USERS, MainWindow
from kiraos_desktop.ui.users.users_model import COL_EVENTS
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, open_engine, seed, ui_settings

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


@pytest.fixture
def engine(engine):
    seed(engine, users=12)
    engine.store.set_profile("u7", "宠物", "一只叫团子的猫", actor="cli")
    for n in range(5):
        engine.store.add_event("u3", f"额外事件 {n}", actor="cli")
    return engine


@pytest.fixture
def page(qtbot, engine, tmp_path):
    window = MainWindow(engine, None, ui_settings(tmp_path), ScriptedPrompts())
    qtbot.addWidget(window)
    window.show()
    window.show_page(PAGE_USERS)
    qtbot.waitExposed(window)
    yield window.users_page
    window.close()


def user_ids(page) -> list[str]:
    return [page.model.row_at(r).user_id for r in range(page.model.rowCount())]


def test_search_by_user_id_is_debounced(qtbot, page):
    qtbot.keyClicks(page.search_edit, "u1")
    assert len(user_ids(page)) == 12  # not yet: the search waits for typing to pause
    qtbot.waitUntil(lambda: user_ids(page) == ["u1", "u10", "u11", "u12"], timeout=2000)
    assert "4 users match" in page.count_label.text()


def test_search_inside_keys_values_and_events(qtbot, page):
    page.search_edit.setText("团子")
    qtbot.waitUntil(lambda: page.model.search_text == "团子", timeout=2000)
    assert user_ids(page) == []
    assert page.empty_state.isVisible() and "团子" in page.empty_state.text()
    page.content_box.setChecked(True)
    qtbot.waitUntil(lambda: user_ids(page) == ["u7"], timeout=5000)
    page.search_edit.setText("额外事件")
    qtbot.waitUntil(lambda: user_ids(page) == ["u3"], timeout=5000)


def test_sorting_is_done_by_the_store(qtbot, page):
    page.view.sortByColumn(COL_EVENTS, Qt.SortOrder.DescendingOrder)
    assert user_ids(page)[0] == "u3"
    page.view.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    assert user_ids(page)[:2] == ["u9", "u8"]


def test_sorting_keeps_the_selected_user(qtbot, page):
    page.select_user("u5")
    page.view.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    assert page.selected_user_id() == "u5"
    assert page.detail.user_id == "u5"


def test_keyboard_navigation(qtbot, page):
    page.search_edit.setFocus()
    qtbot.keyClick(page.search_edit, Qt.Key.Key_Down)
    assert page.view.hasFocus()
    assert page.selected_user_id() == "u1"
    qtbot.keyClick(page.view, Qt.Key.Key_Down)
    qtbot.keyClick(page.view, Qt.Key.Key_Down)
    assert page.selected_user_id() == user_ids(page)[2]
    assert page.detail.user_id == user_ids(page)[2]
    qtbot.keyClick(page.view, Qt.Key.Key_Return)
    assert page.detail.profile_tab.view.hasFocus()
    qtbot.keyClick(page.detail.profile_tab.view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert page.search_edit.hasFocus()


def test_empty_database_shows_an_empty_state(qtbot, tmp_path):
    engine = open_engine(tmp_path / "empty")
    try:
        window = MainWindow(engine, None, ui_settings(tmp_path), ScriptedPrompts())
        qtbot.addWidget(window)
        window.show()
        window.show_page(PAGE_USERS)
        page = window.users_page
        assert page.empty_state.isVisible() and "No users yet" in page.empty_state.text()
        assert page.detail.title_label.text() == "No user selected"
        window.close()
    finally:
        engine.close()


def test_content_search_results_follow_writes_and_enter_runs_it_again(qtbot, page, engine):
    page.content_box.setChecked(True)
    page.search_edit.setText("团子")
    qtbot.waitUntil(lambda: user_ids(page) == ["u7"], timeout=5000)
    events_before = page.model.row_at(0).event_count
    engine.store.add_event("u7", "又一件事", actor="api")
    qtbot.waitUntil(lambda: page.model.row_at(0).event_count == events_before + 1, timeout=3000)
    engine.store.set_profile("u2", "宠物", "也叫团子", actor="api")
    qtbot.wait(500)
    assert user_ids(page) == ["u7"]  # the slow search is not re-run on every write…
    page.search_edit.setFocus()
    qtbot.keyClick(page.search_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: user_ids(page) == ["u2", "u7"], timeout=5000)  # …but again on Enter
