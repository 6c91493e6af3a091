"""The Context tab's current message: the block for it, matched words highlighted, why each event is there."""
from __future__ import annotations

import pytest
from PySide6.QtGui import QUndoStack

from kiraos_desktop.ui.undo import UndoableWriter
from kiraos_desktop.ui.users.user_detail import TAB_CONTEXT, UserDetail
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)
PLANTED = "养了一只橘猫叫咪咪"


@pytest.fixture
def engine(engine):
    engine.store.set_profile("u1", "昵称", "小明", actor="gui", confidence=0.9)
    engine.store.add_event("u1", PLANTED, actor="gui", created_at="2024-03-01T10:00:00")
    with engine.store.batch("gui") as batch:
        for i in range(30):
            batch.add_event("u1", f"今天第{i}次打卡上班", created_at=f"2026-11-{1 + i % 28:02d}T09:{i:02d}:00")
    return engine


@pytest.fixture
def tab(qtbot, engine):
    stack = QUndoStack()
    widget = UserDetail(engine.store, UndoableWriter(engine.store, stack), engine.context, ScriptedPrompts())
    qtbot.addWidget(widget)
    widget.resize(900, 600)
    widget.show()
    widget.set_user("u1")
    widget.tabs.setCurrentIndex(TAB_CONTEXT)
    qtbot.waitExposed(widget)
    yield widget.context_tab
    stack.clear()


def test_typing_a_message_shows_its_block_with_reasons_and_highlights(qtbot, tab, engine):
    plain = engine.context.user_block("u1").text
    assert tab.text_view.toPlainText() == plain and not tab.reasons_view.isVisible()
    tab.message_edit.insert("咪咪还好吗")  # as typed (keyClicks sends ASCII only)
    qtbot.waitUntil(lambda: PLANTED in tab.text_view.toPlainText())
    assert tab.text_view.toPlainText() == engine.context.user_block("u1", query="咪咪还好吗").text
    reasons = tab.reasons_model.stringList()
    assert reasons[-1] == "relevant (咪咪): 2024-03-01 " + PLANTED
    assert all(line.startswith("recent: ") for line in reasons[:-1])
    assert tab.reasons_view.isVisible()
    marked = [r for b in _blocks(tab) for r in b.layout().formats()]
    assert marked and all(r.format.background().color().name() == "#ffe680" for r in marked)
    tab.message_edit.clear()
    qtbot.waitUntil(lambda: tab.text_view.toPlainText() == plain)
    assert not tab.reasons_label.isVisible()


def test_a_message_that_matches_nothing_says_so(qtbot, tab, engine):
    tab.message_edit.insert("完全无关")
    qtbot.waitUntil(lambda: "No event matches" in tab.reasons_label.text())
    assert tab.text_view.toPlainText() == engine.context.user_block("u1").text


def _blocks(tab):
    block = tab.text_view.document().begin()
    while block.isValid():
        yield block
        block = block.next()


def test_with_a_message_the_note_on_other_events_says_how_they_were_chosen(qtbot, tab, engine):
    limit = engine.context.events_limit()
    other = 31 - limit  # u1 has 31 events
    assert f"{other} older events are not in the block: it carries the newest {limit} only" in tab.dropped_label.text()
    tab.message_edit.insert("咪咪还好吗")
    qtbot.waitUntil(lambda: PLANTED in tab.text_view.toPlainText())
    note = tab.dropped_label.text()
    assert f"{other} other events are not in the block: it carries {limit}, those about the message first" in note
    assert "newest" in note and "only" not in note
    tab.message_edit.clear()
    qtbot.waitUntil(lambda: "older events" in tab.dropped_label.text())


def test_the_reasons_of_a_whole_block_show_without_scrolling(qtbot, tab, engine):
    tab.message_edit.insert("咪咪还好吗")
    qtbot.waitUntil(lambda: tab.reasons_view.isVisible())
    rows = tab.reasons_model.rowCount()
    assert rows == engine.context.events_limit()
    qtbot.waitUntil(lambda: tab.reasons_view.verticalScrollBar().maximum() == 0)
    last = tab.reasons_view.visualRect(tab.reasons_model.index(rows - 1))
    assert tab.reasons_view.viewport().rect().contains(last)
