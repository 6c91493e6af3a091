"""Pages at the smallest supported window size (1024x700): every page fits its width, no sideways scrolling."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QScrollArea

from kiraos_desktop.ui.i18n import apply_language, language_manager
from kiraos_desktop.ui.main_window import PAGE_API, PAGE_OVERVIEW, PAGE_SKILLS, PAGE_USERS, MainWindow
from tests.ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, seed, ui_settings

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


@pytest.fixture(params=["en", "zh_CN"])
def window(request, qtbot, engine, tmp_path):
    seed(engine, users=3)
    apply_language(request.param)
    window = MainWindow(engine, None, ui_settings(tmp_path), ScriptedPrompts())
    qtbot.addWidget(window)
    window.resize(1024, 700)
    window.show()
    qtbot.waitExposed(window)
    yield window
    window.close()
    language_manager().clear()


@pytest.mark.parametrize("page", [PAGE_OVERVIEW, PAGE_USERS, PAGE_SKILLS, PAGE_API])
def test_page_fits_1024_wide_window_without_sideways_scrolling(qtbot, window, page):
    window.show_page(page)
    QApplication.processEvents()
    area = window.findChildren(QScrollArea, "pageScroller")
    shown = [a for a in area if a.isVisible()]
    assert len(shown) == 1
    content = shown[0].widget()
    assert content.minimumSizeHint().width() <= shown[0].viewport().width(), type(content).__name__
