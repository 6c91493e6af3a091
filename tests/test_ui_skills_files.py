"""Skills page files: save/revert, API and tools see saves at once, external edits, delete, rename,
new, duplicate, enable/disable and unsaved-changes prompts."""
from __future__ import annotations

import json
import os
import time

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from kiraos_desktop.ui.skills.skill_list import ENABLED
from ui_skills_helpers import OFFSCREEN_NOTE, FakePrompter, make_page, page, remember  # noqa: F401


def _edit(page, trigger=None, instruction=None):
    form = page.editor.manifest_editor.form
    if trigger is not None:
        form.trigger_edit.setPlainText(trigger)
    if instruction is not None:
        page.editor.instruction_edit.setPlainText(instruction)


def _write_later(path, text):
    """Write like another editor would, making sure the file's signature changes."""
    time.sleep(0.01)
    path.write_text(text, encoding="utf-8")
    stamp = time.time() + 2
    os.utime(path, (stamp, stamp))


# ---------------------------------------------------------------------- save / revert

def test_save_reaches_tool_list_and_tool_call_without_restart(qtbot, engine, page):
    remember(engine, "u1")
    page.open_skill("tarot_reading")
    _edit(page, trigger="想抽塔罗时调用。", instruction="新指令：{question}")
    assert page.editor.is_dirty()
    assert page.save()
    assert not page.editor.is_dirty()
    folder = engine.skills.skills_dir / "tarot_reading"
    assert (folder / "instruction.md").read_text(encoding="utf-8") == "新指令：{question}"
    assert json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["trigger"] == "想抽塔罗时调用。"
    assert sorted(p.name for p in folder.iterdir()) == ["instruction.md", "manifest.json"]

    descriptor = next(d for d in engine.tools.descriptors() if d.name == "tarot_reading")
    assert descriptor.description == "想抽塔罗时调用。"
    content = engine.tools.call("tarot_reading", "u1", {"question": "面试"}).content
    assert "新指令：<user_input>面试</user_input>" in content and "<context>" in content


def test_save_reaches_the_api_without_restart(qtbot, engine, page):
    httpx = pytest.importorskip("httpx")
    server_module = pytest.importorskip("kiraos_desktop.api.server")
    server = server_module.ApiServer(engine, "127.0.0.1", 0, engine.api_token)
    server.start()
    try:
        headers = {"Authorization": f"Bearer {engine.api_token}"}

        def tool(fmt="openai"):
            reply = httpx.get(f"{server.url}/v1/tools", params={"format": fmt}, headers=headers)
            assert reply.status_code == 200
            return next(t for t in reply.json()["tools"] if t["function"]["name"] == "tarot_reading")

        assert "style" not in tool()["function"]["parameters"]["properties"]
        page.open_skill("tarot_reading")
        page.editor.manifest_editor.form.params_model.add_parameter("style")
        _edit(page, trigger="API 触发", instruction="风格 {style}，问题 {question}")
        assert page.save()
        listed = tool()["function"]
        assert listed["description"] == "API 触发" and "style" in listed["parameters"]["properties"]
        reply = httpx.post(f"{server.url}/v1/tools/tarot_reading", headers=headers,
                           json={"user_id": "u1", "arguments": {"question": "q", "style": "简洁"}})
        assert reply.status_code == 200
        assert "风格 <user_input>简洁</user_input>，问题 <user_input>q</user_input>" in reply.json()["content"]
        page.workbench.args_form.set_values({"question": "q", "style": "简洁"})
        page.refresh_preview()
        assert reply.json()["content"] == page.workbench.preview.text()
    finally:
        server.stop()


def test_revert_drops_the_edits(qtbot, page):
    page.open_skill("tarot_reading")
    saved = page.editor.instruction_text()
    _edit(page, instruction="临时")
    page.revert()
    assert page.editor.instruction_text() == saved and not page.editor.is_dirty()


