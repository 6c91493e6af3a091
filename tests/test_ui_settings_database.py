"""Settings > Memory > PostgreSQL database: the URL without its password, the password masked, checked at the
field, saved whole; a change reopens the window on the other memory."""
import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QLabel, QLineEdit

from kiraos_desktop.ui.settings_dialog import SettingsDialog
from ui_helpers import shown_window

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")
SECRET = "Db-Pw/9@x"
STORED = "postgresql://kira:Db-Pw%2F9%40x@db.example:6543/memory?sslmode=require"


def _ok(dialog):
    return dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)


def _dialog(qtbot, engine):
    dialog = SettingsDialog(engine)
    qtbot.addWidget(dialog)
    return dialog


def test_the_stored_url_shows_without_its_password(qtbot, engine):
    engine.update_settings(engine.settings.replace(database_url=STORED))
    dialog = _dialog(qtbot, engine)
    url_field = dialog.findChild(QLineEdit, "database_url")
    password_field = dialog.findChild(QLineEdit, "database_password")
    assert url_field.text() == "postgresql://kira@db.example:6543/memory?sslmode=require"
    assert password_field.text() == SECRET and password_field.echoMode() == QLineEdit.EchoMode.Password
    visible = [w.text() for w in dialog.findChildren(QLabel)] + \
        [w.text() for w in dialog.findChildren(QLineEdit) if w.echoMode() == QLineEdit.EchoMode.Normal]
    assert not [t for t in visible if "Db-Pw" in t]
    assert dialog.new_settings().database_url == STORED  # unchanged when saved again


def test_a_bad_url_is_refused_at_its_field(qtbot, engine):
    dialog = _dialog(qtbot, engine)
    dialog.findChild(QLineEdit, "database_password").setText("Pw-Never-Shown")
    dialog.findChild(QLineEdit, "database_url").setText("postgresql://kira@db.example:99999/memory")
    assert "Not a PostgreSQL URL: the port must be" in dialog.field_error("database_url")
    assert "Pw-Never-Shown" not in dialog.field_error("database_url")
    assert not _ok(dialog).isEnabled()
    dialog.findChild(QLineEdit, "database_url").setText("")
    assert dialog.field_error("database_url") == "" and _ok(dialog).isEnabled()


def test_saving_a_new_url_reopens_the_window_on_it(qtbot, engine, tmp_path):
    with shown_window(qtbot, engine, tmp_path) as window:
        dialog = SettingsDialog(engine, window)
        qtbot.addWidget(dialog)
        dialog.findChild(QLineEdit, "database_url").setText("postgresql://kira@db.example:6543/memory?sslmode=require")
        dialog.findChild(QLineEdit, "database_password").setText(SECRET)
        with qtbot.waitSignal(window.reopen_requested, timeout=5000) as reopened:
            qtbot.mouseClick(_ok(dialog), Qt.MouseButton.LeftButton)
        assert reopened.args == [{"data_dir": str(engine.paths.data_dir)}]
    saved = json.loads(engine.paths.settings_file.read_text(encoding="utf-8"))
    assert saved["database_url"] == STORED
    assert engine.paths.settings_file.stat().st_mode & 0o077 == 0  # only the user reads the password


def test_other_settings_do_not_reopen(qtbot, engine, tmp_path):
    with shown_window(qtbot, engine, tmp_path) as window:
        emitted = []
        window.reopen_requested.connect(emitted.append)
        engine.update_settings(engine.settings.replace(max_context_chars=42))
        qtbot.wait(50)
        QApplication.processEvents()
        assert emitted == []
