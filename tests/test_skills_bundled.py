"""The six bundled example skills and their installation into a data dir."""
from __future__ import annotations

import argparse
import re

from kiraos_desktop.cli.skills import add_skills_parser, run_skills
from kiraos_desktop.core.skills import SkillRouter, bundled_skills_dir, install_bundled_skills
from skills_helpers import manifest, write_skill

EXPECTED = {
    "tarot_reading": "/tarot",
    "daily_fortune": "/fortune",
    "story_continue": "/story",
    "emoji_interpret": "/emoji",
    "nickname_generator": "/nickname",
    "personality_test": "/personality",
}
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_bundled_dir_is_the_repo_skills_folder():
    path = bundled_skills_dir()
    assert path.is_dir() and (path / "tarot_reading" / "manifest.json").is_file()


def test_bundled_skills_have_no_problem_at_all():
    router = SkillRouter(bundled_skills_dir())
    skills = router.skills()
    assert {s.name: s.command for s in skills} == EXPECTED
    for skill in skills:
        assert skill.problems == [], (skill.name, skill.problems)
        assert skill.folder.name == skill.name
        for text in (skill.description, skill.trigger, skill.exclude, router.instruction(skill.name)):
            assert CJK.search(text), skill.name
        assert skill.parameters["type"] == "object" and skill.parameters["properties"]


def test_lint_command_on_bundled_skills(capsys):
    top = argparse.ArgumentParser()
    add_skills_parser(top.add_subparsers(dest="command"), [])
    args = top.parse_args(["skills", "lint", str(bundled_skills_dir())])
    assert run_skills(args, None) == 0
    assert capsys.readouterr().out.strip().endswith("6 skills checked in " + str(bundled_skills_dir())
                                                    + ": no problems")


def test_a_jinja2_example_with_optional_parameter():
    router = SkillRouter(bundled_skills_dir())
    jinja = [s for s in router.skills() if s.template == "jinja2"]
    assert jinja
    shown = False
    for skill in jinja:
        props = skill.parameters["properties"]
        optional = {k for k in props if props[k].get("type") == "string"} - set(skill.parameters.get("required", []))
        text = router.instruction(skill.name)
        if optional and "{% if" in text:
            shown = True
            name = sorted(optional)[0]
            required = {k: "示例" for k in skill.parameters.get("required", [])}
            without = router.render(skill.name, required)
            with_value = router.render(skill.name, {**required, name: "特别的值"})
            assert "特别的值" not in without and "<user_input>特别的值</user_input>" in with_value
    assert shown


def test_every_example_renders_with_sample_arguments():
    router = SkillRouter(bundled_skills_dir())
    samples = {"string": "示例", "integer": 3}
    skills = router.enabled_skills()
    assert {s.name for s in skills} == set(EXPECTED)  # every example is checked, none skipped
    for skill in skills:
        props = skill.parameters["properties"]
        args = {k: samples[v["type"]] for k, v in props.items()}
        out = router.render(skill.name, args, "[u:basic] 昵称=小明(✓)")
        assert out.startswith(f'<skill name="{skill.name}">\n⚠️ 注意：以下情况不应执行此技能：')
        assert "{" not in out.replace("{%", "").replace("%}", "")  # no placeholder left over
        assert out.count("<user_input>") >= len(props)


def test_install_copies_once_and_never_overwrites(tmp_path):
    target = tmp_path / "data" / "skills"
    copied = install_bundled_skills(target)
    assert sorted(copied) == sorted(EXPECTED)
    assert {s.name for s in SkillRouter(target).enabled_skills()} == set(EXPECTED)
    assert not [p for p in target.iterdir() if p.name.startswith(".")]

    edited = target / "tarot_reading" / "instruction.md"
    edited.write_text("我的改动 {question}", encoding="utf-8")
    (target / "story_continue" / "instruction.md").unlink()
    assert install_bundled_skills(target) == []
    assert edited.read_text(encoding="utf-8") == "我的改动 {question}"
    assert not (target / "story_continue" / "instruction.md").exists()


def test_install_skips_existing_folders_and_copies_the_rest(tmp_path):
    target = tmp_path / "skills"
    write_skill(target, "daily_fortune", manifest("mine"), "mine")
    copied = install_bundled_skills(target)
    assert "daily_fortune" not in copied and len(copied) == 5
    assert (target / "daily_fortune" / "instruction.md").read_text(encoding="utf-8") == "mine"


def test_install_from_explicit_source(tmp_path):
    source = tmp_path / "src"
    write_skill(source, "one", manifest("one"), "x")
    write_skill(source, "_skip", manifest("skip"), "x")
    (source / "incomplete").mkdir()
    assert install_bundled_skills(tmp_path / "dst", source) == ["one"]
    assert install_bundled_skills(tmp_path / "dst2", tmp_path / "absent") == []