def test_ctrl_s_saves(qtbot, engine, page):
    page.open_skill("emoji_interpret")
    _edit(page, instruction="快捷键保存 {emoji}")
    page.show()
    qtbot.waitExposed(page)
    page.activateWindow()
    qtbot.waitUntil(page.isActiveWindow)
    page.editor.instruction_edit.setFocus()
    qtbot.keyClick(page.editor.instruction_edit, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert not page.editor.is_dirty()
    assert engine.skills.instruction("emoji_interpret") == "快捷键保存 {emoji}"


test_ctrl_s_saves = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)(test_ctrl_s_saves)


@pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)
def test_ctrl_n_creates_a_skill(qtbot, engine, page):
    page.show()
    qtbot.waitExposed(page)
    page.activateWindow()
    qtbot.waitUntil(page.isActiveWindow)
    page.list_panel.view.setFocus()
    page.prompter.names = ["from_keyboard"]
    qtbot.keyClick(page.list_panel.view, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert engine.skills.get("from_keyboard") is not None
    assert page.editor.folder.name == "from_keyboard"


# ---------------------------------------------------------------------- unsaved prompts

@pytest.mark.parametrize("answer", ["cancel", "discard", "save"])
def test_switching_skills_with_unsaved_changes_asks(qtbot, engine, page, answer):
    page.open_skill("tarot_reading")
    _edit(page, instruction="未保存 {question}")
    page.prompter.unsaved_answer = answer
    page.list_panel.select_folder("story_continue")  # as a click in the list would
    qtbot.waitUntil(lambda: page.prompter.asked == [("unsaved", "tarot_reading")])
    qtbot.wait(10)
    on_disk = engine.skills.instruction("tarot_reading")
    if answer == "cancel":
        assert page.editor.folder.name == "tarot_reading" and page.editor.is_dirty()
        assert page.list_panel.current_folder() == "tarot_reading"
        assert on_disk != "未保存 {question}"
    else:
        assert page.editor.folder.name == "story_continue" and not page.editor.is_dirty()
        assert (on_disk == "未保存 {question}") == (answer == "save")


def test_confirm_leave_for_the_window_close(qtbot, page):
    assert page.confirm_leave()
    _edit(page, instruction="x")
    page.prompter.unsaved_answer = "cancel"
    assert not page.confirm_leave() and page.has_unsaved_changes()


# ---------------------------------------------------------------------- external edits

@pytest.mark.parametrize("polling", [False, True])
def test_external_edit_reloads_silently_when_clean(qtbot, engine, polling):
    page = make_page(qtbot, engine, force_polling=polling)
    try:
        page.open_skill("tarot_reading")
        assert page.watcher.polling == polling
        _write_later(engine.skills.skills_dir / "tarot_reading" / "instruction.md", "别的编辑器 {question}")
        qtbot.waitUntil(lambda: page.editor.instruction_text() == "别的编辑器 {question}", timeout=5000)
        assert not page.editor.is_dirty() and page.prompter.asked == []
    finally:
        page.dispose()


@pytest.mark.parametrize("reload_answer", [False, True])
def test_external_edit_asks_when_dirty(qtbot, engine, page, reload_answer):
    page.open_skill("tarot_reading")
    _edit(page, instruction="我的修改 {question}")
    page.prompter.reload_answer = reload_answer
    _write_later(engine.skills.skills_dir / "tarot_reading" / "instruction.md", "外部修改 {question}")
    qtbot.waitUntil(lambda: page.prompter.asked == [("reload", "tarot_reading")], timeout=5000)
    expected = "外部修改 {question}" if reload_answer else "我的修改 {question}"
    assert page.editor.instruction_text() == expected
    assert page.editor.is_dirty() == (not reload_answer)
    page.watcher.check()  # asked once, not again for the same change
    assert len(page.prompter.asked) == 1


def test_own_saves_are_not_reported_as_external(qtbot, page):
    page.open_skill("tarot_reading")
    _edit(page, instruction="自己保存 {question}")
    assert page.save()
    qtbot.wait(300)
    page.watcher.check()
    assert page.prompter.asked == []


def test_folder_added_by_another_program_appears_in_the_list(qtbot, engine, page):
    from skills_helpers import write_skill

    write_skill(engine.skills.skills_dir, "zz_new", {"name": "zz_new", "trigger": "t"}, "hi")
    qtbot.waitUntil(lambda: page.list_panel.model.row_of_folder("zz_new") >= 0, timeout=5000)
    assert engine.skills.get("zz_new") is not None


# ---------------------------------------------------------------------- delete / rename / new / duplicate

def test_delete_asks_and_can_be_cancelled(qtbot, engine, page):
    page.open_skill("tarot_reading")
    page.prompter.delete_answer = False
    assert page.delete_skill() is None
    assert page.prompter.asked[0][:2] == ("delete", "tarot_reading")
    assert (engine.skills.skills_dir / "tarot_reading").is_dir() and engine.skills.get("tarot_reading")


@pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)
def test_delete_with_the_real_dialog_cancelled(qtbot, engine, page):
    from kiraos_desktop.ui.skills.prompts import Prompter

    page.prompter = Prompter(page)
    page.open_skill("tarot_reading")
    seen = []

    def answer():
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, answer)
            return
        seen.append(box.text())
        box.button(QMessageBox.StandardButton.Cancel).click()

    QTimer.singleShot(0, answer)
    page.list_panel.delete_button.click()
    assert seen and "tarot_reading" in seen[0]
    assert (engine.skills.skills_dir / "tarot_reading").is_dir()


