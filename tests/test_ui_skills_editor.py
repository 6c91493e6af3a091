"""Skills page editors: form <-> JSON sync, invalid JSON, highlighting, find, problems navigation."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from kiraos_desktop.ui.skills.highlighters import KIND_PROPERTY
from kiraos_desktop.ui.skills.manifest_editor import FORM_TAB, JSON_TAB
from kiraos_desktop.ui.skills.params_model import DESCRIPTION, REQUIRED
from skills_helpers import write_skill
from test_skills_authoring import RICH
from ui_skills_helpers import OFFSCREEN_NOTE, page, remember  # noqa: F401 (fixtures)


def _kinds(block) -> dict[tuple[int, int], str]:
    """{(start, length): kind} of the highlighter's formats in a block (UTF-16 positions)."""
    return {(r.start, r.length): r.format.property(KIND_PROPERTY) for r in block.layout().formats()
            if r.format.property(KIND_PROPERTY)}


def _u16(text: str, index: int) -> int:
    return len(text[:index].encode("utf-16-le")) // 2


# ---------------------------------------------------------------------- form <-> JSON

def test_form_and_json_stay_in_sync_both_ways(qtbot, engine, page):
    write_skill(engine.skills.skills_dir, "rich", RICH, "{{ a }} {{ b }} {{ c }}")
    page.reload_skills()
    assert page.open_skill("rich")
    editor = page.editor.manifest_editor
    form = editor.form
    assert form.name_edit.text() == "rich" and form.template_combo.currentData() == "jinja2"
    assert form.params_model.names() == ["b", "a", "c"]

    form.trigger_edit.setPlainText("新的触发")  # form -> JSON
    data = json.loads(editor.text())
    assert data["trigger"] == "新的触发"
    assert {k: v for k, v in data.items() if k != "trigger"} == {k: v for k, v in RICH.items() if k != "trigger"}
    assert list(data) == list(RICH)

    model = form.params_model
    assert model.setData(model.index(model.row_of("c"), DESCRIPTION), "可空")
    assert model.setData(model.index(model.row_of("c"), REQUIRED), Qt.CheckState.Checked.value,
                         Qt.ItemDataRole.CheckStateRole)
    data = json.loads(editor.text())
    assert data["parameters"]["properties"]["c"] == {"type": ["string", "null"], "description": "可空"}
    assert data["parameters"]["required"] == ["b", "a", "c"]

    data["description"] = "JSON 改的"  # JSON -> form
    data["parameters"]["properties"]["z"] = {"type": "number"}
    editor.json_edit.setPlainText(json.dumps(data, ensure_ascii=False, indent=4))
    assert form.description_edit.text() == "JSON 改的"
    assert form.params_model.names() == ["b", "a", "c", "z"]
    assert "z" in page.workbench.args_form.names()
    assert editor.text() == json.dumps(data, ensure_ascii=False, indent=4)  # the user's formatting stays


def test_invalid_json_is_marked_at_its_line_and_never_loses_the_text(qtbot, page):
    page.open_skill("tarot_reading")
    editor = page.editor.manifest_editor
    broken = editor.text().replace('"command": "/tarot",', '"command": "/tarot"')
    editor.json_edit.setPlainText(broken)
    line = broken[:broken.index('"command"')].count("\n") + 2  # the error is reported on the next key
    assert not editor.readable
    assert editor.error_line == line and editor.json_edit.marked_line == line
    assert f"Line {line}" in editor.json_status.text()
    assert editor.form.is_stale and f"line {line}" in editor.form.stale_reason
    assert editor.text() == broken
    assert editor.form.name_edit.text() == "tarot_reading"  # the last valid version is still shown

    page.refresh_preview()
    problems = page.workbench.problems.model.problems()
    assert problems[0].field == "manifest" and problems[0].line == line
    page.workbench.problems.view.clicked.emit(page.workbench.problems.model.index(0, 0))
    assert editor.tabs.currentIndex() == JSON_TAB
    assert editor.json_edit.textCursor().blockNumber() == line - 1

    editor.json_edit.setPlainText(broken.replace('"/tarot"', '"/tarot",'))
    assert editor.readable and not editor.form.is_stale and editor.json_edit.marked_line is None
    editor.json_edit.setPlainText('["not", "an", "object"]')
    assert not editor.readable and editor.form.is_stale


