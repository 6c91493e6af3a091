"""/v1/inject: put the memory block and the skill list line into a system prompt (string or sections)."""
from __future__ import annotations

from typing import Any

SKILL_LINE_PREFIX = "技能工具（调用后按返回的指令执行）: "
MEMORY_SECTION = "memory"
TOOLS_SECTION = "tools"


def skill_line(skill_names: list[str]) -> str:
    return SKILL_LINE_PREFIX + ", ".join(skill_names) if skill_names else ""


def append_text(text: str, addition: str) -> str:
    """`addition` on a line of its own after `text` (no separator needed after a trailing newline)."""
    if not text or text.endswith("\n"):
        return text + addition
    return text + "\n" + addition


def _target(sections: list[dict], name: str) -> dict:
    """The first section called `name`, else the last section, else a new section called `name`."""
    for section in sections:
        if section["name"] == name:
            return section
    if sections:
        return sections[-1]
    section = {"name": name, "content": ""}
    sections.append(section)
    return section


def inject(system: str | list[dict], memory: str, skill_names: list[str]) -> tuple[Any, bool]:
    """Return the new system prompt, in the shape it came in, and whether anything was added.

    A string gets the memory block, then the skill line, appended. Sections: the memory block goes
    into the section named `memory` and the skill line into the one named `tools`; when such a
    section is missing the text goes into the last section (a new one when the list is empty).
    """
    line = skill_line(skill_names)
    if isinstance(system, str):
        text = system
        for addition in (memory, line):
            if addition:
                text = append_text(text, addition)
        return text, bool(memory or line)
    sections = [{"name": s["name"], "content": s["content"]} for s in system]
    for name, addition in ((MEMORY_SECTION, memory), (TOOLS_SECTION, line)):
        if addition:
            section = _target(sections, name)
            section["content"] = append_text(section["content"], addition)
    return sections, bool(memory or line)
