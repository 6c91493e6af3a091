"""SKILL.md parsing and the Agent Skills spec rules (lint), checked against the reference validator."""
from __future__ import annotations

import pytest
from skills_ref.errors import ParseError
from skills_ref.parser import parse_frontmatter
from skills_ref.validator import validate_metadata

from agent_skills_helpers import PDF_SKILL_MD, UNICODE_SKILL_MD, write_agent_skill
from kiraos_desktop.cli.skills import standalone_parser, run_skills
from kiraos_desktop.core.skills import SkillRouter
from kiraos_desktop.core.skills.agent_format import (
    REQUEST_LINE,
    agent_name,
    export_description,
    validate_agent_text,
    yaml_quote,
)


def doc(front: str, body: str = "Do it.\n") -> str:
    return f"---\n{front}\n---\n{body}"


def spec_errors(text: str, folder: str) -> list[str]:
    return [p.message for p in validate_agent_text(text, folder).problems if p.is_error]


def reference_errors(text: str, folder: str) -> list[str]:
    from pathlib import Path

    try:
        metadata, _ = parse_frontmatter(text)
    except ParseError as exc:
        return [str(exc)]
    return validate_metadata(metadata, Path(folder))


def test_samples_conform_to_the_spec():
    for text, folder in ((PDF_SKILL_MD, "pdf-processing"), (UNICODE_SKILL_MD, "data-analysis")):
        assert reference_errors(text, folder) == []
        agent = validate_agent_text(text, folder)
        assert [p for p in agent.problems if p.is_error] == []


def test_folded_description_and_body_become_the_skill():
    agent = validate_agent_text(PDF_SKILL_MD, "pdf-processing")
    assert agent.manifest["name"] == "pdf-processing"
    assert agent.manifest["description"] == ("Extract text and tables from PDF files, fill PDF forms and merge "
                                             "PDFs. Use when the user works with PDF documents.")
    assert agent.manifest["parameters"]["properties"]["request"]["type"] == "string"
    assert "request" not in agent.manifest["parameters"].get("required", [])
    assert agent.instruction.startswith("# PDF processing\n\n1. Read [the reference]")
    assert agent.instruction.endswith("scripts/extract.py on the file.\n\n" + REQUEST_LINE + "\n")
    assert agent.manifest_text is None and agent.instruction_problems == []


def test_scalars_stay_text_like_the_reference_parser():
    agent = validate_agent_text(doc("name: \"2024\"\ndescription: yes\nmetadata:\n  version: 1.0"), "2024")
    assert agent.manifest["description"] == "yes"
    assert [p for p in agent.problems if p.is_error] == []


BAD_FRONT = [
    ("description: d", "x", "non-empty \"name\""),
    ("name: ''\ndescription: d", "x", "non-empty \"name\""),
    ("name: Pdf-tools\ndescription: d", "Pdf-tools", "must be lowercase"),
    ("name: -pdf\ndescription: d", "-pdf", "start or end with a hyphen"),
    ("name: pdf-\ndescription: d", "pdf-", "start or end with a hyphen"),
    ("name: pdf--tools\ndescription: d", "pdf--tools", "two hyphens in a row"),
    ("name: pdf_tools\ndescription: d", "pdf_tools", "letters, digits and hyphens"),
    ("name: pdf tools\ndescription: d", "pdf tools", "letters, digits and hyphens"),
    ("name: " + "a" * 65 + "\ndescription: d", "a" * 65, "limit is 64"),
    ("name: pdf\ndescription: d", "other", "folder is called 'other'"),
    ("name: pdf", "pdf", "non-empty \"description\""),
    ("name: pdf\ndescription: ''", "pdf", "non-empty \"description\""),
    ("name: pdf\ndescription: " + "d" * 1025, "pdf", "limit is 1024"),
    ("name: pdf\ndescription: d\nversion: 2", "pdf", "Unknown front matter key 'version'"),
    ("name: pdf\ndescription: d\ncompatibility: " + "c" * 501, "pdf", "limit is 500"),
    ("name: pdf\ndescription: d\nmetadata: text", "pdf", "\"metadata\" must be a mapping"),
]


