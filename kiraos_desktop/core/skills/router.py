"""SkillRouter: the loaded skills of one folder, their instructions, rendering and commands."""
from __future__ import annotations

import dataclasses
import logging
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from .discovery import LoadedSkill, TextFile, claims_name, file_signature, load_instruction, scan_skills_dir
from .model import CommandMatch, Skill
from .problems import COMMAND_RE, Problem, SkillRenderError, UnknownSkillError, error
from .render import render_tool_result
from .skill_files import read_skill_file

log = logging.getLogger(__name__)

COMMAND_REWRITE = "[用户使用了技能命令 {command}] {args}"
_COMMAND_WORD = re.compile(r"(\S+)(?:\s+|$)")


@dataclass
class _Entry:
    skill: Skill
    static_problems: list[Problem]  # manifest + duplicate problems: fixed until the next reload
    instruction: TextFile
    winner: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


class SkillRouter:
    """Discovers the skills of `skills_dir` and serves their instructions. Thread-safe."""

    def __init__(self, skills_dir: Path, disabled: Iterable[str] = ()):
        self._skills_dir = Path(skills_dir)
        self._disabled = frozenset(disabled)
        self._lock = threading.Lock()
        self._entries: list[_Entry] = []
        self._by_name: dict[str, _Entry] = {}
        self._by_command: dict[str, _Entry] = {}
        self._listeners: list[Callable[[], None]] = []
        self.reload()

    @property
    def skills_dir(self) -> Path:
        return self._skills_dir

    @property
    def disabled(self) -> frozenset[str]:
        return self._disabled

    # ------------------------------------------------------------------ loading

    def reload(self) -> None:
        """Rescan the folder. Deleted skills disappear; broken skills never stop the others."""
        entries: list[_Entry] = []
        by_name: dict[str, _Entry] = {}
        by_command: dict[str, _Entry] = {}
        for loaded in scan_skills_dir(self._skills_dir):
            entry = self._make_entry(loaded, by_name, by_command)
            entries.append(entry)
        with self._lock:
            self._entries = entries
            self._by_name = by_name
            self._by_command = by_command
        self._changed()

    def on_changed(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener()` (from whichever thread reloaded or re-enabled) after every reload and
        every change of the disabled skills; returns the call that stops it."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def _changed(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:  # a faulty listener must not break loading for the others
                log.exception("a skills listener failed")

    def _make_entry(self, loaded: LoadedSkill, by_name: dict, by_command: dict) -> _Entry:
        skill = loaded.skill
        static = list(loaded.manifest_problems)
        entry = _Entry(skill, static, loaded.instruction)
        if claims_name(loaded):
            first = by_name.get(skill.name)
            if first is not None:
                static.append(error("name", f"Another skill named {skill.name!r} is already loaded from "
                                            f"folder {first.skill.folder.name!r} (the first in folder order "
                                            "wins); rename one of them."))
            else:
                by_name[skill.name] = entry
                entry.winner = True
        command = skill.command
        if entry.winner and command and COMMAND_RE.match(command):
            first = by_command.get(command)
            if first is not None:
                static.append(error("command", f"Command {command} is already used by skill "
                                               f"{first.skill.name!r} (folder {first.skill.folder.name!r}); "
                                               "choose another command."))
            else:
                by_command[command] = entry
        entry.skill = dataclasses.replace(skill, problems=static + loaded.instruction_problems,
                                          enabled=skill.name not in self._disabled)
        return entry

    def set_disabled(self, names: Iterable[str]) -> None:
        """Hide these skills from the tool list and from command matching."""
        disabled = frozenset(names)
        with self._lock:
            self._disabled = disabled
            for entry in self._entries:
                with entry.lock:
                    entry.skill = dataclasses.replace(entry.skill, enabled=entry.skill.name not in disabled)
        self._changed()

    # ------------------------------------------------------------------ queries

    def skills(self) -> list[Skill]:
        """Every discovered skill in folder order, invalid ones and duplicates included."""
        with self._lock:
            return [entry.skill for entry in self._entries]

    def get(self, name: str) -> Skill | None:
        """The skill that owns `name` (the first in folder order), valid or not."""
        with self._lock:
            entry = self._by_name.get(name)
        return entry.skill if entry is not None else None

    def enabled_skills(self) -> list[Skill]:
        """Valid skills that are not disabled, in folder order."""
        return [s for s in self.skills() if s.valid and s.enabled]

    # ------------------------------------------------------------------ instructions

    def _entry(self, name: str) -> _Entry:
        with self._lock:
            entry = self._by_name.get(name)
        if entry is None:
            raise UnknownSkillError(f"no skill named {name!r}")
        return entry

    def instruction(self, name: str) -> str:
        """The instruction text, cached; re-read when the file changed on disk."""
        entry = self._entry(name)
        path = entry.skill.instruction_path
        with entry.lock:
            cached = entry.instruction
            if cached.text is not None and cached.signature == file_signature(path):
                return cached.text
            loaded, problems = load_instruction(path, entry.skill.manifest)
            entry.instruction = loaded
            entry.skill = dataclasses.replace(entry.skill, problems=entry.static_problems + problems)
        if loaded.text is None:
            first = loaded.problems[0] if loaded.problems else None
            raise SkillRenderError("instruction", first.message if first else "instruction.md cannot be read")
        return loaded.text

    def skill_file(self, name: str, path: str) -> str:
        """The text of file `path` of skill `name`'s folder. Raises UnknownSkillError or
        SkillFileReadError (outside the folder, missing, binary, oversized)."""
        return read_skill_file(self._entry(name).skill.folder, path)

    def render(self, name: str, arguments: dict, memory_block: str = "") -> str:
        """The exact tool result of calling skill `name` with `arguments`.

        Raises UnknownSkillError, SkillArgumentError (bad arguments) or SkillRenderError
        (the skill has errors or its template fails)."""
        text = self.instruction(name)
        skill = self._entry(name).skill
        if not skill.valid:
            first = skill.errors[0]
            raise SkillRenderError(first.field, f"skill {name!r} has errors and cannot run: {first.message}")
        return render_tool_result(skill.name, text, skill.manifest, arguments, memory_block)

    # ------------------------------------------------------------------ commands

    def match_command(self, text: str) -> CommandMatch | None:
        """`/cmd args` for an enabled skill's command -> the plugin's rewrite, else None."""
        parsed = parse_command(text)
        if parsed is None:
            return None
        command, args_text = parsed
        with self._lock:
            entry = self._by_command.get(command)
        if entry is None:
            return None
        skill = entry.skill
        if not (skill.valid and skill.enabled):
            return None
        return CommandMatch(skill.name, command, args_text,
                            COMMAND_REWRITE.format(command=command, args=args_text))


def parse_command(text: str) -> tuple[str, str] | None:
    """Split `/cmd args` into ("/cmd", "args"); None when the text is not a slash command."""
    if not isinstance(text, str):
        return None
    stripped = text.lstrip()
    if not stripped.startswith("/"):
        return None
    word = _COMMAND_WORD.match(stripped)
    if word is None:
        return None
    return word.group(1), stripped[word.end():].strip()
