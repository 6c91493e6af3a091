"""The Skills page at 1024x700, in both languages: every part readable, the preview keeps the room."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from kiraos_desktop.core.skills.problems import Problem
from kiraos_desktop.ui.i18n import apply_language, language_manager
from kiraos_desktop.ui.main_window import PAGE_SKILLS
from kiraos_desktop.ui.skills.skill_list import COMMAND
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, seed, shown_window

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


@pytest.fixture(params=["en", "zh_CN"])
def language(request, qapp):
    apply_language(request.param)
    yield request.param
    language_manager().clear()


@pytest.fixture
def page(qtbot, engine, tmp_path, language):
    seed(engine, users=3)
    with shown_window(qtbot, engine, tmp_path, ScriptedPrompts()) as window:
        window.resize(1024, 700)
        window.show_page(PAGE_SKILLS)
        window.skills_page.open_first_skill_with_sample_arguments()
        qtbot.waitUntil(lambda: window.skills_page.workbench.preview.text_view.height() > 0, timeout=2000)
        QApplication.processEvents()
        yield window.skills_page


def test_the_user_search_field_is_wide_enough_to_read(page):
    picker = page.workbench.user_picker
    field = picker.search_edit
    needed = field.fontMetrics().horizontalAdvance(field.placeholderText())
    assert field.width() >= needed + 20
    assert picker.combo.width() >= 150


def test_the_preview_keeps_most_of_the_height(page):
    # Below it only the tab bar and "No problems." while there are none (the tester scrolls).
    assert page.workbench.preview.text_view.height() >= 230
    assert not page.workbench.problems.view.isVisible()


def test_the_command_title_is_not_cut(page):
    header = page.list_panel.view.horizontalHeader()
    title = page.list_panel.view.model().headerData(COMMAND, header.orientation())
    assert header.sectionSize(COMMAND) >= header.fontMetrics().horizontalAdvance(title) + 8


def test_a_long_problem_message_wraps_in_its_row(page, qtbot):
    panel = page.workbench.problems
    message = "the description says nothing a host could use to decide when to call this skill " * 2
    panel.set_problems([Problem("warning", "description", "too short")])
    qtbot.waitUntil(panel.view.isVisible, timeout=2000)
    QApplication.processEvents()
    one_line = panel.view.rowHeight(0)
    panel.set_problems([Problem("warning", "description", message)])
    QApplication.processEvents()
    line = panel.view.fontMetrics().height()
    assert panel.view.rowHeight(0) >= one_line + 2 * line  # wrapped over lines, not cut after one


def test_no_legend_sample_is_split_over_two_lines(page):
    legend = page.workbench.preview.legend
    html = legend.text()
    assert "&lt;user_input&gt;&nbsp;" in html  # both languages put a space after the tag
    for sample in ("exclude guard", "<user_input> value", "<context> memory", "<user_input> 值", "<context> 记忆"):
        assert sample.replace("<", "&lt;").replace(">", "&gt;") not in html  # spaces made unbreakable


def test_every_command_and_the_preview_choice_are_whole(page):
    """Issue 50: "/persona…" in the list and "Tool result (what the LLM re" were cut at 1024 pixels."""
    view = page.list_panel.view
    header = view.horizontalHeader()
    model = view.model()
    for row in range(model.rowCount()):
        text = model.index(row, COMMAND).data()
        assert view.fontMetrics().horizontalAdvance(text) + 8 <= header.sectionSize(COMMAND), text
    combo = page.workbench.preview.mode_combo
    assert combo.fontMetrics().horizontalAdvance(combo.currentText()) + 30 <= combo.width()
