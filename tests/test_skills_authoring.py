"""Skill authoring in the core: form fields <-> manifest, file operations, draft analysis, argument values."""
from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from kiraos_desktop.core.skills import SkillRouter, bundled_skills_dir, instruction_problems
from kiraos_desktop.core.skills import file_ops
from kiraos_desktop.core.skills.arguments import sample_arguments, typed_value, value_as
from kiraos_desktop.core.skill_draft import draft_problems, match_command, preview_spans, render_preview
from kiraos_desktop.core.skills.manifest_fields import (
    FormUnavailable,
    ParamRow,
    apply_form,
    dump_manifest,
    enum_from_text,
    form_from_manifest,
)
from skills_helpers import write_skill

RICH = {
    "name": "rich",
    "x-author": "someone",  # unknown fields survive
    "description": "d",
    "trigger": "t",
    "exclude": "e",
    "command": "/rich",
    "template": "jinja2",
    "parameters": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "b": {"description": "second declared", "type": "integer", "minimum": 1, "maximum": 9},
            "a": {"type": "string", "enum": ["x", "y"], "default": "x"},
            "c": {"type": ["string", "null"]},
        },
        "required": ["b", "a"],
    },
}


def _bundled_manifests():
    root = bundled_skills_dir()
    return [json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
            for folder in sorted(root.iterdir()) if (folder / "manifest.json").is_file()]


@pytest.mark.parametrize("data", _bundled_manifests() + [RICH, {"name": "bare"}, {"name": "n", "parameters": None}],
                         ids=lambda d: d.get("name"))
def test_form_round_trip_keeps_every_field_and_key_order(data):
    again = apply_form(data, form_from_manifest(data))
    assert again == data
    assert json.dumps(again, ensure_ascii=False) == json.dumps(data, ensure_ascii=False)


def test_form_edits_change_only_what_was_edited():
    fields = form_from_manifest(RICH)
    fields.trigger = "new trigger"
    fields.params[1].required = False
    fields.params.append(ParamRow("d", "boolean", "flag", True))
    out = apply_form(RICH, fields)
    assert out["trigger"] == "new trigger"
    assert out["x-author"] == "someone" and out["parameters"]["additionalProperties"] is False
    assert out["parameters"]["properties"]["b"] == RICH["parameters"]["properties"]["b"]
    assert out["parameters"]["properties"]["d"] == {"type": "boolean", "description": "flag"}
    assert out["parameters"]["required"] == ["b", "d"]
    # an absent optional field stays absent when left empty; a new one is placed in field order
    fields = form_from_manifest({"name": "x"})
    fields.command = "/x"
    assert list(apply_form({"name": "x"}, fields)) == ["name", "command"]


@pytest.mark.parametrize("data, reason", [
    ({"name": 5}, "name"), ({"name": "x", "template": "mustache"}, "template"),
    ({"name": "x", "parameters": []}, "parameters"), ({"name": "x", "parameters": {"properties": []}}, "properties"),
    ({"name": "x", "parameters": {"properties": {"a": 1}}}, '"a"'),
])
def test_form_refuses_what_it_cannot_show(data, reason):
    with pytest.raises(FormUnavailable, match=reason):
        form_from_manifest(data)


def test_enum_cells_are_typed():
    assert enum_from_text("1, 2 ,3", "integer") == [1, 2, 3]
    assert enum_from_text("1.5, 2", "number") == [1.5, 2]
    assert enum_from_text("true, false", "boolean") == [True, False]
    assert enum_from_text(" , ", "string") is None
    with pytest.raises(ValueError):
        enum_from_text("x", "integer")


# ---------------------------------------------------------------------- files

def test_save_writes_both_files_and_leaves_no_temp_files(tmp_path):
    folder = write_skill(tmp_path, "s")
    file_ops.save_skill_files(folder, '{"name": "s"}\n', "新的 {x}\n")
    assert (folder / "manifest.json").read_text(encoding="utf-8") == '{"name": "s"}\n'
    assert (folder / "instruction.md").read_text(encoding="utf-8") == "新的 {x}\n"
    assert sorted(p.name for p in folder.iterdir()) == ["instruction.md", "manifest.json"]


def test_failed_save_changes_nothing(tmp_path, monkeypatch):
    folder = write_skill(tmp_path, "s", instruction="old")
    before = (folder / "manifest.json").read_text(encoding="utf-8")
    calls = []

    def failing_replace(src, dst):
        calls.append(dst)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(file_ops.os, "replace", failing_replace)
    with pytest.raises(file_ops.SkillFileError):
        file_ops.save_skill_files(folder, "{}", "new")
    assert (folder / "manifest.json").read_text(encoding="utf-8") == before
    assert (folder / "instruction.md").read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in folder.iterdir()) == ["instruction.md", "manifest.json"]


