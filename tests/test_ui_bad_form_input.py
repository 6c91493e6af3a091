"""Bad input through the window's forms: a clear message in the window's language, nothing written."""
from __future__ import annotations

import pytest

from kiraos_desktop.ui.i18n import apply_language, language_manager
from kiraos_desktop.ui.users.expiry import ExpiryInputError, parse_expiry_input
from tests.test_ui_profile_tab import engine, stack, tab  # noqa: F401 (fixtures)
from ui_helpers import OFFSCREEN_NOTE, snapshot

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


@pytest.fixture
def chinese(qapp):
    apply_language("zh_CN")
    yield
    language_manager().clear()


@pytest.mark.parametrize("text", ["0m", "0d0h", "99999999999999999999d", "5300w"])
def test_ttl_errors_are_in_the_window_language(chinese, text):
    with pytest.raises(ExpiryInputError) as caught:
        parse_expiry_input(text)
    message = str(caught.value)
    assert text in message
    assert "ttl" not in message.lower() and "accepted forms" not in message  # the core's English text
    assert any("\u4e00" <= ch <= "\u9fff" for ch in message)


@pytest.mark.parametrize("expiry", ["2020-01-01", "0001-01-01", "2026-01-01 00:00"])
def test_adding_an_entry_that_has_already_expired_is_refused(qtbot, tab, engine, expiry):
    """It would vanish from the table at once (expired entries are hidden) and reach no bot."""
    before = snapshot(engine.store.path)
    tab.add_button.click()
    dialog = tab.add_dialog
    dialog.key_edit.setText("新键")
    dialog.value_edit.setText("值")
    dialog.expiry_edit.setText(expiry)
    dialog.buttons.accepted.emit()
    assert dialog.isVisible() and dialog.errors["expires_at"].isVisible()
    assert "past" in dialog.errors["expires_at"].text()
    assert snapshot(engine.store.path) == before
    dialog.reject()


@pytest.mark.parametrize("key,text", [
    ("api_token", "abc\ndef"), ("api_token", "两个字"), ("api_token", "with space"),
    ("api_host", "a b"), ("api_host", "localhost\nx"), ("api_host", "999.1.1.1"), ("api_host", "host/path"),
])
def test_settings_refuse_a_host_or_token_the_api_could_never_use(qtbot, engine, key, text):
    """A token travels in an HTTP header and a host is bound by the server: neither may be saved
    in a form that only fails later, after the dialog closed."""
    from tests.test_ui_settings_dialog import ok_button, settings_text
    from kiraos_desktop.ui.settings_dialog import SettingsDialog

    before = settings_text(engine)
    dialog = SettingsDialog(engine)
    qtbot.addWidget(dialog)
    dialog.field_editor(key).setText(text)
    assert dialog.field_error(key)
    assert not ok_button(dialog).isEnabled()
    dialog.accept()
    assert settings_text(engine) == before


@pytest.mark.parametrize("key,text", [("max_events_per_user", "1e5"), ("max_context_chars", "-1"),
                                      ("api_port", "70000"), ("api_host", " "), ("api_token", "a b")])
def test_settings_errors_are_in_the_window_language(qtbot, chinese, engine, key, text):
    from kiraos_desktop.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(engine)
    qtbot.addWidget(dialog)
    dialog.field_editor(key).setText(text)
    message = dialog.field_error(key)
    assert message and any("\u4e00" <= ch <= "\u9fff" for ch in message), message
    assert "must" not in message.lower()


def test_profile_limit_is_explained_in_the_window_language(qtbot, chinese, tab, engine):
    engine.update_settings(engine.settings.replace(max_profiles_per_user=4))
    before = snapshot(engine.store.path)
    tab.add_button.click()
    dialog = tab.add_dialog
    dialog.key_edit.setText("新键")
    dialog.value_edit.setText("值")
    dialog.buttons.accepted.emit()
    message = dialog.general_error.text()
    assert dialog.isVisible() and "4" in message
    assert "max_profiles_per_user" not in message and any("\u4e00" <= ch <= "\u9fff" for ch in message)
    assert snapshot(engine.store.path) == before
    dialog.reject()


def test_the_expiry_message_is_shown_whole_at_1024x700(qtbot):
    """The Add-entry dialog cut its Expires message after "...2026-01-31 or": every error is wrapped
    and the dialog grows to show all of its lines."""
    from PySide6.QtWidgets import QDialogButtonBox

    from kiraos_desktop.ui.users.entry_dialogs import AddProfileDialog

    dialog = AddProfileDialog("u1", lambda *args: None, set())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.key_edit.setText("城市")
    dialog.value_edit.setText("北京")
    dialog.expiry_edit.setText("next tuesday")
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    label = dialog.errors["expires_at"]
    qtbot.waitUntil(lambda: label.isVisible(), timeout=2000)
    qtbot.wait(50)
    assert len(label.text()) > 60  # a message that needs more than one line at this width
    assert label.height() >= label.heightForWidth(label.width()), (label.height(), label.heightForWidth(label.width()))
    assert dialog.height() <= 700 and label.geometry().bottom() <= dialog.height()


def test_the_expiry_examples_name_a_date_to_come(qtbot):
    """Issue 50: the Expires placeholder's example date (2026-01-31) was in the past."""
    from datetime import date

    from kiraos_desktop.ui.users.entry_dialogs import AddProfileDialog
    from kiraos_desktop.ui.users.expiry import ExpiryInputError, parse_expiry_input

    dialog = AddProfileDialog("u1", lambda *args: None, set())
    qtbot.addWidget(dialog)
    example = dialog.expiry_edit.placeholderText().rsplit(", ", 1)[1]
    assert date.fromisoformat(example) > date.today()
    with pytest.raises(ExpiryInputError) as refused:
        parse_expiry_input("next tuesday")
    assert f"such as {example} or {example} 18:00" in str(refused.value)
