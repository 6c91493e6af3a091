"""A window's write never blocks the window: while another program holds SQLite's write lock, the
write waits on a task thread, the window keeps running its event loop (paints, timers), input is
held, a busy box appears after a moment, and what the write raises still reaches the caller."""
from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QKeyEvent, QUndoStack
from PySide6.QtWidgets import QApplication, QLineEdit

from kiraos_desktop.core.memory.records import ValidationError
from kiraos_desktop.ui.busy_box import BUSY_DELAY_MS
from kiraos_desktop.ui.undo import UndoableWriter
from ui_helpers import OFFSCREEN_NOTE

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)
HELD_MS = BUSY_DELAY_MS + 400  # long enough for the busy box to show


class OtherProgram:
    """Another process's connection to the database (the KiraOS plugin) holding the write lock."""

    def __init__(self, path) -> None:
        self.conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)

    def hold(self, release_after_ms: int) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        QTimer.singleShot(release_after_ms, lambda: self.conn.execute("COMMIT"))

    def close(self) -> None:
        self.conn.close()


@pytest.fixture
def other(engine):
    other = OtherProgram(engine.store.local_file)
    yield other
    other.close()


@pytest.fixture
def writer(qapp, engine):
    stack = QUndoStack()
    yield UndoableWriter(engine.store, stack)
    stack.clear()


@pytest.fixture
def ticks(qapp):
    """How often a 20 ms timer fired: it only fires while the GUI thread runs its event loop."""
    count = [0]
    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(lambda: count.__setitem__(0, count[0] + 1))
    timer.start()
    yield count
    timer.stop()


def test_a_write_waits_for_another_programs_lock_without_blocking_the_window(engine, writer, other, ticks):
    other.hold(release_after_ms=HELD_MS)
    seen_busy_box = []
    QTimer.singleShot(HELD_MS - 150, lambda: seen_busy_box.extend(
        w for w in QApplication.topLevelWidgets() if w.objectName() == "busyBox" and w.isVisible()))
    entry = writer.write("Add", lambda batch: batch.set_profile("u1", "city", "Paris"))
    assert entry.value == "Paris" and engine.store.get_profile("u1", "city").value == "Paris"
    assert ticks[0] >= (HELD_MS // 20) // 2  # the event loop ran all along (it could not before)
    assert len(seen_busy_box) == 1
    assert not [w for w in QApplication.topLevelWidgets() if w.objectName() == "busyBox"]  # gone after
    assert writer.stack.count() == 1 and QApplication.overrideCursor() is None


def test_undo_and_redo_wait_the_same_way(engine, writer, other, ticks):
    writer.write("Add", lambda batch: batch.set_profile("u1", "city", "Paris"))
    other.hold(release_after_ms=300)
    writer.stack.undo()
    assert engine.store.get_profile("u1", "city") is None and ticks[0] >= 5
    other.hold(release_after_ms=300)
    before = ticks[0]
    writer.stack.redo()
    assert engine.store.get_profile("u1", "city").value == "Paris" and ticks[0] - before >= 5


def test_input_is_held_while_a_write_waits(qtbot, writer, other):
    field = QLineEdit()
    qtbot.addWidget(field)
    field.show()
    other.hold(release_after_ms=300)

    def type_a_key():
        for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            QApplication.sendEvent(field, QKeyEvent(kind, Qt.Key.Key_A, Qt.KeyboardModifier.NoModifier, "a"))

    QTimer.singleShot(100, type_a_key)
    writer.write("Add", lambda batch: batch.set_profile("u1", "city", "Paris"))
    assert field.text() == ""  # eaten while the write waited
    type_a_key()
    assert field.text() == "a"  # and delivered again once it was written


def test_a_refused_write_raises_to_the_caller_and_writes_nothing(engine, writer, other):
    other.hold(release_after_ms=200)
    with pytest.raises(ValidationError):
        writer.write("Add", lambda batch: (batch.set_profile("u1", "ok", "v"), batch.set_profile("u1", "", "v")))
    assert engine.store.get_profile("u1", "ok") is None and writer.stack.count() == 0
