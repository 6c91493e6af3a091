"""Saving a skill with errors: the page says hosts cannot call it and asks first; a new skill's preview."""
from __future__ import annotations

import pytest

from ui_skills_helpers import OFFSCREEN_NOTE, make_page, page  # noqa: F401

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


def _break_the_manifest(page):
    page.editor.manifest_editor.json_edit.setPlainText('{"name": "tarot_reading", "description": "x",')  # bad JSON
    page.refresh_preview()


@pytest.mark.parametrize("answer", [False, True])
def test_saving_a_skill_with_bad_manifest_json_warns_and_asks(qtbot, engine, page, answer):
    page.open_skill("tarot_reading")
    folder = engine.skills.skills_dir / "tarot_reading"
    before = (folder / "manifest.json").read_text(encoding="utf-8")
    _break_the_manifest(page)
    page.prompter.save_invalid_answer = answer
    assert page.save() is answer
    asked = [q for q in page.prompter.asked if q[0] == "save_invalid"]
    assert len(asked) == 1 and asked[0][1] == "tarot_reading"
    assert asked[0][2]  # the errors are named in the question
    written = (folder / "manifest.json").read_text(encoding="utf-8")
    if answer:
        assert written.endswith('"x",') and not page.editor.is_dirty()
        assert "tarot_reading" not in [d.name for d in engine.tools.descriptors()]
    else:
        assert written == before and page.editor.is_dirty()
        assert "tarot_reading" in [d.name for d in engine.tools.descriptors()]


def test_saving_a_valid_skill_asks_nothing(qtbot, engine, page):
    page.open_skill("tarot_reading")
    page.editor.instruction_edit.setPlainText("新指令：{question}")
    assert page.save()
    assert not [q for q in page.prompter.asked if q[0] == "save_invalid"]


def test_a_new_skill_previews_with_its_missing_arguments_marked(qtbot, engine, page):
    page.prompter.names = ["fresh_skill"]
    page.new_skill()
    page.editor.instruction_edit.setPlainText("请根据 {topic} 写一首诗，风格 {style}。")
    manifest = page.editor.manifest_text()
    import json

    data = json.loads(manifest)
    data["parameters"] = {"type": "object", "properties": {"topic": {"type": "string"},
                                                           "style": {"type": "string"}},
                          "required": ["topic", "style"]}
    page.editor.manifest_editor.json_edit.setPlainText(json.dumps(data, ensure_ascii=False))
    page.workbench.args_form.clear_values() if hasattr(page.workbench.args_form, "clear_values") else None
    page.refresh_preview()
    text = page.workbench.preview.text()
    assert "请根据" in text and "写一首诗" in text  # not blank while arguments are missing
    assert "topic" in text and "style" in text  # each missing argument is marked in place
