"""Analysis of an edited (unsaved) skill: problems, preview, tool definition, commands."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from kiraos_desktop.core.tool_registry import skill_descriptor, skill_error_content, tool_definition

from kiraos_desktop.core.skills.agent_format import validate_agent_text
from kiraos_desktop.core.skills.discovery import skill_from_manifest
from kiraos_desktop.core.skills.manifest import validate_manifest_text
from kiraos_desktop.core.skills.model import CommandMatch, Skill
from kiraos_desktop.core.skills.problems import COMMAND_RE, NAME_RE, RESERVED_NAMES, Problem, SkillArgumentError, SkillRenderError, error
from kiraos_desktop.core.skills.render import guard_text, instruction_problems, render_tool_result
from kiraos_desktop.core.skills.router import COMMAND_REWRITE, parse_command


@dataclass(frozen=True)
class PreviewResult:
    """What a host would receive, or why it would receive nothing."""

    text: str  # the tool result content (an error content when is_error), "" when refused
    is_error: bool = False  # the host gets an error result (template failure)
    refused: bool = False  # the host's call is refused (bad arguments): nothing is rendered
    field: str = ""
    message: str = ""


def draft_skill(manifest: dict | None, folder: Path) -> Skill:
    """The Skill record the router would build from this manifest (problems left out)."""
    return skill_from_manifest(manifest, Path(folder), [])


def render_preview(skill_name: str, instruction: str, manifest: dict | None, arguments: dict,
                   memory_block: str = "", missing_marker: str = "") -> PreviewResult:
    """The exact content of `tools.call(name, user, arguments)` for this unsaved text.

    A call that would be refused has no content; with `missing_marker` (a text with `{name}`), the
    result still shows what the call would return, each missing required argument marked in place.
    """
    try:
        text = render_tool_result(skill_name, instruction, manifest, arguments, memory_block)
    except SkillArgumentError as exc:
        marked = _marked_preview(skill_name, instruction, manifest, arguments, memory_block, missing_marker)
        return PreviewResult(marked, refused=True, field=exc.field, message=exc.message)
    except SkillRenderError as exc:
        return PreviewResult(skill_error_content(skill_name, exc.message), is_error=True,
                             field=exc.field, message=exc.message)
    return PreviewResult(text)


def _marked_preview(skill_name: str, instruction: str, manifest: dict | None, arguments: dict,
                    memory_block: str, marker: str) -> str:
    """The result with every missing required argument given as `marker` (a string); "" when that is
    not the only thing wrong with the arguments."""
    schema = (manifest or {}).get("parameters")
    if not marker or not isinstance(schema, dict) or not isinstance(schema.get("required"), list):
        return ""
    missing = [name for name in schema["required"] if isinstance(name, str) and name not in arguments]
    if not missing:
        return ""
    properties = dict(schema.get("properties") or {})
    properties.update({name: {"type": "string"} for name in missing})
    relaxed = dict(manifest or {}, parameters=dict(schema, properties=properties, required=[]))
    filled = dict(arguments, **{name: marker.format(name=name) for name in missing})
    try:
        return render_tool_result(skill_name, instruction, relaxed, filled, memory_block)
    except (SkillArgumentError, SkillRenderError):
        return ""


def tool_definition_text(manifest: dict | None, folder: Path, fmt: str) -> str:
    """This skill's entry of the host's tool list in `fmt` (openai, anthropic, mcp), as JSON."""
    definition = tool_definition(skill_descriptor(draft_skill(manifest, folder)), fmt)
    return json.dumps(definition, ensure_ascii=False, indent=2)


def draft_problems(manifest_text: str, instruction: str, folder: Path, others: Iterable[Skill],
                   fallback_manifest: dict | None = None) -> tuple[dict | None, list[Problem]]:
    """The engine's problems for unsaved text, including name/command clashes with other skills.

    Returns the parsed manifest (None when the JSON is unreadable) and the problems. The
    instruction is checked against `fallback_manifest` while the JSON is unreadable."""
    data, problems = validate_manifest_text(manifest_text)
    problems = list(problems)
    folder = Path(folder)
    others = [s for s in others if Path(s.folder) != folder]
    if data is not None:
        problems.extend(_clashes(data, others))
    problems.extend(instruction_problems(instruction, data if data is not None else fallback_manifest))
    return data, problems


def draft_agent(text: str, folder: Path, others: Iterable[Skill]) -> tuple[dict | None, str, list[Problem]]:
    """The same for an edited SKILL.md: (manifest or None when unreadable, instruction, problems),
    with the spec rules (the same lint as `skills lint`) and clashes with other skills."""
    folder = Path(folder)
    agent = validate_agent_text(text, folder.name)
    problems = list(agent.problems)
    if agent.manifest is not None:
        problems.extend(_clashes(agent.manifest, [s for s in others if Path(s.folder) != folder]))
    return agent.manifest, agent.instruction, problems + agent.instruction_problems


def _clashes(data: dict, others: list[Skill]) -> list[Problem]:
    found: list[Problem] = []
    name = data.get("name")
    if isinstance(name, str) and NAME_RE.match(name) and name not in RESERVED_NAMES:
        for other in others:
            if other.manifest.get("name") == name:
                found.append(error("name", f"Another skill named {name!r} is in folder "
                                           f"{other.folder.name!r} (the first in folder order wins); "
                                           "rename one of them."))
                break
    command = data.get("command")
    if isinstance(command, str) and COMMAND_RE.match(command):
        for other in others:
            if other.command == command and other.name != name:
                found.append(error("command", f"Command {command} is already used by skill "
                                              f"{other.name!r} (folder {other.folder.name!r}); "
                                              "choose another command."))
                break
    return found


def match_command(text: str, draft: Skill | None, saved_name: str | None, router) -> CommandMatch | None:
    """What `/cmd args` matches when the edited skill is saved as it is now.

    The edited skill's command is taken from the draft; the other skills from the router
    (enabled, valid ones, as the router serves them)."""
    parsed = parse_command(text)
    if parsed is None:
        return None
    command, args_text = parsed
    if draft is not None and draft.command == command:
        return CommandMatch(draft.name, command, args_text,
                            COMMAND_REWRITE.format(command=command, args=args_text))
    found = router.match_command(text)
    if found is not None and saved_name is not None and found.skill == saved_name:
        return None  # the saved version of the edited skill: its command is being changed
    return found


# ---------------------------------------------------------------------- preview spans

_INPUT = re.compile(r"<user_input>.*?</user_input>", re.S)
_CONTEXT = re.compile(r"<context>\n.*?</context>", re.S)
_TAGS = re.compile(r'<skill name="[^"\n]*">|</skill>|</?context>')


def preview_spans(text: str, exclude: Any) -> list[tuple[int, int, str]]:
    """(start, end, kind) regions of a tool result for highlighting, in painting order (later
    ones win): "guard", "context", "input", "tag", "tail"; positions are str indices."""
    spans: list[tuple[int, int, str]] = []
    guard = guard_text(exclude)
    if guard:
        first_line = text.find("\n") + 1
        if text.startswith(guard.rstrip("\n"), first_line):
            spans.append((first_line, first_line + len(guard.rstrip("\n")), "guard"))
    for m in _CONTEXT.finditer(text):
        spans.append((m.start(), m.end(), "context"))
    for m in _INPUT.finditer(text):
        spans.append((m.start(), m.end(), "input"))
    for m in _TAGS.finditer(text):
        spans.append((m.start(), m.end(), "tag"))
    tail = text.rfind("</skill>\n")
    if tail >= 0:
        spans.append((tail + len("</skill>\n"), len(text), "tail"))
    return spans
