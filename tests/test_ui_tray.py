"""Closing the window: where a tray exists the API keeps serving; where none exists, closing asks first."""
from __future__ import annotations

from types import SimpleNamespace

import httpx
import pytest
from PySide6.QtWidgets import QApplication, QSystemTrayIcon

from kiraos_desktop.ui.app import AppController
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, open_engine, seed, ui_settings

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE, "This plugin does not support raise")


@pytest.fixture
def engine(data_dir):
    engine = open_engine(data_dir)
    seed(engine, users=2)
    yield engine
    engine.close()


@pytest.fixture
def notices(monkeypatch):
    shown = []
    monkeypatch.setattr(QSystemTrayIcon, "showMessage", lambda self, title, text, *a: shown.append(text))
    monkeypatch.setattr(QSystemTrayIcon, "show", lambda self: None)  # the offscreen platform has no tray
    return shown


def start(qtbot, engine, tmp_path, monkeypatch, tray: bool, prompts=None):
    from kiraos_desktop.ui import app as app_module

    monkeypatch.setattr(QSystemTrayIcon, "isSystemTrayAvailable", staticmethod(lambda: tray))
    if prompts is not None:
        monkeypatch.setattr(app_module, "prompts", prompts)
    controller = AppController(engine, SimpleNamespace(port=0, host="127.0.0.1"), ui_settings=ui_settings(tmp_path))
    controller.use_desktop_close()
    window = controller.window
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.server_state.state == "running", timeout=15000)
    return controller, window


def health(controller) -> int:
    return httpx.get(controller.server.url + "/v1/health", timeout=5).status_code


def test_with_a_tray_closing_keeps_the_api_serving(qtbot, engine, tmp_path, monkeypatch, notices):
    quit_on_last = QApplication.instance().quitOnLastWindowClosed()
    prompts = ScriptedPrompts(confirm=False)
    quits = []
    monkeypatch.setattr(QApplication, "quit", staticmethod(lambda: quits.append(True)))
    controller, window = start(qtbot, engine, tmp_path, monkeypatch, tray=True, prompts=prompts)
    try:
        tray = controller.tray
        assert tray is not None
        texts = [a.text() for a in tray.menu.actions() if not a.isSeparator()]
        assert texts[0] == "Show window" and texts[-2:] == ["Copy token", "Quit KiraOS Desktop"]
        assert texts[1].startswith("API running at http://127.0.0.1:")
        tray.copy_token_action.trigger()
        assert QApplication.clipboard().text() == controller.server.token

        window.close()
        assert not window.isVisible()
        assert health(controller) == 200  # the bot keeps its memory
        assert len(notices) == 1 and "keeps serving" in notices[0]
        tray.show_action.trigger()
        assert window.isVisible()
        window.close()
        assert len(notices) == 1  # once
        assert health(controller) == 200

        assert prompts.asked == []  # going to the tray asks nothing
        tray.show_action.trigger()
        tray.quit_action.trigger()  # Quit asks, like any quit while the API serves: no
        assert len(prompts.asked) == 1 and window.isVisible() and health(controller) == 200
        prompts.answer = True
        tray.quit_action.trigger()
        assert not window.isVisible() and quits == [True]
    finally:
        QApplication.instance().setQuitOnLastWindowClosed(quit_on_last)
        controller.shutdown()


def test_with_a_tray_the_setting_can_turn_it_off(qtbot, engine, tmp_path, monkeypatch, notices):
    quit_on_last = QApplication.instance().quitOnLastWindowClosed()
    engine.update_settings(engine.settings.replace(close_to_tray=False))
    prompts = ScriptedPrompts(confirm=False)
    controller, window = start(qtbot, engine, tmp_path, monkeypatch, tray=True, prompts=prompts)
    try:
        window.close()
        assert window.isVisible() and prompts.asked  # not hidden: asked instead
    finally:
        QApplication.instance().setQuitOnLastWindowClosed(quit_on_last)
        controller.shutdown()


@pytest.mark.parametrize("answer", [False, True])
def test_without_a_tray_closing_asks_while_the_api_serves(qtbot, engine, tmp_path, monkeypatch, answer):
    prompts = ScriptedPrompts(confirm=answer)
    controller, window = start(qtbot, engine, tmp_path, monkeypatch, tray=False, prompts=prompts)
    try:
        assert controller.tray is None
        window.close()
        assert len(prompts.asked) == 1
        title, text = prompts.asked[0]
        assert "loses its memory while KiraOS Desktop is closed" in text
        assert window.isVisible() is not answer
        if not answer:
            assert health(controller) == 200
    finally:
        controller.shutdown()


def test_the_settings_dialog_has_the_tray_and_colour_settings(qtbot, engine, tmp_path):
    from PySide6.QtWidgets import QCheckBox, QComboBox

    from kiraos_desktop.ui.main_window import MainWindow
    from kiraos_desktop.ui.settings_dialog import SettingsDialog
    from kiraos_desktop.ui.theme import is_dark_scheme, set_scheme_preference

    window = MainWindow(engine, None, ui_settings(tmp_path), ScriptedPrompts())
    qtbot.addWidget(window)
    dialog = SettingsDialog(engine, window)
    qtbot.addWidget(dialog)
    tray = dialog.findChild(QCheckBox, "close_to_tray")
    scheme = dialog.findChild(QComboBox, "color_scheme")
    assert tray.isChecked() and scheme.currentData() == "system"
    tray.setChecked(False)
    scheme.setCurrentIndex(scheme.findData("dark"))
    try:
        dialog.accept()
        assert engine.settings.close_to_tray is False and engine.settings.color_scheme == "dark"
        assert is_dark_scheme()
        assert QApplication.instance().palette().window().color().lightness() < 100  # applied at once
    finally:
        set_scheme_preference("system")
        from kiraos_desktop.ui.theme import apply_theme

        apply_theme(QApplication.instance())
        window.close()
