"""Problem records, error types and shared limits of the skill engine."""
from __future__ import annotations

import re
from dataclasses import dataclass

ERROR = "error"
WARNING = "warning"

#: Tool names follow OpenAI's rule (Anthropic's and MCP's are no stricter).
NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: A slash command is "/" followed by one word (letters of any script, digits, "_" or "-").
COMMAND_RE = re.compile(r"^/[\w-]{1,64}$")
RESERVED_NAMES = frozenset({"memory_update", "memory_query", "memory_clear"})
#: Parameter names a skill may not declare: every call of a tool (an MCP call puts it among the
#: arguments) already carries `user_id`, the user the bot talks to.
RESERVED_PARAMETERS = frozenset({"user_id"})
#: Largest instruction.md (and manifest.json) accepted, in bytes.
MAX_FILE_BYTES = 256 * 1024

MANIFEST_FILE = "manifest.json"
INSTRUCTION_FILE = "instruction.md"
#: An Agent Skills folder holds SKILL.md instead of both files above.
AGENT_SKILL_FILE = "SKILL.md"
AGENT_FORMAT = "agent"
TEMPLATES = ("plain", "jinja2")
DEFAULT_PARAMETERS = {"type": "object", "properties": {}}

#: The texts a new skill's template (file_ops.template_files) leaves for its author to replace. A
#: skill that still holds one is not served (an error): hosts would otherwise offer the LLM a tool
#: described as "当用户……时调用此工具。".
TEMPLATE_DESCRIPTION = "新技能"
TEMPLATE_TRIGGER = "当用户……时调用此工具。"
TEMPLATE_ARGUMENT_HINT = "用户的具体要求，例如「……」"
TEMPLATE_INSTRUCTION_PLACEHOLDERS = ("你是一位……", "1. ……", "2. ……")


@dataclass(frozen=True)
class Problem:
    """One finding about a skill: never raised, always returned as data."""

    severity: str  # "error" | "warning"
    field: str  # "manifest", "name", "parameters.properties.x", "instruction", ...
    message: str  # English, says what is wrong and what to do
    line: int | None = None  # 1-based line in the file the problem is in, when known
    source: str = ""  # the file the problem is in, when the field does not tell (SKILL.md)

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    @property
    def file(self) -> str:
        """The file of the skill folder the problem is about."""
        if self.source:
            return self.source
        if self.field == "folder":
            return ""
        if self.field.startswith("instruction"):
            return INSTRUCTION_FILE
        return MANIFEST_FILE

    def format(self) -> str:
        where = self.file
        if where and self.line is not None:
            where = f"{where}:{self.line}"
        prefix = f"{where}: " if where else ""
        return f"{prefix}{self.severity}: [{self.field}] {self.message}"


def error(field: str, message: str, line: int | None = None) -> Problem:
    return Problem(ERROR, field, message, line)


def warning(field: str, message: str, line: int | None = None) -> Problem:
    return Problem(WARNING, field, message, line)


class SkillError(Exception):
    """Base of the errors raised while rendering a skill."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class SkillArgumentError(SkillError, ValueError):
    """The call arguments are wrong: a missing required argument or a schema violation."""


class SkillRenderError(SkillError):
    """The skill itself cannot be rendered (template error, unreadable or broken instruction)."""


class UnknownSkillError(LookupError):
    """No skill of that name is loaded."""
