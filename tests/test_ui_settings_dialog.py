"""Settings dialog: validation at the field, nothing saved while invalid, atomic save and apply on OK."""
import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QLineEdit

from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.settings import Settings
from kiraos_desktop.ui import settings_dialog as sd
from kiraos_desktop.ui.prompts import prompts
from kiraos_desktop.ui.settings_dialog import SettingsDialog, api_settings_changed, key_of_error

# The offscreen platform warns when a top-level window is shown; that warning is not ours.
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


@pytest.fixture
def dialog(qtbot, engine):
    dlg = SettingsDialog(engine)
    qtbot.addWidget(dlg)
    return dlg


def ok_button(dlg):
    return dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)


def settings_text(engine):
    return engine.paths.settings_file.read_text(encoding="utf-8")


def test_fields_show_the_current_settings(dialog, engine):
    values = dialog.values()
    assert values["max_events_per_user"] == engine.settings.max_events_per_user
    assert values["api_host"] == "127.0.0.1"
    assert values["api_port"] == 8765
    assert values["disabled_skills"] == []
    assert ok_button(dialog).isEnabled()
    assert dialog.field_editor("api_token").echoMode() == QLineEdit.EchoMode.Password


@pytest.mark.parametrize("key,text,fragment", [
    ("max_events_per_user", "-1", "0 or more"),
    ("max_profiles_per_user", "-5", "0 or more"),
    ("max_event_keep", "abc", "whole number"),
    ("max_context_chars", "-1", "0 or more"),
    ("max_context_chars", "1.5", "whole number"),
    ("api_port", "70000", "65535"),
    ("api_port", "-1", "0 or more"),
    ("api_port", "", "whole number"),
    ("api_host", "", "empty"),
    ("api_host", "   ", "empty"),
])
def test_invalid_value_is_refused_at_its_field_and_nothing_saved(qtbot, dialog, engine, key, text, fragment):
    before_file, before_settings = settings_text(engine), engine.settings
    editor = dialog.field_editor(key)
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClicks(editor, text) if text else editor.clear()
    assert fragment in dialog.field_error(key)
    others = [k for k in dialog.values() if k != key and dialog.field_error(k)]
    assert others == []  # the error is shown at this field only
    assert not ok_button(dialog).isEnabled()
    dialog.accept()  # even forced, nothing is saved
    assert dialog.result() != QDialog.DialogCode.Accepted
    assert settings_text(engine) == before_file
    assert engine.settings == before_settings


def test_error_label_is_visible_under_the_field_and_clears_when_fixed(qtbot, dialog):
    dialog.show()
    port = dialog.field_editor("api_port")
    port.setText("99999")
    errors = port.parentWidget().findChildren(QLabel, "fieldError")
    assert len(errors) == 1 and errors[0].isVisible() and "65535" in errors[0].text()
    port.setText("9000")
    assert not errors[0].isVisible()
    assert dialog.field_error("api_port") == ""
    assert ok_button(dialog).isEnabled()


def test_several_invalid_fields_are_all_marked(dialog):
    dialog.field_editor("max_events_per_user").setText("-3")
    dialog.field_editor("api_host").setText("")
    assert dialog.field_error("max_events_per_user") and dialog.field_error("api_host")
    assert dialog.new_settings() is None


