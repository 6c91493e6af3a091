"""File > Copy memory to PostgreSQL, through the event loop: the masked password, the copy behind a
progress box, the verified counts, switching to the copy, Cancel (the target stays empty), errors."""
import threading

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLineEdit

from kiraos_desktop.core.transfer.migrate import migrate
from kiraos_desktop.ui.migrate_dialog import MigrateDialog
from migrate_helpers import pg_count, pg_table_names, seed_memory
from modal_driver import visible_busy_boxes
from ui_helpers import ScriptedPrompts

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


@pytest.fixture
def engine(engine):
    seed_memory(engine)
    return engine


def _dialog(qtbot, engine, prompts, **kwargs):
    dialog = MigrateDialog(engine, prompts, **kwargs)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def _enter_url(qtbot, dialog, url):
    dialog.url_edit.setFocus()
    dialog.url_edit.setText(url)
    dialog.url_edit.editingFinished.emit()


def test_copy_verify_and_switch(qtbot, engine, pg_url):
    prompts = ScriptedPrompts(confirm=True)
    dialog = _dialog(qtbot, engine, prompts)
    _enter_url(qtbot, dialog, pg_url)
    # The password moved into the masked field; the URL field no longer shows it.
    assert "test-secret" not in dialog.url_edit.text() and dialog.password_edit.text() == "test-secret"
    assert dialog.password_edit.echoMode() == QLineEdit.EchoMode.Password
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)  # runs the copy in a nested loop
    assert dialog.report is not None and dialog.problem.isHidden()
    text = dialog.result_view.toPlainText()
    assert "verified" in dialog.done_label.text() and "test-secret" not in dialog.done_label.text()
    assert "event_logs" in text and "test-secret" not in text
    # The counts are readable at once: the table is at least 12 lines tall.
    assert dialog.result_view.height() >= dialog.result_view.fontMetrics().lineSpacing() * 12
    assert pg_count(pg_url, "event_logs") == engine.store.stats().total_events
    assert len(prompts.asked) == 1 and "test-secret" not in prompts.asked[0][1]
    assert dialog.switched and dialog.result() == MigrateDialog.DialogCode.Accepted
    assert engine.settings.database_url.startswith("postgresql://kiraos_test:test-secret@127.0.0.1:")


def test_declining_the_switch_keeps_the_setting(qtbot, engine, pg_url):
    dialog = _dialog(qtbot, engine, ScriptedPrompts(confirm=False))
    _enter_url(qtbot, dialog, pg_url)
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert dialog.report is not None and not dialog.switched and dialog.isVisible()
    assert engine.settings.database_url == "" and not dialog.copy_button.isEnabled()


def test_cancel_rolls_the_copy_back(qtbot, engine, pg_url):
    """The copy waits at its first progress report until the busy box's Cancel was clicked."""
    clicked = threading.Event()

    def held_migrate(source, target, progress, is_cancelled):
        def held(done, total):
            clicked.wait(20)
            progress(done, total)
        return migrate(source, target, progress=held, is_cancelled=is_cancelled)

    def press_cancel():
        boxes = visible_busy_boxes()
        if boxes and not clicked.is_set():
            boxes[0].cancel_button.click()
            clicked.set()

    poller = QTimer()
    poller.setInterval(10)
    poller.timeout.connect(press_cancel)
    poller.start()
    dialog = _dialog(qtbot, engine, ScriptedPrompts(confirm=True), migrate_fn=held_migrate)
    _enter_url(qtbot, dialog, pg_url)
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    poller.stop()
    assert clicked.is_set()
    assert dialog.report is None and not dialog.switched
    assert dialog.problem.isVisible() and "Cancelled" in dialog.problem.text()
    assert pg_table_names(pg_url) == []  # not even the tables stayed
    assert engine.settings.database_url == ""


def test_a_bad_url_is_shown_and_nothing_runs(qtbot, engine):
    calls = []
    dialog = _dialog(qtbot, engine, ScriptedPrompts(confirm=True), migrate_fn=lambda *a, **k: calls.append(a))
    _enter_url(qtbot, dialog, "mysql://kira:Pw-123@db/memory")
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert calls == [] and dialog.problem.isVisible()
    assert "postgresql://" in dialog.problem.text() and "Pw-123" not in dialog.problem.text()


def test_a_refusing_server_is_shown_without_the_password(qtbot, engine, pg_server):
    dialog = _dialog(qtbot, engine, ScriptedPrompts(confirm=True))
    _enter_url(qtbot, dialog, pg_server.url("postgres", password="Wr0ng-Pw-77"))
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert dialog.report is None and dialog.problem.isVisible()
    assert "refused user" in dialog.problem.text() and "Wr0ng-Pw-77" not in dialog.problem.text()
    assert engine.settings.database_url == ""
