"""Defects found by trying the window as a new operator: counts, expiry hints, the Context tab, user ids."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from kiraos_desktop.core.timeutil import to_iso
from kiraos_desktop.ui.i18n import apply_language, language_manager
from kiraos_desktop.ui.main_window import PAGE_API, PAGE_OVERVIEW, PAGE_SKILLS, PAGE_USERS, MainWindow
from kiraos_desktop.ui.users.expiry import describe_remaining
from kiraos_desktop.ui.users.user_detail import TAB_CONTEXT
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, seed, shown_window, ui_settings

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


@pytest.fixture
def engine(engine):
    seed(engine, users=3)
    return engine


@pytest.fixture
def window(qtbot, engine, tmp_path):
    with shown_window(qtbot, engine, tmp_path, ScriptedPrompts()) as window:
        yield window


@pytest.fixture
def english(qapp):
    """The English catalogue (its plural forms) installed, as the window does for English."""
    apply_language("en")
    yield
    language_manager().clear()


# ---- 9: plurals and the remaining time of a TTL --------------------------------------------------

def test_counts_of_one_are_singular(qtbot, english, window, engine):
    engine.store.set_profile("solo", "昵称", "一", actor="cli")
    engine.store.add_event("solo", "来过", actor="cli")
    page = window.users_page
    window.show_page(PAGE_USERS)
    page.detail.set_user("solo")
    assert page.detail.summary_label.text().startswith("1 profile entry · 1 event · ")
    page.search_edit.setText("solo")
    qtbot.waitUntil(lambda: page.model.search_text == "solo", timeout=3000)
    assert page.count_label.text() == "1 user matches “solo”"
    page.search_edit.setText("")
    qtbot.waitUntil(lambda: page.model.search_text == "", timeout=3000)
    assert page.count_label.text() == "4 users"
    assert page.detail.profile_tab.count_label.text() == "1 entry"
    from kiraos_desktop.ui.users.user_detail import TAB_HISTORY

    page.detail.set_user("solo")
    page.detail.tabs.setCurrentIndex(TAB_HISTORY)
    history = page.detail.history_tab
    qtbot.waitUntil(lambda: history.model.rowCount() == 2, timeout=3000)
    assert history.count_label.text() == "2 changes"
    engine.store.clear_user("solo", actor="cli")
    engine.store.set_profile("duo", "昵称", "二", actor="cli")
    page.detail.set_user("duo")
    qtbot.waitUntil(lambda: history.model.rowCount() == 1, timeout=3000)
    assert history.count_label.text() == "1 change"


@pytest.mark.parametrize("ttl, shown", [(timedelta(days=7), "7 d"), (timedelta(hours=12), "12 h"),
                                        (timedelta(minutes=30), "30 min"), (timedelta(days=2), "2 d")])
def test_a_fresh_ttl_shows_what_was_typed(ttl, shown):
    typed_at = datetime(2026, 3, 1, 12, 0, 0)
    expires = to_iso(typed_at + ttl)
    assert describe_remaining(expires, typed_at + timedelta(seconds=3)) == shown  # not "6 d" a moment later


# ---- 6: the Context tab says which events are not in the block ----------------------------------

def test_context_tab_counts_events_beyond_events_in_context(qtbot, window, engine):
    engine.update_settings(engine.settings.replace(max_events_per_user=3, max_context_chars=0))
    for n in range(5):
        engine.store.add_event("u1", f"事件{n}", actor="cli")  # u1 has 2 events from the seed: 7 in all
    page = window.users_page
    window.show_page(PAGE_USERS)
    page.select_user("u1")
    page.detail.tabs.setCurrentIndex(TAB_CONTEXT)
    tab = page.detail.context_tab
    text = tab.dropped_label.text()
    assert "Nothing was left out" not in text
    assert "4 older events" in text and "Events in context" in text and "3" in text


def test_context_tab_says_nothing_was_left_out_only_when_true(qtbot, window, engine):
    page = window.users_page
    window.show_page(PAGE_USERS)
    page.select_user("u1")
    page.detail.tabs.setCurrentIndex(TAB_CONTEXT)
    assert page.detail.context_tab.dropped_label.text() == "Nothing was left out."


# ---- 2: user ids readable at the default size and at 1024x700 -------------------------------------

@pytest.mark.parametrize("size", [(1180, 760), (1024, 700)])
def test_user_ids_are_readable(qtbot, window, engine, size):
    engine.store.set_profile("qq_1000000001", "昵称", "长", actor="cli")
    window.resize(*size)
    window.show_page(PAGE_USERS)
    page = window.users_page
    page.model.reload()
    QApplication.processEvents()
    view = page.view
    needed = view.fontMetrics().horizontalAdvance("qq_1000000001")
    assert view.columnWidth(0) >= needed + 8
    assert view.horizontalScrollBar().maximum() == 0 or not view.horizontalScrollBar().isVisible()


# ---- 2: every page usable at 1024x700 ------------------------------------------------------------

def _page_scrolls_sideways(window) -> bool:
    scroller = window.stack.currentWidget()
    return scroller.horizontalScrollBar().maximum() > 0


@pytest.mark.parametrize("page", [PAGE_OVERVIEW, PAGE_USERS, PAGE_SKILLS, PAGE_API])
def test_every_page_fits_1024x700_without_sideways_scrolling(qtbot, window, page):
    window.resize(1024, 700)
    window.show_page(page)
    if page == PAGE_USERS:
        window.users_page.select_first_user()
    if page == PAGE_SKILLS:
        window.skills_page.open_first_skill_with_sample_arguments()
    qtbot.waitUntil(lambda: window.stack.currentWidget().widget().width() > 0, timeout=2000)
    QApplication.processEvents()
    tabs = range(4) if page == PAGE_USERS else [None]
    for tab in tabs:
        if tab is not None:
            window.users_page.detail.tabs.setCurrentIndex(tab)
            QApplication.processEvents()
        assert not _page_scrolls_sideways(window), (page, tab)


def test_skills_page_at_1024x700_shows_the_preview_and_the_problem_messages(qtbot, window):
    from kiraos_desktop.ui.skills.problems_panel import MESSAGE

    window.resize(1024, 700)
    window.show_page(PAGE_SKILLS)
    skills = window.skills_page
    skills.open_first_skill_with_sample_arguments()
    QApplication.processEvents()
    preview = skills.workbench.preview
    assert preview.visibleRegion().boundingRect().width() >= 200
    from kiraos_desktop.core.skills.problems import Problem

    skills.workbench.problems.set_problems([Problem("warning", "description", "says nothing a host could use")])
    QApplication.processEvents()
    view = skills.workbench.problems.view
    assert view.isVisible()
    assert view.columnWidth(MESSAGE) >= 120
    assert view.columnViewportPosition(MESSAGE) + 120 <= view.viewport().width()


# ---- 5: keyboard ----------------------------------------------------------------------------------

def test_ctrl_digits_switch_pages_and_ctrl_comma_opens_settings(qtbot, window, monkeypatch):
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    for key, page in ((Qt.Key.Key_2, PAGE_USERS), (Qt.Key.Key_3, PAGE_SKILLS), (Qt.Key.Key_4, PAGE_API),
                      (Qt.Key.Key_1, PAGE_OVERVIEW)):
        qtbot.keyClick(window.focusWidget() or window, key, Qt.KeyboardModifier.ControlModifier)
        assert window.current_page() == page
    opened = []
    from kiraos_desktop.ui import settings_dialog

    monkeypatch.setattr(settings_dialog.SettingsDialog, "exec", lambda self: opened.append(self) or 0)
    qtbot.keyClick(window.focusWidget() or window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    assert len(opened) == 1


def test_tab_leaves_the_tables(qtbot, window):
    window.show_page(PAGE_USERS)
    page = window.users_page
    page.select_first_user()
    page.view.setFocus()
    qtbot.keyClick(page.view, Qt.Key.Key_Tab)
    assert not page.view.hasFocus()
    profile_view = page.detail.profile_tab.view
    profile_view.setFocus()
    qtbot.keyClick(profile_view, Qt.Key.Key_Tab)
    assert not profile_view.hasFocus()


def test_ctrl_tab_switches_the_user_tabs_from_the_list(qtbot, window):
    window.show_page(PAGE_USERS)
    page = window.users_page
    page.select_first_user()
    page.view.setFocus()
    tabs = page.detail.tabs
    assert tabs.currentIndex() == 0
    qtbot.keyClick(page.view, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert tabs.currentIndex() == 1
    qtbot.keyClick(page.view, Qt.Key.Key_Backtab,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert tabs.currentIndex() == 0
    qtbot.keyClick(page.view, Qt.Key.Key_Backtab,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert tabs.currentIndex() == 3  # wraps around


def test_ctrl_enter_submits_the_event_dialog(qtbot, engine):
    from kiraos_desktop.ui.users.entry_dialogs import AddEventDialog

    written = []
    dialog = AddEventDialog("u1", written.append)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow, timeout=2000)
    dialog.summary_edit.setFocus()
    qtbot.keyClicks(dialog.summary_edit, "first line")
    qtbot.keyClick(dialog.summary_edit, Qt.Key.Key_Return)  # a plain Enter is a new line
    qtbot.keyClicks(dialog.summary_edit, "second")
    assert written == []
    qtbot.keyClick(dialog.summary_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert written == ["first line\nsecond"]
    assert dialog.result() == dialog.DialogCode.Accepted


# ---- 8: clear memory keeps the selection; undoing it is one row of Recent changes --------------------

def test_clear_memory_keeps_the_cleared_user_in_view(qtbot, engine, tmp_path):
    window = MainWindow(engine, None, ui_settings(tmp_path), ScriptedPrompts(confirm=True))
    qtbot.addWidget(window)
    window.show()
    window.show_page(PAGE_USERS)
    page = window.users_page
    page.select_user("u2")
    page.detail.clear_button.click()
    qtbot.waitUntil(lambda: page.model.row_of_key("u2") < 0, timeout=3000)  # the list follows the change
    QApplication.processEvents()
    assert page.detail.user_id == "u2"  # not the next user that slid under the selection
    assert page.selected_user_id() is None
    assert "No memory" in page.detail.summary_label.text()
    window.undo_action.trigger()
    window.coalescer.flush()
    qtbot.waitUntil(lambda: page.selected_user_id() == "u2", timeout=3000)
    assert page.detail.user_id == "u2"
    window.close()


def test_undoing_a_clear_is_one_row_in_recent_changes(qtbot, engine, tmp_path):
    window = MainWindow(engine, None, ui_settings(tmp_path), ScriptedPrompts(confirm=True))
    qtbot.addWidget(window)
    window.show()
    window.writer.write("clear", lambda batch: batch.clear_user("u1"))
    window.undo_action.trigger()
    window.show_page(PAGE_OVERVIEW)
    feed = window.overview_page.feed_model
    feed.refresh()
    rows = [feed.index(r, 3).data() for r in range(feed.rowCount()) if feed.index(r, 2).data() == "u1"]
    # The seed's write, the clear, and its undo (4 entries and 2 events restored in one write).
    assert len(rows) == 3, rows
    assert "set entry ×4" in rows[0] and "add event ×2" in rows[0]
    assert rows[1].startswith("clear memory")
    window.close()


# ---- 10: long and multi-line values and events in a multi-line editor --------------------------------

def test_a_multi_line_value_opens_in_the_multi_line_editor_and_ctrl_enter_saves(qtbot, window, engine):
    engine.store.set_profile("u1", "简介", "第一行\n第二行", actor="cli")
    window.show_page(PAGE_USERS)
    window.activateWindow()
    page = window.users_page
    page.select_user("u1")
    tab = page.detail.profile_tab
    tab.refresh()
    from kiraos_desktop.ui.users.profile_model import COL_VALUE

    source_row = tab.model.row_of_key("简介")
    index = tab.proxy.mapFromSource(tab.model.index(source_row, COL_VALUE))
    tab.view.setCurrentIndex(index)
    tab.view.edit(index)  # what a double-click does
    qtbot.waitUntil(lambda: tab.text_dialog is not None and tab.text_dialog.isVisible(), timeout=2000)
    dialog = tab.text_dialog
    assert dialog.editor.toPlainText() == "第一行\n第二行"
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow, timeout=2000)
    dialog.editor.setFocus()
    dialog.editor.moveCursor(dialog.editor.textCursor().MoveOperation.End)
    qtbot.keyClick(dialog.editor, Qt.Key.Key_Return)
    qtbot.keyClicks(dialog.editor, "third")
    qtbot.keyClick(dialog.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: tab.text_dialog is None, timeout=2000)
    assert engine.store.get_profile("u1", "简介").value == "第一行\n第二行\nthird"
    window.undo_action.trigger()
    assert engine.store.get_profile("u1", "简介").value == "第一行\n第二行"


def test_the_multi_line_editor_refuses_an_empty_event_and_keeps_the_text(qtbot, window, engine):
    window.show_page(PAGE_USERS)
    page = window.users_page
    page.select_user("u1")
    page.detail.tabs.setCurrentIndex(1)
    tab = page.detail.events_tab
    tab.view.setCurrentIndex(tab.model.index(0, 1))
    tab.long_edit_action.trigger()
    dialog = tab.text_dialog
    assert dialog is not None and dialog.isVisible()
    before = tab.model.index(0, 1).data()
    dialog.editor.setPlainText("   ")
    dialog.buttons.accepted.emit()
    assert dialog.isVisible() and dialog.error.isVisible() and "empty" in dialog.error.text()
    assert tab.model.index(0, 1).data() == before
    dialog.editor.setPlainText("多行\n事件")
    dialog.buttons.accepted.emit()
    qtbot.waitUntil(lambda: tab.text_dialog is None, timeout=2000)
    assert "多行\n事件" in [e.summary for e in engine.store.get_events("u1")]


# ---- 11: New user… --------------------------------------------------------------------------------

def test_new_user_with_a_first_entry(qtbot, window, engine):
    window.show_page(PAGE_USERS)
    page = window.users_page
    page.new_user_button.click()
    dialog = page.new_user_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.user_edit.setText("u1")  # already has memory
    dialog.key_edit.setText("昵称")
    dialog.value_edit.setText("新人")
    dialog.buttons.accepted.emit()
    assert dialog.isVisible() and "already has memory" in dialog.errors["user_id"].text()
    dialog.user_edit.setText("qq_42")
    dialog.confidence_edit.setText("1.5")
    dialog.buttons.accepted.emit()
    assert dialog.isVisible() and engine.store.user_summary("qq_42") is None
    dialog.confidence_edit.setText("0.9")
    dialog.buttons.accepted.emit()
    qtbot.waitUntil(lambda: page.new_user_dialog is None, timeout=2000)
    entry = engine.store.get_profile("qq_42", "昵称")
    assert (entry.value, entry.confidence) == ("新人", 0.9)
    assert page.selected_user_id() == "qq_42" and page.detail.user_id == "qq_42"
    window.undo_action.trigger()
    assert engine.store.user_summary("qq_42") is None


@pytest.mark.parametrize("tab", [0, 1, 3])
def test_at_1024x700_the_user_tables_need_no_sideways_scrolling(qtbot, window, engine, tab):
    window.resize(1024, 700)
    window.show_page(PAGE_USERS)
    page = window.users_page
    page.select_user("u1")
    page.detail.tabs.setCurrentIndex(tab)
    QApplication.processEvents()
    view = page.detail.tabs.currentWidget().view
    assert view.horizontalScrollBar().maximum() == 0, tab
    assert page.view.columnWidth(0) >= page.view.fontMetrics().horizontalAdvance("qq_1000000001")


# ---- importing a file that is no export --------------------------------------------------------

@pytest.mark.parametrize("content", ['{"hello": 1}', "", "[1, 2]", '{"format": "kiraos-plugin"}'])
def test_importing_another_kind_of_file_says_what_an_export_is(qtbot, window, engine, tmp_path, content):
    path = tmp_path / "other.json"
    path.write_text(content, encoding="utf-8")
    window._prompts.save_path = str(path)  # what open_file answers
    window.import_action.trigger()
    assert len(window._prompts.errors) == 1
    message = window._prompts.errors[0]
    assert "other.json is not a KiraOS Desktop export (those are written by File > Export…" in message
    assert message.endswith("Nothing was changed.")


def test_an_export_with_a_bad_entry_names_the_entry_only(qtbot, window, engine, tmp_path):
    path = tmp_path / "bad-entry.json"
    path.write_text('{"format": "kiraos-desktop-export", "version": 1, "users": [{"user_id": ""}]}',
                    encoding="utf-8")
    window._prompts.save_path = str(path)
    window.import_action.trigger()
    assert len(window._prompts.errors) == 1
    assert "users[0].user_id" in window._prompts.errors[0]
    assert "is not a KiraOS Desktop export" not in window._prompts.errors[0]