def test_the_template_s_placeholders_are_errors_until_replaced(tmp_path):
    folder = file_ops.create_skill(tmp_path, "fresh", *file_ops.template_files("fresh"))
    skill = SkillRouter(tmp_path).get("fresh")
    assert folder.name == "fresh" and skill is not None and skill.command == "/fresh"
    errors = {p.field for p in skill.problems if p.is_error}
    assert errors == {"description", "trigger", "parameters.properties.request", "instruction"}
    assert not skill.valid  # not served: the LLM would be offered "当用户……时调用此工具。"
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest.update(description="写一首短诗", trigger="当用户想要一首诗时调用此工具。")
    manifest["parameters"]["properties"]["request"]["description"] = "诗的主题，例如「秋天」"
    instruction = (folder / "instruction.md").read_text(encoding="utf-8")
    instruction = instruction.replace("你是一位……", "你是一位诗人。").replace("1. ……", "1. 构思").replace("2. ……", "2. 写诗")
    file_ops.save_skill_files(folder, dump_manifest(manifest), instruction)
    skill = SkillRouter(tmp_path).get("fresh")
    assert skill.valid, skill.problems


def test_names_are_checked(tmp_path):
    write_skill(tmp_path, "Taken")
    assert file_ops.check_new_name("", tmp_path, []) == file_ops.NAME_EMPTY
    assert file_ops.check_new_name("has space", tmp_path, []) == file_ops.NAME_INVALID
    assert file_ops.check_new_name("_hidden", tmp_path, []) == file_ops.NAME_INVALID
    assert file_ops.check_new_name("memory_query", tmp_path, []) == file_ops.NAME_RESERVED
    assert file_ops.check_new_name("other", tmp_path, ["other"]) == file_ops.NAME_TAKEN
    assert file_ops.check_new_name("taken", tmp_path, []) == file_ops.FOLDER_TAKEN  # differs only in case
    assert file_ops.check_new_name("ok_name", tmp_path, []) == file_ops.NAME_OK


def test_rename_refuses_an_existing_folder_and_undoes_itself_on_failure(tmp_path, monkeypatch):
    folder = write_skill(tmp_path, "a", {"name": "a", "trigger": "t"})
    write_skill(tmp_path, "b")
    with pytest.raises(file_ops.SkillFileError):
        file_ops.rename_skill(folder, "b")
    assert folder.is_dir()

    def failing_stage(*args):
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(file_ops, "_stage", failing_stage)
    with pytest.raises(file_ops.SkillFileError):
        file_ops.rename_skill(folder, "c")
    assert folder.is_dir() and not (tmp_path / "c").exists()
    assert json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["name"] == "a"


def test_delete_moves_the_folder_into_the_backups_area(tmp_path):
    folder = write_skill(tmp_path / "skills", "gone", instruction="keep me")
    when = datetime(2025, 3, 1, 12, 30, 5)
    first = file_ops.delete_skill(folder, tmp_path / "backups", now=when)
    assert first == tmp_path / "backups" / "deleted-skills" / "gone-20250301-123005"
    assert (first / "instruction.md").read_text(encoding="utf-8") == "keep me"
    assert not folder.exists()
    folder = write_skill(tmp_path / "skills", "gone")
    second = file_ops.delete_skill(folder, tmp_path / "backups", now=when)
    assert second.name == "gone-20250301-123005-2" and first.is_dir()


def test_duplicate_gets_its_own_name_and_command(tmp_path):
    folder = write_skill(tmp_path, "orig", {"name": "orig", "trigger": "t", "command": "/orig"}, "do {x}")
    (folder / "notes.txt").write_text("extra", encoding="utf-8")
    copy = file_ops.duplicate_skill(folder, "orig_copy")
    data = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    assert data["name"] == "orig_copy" and data["command"] == "/orig_copy" and data["trigger"] == "t"
    assert (copy / "notes.txt").read_text(encoding="utf-8") == "extra"
    router = SkillRouter(tmp_path)
    assert all(s.valid for s in router.skills() if s.name in ("orig", "orig_copy"))


# ---------------------------------------------------------------------- draft analysis

def test_draft_problems_report_clashes_with_other_skills(tmp_path):
    write_skill(tmp_path, "one", {"name": "one", "trigger": "t", "command": "/one"})
    mine = write_skill(tmp_path, "two", {"name": "two", "trigger": "t"})
    router = SkillRouter(tmp_path)
    _data, problems = draft_problems(json.dumps({"name": "one", "trigger": "t", "command": "/one"}), "x",
                                     mine, router.skills())
    assert {p.field for p in problems if p.is_error} == {"name"}  # a losing duplicate claims no command
    _data, problems = draft_problems(json.dumps({"name": "two", "trigger": "t", "command": "/one"}), "x",
                                     mine, router.skills())
    assert {p.field for p in problems if p.is_error} == {"command"}
    data, problems = draft_problems("{bad json", "{q}", mine, router.skills(), {"parameters": {
        "type": "object", "properties": {"q": {"type": "string"}}}})
    assert data is None and problems[0].field == "manifest" and problems[0].line == 1
    assert all(p.field != "instruction" for p in problems)  # {q} checked against the last good manifest


