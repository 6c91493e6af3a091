"""Windows open inside the screen they open on, at the size they last had on that screen (issue 50:
the main window opened at 1180x760 and the 3.x window at 1280x800 whatever the screen)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QMainWindow

from kiraos_desktop.ui.main_window import MainWindow
from kiraos_desktop.ui.window_size import FRAME_ALLOWANCE, available_room, place_window, remember_window
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, ui_settings

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)

SMALL = QRect(0, 0, 1024, 700)
LARGE = QRect(0, 0, 1920, 1080)


def fits(window, room: QRect) -> bool:
    outer = QRect(window.pos(), window.size() + FRAME_ALLOWANCE)
    return room.contains(outer)


def test_a_window_is_never_larger_than_the_screen_and_keeps_its_size_per_screen(qtbot, tmp_path):
    settings = ui_settings(tmp_path)
    window = QMainWindow()
    qtbot.addWidget(window)
    place_window(window, settings, "w", QSize(1280, 800), room=SMALL)
    assert window.size() == QSize(1024, 700) - FRAME_ALLOWANCE and fits(window, SMALL)
    place_window(window, settings, "w", QSize(1280, 800), room=LARGE)
    assert window.size() == QSize(1280, 800) and fits(window, LARGE)
    window.resize(1500, 900)
    remember_window(window, settings, "w", room=LARGE)
    place_window(window, settings, "w", QSize(1280, 800), room=SMALL)
    assert window.size() == QSize(1024, 700) - FRAME_ALLOWANCE  # the large screen's size is its own
    place_window(window, settings, "w", QSize(1280, 800), room=LARGE)
    assert window.size() == QSize(1500, 900)


def test_the_main_window_fits_a_1024x700_screen(qtbot, engine, tmp_path):
    window = MainWindow(engine, None, ui_settings(tmp_path), ScriptedPrompts())
    qtbot.addWidget(window)
    place_window(window, ui_settings(tmp_path), "window", QSize(1180, 760), room=SMALL)
    assert window.width() <= 1024 - FRAME_ALLOWANCE.width() and window.height() <= 700 - FRAME_ALLOWANCE.height()
    assert fits(window, SMALL)  # no minimum size keeps it larger than the screen


def test_the_main_window_opens_inside_the_screen_it_opens_on(qtbot, engine, tmp_path):
    """The offscreen screen of the tests is 800 pixels wide: smaller than the default 1180x760."""
    room = available_room(QMainWindow())
    window = MainWindow(engine, None, ui_settings(tmp_path), ScriptedPrompts())
    qtbot.addWidget(window)
    assert room.width() < 1180 and window.width() <= room.width() - FRAME_ALLOWANCE.width()


def test_the_tree_window_opens_inside_the_screen_and_remembers_its_size(qtbot, tmp_path):
    from kiraos_desktop.core.storage.tree import open_tree
    from kiraos_desktop.core.storage.tree.edits import TreeEdits
    from kiraos_desktop.ui.entities.window import TreeWindow
    from tree_fixtures import indexed_tree

    kira = indexed_tree(tmp_path / "kira")
    settings = ui_settings(tmp_path)
    room = available_room(QMainWindow())
    window = TreeWindow(open_tree(kira), str(kira), edits=TreeEdits(str(kira / "memory"), tmp_path / "j.jsonl"), ui_settings=settings)
    qtbot.addWidget(window)
    assert window.width() <= room.width() - FRAME_ALLOWANCE.width()
    window.resize(700, 500)
    window.close()
    again = TreeWindow(open_tree(kira), str(kira), edits=TreeEdits(str(kira / "memory"), tmp_path / "j.jsonl"), ui_settings=settings)
    qtbot.addWidget(again)
    assert again.size() == QSize(700, 500)


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_tree_windows_tabs_are_whole_on_a_1024x700_screen(qtbot, tmp_path, language):
    """Issue 50: at 1024 pixels the History tab was behind the tab bar's scroll arrows."""
    from kiraos_desktop.core.storage.tree import open_tree
    from kiraos_desktop.core.storage.tree.edits import TreeEdits
    from kiraos_desktop.ui.entities.window import TreeWindow
    from kiraos_desktop.ui.i18n import apply_language, language_manager
    from tree_fixtures import indexed_tree

    kira = indexed_tree(tmp_path / "kira")
    apply_language(language)
    try:
        window = TreeWindow(open_tree(kira), str(kira), edits=TreeEdits(str(kira / "memory"), tmp_path / "j.jsonl"),
                            ui_settings=ui_settings(tmp_path))
        qtbot.addWidget(window)
        window.resize(QSize(1024, 700) - FRAME_ALLOWANCE)
        with qtbot.waitSignal(window.page.listed, timeout=10000):
            window.show()
        tabs = window.page.detail.tabs
        assert tabs.tabBar().sizeHint().width() <= tabs.width()
    finally:
        language_manager().clear()