@pytest.mark.parametrize("front, folder, message", BAD_FRONT)
def test_each_spec_rule_has_a_message(front, folder, message):
    text = doc(front)
    errors = spec_errors(text, folder)
    assert any(message in e for e in errors), errors
    if "metadata" not in front:  # the reference validator does not look at metadata's type
        assert reference_errors(text, folder), "the reference validator agrees that this breaks the spec"


@pytest.mark.parametrize("text, message", [
    ("# no front matter\n", "must start with a line '---'"),
    ("---\nname: a\ndescription: d\n", "is not closed"),
    ("---\nname: [a\n---\nbody", "not valid YAML"),
    ("---\n- a\n- b\n---\nbody", "must be a YAML mapping"),
    ("---\nname: a\nname: b\ndescription: d\n---\nbody", "appears twice"),
])
def test_unreadable_skill_md(text, message):
    problems = validate_agent_text(text, "a").problems
    assert len(problems) == 1 and problems[0].is_error and message in problems[0].message
    assert problems[0].file == "SKILL.md"


def test_warnings_for_metadata_values_and_dashes_in_front_matter():
    agent = validate_agent_text(doc("name: a\ndescription: a --- b\nmetadata:\n  tags: [x, y]"), "a")
    messages = [(p.severity, p.message) for p in agent.problems]
    assert any(s == "error" and "metadata 'tags' must be a text value" in m for s, m in messages)
    assert any(s == "warning" and "'---'" in m for s, m in messages)


def test_problem_lines_point_into_skill_md():
    text = "---\nname: a\ndescription: d\nextra: 1\n---\n\n\nUse {ghost} here.\n"
    agent = validate_agent_text(text, "a")
    unknown = [p for p in agent.problems if p.field == "extra"][0]
    assert unknown.line == 4 and unknown.file == "SKILL.md"
    ghost = agent.instruction_problems[0]
    assert ghost.line == 8 and ghost.file == "SKILL.md" and "{ghost}" in ghost.message


def test_unicode_name_is_spec_valid_but_not_a_tool_name():
    text = doc("name: 数据分析\ndescription: d")
    assert reference_errors(text, "数据分析") == []
    errors = spec_errors(text, "数据分析")
    assert len(errors) == 1 and "not a valid tool name" in errors[0]


def test_agent_names():
    assert agent_name("tarot_reading") == "tarot-reading"
    assert agent_name("My__Skill_") == "my-skill"
    assert agent_name("__") == "skill"
    assert agent_name("A-b") == "a-b"


def test_export_description_joins_and_caps():
    assert export_description({"description": "塔罗牌占卜", "trigger": "当用户要求时调用。"}) == \
        "塔罗牌占卜。当用户要求时调用。"
    assert export_description({"description": "Tarot.", "trigger": "Use it."}) == "Tarot. Use it."
    assert export_description({"description": "Tarot", "trigger": "Use it."}) == "Tarot. Use it."
    assert export_description({"trigger": "only\ntrigger"}) == "only trigger"
    long = export_description({"description": "d" * 900, "trigger": "t" * 900})
    assert len(long) == 1024 and long.endswith("…")
    assert export_description({"name": "x"}) == "KiraOS skill x"


@pytest.mark.parametrize("value", ["a---b", "--", "\"quoted\" \\ back", "tab\there\nline", "\x7f\x01 \u2028",
                                   "😀 表情", "yes", "", "- item", "# not a comment", "key: value"])
def test_yaml_quote_reads_back_exactly_with_both_parsers(value):
    text = f"---\nname: a\ndescription: {yaml_quote(value or 'x')}\nmetadata:\n  k: {yaml_quote(value)}\n---\nbody"
    agent = validate_agent_text(text, "a")
    metadata, _ = parse_frontmatter(text)
    assert metadata["metadata"]["k"] == value
    from kiraos_desktop.core.skills.agent_format import parse_document

    assert parse_document(text).front["metadata"]["k"] == value
    assert not [p for p in agent.problems if p.is_error]


