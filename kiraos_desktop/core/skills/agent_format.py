"""The Agent Skills format (SKILL.md): parsing, spec rules, and the mapping to and from KiraOS skills."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from .manifest import manifest_problems, validate_manifest_text
from .problems import AGENT_SKILL_FILE, MAX_FILE_BYTES, Problem
from .render import instruction_problems

SKILL_FILE = AGENT_SKILL_FILE
#: Other spellings of SKILL_FILE that hosts accept when reading a folder.
SKILL_FILE_NAMES = (SKILL_FILE, "skill.md")
MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
MAX_COMPATIBILITY_CHARS = 500
SPEC_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")

#: metadata keys of an export: the manifest.json text, verbatim, and the version of this mapping.
MANIFEST_KEY = "kiraos-manifest"
FORMAT_KEY = "kiraos-format"
FORMAT_VERSION = "1"

#: The optional parameter a skill made from a plain SKILL.md gets, and where its value goes.
REQUEST_PARAMETER = "request"
REQUEST_SCHEMA = {"type": "string", "description": "用户的具体请求（可选）"}
REQUEST_LINE = "用户请求：{request}"


class AgentFormatError(ValueError):
    """SKILL.md cannot be read as front matter + body; `line` is 1-based when known."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass
class SkillDocument:
    """A parsed SKILL.md: the front matter mapping (strings, lists and mappings only) and the body."""

    front: dict
    front_text: str
    body: str
    body_line: int  # 1-based line of SKILL.md where the body starts


@dataclass
class AgentSkill:
    """What a SKILL.md means as a KiraOS skill."""

    manifest: dict | None
    instruction: str
    #: the manifest.json text when SKILL.md carries one (an export of ours), else None
    manifest_text: str | None
    problems: list[Problem] = field(default_factory=list)  # front matter and manifest problems
    instruction_problems: list[Problem] = field(default_factory=list)


# ----------------------------------------------------------------------------- reading

class _Loader(yaml.SafeLoader):
    """Every scalar is a string (as in the reference validator); duplicate keys are errors."""


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> dict:
    result: dict = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str):
            raise yaml.constructor.ConstructorError(None, None, "a key must be a plain string",
                                                    key_node.start_mark)
        if key in result:
            raise yaml.constructor.ConstructorError(None, None, f"the key {key!r} appears twice",
                                                    key_node.start_mark)
        result[key] = loader.construct_object(value_node, deep=True)
    return result


_Loader.yaml_implicit_resolvers = {}  # no booleans, numbers, dates or nulls: plain text stays text
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def split_document(text: str) -> tuple[str, str, int]:
    """(front matter text, body, 1-based line of the body); AgentFormatError when there is no
    front matter between two `---` lines at the top."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        raise AgentFormatError(f"{SKILL_FILE} must start with a line '---' that opens the YAML front "
                               "matter (name, description), closed by another '---' line.", 1)
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            return "\n".join(lines[1:index]), "\n".join(lines[index + 1:]), index + 2
    raise AgentFormatError(f"The front matter of {SKILL_FILE} is not closed: add a line '---' after it.",
                           len(lines))


def parse_document(text: str) -> SkillDocument:
    """Parse SKILL.md text; AgentFormatError for a missing front matter or invalid YAML."""
    front_text, body, body_line = split_document(text)
    try:
        front = yaml.load(front_text, Loader=_Loader) if front_text.strip() else {}
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 2 if mark is not None else None
        reason = exc.problem or exc.context or "invalid YAML"
        raise AgentFormatError(f"The front matter of {SKILL_FILE} is not valid YAML: {reason}.", line) from exc
    except yaml.YAMLError as exc:
        raise AgentFormatError(f"The front matter of {SKILL_FILE} is not valid YAML: {exc}.", 2) from exc
    except RecursionError:
        raise AgentFormatError(f"The front matter of {SKILL_FILE} is nested too deeply to be read.", 2) from None
    if not isinstance(front, dict):
        raise AgentFormatError(f"The front matter of {SKILL_FILE} must be a YAML mapping "
                               "(name: ..., description: ...).", 2)
    return SkillDocument(front, front_text, body, body_line)


# ----------------------------------------------------------------------------- spec rules

def _in_skill_md(problem: Problem, line_offset: int = 0) -> Problem:
    line = problem.line + line_offset if problem.line is not None else None
    return replace(problem, line=line, source=SKILL_FILE)


def _key_line(front_text: str, key: str) -> int | None:
    match = re.search(r"^" + re.escape(key) + r"\s*:", front_text, re.M)
    return front_text.count("\n", 0, match.start()) + 2 if match else None


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text.strip())


def spec_name_problems(name: Any, folder_name: str | None, line: int | None = None) -> list[Problem]:
    """The spec's rules for `name` (and that the folder is called the same)."""
    def bad(message: str) -> Problem:
        return Problem("error", "name", message, line, SKILL_FILE)

    if not isinstance(name, str) or not name.strip():
        return [bad("The front matter needs a non-empty \"name\" (lowercase letters, digits and "
                    "single hyphens, such as pdf-processing).")]
    name = _nfkc(name)
    problems = []
    if len(name) > MAX_NAME_CHARS:
        problems.append(bad(f"\"name\" is {len(name)} characters long; the limit is {MAX_NAME_CHARS}."))
    if name != name.lower():
        problems.append(bad(f"\"name\" {name!r} must be lowercase; write {name.lower()!r}."))
    if name.startswith("-") or name.endswith("-"):
        problems.append(bad(f"\"name\" {name!r} must not start or end with a hyphen."))
    if "--" in name:
        problems.append(bad(f"\"name\" {name!r} must not contain two hyphens in a row."))
    if not all(c.isalnum() or c == "-" for c in name):
        problems.append(bad(f"\"name\" {name!r} may only hold letters, digits and hyphens "
                            "(no spaces or underscores)."))
    if folder_name is not None and _nfkc(folder_name) != name:
        problems.append(bad(f"The folder is called {folder_name!r} but \"name\" is {name!r}; "
                            "rename the folder or change the name so that they match."))
    return problems


