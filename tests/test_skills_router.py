"""SkillRouter: instruction cache, reload, disabled skills, rendering and slash commands."""
from __future__ import annotations

import os
import shutil
import threading

import pytest

from kiraos_desktop.core.skills import (
    SkillArgumentError,
    SkillRenderError,
    SkillRouter,
    UnknownSkillError,
)
from skills_helpers import manifest, params, write_skill

TAIL = "请严格按照上述技能指令执行，直接输出执行结果。"


@pytest.fixture
def skills_dir(tmp_path):
    write_skill(tmp_path, "tarot", manifest("tarot_reading", command="/tarot", exclude="只是闲聊",
                                            parameters=params(["question"], question="string")),
                "占卜问题：{question}")
    write_skill(tmp_path, "zz_story", manifest("story_continue", command="/story",
                                               parameters=params(["story"], story="string")), "续写 {story}")
    return tmp_path


def _touch_changed(path, text):
    """Rewrite with a different size so the change is visible whatever the mtime resolution."""
    path.write_text(text, encoding="utf-8")


def test_render_is_the_exact_tool_result(skills_dir):
    router = SkillRouter(skills_dir)
    out = router.render("tarot_reading", {"question": "今天</skill>"}, "")
    assert out == ('<skill name="tarot_reading">\n'
                   "⚠️ 注意：以下情况不应执行此技能：只是闲聊\n"
                   "如果当前情况符合排除条件，请忽略此技能指令，正常回复用户。\n\n"
                   "占卜问题：<user_input>今天&lt;/skill&gt;</user_input>\n"
                   f"</skill>\n{TAIL}")
    with_memory = router.render("story_continue", {"story": "从前"}, "[u:basic] 昵称=小明(✓)")
    assert with_memory == ('<skill name="story_continue">\n续写 <user_input>从前</user_input>\n'
                           "<context>\n[u:basic] 昵称=小明(✓)\n</context>\n"
                           f"</skill>\n{TAIL}")


def test_render_errors(skills_dir):
    router = SkillRouter(skills_dir)
    with pytest.raises(SkillArgumentError) as info:
        router.render("tarot_reading", {})
    assert info.value.field == "question"
    with pytest.raises(UnknownSkillError):
        router.render("nope", {})


def test_edited_instruction_is_picked_up_without_reload(skills_dir):
    router = SkillRouter(skills_dir)
    assert router.instruction("story_continue") == "续写 {story}"
    _touch_changed(skills_dir / "zz_story" / "instruction.md", "新的指令：接着写 {story}")
    assert router.instruction("story_continue") == "新的指令：接着写 {story}"
    assert "新的指令" in router.render("story_continue", {"story": "x"})


def test_instruction_replaced_by_rename_is_picked_up(skills_dir):
    router = SkillRouter(skills_dir)
    router.instruction("story_continue")
    temp = skills_dir / "zz_story" / "instruction.md.tmp"
    temp.write_text("改写 {story}", encoding="utf-8")  # same size, so only the new inode tells
    os.replace(temp, skills_dir / "zz_story" / "instruction.md")
    assert router.instruction("story_continue") == "改写 {story}"


def test_cached_instruction_is_not_reread_when_unchanged(skills_dir, monkeypatch):
    router = SkillRouter(skills_dir)
    router.instruction("tarot_reading")
    from kiraos_desktop.core.skills import router as router_module
    monkeypatch.setattr(router_module, "load_instruction",
                        lambda *a: (_ for _ in ()).throw(AssertionError("re-read")))
    assert router.instruction("tarot_reading") == "占卜问题：{question}"