def test_command_match_prefers_the_edited_command(tmp_path):
    write_skill(tmp_path, "a", {"name": "a", "trigger": "t", "command": "/aa"})
    router = SkillRouter(tmp_path)
    draft = router.get("a")
    assert match_command("/aa hi", draft, "a", router).rewritten == "[用户使用了技能命令 /aa] hi"
    from dataclasses import replace

    renamed = replace(draft, command="/bb")
    assert match_command("/aa hi", renamed, "a", router) is None  # its saved command is being changed
    assert match_command("/bb  你好 ", renamed, "a", router).args_text == "你好"


def test_samples_and_spans():
    schema = {"type": "object", "properties": {
        "q": {"type": "string", "description": "例如「这次面试能顺利吗」"},
        "n": {"type": "integer", "minimum": 1, "maximum": 2}, "f": {"type": "boolean"},
        "e": {"type": "string", "enum": ["z", "y"]}}, "required": ["q"]}
    assert sample_arguments(schema) == {"q": "这次面试能顺利吗", "n": 1, "f": True, "e": "z"}
    assert sample_arguments(schema, only_required=True) == {"q": "这次面试能顺利吗"}
    manifest = {"name": "s", "exclude": "别用", "parameters": schema}
    text = render_preview("s", "问：{q}", manifest, {"q": "<x>"}, "[u:basic] a=b(✓)").text
    spans = preview_spans(text, "别用")
    kinds = {kind: text[s:e] for s, e, kind in spans}
    assert kinds["guard"].startswith("⚠️ 注意：以下情况不应执行此技能：别用")
    assert kinds["input"] == "<user_input>&lt;x&gt;</user_input>"
    assert kinds["context"] == "<context>\n[u:basic] a=b(✓)\n</context>"
    assert kinds["tail"] == "请严格按照上述技能指令执行，直接输出执行结果。"


def test_sample_arguments_fill_every_required_parameter():
    schema = {"type": "object", "required": ["a", "b", "c", "e", "f"], "properties": {
        "a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "string", "enum": ["x", "y"]},
        "d": {"type": "string"}, "e": {"type": "array"}, "f": {"type": ["object", "null"]}}}
    assert sample_arguments(schema, only_required=True) == {"a": "示例", "b": 3, "c": "x", "e": [], "f": {}}


def test_one_conversion_of_argument_text():
    assert value_as("integer", " 7 ") == 7 and value_as("number", "7") == 7 and value_as("number", "2.5") == 2.5
    assert value_as("boolean", "Yes") is True and value_as("boolean", "off") is False
    assert value_as("object", '{"a": 1}') == {"a": 1} and value_as("string", " x ") == " x "
    for kind, text in (("integer", "1.5"), ("number", "inf"), ("boolean", "maybe"), ("array", "{}"),
                       ("null", "x"), ("nosuchtype", "x")):
        with pytest.raises(ValueError):
            value_as(kind, text)
    assert typed_value("5", ["integer", "string"]) == 5 and typed_value("x", ["integer", "string"]) == "x"
    assert typed_value("x", None) == "x"
    with pytest.raises(ValueError, match="expected integer or null"):
        typed_value("x", ["integer", "null"])
    assert enum_from_text("true, no", "boolean") == [True, False]  # the same words as everywhere


# ---------------------------------------------------------------------- core regression

def test_core_unknown_jinja_filter_is_a_problem_not_an_exception(tmp_path):
    """Found while building the workbench: find_undeclared_variables compiles the template and
    raised TemplateAssertionError out of instruction_problems (and so out of the router)."""
    problems = instruction_problems("{{ x | nosuchfilter }}", {"template": "jinja2"})
    assert [p.severity for p in problems] == ["error"] and "nosuchfilter" in problems[0].message
    write_skill(tmp_path, "j", {"name": "j", "trigger": "t", "template": "jinja2"}, "{{ x | nosuchfilter }}")
    skill = SkillRouter(tmp_path).get("j")
    assert skill is not None and not skill.valid


def test_no_stray_files_after_create(tmp_path):
    file_ops.create_skill(tmp_path, "fresh", *file_ops.template_files("fresh"))
    assert [p for p in os.listdir(tmp_path) if p.startswith(".")] == []
    assert Path(tmp_path / "fresh" / "manifest.json").read_text(encoding="utf-8") == \
        dump_manifest(json.loads((tmp_path / "fresh" / "manifest.json").read_text(encoding="utf-8")))