def spec_problems(doc: SkillDocument, folder_name: str | None) -> list[Problem]:
    """Every rule of the Agent Skills spec the front matter breaks (as errors and warnings)."""
    front = doc.front

    def line(key: str) -> int | None:
        return _key_line(doc.front_text, key)

    def bad(key: str, message: str, severity: str = "error") -> Problem:
        return Problem(severity, key, message, line(key), SKILL_FILE)

    problems: list[Problem] = []
    for key in front:
        if key not in SPEC_KEYS:
            problems.append(bad(key, f"Unknown front matter key {key!r}: the spec allows only "
                                     f"{', '.join(SPEC_KEYS)}; move it under \"metadata\" or remove it."))
    problems.extend(spec_name_problems(front.get("name"), folder_name, line("name")))
    description = front.get("description")
    if not isinstance(description, str) or not description.strip():
        problems.append(bad("description", "The front matter needs a non-empty \"description\" that says "
                                           "what the skill does and when to use it."))
    elif len(description) > MAX_DESCRIPTION_CHARS:
        problems.append(bad("description", f"\"description\" is {len(description)} characters long; the "
                                           f"limit is {MAX_DESCRIPTION_CHARS}. Shorten it."))
    if "compatibility" in front:
        value = front["compatibility"]
        if not isinstance(value, str) or not value.strip():
            problems.append(bad("compatibility", "\"compatibility\" must be a non-empty text."))
        elif len(value) > MAX_COMPATIBILITY_CHARS:
            problems.append(bad("compatibility", f"\"compatibility\" is {len(value)} characters long; the "
                                                 f"limit is {MAX_COMPATIBILITY_CHARS}."))
    for key in ("license", "allowed-tools"):
        if key in front and not isinstance(front[key], str):
            problems.append(bad(key, f"\"{key}\" must be a text, not a list or mapping."))
    if "metadata" in front:
        metadata = front["metadata"]
        if not isinstance(metadata, dict):
            problems.append(bad("metadata", "\"metadata\" must be a mapping of keys to text values."))
        else:
            for key, value in metadata.items():
                if not isinstance(value, str):
                    problems.append(bad("metadata", f"metadata {key!r} must be a text value, not a list or "
                                                    "mapping (the spec allows strings only)."))
    if "---" in doc.front_text:
        problems.append(bad("front matter", "The front matter contains '---' inside a value; some hosts "
                                            "read that as the end of the front matter. Reword it.", "warning"))
    return problems


# ----------------------------------------------------------------------------- as a KiraOS skill

def _body_instruction(doc: SkillDocument) -> tuple[str, int]:
    """A plain SKILL.md body as an instruction (the request line added) and its line offset."""
    body = doc.body
    stripped = body.lstrip()
    offset = doc.body_line - 1 + body[: len(body) - len(stripped)].count("\n")
    text = stripped.rstrip()
    if "{" + REQUEST_PARAMETER + "}" not in text:
        text = f"{text}\n\n{REQUEST_LINE}" if text else REQUEST_LINE
    return text + "\n", offset


