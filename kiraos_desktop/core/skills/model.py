"""The Skill record and the result of a slash-command match."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .problems import AGENT_FORMAT, AGENT_SKILL_FILE, DEFAULT_PARAMETERS, INSTRUCTION_FILE, Problem


@dataclass
class Skill:
    """One discovered skill folder, valid or not (its problems say which)."""

    name: str
    description: str = ""
    trigger: str = ""
    exclude: str = ""
    command: str | None = None
    parameters: dict = field(default_factory=lambda: dict(DEFAULT_PARAMETERS, properties={}))
    template: str = "plain"
    folder: Path = field(default_factory=Path)
    problems: list[Problem] = field(default_factory=list)
    enabled: bool = True
    #: The manifest object as read (empty when it could not be read).
    manifest: dict = field(default_factory=dict, repr=False, compare=False)
    #: "kiraos" (manifest.json + instruction.md) or "agent" (an Agent Skills SKILL.md folder).
    format: str = "kiraos"

    @property
    def tool_description(self) -> str:
        return self.trigger or self.description

    @property
    def valid(self) -> bool:
        return not any(p.is_error for p in self.problems)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.is_error]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if not p.is_error]

    @property
    def is_agent_skill(self) -> bool:
        return self.format == AGENT_FORMAT

    @property
    def instruction_path(self) -> Path:
        return self.folder / (AGENT_SKILL_FILE if self.is_agent_skill else INSTRUCTION_FILE)


@dataclass(frozen=True)
class CommandMatch:
    """A message that starts with an enabled skill's slash command."""

    skill: str
    command: str
    args_text: str
    rewritten: str
