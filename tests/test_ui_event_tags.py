"""The Events tab on KiraOS plugin 2.x data: the tag column shown and edited in place, undoable;
hidden on data without tags."""
from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QUndoStack

from core_helpers import PLUGIN2_DDL, plugin_db
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.ui.undo import UndoableWriter
from kiraos_desktop.ui.users.events_model import COL_TAG
from kiraos_desktop.ui.users.user_detail import TAB_EVENTS, UserDetail
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


@pytest.fixture
def stack(qapp):
    stack = QUndoStack()
    yield stack
    stack.clear()


def _detail(qtbot, engine, stack):
    widget = UserDetail(engine.store, UndoableWriter(engine.store, stack), engine.context, ScriptedPrompts())
    qtbot.addWidget(widget)
    widget.tabs.setCurrentIndex(TAB_EVENTS)
    return widget


@pytest.fixture
def engine2(tmp_path):
    kira = tmp_path / "kira"
    conn = plugin_db(kira / "memory" / "kiraos.db", PLUGIN2_DDL)
    conn.execute("INSERT INTO event_logs (user_id, event_summary, created_at, tag) "
                 "VALUES ('qq_1', '完成半马', '2026-03-01T10:00:00', 'milestone')")
    conn.commit()
    conn.close()
    engine = Engine.open(kira_data=kira)
    yield engine
    engine.close()


def test_the_tag_is_shown_edited_in_place_and_undone(qtbot, engine2, stack):
    detail = _detail(qtbot, engine2, stack)
    detail.events_tab.set_user("qq_1")
    tab = detail.events_tab
    assert not tab.view.isColumnHidden(COL_TAG)
    index = tab.model.index(0, COL_TAG)
    assert index.data() == "milestone"
    assert tab.model.headerData(COL_TAG, Qt.Orientation.Horizontal) == "Tag"
    tab.view.setCurrentIndex(index)
    tab.view.edit(index)
    editor = tab.view.indexWidget(index)
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClicks(editor, "race")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: engine2.store.get_events("qq_1")[0].tag == "race", timeout=2000)
    assert tab.model.index(0, COL_TAG).data() == "race"
    assert engine2.store.get_events("qq_1")[0].summary == "完成半马"
    stack.undo()
    assert engine2.store.get_events("qq_1")[0].tag == "milestone"
    conn = sqlite3.connect(engine2.store.path)
    assert conn.execute("SELECT tag FROM event_logs").fetchone() == ("milestone",)
    conn.close()


def test_a_text_edit_keeps_the_tag(qtbot, engine2, stack):
    detail = _detail(qtbot, engine2, stack)
    detail.events_tab.set_user("qq_1")
    model = detail.events_tab.model
    assert model.setData(model.index(0, 1), "完成全马")
    event = engine2.store.get_events("qq_1")[0]
    assert (event.summary, event.tag) == ("完成全马", "milestone")


def test_data_without_tags_hides_the_column(qtbot, engine, stack):
    engine.store.add_event("u1", "e", actor="gui")
    detail = _detail(qtbot, engine, stack)
    detail.events_tab.set_user("u1")
    assert detail.events_tab.view.isColumnHidden(COL_TAG)
    assert not (detail.events_tab.model.flags(detail.events_tab.model.index(0, COL_TAG)) & Qt.ItemFlag.ItemIsEditable)


def test_the_profile_tab_shows_exactly_the_live_entries_of_integer_expiries(qtbot, tmp_path, stack):
    """Plugin 2.x keeps expiries as epoch integers: the live one is listed, the expired one only when
    the operator asks for expired entries, and then marked expired."""
    from datetime import datetime, timedelta

    from kiraos_desktop.ui.users.profile_model import COL_KEY, EXPIRED_ROLE

    kira = tmp_path / "kira2"
    conn = plugin_db(kira / "memory" / "kiraos.db", PLUGIN2_DDL)
    now = datetime.now()
    conn.executemany("INSERT INTO user_profiles VALUES (?, ?, ?, ?, ?, ?, ?)", [
        ("qq_1", "城市", "北京", now.isoformat(), 0.8, "basic", int((now + timedelta(days=30)).timestamp())),
        ("qq_1", "心情", "低落", now.isoformat(), 0.6, "preference", int((now - timedelta(hours=1)).timestamp())),
    ])
    conn.commit()
    conn.close()
    engine = Engine.open(kira_data=kira)
    try:
        detail = UserDetail(engine.store, UndoableWriter(engine.store, stack), engine.context, ScriptedPrompts())
        qtbot.addWidget(detail)
        tab = detail.profile_tab
        tab.set_user("qq_1")
        shown = [tab.proxy.index(row, COL_KEY).data() for row in range(tab.proxy.rowCount())]
        assert shown == ["城市"]
        tab.show_expired_box.setChecked(True)
        shown = {tab.proxy.index(row, COL_KEY).data() for row in range(tab.proxy.rowCount())}
        assert shown == {"城市", "心情"}
        expired = {tab.proxy.index(row, COL_KEY).data() for row in range(tab.proxy.rowCount())
                   if tab.proxy.index(row, COL_KEY).data(EXPIRED_ROLE)}
        assert expired == {"心情"} and tab.model.expired_count() == 1
    finally:
        engine.close()