def test_delete_moves_the_folder_to_the_backups(qtbot, engine, page):
    page.open_skill("tarot_reading")
    page.prompter.delete_answer = True
    target = page.delete_skill()
    assert target.parent == engine.paths.backups_dir / "deleted-skills"
    assert target.name.startswith("tarot_reading-") and (target / "manifest.json").is_file()
    assert not (engine.skills.skills_dir / "tarot_reading").exists()
    assert engine.skills.get("tarot_reading") is None
    assert "tarot_reading" not in [d.name for d in engine.tools.descriptors()]
    assert page.list_panel.model.row_of_folder("tarot_reading") < 0
    assert page.editor.folder is not None and page.editor.folder.name == "daily_fortune"


def test_rename_refuses_a_clash_then_renames_folder_and_name(qtbot, engine, page):
    page.open_skill("tarot_reading")
    engine.update_settings(engine.settings.replace(disabled_skills=["tarot_reading"]))
    page.prompter.names = ["emoji_interpret", "tarot"]
    assert page.rename_skill() == "tarot"
    assert page.prompter.errors and "emoji_interpret" in page.prompter.errors[0][1]
    skills_dir = engine.skills.skills_dir
    assert not (skills_dir / "tarot_reading").exists() and (skills_dir / "tarot").is_dir()
    assert json.loads((skills_dir / "tarot" / "manifest.json").read_text(encoding="utf-8"))["name"] == "tarot"
    assert engine.skills.get("tarot") is not None and engine.skills.get("tarot_reading") is None
    assert engine.settings.disabled_skills == ["tarot"]
    assert page.editor.folder.name == "tarot"


def test_rename_cancelled_changes_nothing(qtbot, engine, page):
    page.open_skill("tarot_reading")
    page.prompter.names = [None]
    assert page.rename_skill() is None
    assert (engine.skills.skills_dir / "tarot_reading").is_dir()


