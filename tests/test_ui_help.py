"""Help > Guide: the guide in both languages, opened from the menu and from the first-run hint."""
from __future__ import annotations

import pytest

from kiraos_desktop.ui.help_dialog import HelpDialog, guide_text
from kiraos_desktop.ui.i18n import apply_language, language_manager
from kiraos_desktop.ui.main_window import MainWindow
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, open_engine, seed, ui_settings

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE, "This plugin does not support raise")


@pytest.mark.parametrize("language, words", [
    ("en", ("Profile entries", "Category", "Confidence", "TTL", "Connecting a bot")),
    ("zh_CN", ("画像条目", "类别", "置信度", "有效期", "连接机器人")),
])
def test_the_guide_covers_memory_skills_and_connecting_in_both_languages(language, words):
    text = guide_text(language)
    for word in (*words, "{name}", "{{ name }}", "/v1", "/mcp", "kiraos-desktop mcp", "Bearer"):
        assert word in text, (language, word)


@pytest.fixture
def empty_engine(data_dir):
    engine = open_engine(data_dir)
    yield engine
    engine.close()


def _window(qtbot, engine, tmp_path) -> MainWindow:
    window = MainWindow(engine, None, ui_settings(tmp_path), ScriptedPrompts())
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_help_menu_opens_the_guide_and_it_follows_the_language(qtbot, empty_engine, tmp_path):
    window = _window(qtbot, empty_engine, tmp_path)
    try:
        assert window.guide_action.text() == "Guide"
        assert window.guide_action in window.help_menu.actions()
        window.guide_action.trigger()
        guide = window.findChild(HelpDialog)
        qtbot.waitUntil(guide.isVisible)
        assert not guide.isModal()
        assert "Connecting a bot" in guide.browser.toPlainText()
        apply_language("zh_CN")
        qtbot.waitUntil(lambda: "连接机器人" in guide.browser.toPlainText(), timeout=5000)
        assert guide.windowTitle() == "KiraOS Desktop 使用指南"
        window.guide_action.trigger()  # a second time: the same window, raised
        assert window.findChildren(HelpDialog) == [guide]
    finally:
        language_manager().clear()
        window.close()


def test_first_run_hint_points_to_the_guide_until_a_user_exists(qtbot, empty_engine, tmp_path):
    window = _window(qtbot, empty_engine, tmp_path)
    try:
        hint = window.overview_page.first_run
        qtbot.waitUntil(hint.isVisible)
        assert "guide" in hint.text() and "F1" in hint.text()
        hint.linkActivated.emit("guide")
        qtbot.waitUntil(lambda: window.findChild(HelpDialog) is not None and window.findChild(HelpDialog).isVisible())
        seed(empty_engine, users=1)
        window.coalescer.flush()
        qtbot.waitUntil(lambda: not hint.isVisible(), timeout=5000)
    finally:
        window.close()