def test_accept_saves_atomically_and_applies(qtbot, dialog, engine):
    skill = engine.skills.enabled_skills()[0].name
    assert skill in [d.name for d in engine.tools.descriptors()]
    seen = []
    engine.on_settings_changed(lambda old, new: seen.append((old, new)))
    for row in range(dialog._skill_list.count()):
        item = dialog._skill_list.item(row)
        if item.data(Qt.ItemDataRole.UserRole) == skill:
            item.setCheckState(Qt.CheckState.Unchecked)
    dialog.field_editor("max_context_chars").setText("0")
    dialog.field_editor("enable_slash_commands").setChecked(True)
    qtbot.mouseClick(ok_button(dialog), Qt.MouseButton.LeftButton)
    assert dialog.result() == QDialog.DialogCode.Accepted
    saved = json.loads(settings_text(engine))
    assert saved["disabled_skills"] == [skill]
    assert saved["max_context_chars"] == 0
    assert saved["enable_slash_commands"] is True
    assert engine.settings.disabled_skills == [skill]
    assert skill not in [d.name for d in engine.tools.descriptors()]
    assert len(seen) == 1 and not api_settings_changed(*seen[0])
    leftovers = [p.name for p in engine.paths.data_dir.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []
    reopened = Engine.open(data_dir=engine.paths.data_dir)
    try:
        assert reopened.settings.disabled_skills == [skill]
    finally:
        reopened.close()


def test_changing_the_port_is_an_api_change(qtbot, dialog, engine):
    seen = []
    engine.on_settings_changed(lambda old, new: seen.append(api_settings_changed(old, new)))
    dialog.field_editor("api_port").setText("9123")
    dialog.accept()
    assert engine.settings.api_port == 9123
    assert seen == [True]


def test_unchanged_settings_do_not_call_update(qtbot, dialog, engine, monkeypatch):
    calls = []
    monkeypatch.setattr(engine, "update_settings", lambda new: calls.append(new))
    dialog.accept()
    assert calls == []
    assert dialog.result() == QDialog.DialogCode.Accepted


def test_api_settings_changed():
    base = Settings()
    assert not api_settings_changed(base, base.replace(max_events_per_user=3, disabled_skills=["x"]))
    assert api_settings_changed(base, base.replace(api_host="localhost"))
    assert api_settings_changed(base, base.replace(api_port=9000))
    assert api_settings_changed(base, base.replace(api_token="secret"))


def test_key_of_error_maps_messages_to_fields():
    assert key_of_error("api_port must be at most 65535, got 70000") == "api_port"
    assert key_of_error("max_event_keep must be 0 or more, got -1") == "max_event_keep"
    assert key_of_error("something else") is None


def test_browse_sets_the_skills_folder(qtbot, dialog, engine, tmp_path, monkeypatch):
    folder = tmp_path / "my skills"
    folder.mkdir()
    monkeypatch.setattr(prompts, "folder", lambda parent, caption, start: str(folder))
    qtbot.mouseClick(dialog.findChild(sd.QPushButton, "browseSkillsDir"), Qt.MouseButton.LeftButton)
    assert dialog.values()["skills_dir"] == str(folder)
    dialog.accept()
    assert json.loads(settings_text(engine))["skills_dir"] == str(folder)


def test_token_is_masked_until_shown(qtbot, dialog):
    token = dialog.field_editor("api_token")
    show = dialog.findChild(sd.QToolButton, "showToken")
    show.setChecked(True)
    assert token.echoMode() == QLineEdit.EchoMode.Normal
    show.setChecked(False)
    assert token.echoMode() == QLineEdit.EchoMode.Password


def test_token_with_spaces_is_trimmed_and_saved(dialog, engine):
    dialog.field_editor("api_token").setText("  abc123  ")
    dialog.accept()
    assert engine.settings.api_token == "abc123"
    assert engine.api_token == "abc123"


def test_non_loopback_host_warns_but_is_allowed(qtbot, dialog):
    dialog.show()
    dialog.field_editor("api_host").setText("0.0.0.0")
    assert dialog._host_warning.isVisible()
    assert ok_button(dialog).isEnabled()
    dialog.field_editor("api_host").setText("localhost")
    assert not dialog._host_warning.isVisible()


def test_disabled_skill_that_is_missing_is_kept(qtbot, engine):
    engine.update_settings(engine.settings.replace(disabled_skills=["gone_skill"]))
    dlg = SettingsDialog(engine)
    qtbot.addWidget(dlg)
    texts = [dlg._skill_list.item(i).text() for i in range(dlg._skill_list.count())]
    assert any(t.startswith("gone_skill") and "not found" in t for t in texts)
    assert dlg.values()["disabled_skills"] == ["gone_skill"]


def test_save_failure_is_shown_and_the_dialog_stays_open(qtbot, dialog, engine, monkeypatch):
    errors = []
    monkeypatch.setattr(prompts, "error", lambda parent, title, text: errors.append(text))

    def fail(path, settings):
        raise PermissionError("read-only folder")
    monkeypatch.setattr("kiraos_desktop.core.engine.save_settings", fail)
    before = engine.settings
    dialog.field_editor("max_events_per_user").setText("7")
    dialog.accept()
    assert errors and "read-only folder" in errors[0]
    assert dialog.result() != QDialog.DialogCode.Accepted
    assert engine.settings == before  # nothing adopted that is not saved


def test_restore_defaults_fills_default_values(qtbot, engine):
    engine.update_settings(engine.settings.replace(max_events_per_user=3, api_port=9999))
    dlg = SettingsDialog(engine)
    qtbot.addWidget(dlg)
    dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.RestoreDefaults).click()
    assert dlg.values()["max_events_per_user"] == 10
    assert dlg.values()["api_port"] == 8765


def test_dialog_fits_a_700_pixel_high_screen_and_scrolls_its_fields(qtbot, engine, monkeypatch):
    # At 1024x700 the four groups need ~790 px: they scroll, the OK/Cancel row stays in view.
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QScrollArea

    from kiraos_desktop.ui import settings_dialog

    monkeypatch.setattr(settings_dialog, "_available_screen", lambda widget: QRect(0, 0, 1024, 700))
    dlg = SettingsDialog(engine)
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    assert dlg.frameGeometry().height() <= 700
    area = dlg.findChild(QScrollArea)
    assert area is not None and area.widget().findChild(QLineEdit) is not None
    assert area.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert ok_button(dlg).isVisible() and not area.isAncestorOf(ok_button(dlg))