def test_lint_command_judges_agent_folders_alongside_kiraos_ones(tmp_path, capsys):
    from skills_helpers import manifest, write_skill

    write_skill(tmp_path, "kira", manifest("kira"), "x")
    write_agent_skill(tmp_path, "pdf-processing", PDF_SKILL_MD)
    write_agent_skill(tmp_path, "Wrong_Folder", doc("name: Bad_Name\ndescription: d\nversion: 1"))
    args = standalone_parser().parse_args(["skills", "lint", str(tmp_path)])
    assert run_skills(args, None) == 2
    out = capsys.readouterr().out
    assert not any(line.startswith(("pdf-processing/", "kira/")) for line in out.splitlines())
    assert "Wrong_Folder/SKILL.md:4: error: [version] Unknown front matter key 'version'" in out
    assert "Wrong_Folder/SKILL.md:2: error: [name] \"name\" 'Bad_Name' must be lowercase" in out
    assert "folder is called 'Wrong_Folder'" in out
    router = SkillRouter(tmp_path)
    assert [s.format for s in router.skills()] == ["agent", "kiraos", "agent"]
    assert router.get("pdf-processing").valid


def test_skill_md_folders_run_through_the_tool_registry(tmp_path):
    import os

    from kiraos_desktop.core.tool_registry import ToolRegistry
    from skills_helpers import FakeMemory

    folder = write_agent_skill(tmp_path, "pdf-processing", PDF_SKILL_MD, {"references/REFERENCE.md": "ref"})
    router = SkillRouter(tmp_path)
    tools = ToolRegistry(FakeMemory(), router, lambda user, n: "[u1:basic] 昵称=小明")
    skill = router.get("pdf-processing")
    assert skill.is_agent_skill and skill.valid and skill.instruction_path == folder / "SKILL.md"
    names = [t["name"] for t in tools.list_tools("mcp")]
    assert "pdf-processing" in names
    result = tools.call("pdf-processing", "u1", {"request": "拆分"})
    assert result.content.startswith("<skill name=\"pdf-processing\">\n# PDF processing\n")
    assert "用户请求：<user_input>拆分</user_input>" in result.content and "<context>" in result.content
    assert tools.call("pdf-processing", "u1", {"file": "references/REFERENCE.md"}).content == "ref"

    (folder / "SKILL.md").write_text(PDF_SKILL_MD.replace("# PDF processing", "# PDF v2"), encoding="utf-8")
    os.utime(folder / "SKILL.md", ns=(1, 1))
    assert "# PDF v2" in tools.call("pdf-processing", "u1", {}).content


def test_an_export_dropped_into_the_skills_dir_is_the_kiraos_skill(tmp_path):
    from kiraos_desktop.core.skills import bundled_skills_dir
    from kiraos_desktop.core.skills.agent_io import export_skill

    export_skill(bundled_skills_dir() / "tarot_reading", tmp_path)
    router = SkillRouter(tmp_path)
    skill = router.get("tarot_reading")
    original = SkillRouter(bundled_skills_dir()).get("tarot_reading")
    assert skill.is_agent_skill and skill.valid and skill.folder.name == "tarot-reading"
    assert (skill.manifest, skill.command) == (original.manifest, "/tarot")
    assert router.instruction("tarot_reading") == SkillRouter(bundled_skills_dir()).instruction("tarot_reading")


def test_lint_of_one_skill_folder(tmp_path, capsys):
    folder = write_agent_skill(tmp_path, "pdf-processing", PDF_SKILL_MD, {"references/REFERENCE.md": "x"})
    assert run_skills(standalone_parser().parse_args(["skills", "lint", str(folder)]), None) == 0
    assert "1 skill checked in" in capsys.readouterr().out
    (folder / "SKILL.md").write_text(PDF_SKILL_MD.replace("name: pdf-processing", "name: pdf"), encoding="utf-8")
    assert run_skills(standalone_parser().parse_args(["skills", "lint", str(folder)]), None) == 2
    out = capsys.readouterr().out
    assert "pdf-processing/SKILL.md:2: error: [name] The folder is called 'pdf-processing'" in out