def embedded_manifest(front: dict) -> str | None:
    """The manifest.json text an export of ours keeps under metadata, else None."""
    metadata = front.get("metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get(MANIFEST_KEY), str):
        return metadata[MANIFEST_KEY]
    return None


def agent_skill(doc: SkillDocument, folder_name: str | None) -> AgentSkill:
    """The KiraOS skill a SKILL.md stands for, with every problem (spec, manifest, instruction).

    An export of ours carries its manifest under metadata: that manifest and the exact body come
    back. Any other SKILL.md becomes name + description, the body as the instruction, and an
    optional `request` parameter."""
    problems = spec_problems(doc, folder_name)
    manifest_text = embedded_manifest(doc.front)
    if manifest_text is not None:
        data, found = validate_manifest_text(manifest_text)
        line = _key_line(doc.front_text, "metadata")
        problems.extend(replace(p, field=f"metadata.{MANIFEST_KEY}" if p.field == "manifest" else p.field,
                                line=line, source=SKILL_FILE) for p in found)
        instruction, offset = doc.body, doc.body_line - 1
    else:
        data = {}
        for key in ("name", "description"):
            if isinstance(doc.front.get(key), str):
                data[key] = doc.front[key].strip()
        data["parameters"] = {"type": "object", "properties": {REQUEST_PARAMETER: dict(REQUEST_SCHEMA)}}
        if not any(p.field == "name" for p in problems):
            problems.extend(_in_skill_md(p) for p in manifest_problems(data) if p.field == "name")
        instruction, offset = _body_instruction(doc)
    found = instruction_problems(instruction, data)
    renamed = [replace(p, message=p.message.replace("instruction.md", f"the body of {SKILL_FILE}"))
               for p in found]
    return AgentSkill(data, instruction, manifest_text, problems,
                      [_in_skill_md(p, offset) for p in renamed])


def validate_agent_text(text: str, folder_name: str | None) -> AgentSkill:
    """Problems and meaning of SKILL.md text (saved or not); never raises."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        return AgentSkill(None, "", None, [Problem("error", "front matter",
                                                   f"{SKILL_FILE} is larger than {MAX_FILE_BYTES // 1024} "
                                                   "KiB; move details into references/.", None, SKILL_FILE)])
    try:
        doc = parse_document(text)
    except AgentFormatError as exc:
        return AgentSkill(None, "", None, [Problem("error", "front matter", exc.message, exc.line, SKILL_FILE)])
    return agent_skill(doc, folder_name)


# ----------------------------------------------------------------------------- writing

def agent_name(name: str) -> str:
    """A KiraOS skill name as a spec name: lowercase, `_` -> `-`, no doubled or edge hyphens."""
    text = re.sub(r"-{2,}", "-", name.lower().replace("_", "-")).strip("-")
    return text or "skill"


_SENTENCE_ENDS = "。！？.!?"


def export_description(manifest: dict) -> str:
    """description + trigger, within the spec's limit (cut with an ellipsis when longer)."""
    parts = [str(manifest.get(key) or "").strip() for key in ("description", "trigger")]
    parts = [p for p in parts if p]
    if not parts:
        return f"KiraOS skill {manifest.get('name', '')}".strip()
    text = parts[0]
    if len(parts) > 1:
        if text[-1] in _SENTENCE_ENDS:
            text += " " if text[-1].isascii() else ""
        else:
            text += ". " if text[-1].isascii() else "。"
        text += parts[1]
    text = " ".join(text.split())  # one line: hosts show it in lists
    if len(text) > MAX_DESCRIPTION_CHARS:
        text = text[: MAX_DESCRIPTION_CHARS - 1].rstrip() + "…"
    return text


def yaml_quote(text: str) -> str:
    """`text` as a YAML double-quoted scalar that both PyYAML and strict parsers read back exactly.

    Control characters are escaped, and so is each hyphen that follows a hyphen: some hosts cut the
    front matter at the first '---' anywhere in it."""
    out = ['"']
    previous = ""
    for char in text:
        code = ord(char)
        if char == "\\":
            out.append("\\\\")
        elif char == '"':
            out.append('\\"')
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "-" and previous == "-":
            out.append("\\u002d")
        elif code < 0x20 or 0x7F <= code <= 0x9F or code in (0x2028, 0x2029, 0xFEFF) or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
        previous = char
    out.append('"')
    return "".join(out)


def render_skill_md(manifest: dict, manifest_text: str, instruction: str) -> str:
    """SKILL.md of an export: spec front matter, the manifest under metadata, the instruction as body."""
    name = agent_name(str(manifest.get("name") or ""))
    lines = [
        "---",
        f"name: {yaml_quote(name)}",
        f"description: {yaml_quote(export_description(manifest))}",
        "metadata:",
        f"  {FORMAT_KEY}: {yaml_quote(FORMAT_VERSION)}",
        f"  {MANIFEST_KEY}: {yaml_quote(manifest_text)}",
        "---",
    ]
    return "\n".join(lines) + "\n" + instruction