def test_form_cannot_show_odd_values_but_json_keeps_them(qtbot, page):
    page.open_skill("tarot_reading")
    editor = page.editor.manifest_editor
    data = json.loads(editor.text())
    data["trigger"] = ["a list"]
    editor.json_edit.setPlainText(json.dumps(data))
    assert editor.readable and editor.form.is_stale and "trigger" in editor.form.stale_reason
    page.refresh_preview()
    assert any(p.field == "trigger" and p.is_error for p in page.workbench.problems.model.problems())


def test_form_edit_is_undoable_in_the_json_view(qtbot, page):
    page.open_skill("tarot_reading")
    editor = page.editor.manifest_editor
    original = editor.text()
    editor.form.name_edit.setText("tarot2")
    editor.form.name_edit.textEdited.emit("tarot2")
    assert json.loads(editor.text())["name"] == "tarot2"
    assert page.editor.is_dirty() and "•" in page.editor.title.text()
    editor.json_edit.undo()
    assert json.loads(editor.text()) == json.loads(original)


# ---------------------------------------------------------------------- highlighting

def test_highlighting_marks_declared_and_undeclared_placeholders(qtbot, page):
    page.open_skill("tarot_reading")
    edit = page.editor.instruction_edit
    first = "🔮 问题：{question} 和 {mood}，{question}"
    edit.setPlainText(first + "\n## 标题\n没有占位符 {0} {not closed")
    block = edit.document().firstBlock()
    kinds = _kinds(block)
    q1, mood, q2 = first.index("{question}"), first.index("{mood}"), first.rindex("{question}")
    assert kinds == {(_u16(first, q1), 10): "declared", (_u16(first, mood), 6): "undeclared",
                     (_u16(first, q2), 10): "declared"}
    assert _u16(first, q1) == q1 + 1  # the emoji counts twice in UTF-16: positions are Qt's
    assert _kinds(block.next()) == {(0, 5): "heading"}
    assert _kinds(block.next().next()) == {}

    # declaring {mood} in the form re-highlights it as declared
    page.editor.manifest_editor.form.params_model.add_parameter("mood")
    assert _kinds(edit.document().firstBlock())[(_u16(first, mood), 6)] == "declared"


def test_highlighting_jinja_syntax_when_the_skill_opts_in(qtbot, page):
    page.open_skill("daily_fortune")
    edit = page.editor.instruction_edit
    line = "{% if focus %}看 {{ sign }} 与 {{ other }}{# 注释 #}{% endif %}"
    edit.setPlainText(line)
    kinds = _kinds(edit.document().firstBlock())
    assert kinds[(0, len("{% if focus %}"))] == "jinja"
    assert kinds[(line.index("{{ sign }}"), len("{{ sign }}"))] == "declared"
    assert kinds[(line.index("{{ other }}"), len("{{ other }}"))] == "undeclared"
    assert kinds[(line.index("{#"), len("{# 注释 #}"))] == "comment"

    page.prompter.unsaved_answer = "discard"
    assert page.open_skill("tarot_reading")  # plain skills get no Jinja2 colouring
    page.editor.instruction_edit.setPlainText("{% if x %}{question}")
    assert _kinds(page.editor.instruction_edit.document().firstBlock()) == {(10, 10): "declared"}


def test_preview_highlights_guard_input_and_context(qtbot, engine, page):
    remember(engine, "u1")
    page.workbench.user_picker.model.refresh()
    page.open_skill("tarot_reading")
    page.workbench.args_form.set_values({"question": "面试🎉"})
    page.workbench.user_picker.set_user("u1")
    page.refresh_preview()
    doc = page.workbench.preview.text_view.document()
    seen: dict[str, list[str]] = {}
    block = doc.firstBlock()
    while block.isValid():
        for r in block.layout().formats():
            kind = r.format.property(KIND_PROPERTY)
            if kind:
                cursor = QTextCursor(doc)
                cursor.setPosition(block.position() + r.start)
                cursor.setPosition(block.position() + r.start + r.length, QTextCursor.MoveMode.KeepAnchor)
                seen.setdefault(kind, []).append(cursor.selectedText())
        block = block.next()
    assert "<user_input>面试🎉</user_input>" in seen["input"]
    assert seen["guard"][0].startswith("⚠️ 注意") and seen["tag"][0] == '<skill name="tarot_reading">'
    assert any("[u1:basic]" in text for text in seen["context"])


