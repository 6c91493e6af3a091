"""File menu work through a running event loop: the busy box never outlives its task nor covers a question."""
from __future__ import annotations

import json
import threading

import pytest
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication, QPushButton

from kiraos_desktop.ui import file_actions, tasks
from kiraos_desktop.ui.prompts import prompts
from modal_driver import ModalDriver, busy_boxes, visible_busy_boxes
from ui_helpers import OFFSCREEN_NOTE, seed, shown_window

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)

# Long enough for a busy box left behind by the task before the question to show itself over it.
BUSY_DELAY_MS = 100
LINGER_MS = 300


@pytest.fixture(autouse=True)
def short_busy_delay(monkeypatch):
    monkeypatch.setattr(tasks, "BUSY_DELAY_MS", BUSY_DELAY_MS)


@pytest.fixture
def engine(engine):
    seed(engine, users=3)
    return engine


@pytest.fixture
def window(qtbot, engine, tmp_path):
    """The real window with the real message boxes; only the file dialogs are answered by the test."""
    with shown_window(qtbot, engine, tmp_path) as window:
        yield window


def drive(qtbot, action, press=(), linger_ms=LINGER_MS) -> ModalDriver:
    driver = ModalDriver(press=press, linger_ms=linger_ms)
    try:
        in_event_loop(action.trigger)  # returns once the whole File menu step (all its boxes) is over
    finally:
        driver.stop()
    assert not driver.stuck, f"the window locked up; boxes answered: {driver.boxes}"
    return driver


def in_event_loop(fn):
    """Call fn from inside a running event loop, as a menu click in the running app does."""
    loop = QEventLoop()

    def call():
        try:
            fn()
        finally:
            loop.quit()
    QTimer.singleShot(0, call)
    loop.exec()


def assert_no_busy_box_left(qtbot, driver):
    assert driver.seen_over == [], "a busy box covered a message box"
    assert driver.seen_alive == [], "a busy box still existed while a message box was up"
    assert visible_busy_boxes() == []
    qtbot.wait(LINGER_MS)  # a busy box waiting to show itself would do it now
    assert busy_boxes() == []
    assert QApplication.activeModalWidget() is None


def export_file(tmp_path, users=2):
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"format": "kiraos-desktop-export", "version": 1, "users": [
        {"user_id": f"new{i}", "profiles": [{"key": "k", "value": "v"}], "events": []} for i in range(users)]}),
        encoding="utf-8")
    return path


def test_import_question_and_result_are_never_covered(qtbot, window, engine, tmp_path, monkeypatch):
    monkeypatch.setattr(prompts, "open_file", lambda *a: str(export_file(tmp_path)))
    driver = drive(qtbot, window.import_action, press=("Import", "OK"))
    assert len(driver.boxes) == 2 and "Import 2 users" in driver.boxes[0] and "Imported" in driver.boxes[1]
    assert engine.store.get_profile("new1", "k").value == "v"
    assert_no_busy_box_left(qtbot, driver)


def test_import_declined_leaves_no_busy_box(qtbot, window, engine, tmp_path, monkeypatch):
    monkeypatch.setattr(prompts, "open_file", lambda *a: str(export_file(tmp_path)))
    driver = drive(qtbot, window.import_action, press=("Cancel",))
    assert len(driver.boxes) == 1
    assert engine.store.get_profile("new1", "k") is None
    assert_no_busy_box_left(qtbot, driver)


def test_purge_result_is_never_covered(qtbot, window, engine):
    engine.store.set_profile("u1", "旧", "x", actor="cli", expires_at="2000-01-01T00:00:00")
    driver = drive(qtbot, window.purge_action, press=("Remove", "OK"))
    assert len(driver.boxes) == 2 and "Removed 1 expired" in driver.boxes[1]
    assert engine.store.get_profile("u1", "旧") is None
    assert_no_busy_box_left(qtbot, driver)


def test_backup_result_is_never_covered(qtbot, window, engine, tmp_path, monkeypatch):
    target = tmp_path / "copy.db"
    monkeypatch.setattr(prompts, "save_file", lambda *a: str(target))
    driver = drive(qtbot, window.backup_action, press=("OK",))
    assert len(driver.boxes) == 1 and "Backup written" in driver.boxes[0]
    assert target.stat().st_size > 0
    assert_no_busy_box_left(qtbot, driver)