def test_new_from_template_and_duplicate(qtbot, engine, page):
    page.prompter.names = ["has space", "my_skill"]
    assert page.new_skill() == "my_skill"
    assert page.prompter.errors  # the invalid name was refused first
    skill = engine.skills.get("my_skill")
    assert skill is not None and page.editor.folder.name == "my_skill"
    # Not served: disabled, and the template's …… texts are errors that block enabling it.
    assert "my_skill" in engine.settings.disabled_skills and not skill.valid
    assert "my_skill" not in [d.name for d in engine.tools.descriptors()]
    model = page.list_panel.model
    row = model.row_of_folder("my_skill")
    model.setData(model.index(row, ENABLED), Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole)
    assert "my_skill" in engine.settings.disabled_skills
    assert "problem" in page.prompter.errors[-1][1] and "template" in page.prompter.errors[-1][1]
    assert model.index(row, ENABLED).data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Unchecked

    page.open_skill("tarot_reading")
    page.prompter.names = ["tarot_copy"]
    assert page.duplicate_skill() == "tarot_copy"
    copy = engine.skills.get("tarot_copy")
    assert copy.valid and copy.command == "/tarot_copy"
    assert engine.skills.instruction("tarot_copy") == engine.skills.instruction("tarot_reading")


def test_enable_toggle_writes_disabled_skills(qtbot, engine, page):
    model = page.list_panel.model
    row = model.row_of_folder("story_continue")
    index = model.index(row, ENABLED)
    assert model.setData(index, Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    assert engine.settings.disabled_skills == ["story_continue"]
    on_disk = json.loads(engine.paths.settings_file.read_text(encoding="utf-8"))
    assert on_disk["disabled_skills"] == ["story_continue"]
    assert "story_continue" not in [d.name for d in engine.tools.descriptors()]
    assert model.index(row, ENABLED).data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Unchecked
    assert model.setData(model.index(row, ENABLED), Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole)
    assert engine.settings.disabled_skills == []


def test_search_filters_the_list(qtbot, page):
    panel = page.list_panel
    panel.search_edit.setText("TAROT")
    assert panel.proxy.rowCount() == 1
    panel.search_edit.setText("/fortune")
    assert panel.proxy.rowCount() == 1
    panel.search_edit.setText("no such skill")
    assert panel.proxy.rowCount() == 0
    panel.search_edit.clear()
    assert panel.proxy.rowCount() == 6


def test_problem_badge_for_a_broken_skill(qtbot, engine, page):
    from skills_helpers import write_skill

    write_skill(engine.skills.skills_dir, "broken", "{not json", "x")
    page.reload_skills()
    model = page.list_panel.model
    row = model.row_of_folder("broken")
    assert model.index(row, 3).data() == "✖ 1"
    assert page.open_skill("broken")
    assert page.editor.manifest_editor.form.is_stale
    assert page.editor.manifest_text() == "{not json"


def test_slash_command_tester(qtbot, engine, page):
    tester = page.workbench.tester
    tester.set_text("/tarot 今天运势")
    match = engine.skills.match_command("/tarot 今天运势")
    assert tester.result == (match.skill, match.args_text, match.rewritten)
    assert tester.result[2] == "[用户使用了技能命令 /tarot] 今天运势"
    assert "enable_slash_commands" in tester.note.text()
    page.open_skill("tarot_reading")
    form = page.editor.manifest_editor.form
    form.command_edit.setText("/taro")
    form.command_edit.textEdited.emit("/taro")
    tester.set_text("/taro 明天")
    assert tester.result == ("tarot_reading", "明天", "[用户使用了技能命令 /taro] 明天")
    tester.set_text("/tarot 明天")  # the saved command is being replaced
    assert tester.result[0] == "—"
    engine.update_settings(engine.settings.replace(enable_slash_commands=True))
    tester.refresh()
    assert tester.note.text() == ""


def test_prompter_is_replaceable_for_tests(engine, page):
    """The page asks whatever prompter it holds when it asks (so tests can script the answers)."""
    scripted = FakePrompter()
    page.prompter = scripted
    page.open_skill("tarot_reading")
    assert page.delete_skill() is None  # the scripted answer is "no"
    assert [question[0] for question in scripted.asked] == ["delete"]
    assert (engine.skills.skills_dir / "tarot_reading").is_dir()


def test_settings_changed_elsewhere_show_up(qtbot, engine, page):
    model = page.list_panel.model
    row = model.row_of_folder("story_continue")
    engine.update_settings(engine.settings.replace(disabled_skills=["story_continue"],
                                                   enable_slash_commands=True))
    qtbot.waitUntil(lambda: model.index(row, ENABLED).data(Qt.ItemDataRole.CheckStateRole)
                    == Qt.CheckState.Unchecked)
    assert page.workbench.tester.note.text() == ""


# ---------------------------------------------------------------------- no skill open, empty list

@pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)
def test_deleting_the_last_skill_leaves_a_neutral_editor_and_says_what_to_do(qtbot, engine, page):
    page.show()
    qtbot.waitExposed(page)
    page.prompter.delete_answer = True
    for _ in range(len(engine.skills.skills())):
        qtbot.mouseClick(page.list_panel.delete_button, Qt.MouseButton.LeftButton)
        qtbot.wait(20)
    assert engine.skills.skills() == [] and page.editor.folder is None
    form = page.editor.manifest_editor.form
    # Nothing open is not an invalid manifest: no "The JSON is not valid (line 1)" over the form.
    assert not form.stale_reason and page.editor.manifest_editor.json_status.text() == ""
    assert page.editor.manifest_editor.error_line is None
    empty = page.list_panel.empty_state
    assert empty.isVisible() and empty.text().startswith("No skills yet.") and "Ctrl+N" in empty.text()


@pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)
def test_a_search_that_matches_no_skill_says_so(qtbot, page):
    page.show()
    qtbot.waitExposed(page)
    empty = page.list_panel.empty_state
    assert not empty.isVisible()
    qtbot.keyClicks(page.list_panel.search_edit, "zzzz")
    qtbot.waitUntil(lambda: empty.isVisible())
    assert empty.text() == "No skill matches “zzzz”."
    page.list_panel.search_edit.clear()
    qtbot.waitUntil(lambda: not empty.isVisible())


def test_a_skill_not_open_changed_on_disk_reaches_the_list_as_the_router_serves_it(qtbot, engine, page):
    """Issue 50: a manifest edited on disk left the list's On box and ✖ count as they were (and the
    API served the old skill) until a manual reload. The engine follows the folder on its watcher
    thread; the page follows the router."""
    from kiraos_desktop.core.skills.file_ops import template_files
    from skills_helpers import write_skill

    page.open_skill("tarot_reading")
    write_skill(engine.skills.skills_dir, "weather2", *template_files("weather2"))
    engine.edit_settings(lambda s: s.replace(disabled_skills=[*s.disabled_skills, "weather2"]))
    engine.skills.reload()
    qtbot.waitUntil(lambda: page.list_panel.model.row_of_folder("weather2") >= 0, timeout=5000)
    model = page.list_panel.model
    assert model.skill(model.row_of_folder("weather2")).errors  # the template's texts
    engine.start_watching(build_recall=False)  # as the window does: the engine's watcher follows the disk
    path = engine.skills.skills_dir / "weather2" / "manifest.json"
    fixed = json.loads(path.read_text(encoding="utf-8"))
    fixed.update(description="Weather for a city", trigger="asked about the weather")
    fixed["parameters"]["properties"]["request"]["description"] = "the city"
    (engine.skills.skills_dir / "weather2" / "instruction.md").write_text("The weather in {request}.", encoding="utf-8")
    _write_later(path, json.dumps(fixed, ensure_ascii=False))
    qtbot.waitUntil(lambda: not model.skill(model.row_of_folder("weather2")).errors, timeout=5000)
    shown = model.skill(model.row_of_folder("weather2"))
    served = engine.skills.get("weather2")
    assert (shown.description, shown.enabled, len(shown.problems)) == \
        (served.description, served.enabled, len(served.problems)) == ("Weather for a city", False, 0)
    assert page.editor.folder.name == "tarot_reading"  # the open skill stays open
