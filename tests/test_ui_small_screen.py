"""Pages at the smallest supported window size (1024x700): every page fits its width, no sideways scrolling."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QScrollArea

from kiraos_desktop.ui.i18n import apply_language, language_manager
from kiraos_desktop.ui.main_window import PAGE_API, PAGE_OVERVIEW, PAGE_SKILLS, PAGE_USERS, MainWindow
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, seed, ui_settings

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


def test_skill_names_are_not_cut_at_1024x700(qtbot, engine, tmp_path):
    """"nickna…erator" beside its command: the list is as wide as its names need (up to a bound)."""
    from kiraos_desktop.ui.main_window import PAGE_SKILLS
    from kiraos_desktop.ui.skills.list_panel import NAME
    from ui_helpers import ScriptedPrompts, shown_window

    with shown_window(qtbot, engine, tmp_path, ScriptedPrompts()) as window:
        window.resize(1024, 700)
        window.show_page(PAGE_SKILLS)
        panel = window.skills_page.list_panel
        qtbot.waitUntil(lambda: panel.proxy.rowCount() >= 6, timeout=3000)
        qtbot.wait(50)
        view = panel.view
        for row in range(panel.proxy.rowCount()):
            index = panel.proxy.index(row, NAME)
            needed = view.sizeHintForIndex(index).width()
            assert view.columnWidth(NAME) >= needed, (index.data(), view.columnWidth(NAME), needed)