def test_a_failure_box_is_never_covered(qtbot, window, tmp_path, monkeypatch):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(prompts, "open_file", lambda *a: str(bad))
    driver = drive(qtbot, window.import_action, press=("OK",))
    assert len(driver.boxes) == 1 and "cannot be imported" in driver.boxes[0]
    assert_no_busy_box_left(qtbot, driver)


def test_a_long_task_shows_a_busy_box_with_cancel_that_cancels(qtbot, window):
    """A task still running after the delay shows the box; its Cancel stops the task; the box goes."""
    release = threading.Event()

    def slow(progress, is_cancelled):
        while not is_cancelled():
            release.wait(0.01)
        raise tasks.Cancelled("stopped")

    pressed = []

    def press_cancel():
        shown = visible_busy_boxes()
        if shown and not pressed:
            buttons = [b for b in shown[0].findChildren(QPushButton) if b.isVisible()]
            pressed.append([b.text() for b in buttons])
            buttons[0].click()

    from PySide6.QtCore import QTimer
    timer = QTimer()
    timer.timeout.connect(press_cancel)
    timer.start(10)
    try:
        outcome = tasks.run_task(window, "Slow", slow, label="Working…")
    finally:
        timer.stop()
    assert pressed == [["Cancel"]]
    assert outcome.status == "cancelled"
    qtbot.wait(LINGER_MS)
    assert busy_boxes() == []


def test_a_task_that_cannot_be_cancelled_shows_no_cancel(qtbot, window):
    release = threading.Event()
    seen = []

    def look():
        shown = visible_busy_boxes()
        if shown and not seen:
            seen.append([b.text() for b in shown[0].findChildren(QPushButton) if b.isVisible()])
            release.set()

    from PySide6.QtCore import QTimer
    timer = QTimer()
    timer.timeout.connect(look)
    timer.start(10)
    try:
        outcome = tasks.run_task(window, "Fixed", lambda p, c: release.wait(10) and "done",
                                 label="Working…", cancellable=False)
    finally:
        timer.stop()
    assert seen == [[]] and outcome.result == "done"
    qtbot.wait(LINGER_MS)
    assert busy_boxes() == []


def test_escape_and_the_close_button_ask_a_task_to_stop_and_the_box_stays_until_it_does(qtbot, window):
    from PySide6.QtCore import Qt

    stop_seen = threading.Event()
    let_go = threading.Event()

    def slow(progress, is_cancelled):
        while not is_cancelled():
            let_go.wait(0.01)
        stop_seen.set()
        let_go.wait(10)  # winding down takes a while: the box stays, saying so
        raise tasks.Cancelled("stopped")

    states = []

    def act():
        shown = visible_busy_boxes()
        if not shown:
            return
        box = shown[0]
        if not states:
            assert box.close() is False  # the title bar's close button never just hides it
            qtbot.keyClick(box, Qt.Key.Key_Escape)
            states.append("escaped")
        elif stop_seen.is_set() and len(states) == 1:
            states.append((box.isVisible(), box.label.text(), box.cancel_button.isEnabled()))
            let_go.set()

    from PySide6.QtCore import QTimer
    timer = QTimer()
    timer.timeout.connect(act)
    timer.start(10)
    try:
        outcome = tasks.run_task(window, "Slow", slow, label="Working…")
    finally:
        timer.stop()
    assert states == ["escaped", (True, "Cancelling…", False)]
    assert outcome.status == "cancelled"
    assert busy_boxes() == []


def test_import_cancelled_while_checking_the_file_asks_nothing(qtbot, window, engine, tmp_path, monkeypatch):
    path = export_file(tmp_path)
    checking = threading.Event()
    real_read = file_actions.read_import_file

    def slow_read(p):
        checking.set()
        return real_read(p)
    monkeypatch.setattr(file_actions, "read_import_file", slow_read)
    monkeypatch.setattr(tasks.TaskRunner, "start", _cancelled_at_start(tasks.TaskRunner.start))
    monkeypatch.setattr(prompts, "open_file", lambda *a: str(path))
    driver = drive(qtbot, window.import_action)
    assert checking.is_set() and driver.boxes == []
    assert engine.store.get_profile("new1", "k") is None
    assert busy_boxes() == []


def _cancelled_at_start(start):
    def start_cancelled(self):  # Cancel pressed as soon as the work begins
        self.cancel()
        start(self)
    return start_cancelled
