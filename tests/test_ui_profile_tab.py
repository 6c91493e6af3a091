"""Profile tab: inline editing of value, category, confidence and expiry, add, delete, expired entries, undo."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QInputMethodEvent, QPalette, QUndoStack
from PySide6.QtWidgets import QAbstractItemView, QApplication, QComboBox, QLineEdit

from kiraos_desktop.core.timeutil import parse_timestamp
from kiraos_desktop.ui.undo import UndoableWriter
from kiraos_desktop.ui.users.profile_model import (
    COL_CATEGORY,
    COL_CONFIDENCE,
    COL_EXPIRES,
    COL_KEY,
    COL_VALUE,
)
from kiraos_desktop.ui.users.profile_tab import ProfileTab
from ui_helpers import OFFSCREEN_NOTE, seed, snapshot

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


@pytest.fixture
def engine(engine):
    seed(engine, users=2)
    return engine


@pytest.fixture
def stack(qapp):
    stack = QUndoStack()
    yield stack
    stack.clear()


@pytest.fixture
def tab(qtbot, engine, stack):
    tab = ProfileTab(engine.store, UndoableWriter(engine.store, stack))
    qtbot.addWidget(tab)
    tab.resize(900, 500)
    tab.show()
    tab.set_user("u1")
    qtbot.waitExposed(tab)
    return tab


def cell(tab: ProfileTab, key: str, column: int):
    source_row = tab.model.row_of_key(key)
    return tab.proxy.mapFromSource(tab.model.index(source_row, column))


def open_editor(qtbot, tab: ProfileTab, key: str, column: int, kind):
    index = cell(tab, key, column)
    tab.view.setCurrentIndex(index)
    tab.view.edit(index)
    qtbot.waitUntil(lambda: tab.view.state() == QAbstractItemView.State.EditingState, timeout=2000)
    editor = tab.view.indexWidget(index)
    assert isinstance(editor, kind), editor
    editor.setFocus()
    return editor


def type_into(qtbot, editor: QLineEdit, text: str) -> None:
    """Replace the text as a person would: ASCII by keys, other scripts through the input method."""
    editor.selectAll()
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    if text.isascii():
        qtbot.keyClicks(editor, text)
    else:
        event = QInputMethodEvent()
        event.setCommitString(text)
        QApplication.sendEvent(editor, event)


def test_edit_value_inline(qtbot, tab, engine):
    editor = open_editor(qtbot, tab, "城市", COL_VALUE, QLineEdit)
    type_into(qtbot, editor, "上海")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: engine.store.get_profile("u1", "城市").value == "上海", timeout=2000)
    entry = engine.store.get_profile("u1", "城市")
    assert (entry.confidence, entry.category, entry.expires_at) == (0.8, "basic", None)
    assert cell(tab, "城市", COL_VALUE).data() == "上海"
    assert engine.store.list_changes("u1", limit=1)[0].actor == "gui"


def test_change_category_and_confidence(qtbot, tab, engine):
    combo = open_editor(qtbot, tab, "好友", COL_CATEGORY, QComboBox)
    combo.setCurrentIndex(combo.findText("other"))
    combo.activated.emit(combo.currentIndex())
    qtbot.waitUntil(lambda: engine.store.get_profile("u1", "好友").category == "other", timeout=2000)
    qtbot.waitUntil(lambda: tab.view.state() != QAbstractItemView.State.EditingState, timeout=2000)
    edit = open_editor(qtbot, tab, "好友", COL_CONFIDENCE, QLineEdit)
    assert edit.text() == "0.40"
    type_into(qtbot, edit, "0.95")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: engine.store.get_profile("u1", "好友").confidence == 0.95, timeout=2000)
    entry = engine.store.get_profile("u1", "好友")
    assert (entry.value, entry.category) == ("小红", "other")
    assert cell(tab, "好友", COL_CONFIDENCE).data().startswith("0.95 ✓")


def test_set_ttl_and_a_date(qtbot, tab, engine):
    editor = open_editor(qtbot, tab, "喜欢猫", COL_EXPIRES, QLineEdit)
    type_into(qtbot, editor, "7d")
    before = datetime.now()
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: engine.store.get_profile("u1", "喜欢猫").expires_at is not None, timeout=2000)
    expires = parse_timestamp(engine.store.get_profile("u1", "喜欢猫").expires_at)
    assert before + timedelta(days=7) - timedelta(seconds=5) <= expires <= datetime.now() + timedelta(days=7)
    qtbot.waitUntil(lambda: tab.view.state() != QAbstractItemView.State.EditingState, timeout=2000)
    editor = open_editor(qtbot, tab, "喜欢猫", COL_EXPIRES, QLineEdit)
    type_into(qtbot, editor, "2099-12-31")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: engine.store.get_profile("u1", "喜欢猫").expires_at == "2099-12-31T00:00:00",
                    timeout=2000)
    assert "2099-12-31" in cell(tab, "喜欢猫", COL_EXPIRES).data()


@pytest.mark.parametrize("column, text, message_part", [
    (COL_EXPIRES, "abc", "30m, 12h, 7d"),
    (COL_EXPIRES, "7x", "neither a TTL nor a date"),
    (COL_VALUE, "", "must not be empty"),
    (COL_CONFIDENCE, "1.5", "between 0 and 1"),  # refused like a bad TTL, never clamped to 1.00
    (COL_CONFIDENCE, "-0.2", "between 0 and 1"),
    (COL_CONFIDENCE, "high", "between 0 and 1"),
])
def test_invalid_input_is_refused_at_the_field(qtbot, tab, engine, column, text, message_part):
    before = snapshot(engine.store.path)
    editor = open_editor(qtbot, tab, "城市", column, QLineEdit)
    type_into(qtbot, editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    # The editor stays open, the field shows why, and nothing was written.
    assert tab.view.state() == QAbstractItemView.State.EditingState
    assert tab.delegate.bubble.isVisible()
    assert message_part in tab.delegate.bubble.text()
    assert editor.toolTip() == tab.delegate.bubble.text()
    # Moving to another cell does not write the invalid text either; the tab says so.
    tab.view.setCurrentIndex(cell(tab, "昵称", COL_KEY))
    qtbot.waitUntil(lambda: tab.view.state() != QAbstractItemView.State.EditingState, timeout=2000)
    assert tab.message_label.isVisible() and message_part in tab.message_label.text()
    assert not tab.delegate.bubble.isVisible()
    assert snapshot(engine.store.path) == before


def test_add_entry_with_validation_at_the_fields(qtbot, tab, engine):
    tab.add_button.click()
    dialog = tab.add_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.key_edit.setText("城市")
    dialog.value_edit.setText("广州")
    dialog.buttons.accepted.emit()
    assert dialog.isVisible() and dialog.errors["key"].isVisible()  # the key exists already
    dialog.key_edit.setText("职业")
    dialog.value_edit.setText("程序员")
    dialog.category_combo.setCurrentText("preference")
    dialog.confidence_edit.setText("1.5")
    dialog.buttons.accepted.emit()
    assert dialog.isVisible() and "between 0 and 1" in dialog.errors["confidence"].text()
    assert engine.store.get_profile("u1", "职业") is None
    dialog.confidence_edit.setText("0.7")
    dialog.expiry_edit.setText("soon")
    dialog.buttons.accepted.emit()
    assert dialog.isVisible() and dialog.errors["expires_at"].isVisible()
    assert engine.store.get_profile("u1", "职业") is None
    dialog.expiry_edit.setText("2w")
    dialog.buttons.accepted.emit()
    qtbot.waitUntil(lambda: tab.add_dialog is None, timeout=2000)
    entry = engine.store.get_profile("u1", "职业")
    assert (entry.value, entry.category, entry.confidence) == ("程序员", "preference", 0.7)
    assert entry.expires_at is not None
    assert tab.selected_keys() == ["职业"]


def test_add_entry_over_the_limit_is_refused_in_the_dialog(qtbot, tab, engine):
    engine.update_settings(engine.settings.replace(max_profiles_per_user=4))
    tab.add_button.click()
    dialog = tab.add_dialog
    dialog.key_edit.setText("新键")
    dialog.value_edit.setText("值")
    dialog.buttons.accepted.emit()
    assert dialog.isVisible() and "limit" in dialog.general_error.text()
    assert engine.store.get_profile("u1", "新键") is None
    dialog.reject()


def test_multi_delete_and_undo_redo(qtbot, tab, engine, stack):
    before = snapshot(engine.store.path)
    selection = tab.view.selectionModel()
    tab.view.setCurrentIndex(cell(tab, "昵称", COL_KEY))
    selection.select(cell(tab, "好友", COL_KEY), selection.SelectionFlag.Select | selection.SelectionFlag.Rows)
    assert sorted(tab.selected_keys()) == sorted(["昵称", "好友"])
    tab.delete_button.click()
    assert engine.store.get_profile("u1", "昵称") is None and engine.store.get_profile("u1", "好友") is None
    after = snapshot(engine.store.path)
    assert stack.count() == 1
    stack.undo()
    assert snapshot(engine.store.path) == before
    stack.redo()
    assert snapshot(engine.store.path) == after
    stack.undo()
    assert snapshot(engine.store.path) == before


def test_expired_entries_hidden_greyed_and_purged(qtbot, tab, engine, stack):
    engine.store.set_profile("u1", "旧地址", "天津", actor="cli", expires_at="2001-01-01T00:00:00")
    tab.refresh()
    assert cell(tab, "旧地址", COL_KEY).isValid() is False
    assert "1 expired hidden" in tab.count_label.text()
    tab.show_expired_box.setChecked(True)
    index = cell(tab, "旧地址", COL_KEY)
    assert index.isValid()
    disabled = QApplication.palette().brush(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
    assert index.data(Qt.ItemDataRole.ForegroundRole) == disabled
    assert tab.purge_button.isEnabled()
    before = snapshot(engine.store.path)
    tab.purge_button.click()
    assert engine.store.get_profile("u1", "旧地址") is None
    assert tab.model.row_of_key("旧地址") == -1
    stack.undo()
    assert snapshot(engine.store.path) == before


def test_undo_restores_a_series_of_edits_exactly(qtbot, tab, engine, stack):
    before = snapshot(engine.store.path)
    model = tab.model
    assert model.setData(model.index(model.row_of_key("城市"), COL_VALUE), "上海")
    assert model.setData(model.index(model.row_of_key("城市"), COL_CATEGORY), "other")
    assert model.setData(model.index(model.row_of_key("喜欢猫"), COL_EXPIRES), "30m")
    assert model.setData(model.index(model.row_of_key("好友"), COL_CONFIDENCE), 0.1)
    after = snapshot(engine.store.path)
    assert stack.count() == 4
    while stack.canUndo():
        stack.undo()
    assert snapshot(engine.store.path) == before
    while stack.canRedo():
        stack.redo()
    assert snapshot(engine.store.path) == after


def test_store_refusal_is_reported_not_written(qtbot, tab, engine):
    before = snapshot(engine.store.path)
    model = tab.model
    assert not model.setData(model.index(model.row_of_key("城市"), COL_VALUE), "x" * 5000)
    assert tab.message_label.isVisible() and "at most" in tab.message_label.text()
    assert snapshot(engine.store.path) == before