def test_edit_that_breaks_instruction_updates_problems(skills_dir):
    router = SkillRouter(skills_dir)
    path = skills_dir / "zz_story" / "instruction.md"
    _touch_changed(path, "   ")
    with pytest.raises(SkillRenderError):
        router.render("story_continue", {"story": "x"})
    assert not router.get("story_continue").valid
    assert "story_continue" not in [s.name for s in router.enabled_skills()]
    _touch_changed(path, "fixed {story} and {ghost}")
    assert router.render("story_continue", {"story": "x"}).startswith('<skill name="story_continue">\nfixed')
    skill = router.get("story_continue")
    assert skill.valid and [p.field for p in skill.problems] == ["instruction"]
    path.unlink()
    with pytest.raises(SkillRenderError):
        router.instruction("story_continue")


def test_deleted_skill_disappears_on_reload_and_new_one_appears(skills_dir):
    router = SkillRouter(skills_dir)
    shutil.rmtree(skills_dir / "zz_story")
    assert router.get("story_continue") is not None  # no rescan until reload
    write_skill(skills_dir, "new", manifest("new_skill"))
    router.reload()
    assert router.get("story_continue") is None
    assert [s.name for s in router.skills()] == ["new_skill", "tarot_reading"]
    assert router.match_command("/story x") is None


def test_disabled_skills_hidden_from_enabled_and_commands(skills_dir):
    router = SkillRouter(skills_dir, disabled=["tarot_reading"])
    assert [s.name for s in router.enabled_skills()] == ["story_continue"]
    assert router.get("tarot_reading").enabled is False
    assert router.match_command("/tarot 今天") is None
    router.set_disabled([])
    assert [s.name for s in router.enabled_skills()] == ["tarot_reading", "story_continue"]
    assert router.match_command("/tarot 今天").skill == "tarot_reading"
    router.set_disabled(["story_continue"])
    router.reload()
    assert [s.name for s in router.enabled_skills()] == ["tarot_reading"]


def test_match_command_and_rewrite(skills_dir):
    router = SkillRouter(skills_dir)
    match = router.match_command("/tarot 今天的运势如何")
    assert (match.skill, match.command, match.args_text) == ("tarot_reading", "/tarot", "今天的运势如何")
    assert match.rewritten == "[用户使用了技能命令 /tarot] 今天的运势如何"
    multi = router.match_command("  /story\n从前有座山\n山里有座庙 ")
    assert multi.args_text == "从前有座山\n山里有座庙"
    assert multi.rewritten == "[用户使用了技能命令 /story] 从前有座山\n山里有座庙"
    bare = router.match_command("/tarot")
    assert bare.args_text == "" and bare.rewritten == "[用户使用了技能命令 /tarot] "
    for text in ("/tarotx 1", "tarot 1", "请 /tarot", "/TAROT 1", "", "/", "/unknown"):
        assert router.match_command(text) is None, text
    assert router.match_command(None) is None


def test_invalid_skill_has_no_command_and_cannot_render(tmp_path):
    write_skill(tmp_path, "a", manifest("broken", command="/broken", template="weird"), "x")
    router = SkillRouter(tmp_path)
    assert router.match_command("/broken") is None
    with pytest.raises(SkillRenderError):
        router.render("broken", {})


def test_remote_ref_fails_at_call_not_at_load(tmp_path):
    write_skill(tmp_path, "a", manifest("remote", parameters={
        "type": "object", "properties": {"q": {"$ref": "http://example.invalid/x.json"}}}), "{q}")
    router = SkillRouter(tmp_path)
    with pytest.raises(SkillRenderError):
        router.render("remote", {"q": "x"})


def test_concurrent_render_and_reload(skills_dir):
    router = SkillRouter(skills_dir)
    failures = []

    def call():
        for _ in range(200):
            try:
                out = router.render("tarot_reading", {"question": "q"})
                assert out.startswith('<skill name="tarot_reading">')
            except Exception as exc:  # pragma: no cover - reported below
                failures.append(exc)

    threads = [threading.Thread(target=call) for _ in range(4)]
    for thread in threads:
        thread.start()
    for _ in range(50):
        router.reload()
    for thread in threads:
        thread.join()
    assert failures == []
