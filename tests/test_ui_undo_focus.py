"""The window's Undo (Ctrl+Z) wherever the focus is, except in a text field that has its own typing to
undo; and the user list follows an undo at once (issue: undo after Clear memory)."""
from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt

from kiraos_desktop.ui.main_window import PAGE_USERS
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, seed, shown_window

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


@pytest.fixture
def window(qtbot, engine, tmp_path):
    seed(engine, users=3)
    prompts = ScriptedPrompts(confirm=True)
    with shown_window(qtbot, engine, tmp_path, prompts) as window:
        window.sidebar.setCurrentRow(PAGE_USERS)
        yield window


def _users_page(window):
    return window.users_page


def test_ctrl_z_after_clear_memory_undoes_it_with_the_focus_in_the_search_field(qtbot, window, engine):
    page = _users_page(window)
    qtbot.waitUntil(lambda: page.model.rowCount() == 3, timeout=5000)
    page.search_edit.setFocus()
    qtbot.keyClicks(page.search_edit, "u1")  # typed: the field has an undo step of its own
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=5000)
    page.select_first_user()
    qtbot.waitUntil(lambda: page.detail.user_id == "u1", timeout=5000)
    page.detail.clear_button.click()
    assert engine.store.user_summary("u1") is None
    qtbot.waitUntil(lambda: page.model.rowCount() == 0, timeout=5000)
    page.search_edit.setFocus()
    qtbot.waitUntil(lambda: page.search_edit.hasFocus(), timeout=2000)
    qtbot.keyClick(page.search_edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert engine.store.user_summary("u1") is not None  # the window's undo ran
    assert page.search_edit.text() == "u1"  # the field kept its text
    started = time.monotonic()
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=5000)
    assert time.monotonic() - started < 1.0  # the list follows at once, not seconds later
    assert "1" in page.count_label.text() and "0 users" not in page.count_label.text()


def test_ctrl_z_in_a_field_with_typing_undoes_the_typing_only(qtbot, window, engine):
    page = _users_page(window)
    window.writer.write("Add", lambda batch: batch.add_event("u1", "刚加的事件"))
    before = len(engine.store.get_events("u1"))
    page.search_edit.setFocus()
    qtbot.waitUntil(lambda: page.search_edit.hasFocus(), timeout=2000)
    qtbot.keyClicks(page.search_edit, "abc")
    qtbot.keyClick(page.search_edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert page.search_edit.text() != "abc"  # the typing was undone
    assert len(engine.store.get_events("u1")) == before  # the write was not


def test_the_list_searching_contents_follows_an_undo_at_once(qtbot, window, engine):
    page = _users_page(window)
    page.content_box.setChecked(True)
    page.search_edit.setFocus()
    qtbot.keyClicks(page.search_edit, "u1")
    qtbot.waitUntil(lambda: page.model.in_content and page.model.search_text == "u1" and not page.model.busy,
                    timeout=5000)
    rows = page.model.rowCount()
    assert rows == 1
    page.select_first_user()
    qtbot.waitUntil(lambda: page.detail.user_id is not None, timeout=5000)
    user = page.detail.user_id
    page.detail.clear_button.click()
    qtbot.waitUntil(lambda: page.model.rowCount() == rows - 1, timeout=5000)
    started = time.monotonic()
    window.undo_action.trigger()
    assert engine.store.user_summary(user) is not None
    qtbot.waitUntil(lambda: page.model.rowCount() == rows, timeout=5000)
    assert time.monotonic() - started < 1.0


def test_ctrl_z_after_clear_memory_undoes_it_with_the_focus_in_the_list(qtbot, window, engine):
    """Issue 50: Ctrl+Z right after Clear memory did nothing with the focus in the user list."""
    page = _users_page(window)
    qtbot.waitUntil(lambda: page.model.rowCount() == 3, timeout=5000)
    page.view.setFocus()
    page.select_first_user()
    qtbot.waitUntil(lambda: page.detail.user_id == "u1", timeout=5000)
    page.detail.clear_button.click()
    assert engine.store.user_summary("u1") is None
    qtbot.waitUntil(lambda: page.model.rowCount() == 2, timeout=5000)
    page.view.setFocus()
    qtbot.waitUntil(lambda: page.view.hasFocus(), timeout=2000)
    qtbot.keyClick(page.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: engine.store.user_summary("u1") is not None, timeout=5000)