def test_every_field_and_hint_is_within_the_dialogs_width(qtbot, engine, monkeypatch):
    # The dialog is sized from its fields before it is shown; the label column widened later must
    # count too, or the longest hints, the password field and the Show button are cut off on the right.
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtWidgets import QScrollArea, QWidget

    monkeypatch.setattr(sd, "_available_screen", lambda widget: QRect(0, 0, 1024, 700))
    dlg = SettingsDialog(engine)
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    area = dlg.findChild(QScrollArea)
    viewport = area.viewport()
    assert area.widget().minimumSizeHint().width() <= viewport.width()
    for widget in area.widget().findChildren(QWidget):
        if widget.isVisible() and widget.objectName() in ("fieldHint", "database_password", "showToken"):
            right = widget.mapTo(viewport, QPoint(widget.width(), 0)).x()
            assert right <= viewport.width(), (widget.objectName(), getattr(widget, "text", lambda: "")())


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_hints_are_readable_in_both_schemes(qtbot, dialog, scheme):
    """WCAG's 4.5:1 for text, between a hint's colour and the dialog's background."""
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication, QLabel

    from kiraos_desktop.ui.theme import apply_theme, set_scheme_preference
    from ui_helpers import contrast

    set_scheme_preference(scheme)
    apply_theme(QApplication.instance())
    try:
        hints = dialog.findChildren(QLabel, "fieldHint")
        assert hints
        for hint in hints:
            palette = hint.palette()
            group = QPalette.ColorGroup.Active if hint.isEnabled() else QPalette.ColorGroup.Disabled
            ratio = contrast(palette.color(group, QPalette.ColorRole.WindowText),
                             dialog.palette().color(QPalette.ColorRole.Window))
            assert ratio >= 4.5, (hint.text(), ratio)
    finally:
        set_scheme_preference("system")
        apply_theme(QApplication.instance())


def test_ok_writes_only_what_its_user_changed_over_what_the_file_holds_now(qtbot, dialog, engine):
    """Issue 50: a skill `skills new` left disabled while the dialog was open was turned on by OK
    after changing only the port (the dialog wrote the whole list it had been opened with)."""
    from kiraos_desktop.core.settings import load_settings, save_settings

    skills = [item_name for item_name in (dialog._skill_list.item(r).data(Qt.ItemDataRole.UserRole)
                                          for r in range(dialog._skill_list.count())) if item_name]
    first, second = skills[0], skills[1]
    # Another process, meanwhile: a new draft disabled, and another setting changed.
    save_settings(engine.paths.settings_file, load_settings(engine.paths.settings_file)[0].replace(
        disabled_skills=["weather2"], max_event_keep=77))
    dialog.field_editor("api_port").setText("9300")
    for row in range(dialog._skill_list.count()):
        item = dialog._skill_list.item(row)
        if item.data(Qt.ItemDataRole.UserRole) == second:
            item.setCheckState(Qt.CheckState.Unchecked)
    qtbot.mouseClick(ok_button(dialog), Qt.MouseButton.LeftButton)
    assert dialog.result() == QDialog.DialogCode.Accepted
    saved = load_settings(engine.paths.settings_file)[0]
    assert saved.api_port == 9300
    assert saved.max_event_keep == 77  # untouched here: what the file held at OK
    assert saved.disabled_skills == ["weather2", second]  # the draft stays off; only `second` was unticked
    assert first not in saved.disabled_skills
    assert engine.settings == saved


def test_a_disabled_skill_with_errors_cannot_be_ticked(qtbot, engine):
    from kiraos_desktop.core.skills.file_ops import template_files
    from skills_helpers import write_skill

    write_skill(engine.paths.skills_dir, "draft", *template_files("draft"))  # the template's …… texts
    engine.skills.reload()
    engine.edit_settings(lambda s: s.replace(disabled_skills=["draft"]))
    dlg = SettingsDialog(engine)
    qtbot.addWidget(dlg)
    item = next(dlg._skill_list.item(r) for r in range(dlg._skill_list.count())
                if dlg._skill_list.item(r).data(Qt.ItemDataRole.UserRole) == "draft")
    assert item.text().endswith("(has errors)") and item.checkState() == Qt.CheckState.Unchecked
    assert not item.flags() & Qt.ItemFlag.ItemIsUserCheckable
    assert "Skills page" in item.toolTip()


def test_the_running_port_is_shown_when_it_is_not_the_saved_one(qtbot, engine):
    """Issue 50: Settings showed port 8765 while the API ran on --port 18765."""
    dlg = SettingsDialog(engine, running_url="http://127.0.0.1:18765")
    qtbot.addWidget(dlg)
    note = dlg.findChild(QLabel, "apiRunningNote")
    assert not note.isHidden() and "http://127.0.0.1:18765" in note.text() and "127.0.0.1:8765" in note.text()
    assert dlg.field_editor("api_port").text() == "8765"  # the saved port, which OK keeps
    same = SettingsDialog(engine, running_url="http://127.0.0.1:8765")
    qtbot.addWidget(same)
    assert same.findChild(QLabel, "apiRunningNote").isHidden()