# ---------------------------------------------------------------------- find, problems, line numbers

@pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)
def test_find_bar_finds_wraps_and_reports_not_found(qtbot, page):
    page.open_skill("tarot_reading")
    page.show()
    qtbot.waitExposed(page)
    page.editor.open_find()
    bar = page.editor.instruction_find
    assert bar.isVisible()
    bar.field.setText("占卜")  # (QTest cannot type CJK characters)
    bar.field.textEdited.emit("占卜")
    assert page.editor.instruction_edit.textCursor().selectedText() == "占卜"
    first = page.editor.instruction_edit.textCursor().position()
    assert bar.find_next()
    assert page.editor.instruction_edit.textCursor().position() > first
    while page.editor.instruction_edit.textCursor().position() > first:
        assert bar.find_next()  # wraps around to the first match
    bar.field.setText("没有这个词")
    assert not bar.find_next() and bar.status_text
    qtbot.keyClick(bar.field, Qt.Key.Key_Escape)
    assert not bar.isVisible()


@pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)
def test_ctrl_f_opens_find(qtbot, page):
    page.show()
    qtbot.waitExposed(page)
    page.activateWindow()
    qtbot.waitUntil(page.isActiveWindow)
    page.editor.instruction_edit.setFocus()
    qtbot.keyClick(page.editor.instruction_edit, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert page.editor.instruction_find.isVisible()


def test_problem_click_jumps_to_instruction_line_and_form_field(qtbot, page):
    page.open_skill("tarot_reading")
    page.editor.instruction_edit.setPlainText("第一行 {question}\n第二行\n第三行 {unknown}\n")
    page.refresh_preview()
    panel = page.workbench.problems
    rows = [p for p in panel.model.problems()]
    row = next(i for i, p in enumerate(rows) if p.field == "instruction")
    assert rows[row].line == 3 and not rows[row].is_error
    panel.view.clicked.emit(panel.model.index(row, 3))
    assert page.editor.instruction_edit.textCursor().blockNumber() == 2
    assert "(1)" in page.workbench.tabs.tabText(0)

    editor = page.editor.manifest_editor
    editor.tabs.setCurrentIndex(JSON_TAB)
    editor.form.name_edit.setText("bad name")
    editor.form.name_edit.textEdited.emit("bad name")
    page.refresh_preview()
    row = next(i for i, p in enumerate(panel.model.problems()) if p.field == "name")
    panel.view.clicked.emit(panel.model.index(row, 0))
    assert editor.tabs.currentIndex() == FORM_TAB
    assert "✖ error" == panel.model.index(0, 0).data()


@pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)
def test_line_numbers_follow_the_text(qtbot, page):
    edit = page.editor.instruction_edit
    edit.setPlainText("\n".join(str(n) for n in range(1, 1200)))
    assert edit.line_number_width() > edit.fontMetrics().horizontalAdvance("999")
    assert edit.viewportMargins().left() == edit.line_number_width()
    edit.goto_line(500)
    assert edit.textCursor().blockNumber() == 499
    page.show()
    qtbot.waitExposed(page)
    image = edit.grab()  # paints the gutter; must not warn or fail
    assert not image.isNull()


def test_palette_switch_recolours_highlighting(qtbot, page):
    from PySide6.QtGui import QColor, QPalette

    from kiraos_desktop.ui.skills.theme import colors_for

    page.open_skill("tarot_reading")
    edit = page.editor.instruction_edit
    edit.setPlainText("{question}")

    def declared_background():
        ranges = edit.document().firstBlock().layout().formats()
        return next(r.format.background().color() for r in ranges
                    if r.format.property(KIND_PROPERTY) == "declared")

    light = declared_background()
    dark = QPalette(page.palette())
    for role, color in ((QPalette.ColorRole.Base, "#1e1f22"), (QPalette.ColorRole.Text, "#e8e8ea"),
                        (QPalette.ColorRole.Window, "#2b2d31"), (QPalette.ColorRole.WindowText, "#e8e8ea")):
        dark.setColor(role, QColor(color))
    page.setPalette(dark)
    assert declared_background() != light
    assert declared_background() == colors_for(dark).declared_bg
    assert colors_for(dark).declared_bg.lightness() < 128  # dark band under light text
