"""User detail: events (add, edit, delete, lazy), Context tab, History revert, Clear memory, export."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QUndoStack
from PySide6.QtWidgets import QAbstractItemView, QLineEdit

from kiraos_desktop.ui.undo import UndoableWriter
from kiraos_desktop.ui.users.events_model import COL_SUMMARY
from kiraos_desktop.ui.users.history_model import CHANGE_ID_ROLE
from kiraos_desktop.ui.users.user_detail import TAB_CONTEXT, TAB_EVENTS, TAB_HISTORY, UserDetail
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, seed, snapshot

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
def prompts():
    return ScriptedPrompts()


@pytest.fixture
def detail(qtbot, engine, stack, prompts):
    widget = UserDetail(engine.store, UndoableWriter(engine.store, stack), engine.context, prompts)
    qtbot.addWidget(widget)
    widget.resize(900, 600)
    widget.show()
    widget.set_user("u1")
    qtbot.waitExposed(widget)
    return widget


def event_summaries(tab) -> list[str]:
    return [tab.model.row_at(r).summary for r in range(tab.model.rowCount())]


def test_events_add_edit_delete_with_undo(qtbot, detail, engine, stack):
    detail.tabs.setCurrentIndex(TAB_EVENTS)
    tab = detail.events_tab
    assert event_summaries(tab) == ["完成半马", "通过面试"]  # newest first
    before = snapshot(engine.store.path)
    tab.add_button.click()
    dialog = tab.add_dialog
    dialog.buttons.accepted.emit()  # empty: refused at the field
    assert dialog.isVisible() and dialog.error.isVisible()
    dialog.summary_edit.setPlainText("第一次去上海")
    dialog.buttons.accepted.emit()
    qtbot.waitUntil(lambda: tab.add_dialog is None, timeout=2000)
    assert event_summaries(tab)[0] == "第一次去上海"
    # inline edit through the delegate
    index = tab.model.index(1, COL_SUMMARY)
    tab.view.setCurrentIndex(index)
    tab.view.edit(index)
    editor = tab.view.indexWidget(index)
    assert isinstance(editor, QLineEdit)
    editor.setText("完成全马")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "完成全马" in [e.summary for e in engine.store.get_events("u1")], timeout=2000)
    # delete
    tab.view.selectRow(2)
    tab.delete_button.click()
    assert [e.summary for e in engine.store.get_events("u1")] == ["第一次去上海", "完成全马"]
    assert stack.count() == 3
    while stack.canUndo():
        stack.undo()
    assert snapshot(engine.store.path) == before


def test_event_editor_refuses_empty_text(qtbot, detail, engine):
    detail.tabs.setCurrentIndex(TAB_EVENTS)
    tab = detail.events_tab
    before = snapshot(engine.store.path)
    index = tab.model.index(0, COL_SUMMARY)
    tab.view.setCurrentIndex(index)
    tab.view.edit(index)
    editor = tab.view.indexWidget(index)
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert tab.view.state() == QAbstractItemView.State.EditingState
    assert tab.delegate.bubble.isVisible()
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    assert snapshot(engine.store.path) == before


def test_events_load_page_by_page(qtbot, detail, engine):
    engine.update_settings(engine.settings.replace(max_event_keep=0))
    with engine.store.batch("cli") as batch:
        for n in range(500):
            batch.add_event("u1", f"旧事件 {n}", created_at=f"2020-01-01T{n // 60:02d}:{n % 60:02d}:00")
    detail.tabs.setCurrentIndex(TAB_EVENTS)
    detail.events_tab.set_user("u1")
    tab = detail.events_tab
    assert tab.model.rowCount() == 200
    tab.view.scrollToBottom()
    qtbot.waitUntil(lambda: tab.model.rowCount() > 200, timeout=2000)
    assert "502 events" in tab.count_label.text()


def test_context_tab_shows_exactly_the_block(qtbot, detail, engine):
    engine.update_settings(engine.settings.replace(max_context_chars=60))
    detail.tabs.setCurrentIndex(TAB_CONTEXT)
    tab = detail.context_tab
    block = engine.context.user_block("u1")
    assert tab.text_view.toPlainText() == block.text
    assert block.dropped and tab.dropped_model.rowCount() == len(block.dropped)
    assert f"{len(block.text)} of 60 characters" in tab.length_label.text()
    assert tab.text_view.isReadOnly()


def test_history_revert_restores_the_previous_value(qtbot, detail, engine, stack):
    engine.store.set_profile("u1", "城市", "深圳", actor="api", confidence=0.8)
    detail.tabs.setCurrentIndex(TAB_HISTORY)
    tab = detail.history_tab
    tab.refresh()
    change = engine.store.list_changes("u1", limit=1)[0]
    assert tab.model.index(0, 0).data(CHANGE_ID_ROLE) == change.id
    assert "北京" in tab.model.index(0, 4).data() and "深圳" in tab.model.index(0, 4).data()
    tab.view.selectRow(0)
    assert tab.revert_button.isEnabled()
    tab.revert_button.click()
    assert engine.store.get_profile("u1", "城市").value == "北京"
    assert engine.store.get_profile("u1", "城市").to_dict() == change.before
    stack.undo()  # the revert itself is undoable
    assert engine.store.get_profile("u1", "城市").value == "深圳"


def test_clear_memory_asks_with_counts_and_cancel_changes_nothing(qtbot, detail, engine, prompts, stack):
    before = snapshot(engine.store.path)
    prompts.answer = False
    detail.clear_button.click()
    assert len(prompts.asked) == 1
    question = prompts.asked[0][1]
    assert "u1" in question and "4 profile entries" in question and "2 events" in question
    assert snapshot(engine.store.path) == before
    assert stack.count() == 0
    prompts.answer = True
    detail.clear_button.click()
    assert engine.store.user_summary("u1") is None
    assert detail.profile_tab.model.rowCount() == 0
    stack.undo()
    assert snapshot(engine.store.path) == before


def test_export_this_user(qtbot, detail, tmp_path, prompts):
    target = tmp_path / "u1.json"
    prompts.save_path = str(target)
    detail.export_button.click()
    data = json.loads(target.read_text(encoding="utf-8"))
    assert [u["user_id"] for u in data["users"]] == ["u1"]
    assert {p["key"] for p in data["users"][0]["profiles"]} == {"昵称", "城市", "喜欢猫", "好友"}


def test_table_tabs_keep_their_view_toolbar_and_shortcut_set_up(detail):
    from PySide6.QtWidgets import QHeaderView

    from kiraos_desktop.ui.users import events_model, history_model, profile_model

    edit = QAbstractItemView.EditTrigger
    tabs = {
        "profileView": (detail.profile_tab, QAbstractItemView.SelectionMode.ExtendedSelection,
                        edit.DoubleClicked | edit.EditKeyPressed | edit.AnyKeyPressed, profile_model.COL_VALUE,
                        {profile_model.COL_KEY: 110, profile_model.COL_CATEGORY: 85,
                         profile_model.COL_CONFIDENCE: 80, profile_model.COL_EXPIRES: 125,
                         profile_model.COL_UPDATED: 85}),
        "eventsView": (detail.events_tab, QAbstractItemView.SelectionMode.ExtendedSelection,
                       edit.DoubleClicked | edit.EditKeyPressed, events_model.COL_SUMMARY,
                       {events_model.COL_DATE: 140}),
        "historyView": (detail.history_tab, QAbstractItemView.SelectionMode.SingleSelection,
                        edit.NoEditTriggers, history_model.COL_CHANGE,
                        {history_model.COL_TIME: 125, history_model.COL_ACTION: 100,
                         history_model.COL_TARGET: 90}),  # the actor as wide as its texts (a test below)
    }
    for name, (tab, selection, triggers, stretch, widths) in tabs.items():
        view = tab.view
        assert view.objectName() == name and tab.findChild(type(view), name) is view
        assert view.selectionMode() == selection, name
        assert view.selectionBehavior() == QAbstractItemView.SelectionBehavior.SelectRows
        assert view.editTriggers() == triggers, name
        assert not view.verticalHeader().isVisible() and view.alternatingRowColors()
        header = view.horizontalHeader()
        assert header.sectionResizeMode(stretch) == QHeaderView.ResizeMode.Stretch, name
        assert {column: header.sectionSize(column) for column in widths} == widths, name
        # Profile and Events offer their actions (delete, the larger editor) on the right-click menu.
        menu = Qt.ContextMenuPolicy.DefaultContextMenu if name == "historyView" else \
            Qt.ContextMenuPolicy.ActionsContextMenu
        assert view.contextMenuPolicy() == menu, name
        toolbar = tab.layout().itemAt(0).layout()
        assert toolbar.itemAt(toolbar.count() - 1).widget() is tab.count_label
        assert tab.layout().itemAt(1).widget() is view and tab.layout().itemAt(2).widget() is tab.message_label
        assert tab.message_label.isHidden() and tab.message_label.wordWrap()
        assert "#d33" in tab.message_label.styleSheet()
    assert detail.profile_tab.view.isSortingEnabled() and not detail.events_tab.view.isSortingEnabled()
    for tab in (detail.profile_tab, detail.events_tab):
        action = tab.delete_action
        assert action in tab.view.actions()
        assert action.shortcut() == QKeySequence(QKeySequence.StandardKey.Delete)
        assert action.shortcutContext() == Qt.ShortcutContext.WidgetWithChildrenShortcut



def test_the_history_shows_who_wrote_a_change_whole(qtbot, detail, engine):
    """Issue 50: "bot (tool call)" was cut to "bot (to…" in the History's Actor column."""
    from kiraos_desktop.ui.users.history_model import COL_ACTOR

    engine.tools.call("memory_update", "u1", {"operations": [{"op": "set", "key": "城市", "value": "深圳"}]},
                      actor="tool")
    detail.resize(1024 - 420, 600)  # the detail's width in a 1024-pixel window
    detail.show()
    detail.tabs.setCurrentIndex(TAB_HISTORY)
    tab = detail.history_tab
    tab.refresh()
    qtbot.waitUntil(lambda: tab.model.rowCount() > 0, timeout=5000)
    text = tab.model.index(0, COL_ACTOR).data()
    assert text == "bot (tool call)"
    assert tab.view.fontMetrics().horizontalAdvance(text) + 8 <= tab.view.columnWidth(COL_ACTOR)
