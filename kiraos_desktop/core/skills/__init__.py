"""Skill engine: discovery, validation, rendering and routing of skill folders (DESIGN §5)."""
from .bundled import bundled_skills_dir, install_bundled_skills
from .discovery import validate_skill_folder, validate_skill_texts
from .manifest import validate_manifest_text
from .model import CommandMatch, Skill
from .problems import (
    MAX_FILE_BYTES,
    RESERVED_NAMES,
    Problem,
    SkillArgumentError,
    SkillError,
    SkillRenderError,
    UnknownSkillError,
)
from .render import (
    guard_text,
    instruction_problems,
    placeholder_spans,
    render_instruction,
    render_tool_result,
    validate_arguments,
    wrap_tool_result,
    wrap_value,
)
from .router import SkillRouter

__all__ = [
    "MAX_FILE_BYTES",
    "RESERVED_NAMES",
    "CommandMatch",
    "Problem",
    "Skill",
    "SkillArgumentError",
    "SkillError",
    "SkillRenderError",
    "SkillRouter",
    "UnknownSkillError",
    "bundled_skills_dir",
    "guard_text",
    "install_bundled_skills",
    "instruction_problems",
    "placeholder_spans",
    "render_instruction",
    "render_tool_result",
    "validate_arguments",
    "validate_manifest_text",
    "validate_skill_folder",
    "validate_skill_texts",
    "wrap_tool_result",
    "wrap_value",
]
