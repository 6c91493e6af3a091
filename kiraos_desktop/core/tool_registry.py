"""The tools a bot host sees: the three memory tools plus every enabled skill, in each provider's shape."""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from kiraos_desktop.core.skills import (
    Skill,
    SkillArgumentError,
    SkillRenderError,
    SkillRouter,
    UnknownSkillError,
    validate_arguments,
)
from kiraos_desktop.core.skills.skill_files import SkillFileReadError

#: How many events the memory block handed to a skill carries.
SKILL_CONTEXT_EVENTS = 3

MEMORY_UPDATE = "memory_update"
MEMORY_QUERY = "memory_query"
MEMORY_CLEAR = "memory_clear"


class MemoryTools(Protocol):
    def update(self, user_id: str, operations: list, actor: str) -> str: ...
    def query(self, user_id: str, query: str | None = None) -> str: ...
    def clear(self, user_id: str, actor: str) -> str: ...


@dataclass(frozen=True)
class ToolDescriptor:
    """One tool, provider-neutral."""

    name: str
    description: str
    input_schema: dict


@dataclass(frozen=True)
class ToolResult:
    tool: str
    content: str
    is_error: bool


class UnknownToolError(LookupError):
    """No enabled tool of that name (unknown, disabled, or a skill with errors)."""

    def __init__(self, name: str):
        super().__init__(f"unknown tool {name!r}")
        self.name = name


def refused_arguments_text(field: str, message: str) -> str:
    """How a host is told its arguments were refused: the field as a path from `arguments`, then
    what is wrong (the API's 422 message; the skills page shows the same)."""
    return f"{qualified_field(field)}: {message}"


def qualified_field(field: str) -> str:
    return field if field.startswith("arguments") else f"arguments.{field}"


class ToolArgumentError(ValueError):
    """The arguments break the tool's input schema; `field` is the dotted path of the culprit."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


_EMPTY_SCHEMA = {"type": "object", "properties": {}, "additionalProperties": False}

MEMORY_QUERY_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "query": {"type": "string",
                  "description": "可选：当前话题或用户的原话。给出时只列出与之相关的画像和事件，最相关的在前。"},
    },
    "additionalProperties": False,
}

#: Operations in one memory_update call at most, for every caller (API, MCP, `call`): a call holds the
#: write lock for all of its operations (20,000 held it 3.7 s), and a bot sends a few at a time.
#: More is refused as a whole by the schema, naming the cap (a 400 on the API, exit 2 on the CLI).
MAX_OPERATIONS = 500

MEMORY_UPDATE_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "operations": {
            "type": "array",
            "maxItems": MAX_OPERATIONS,
            "description": f"记忆操作列表，可一次提交多项操作（每次最多 {MAX_OPERATIONS} 项）。",
            "items": {
                "type": "object",
                "properties": {
                    "op": {"type": "string",
                           "description": "操作类型：set | event | del。set 新增或更新一条画像键值对；"
                                          "event 追加一条事件日志；del 删除指定 key 的画像条目。"},
                    "key": {"type": "string", "description": "画像键名（set/del 时必填）"},
                    "value": {"type": "string", "description": "画像值（set 时）或事件描述（event 时）"},
                    "category": {"type": "string",
                                 "description": "basic | preference | social | other（可选，默认 basic）"},
                    "confidence": {"type": "number",
                                   "description": "0-1 的置信度（可选，默认 0.5）。确定的信息用 0.8 以上，"
                                                  "不确定的用 0.3-0.5。"},
                    "ttl": {"type": "string",
                            "description": "过期时间，如 30d、7d、12h、30m、2w、1d12h（可选）"},
                    "tag": {"type": "string",
                            "description": "事件标签（event 时可选），如 milestone、daily、mood 等短词"},
                    "force": {"type": "boolean",
                              "description": "强制覆盖置信度更高的现值（set 时可选）"},
                },
            },
        },
    },
    "required": ["operations"],
    "additionalProperties": False,
}

_OPERATION_STRINGS = frozenset(("op", "key", "value", "category", "ttl", "tag"))


def memory_update_arguments_ok(arguments: Any) -> bool:
    """True when `arguments` satisfies MEMORY_UPDATE_SCHEMA; a hand-written check for the hot path.

    jsonschema costs about 0.4 ms per call here, more than the whole write; on False the caller
    runs jsonschema anyway, so that errors are reported exactly as for every other tool.
    """
    if type(arguments) is not dict or len(arguments) != 1 or type(arguments.get("operations")) is not list:
        return False
    if len(arguments["operations"]) > MAX_OPERATIONS:
        return False
    for op in arguments["operations"]:
        if type(op) is not dict:
            return False
        for name, value in op.items():
            if name in _OPERATION_STRINGS:
                if not isinstance(value, str):
                    return False
            elif name == "confidence" and (isinstance(value, bool) or not isinstance(value, (int, float))):
                return False
            elif name == "force" and not isinstance(value, bool):
                return False
    return True


MEMORY_DESCRIPTORS = (
    ToolDescriptor(
        MEMORY_UPDATE,
        "管理用户记忆的主要工具，支持批量操作。在对话中识别到有价值的用户信息（身份、偏好、社交关系、"
        "重要事件）时调用：set 记录或更新画像，event 记录事件，del 删除画像。闲聊不要调用。",
        MEMORY_UPDATE_SCHEMA,
    ),
    ToolDescriptor(
        MEMORY_QUERY,
        "查询当前用户的全部记忆，返回按分类分组的完整画像和近期事件。用户主动查询自身记忆时使用，"
        "例如「你记得我什么？」「你知道我的信息吗？」「我的画像」。",
        MEMORY_QUERY_SCHEMA,
    ),
    ToolDescriptor(
        MEMORY_CLEAR,
        "清除用户全部记忆数据（画像 + 事件日志）。仅当用户明确要求时调用，"
        "例如「忘记我」「清除我的记忆」「删除我的所有信息」。",
        _EMPTY_SCHEMA,
    ),
)
_MEMORY_BY_NAME = {d.name: d for d in MEMORY_DESCRIPTORS}
TOOL_FORMATS = ("openai", "anthropic", "mcp")


#: Every skill tool's optional argument that returns one file of the skill's folder instead of the
#: instruction (level three of progressive disclosure), unless the skill declares its own `file`.
FILE_ARGUMENT = "file"
FILE_ARGUMENT_SCHEMA = {
    "type": "string",
    "description": "可选：技能文件夹内某个文件的相对路径（如 references/guide.md）。给出时只返回该文件的内容，"
                   "用于按需读取技能指令中提到的参考资料。",
}


def offers_file_argument(skill: Skill) -> bool:
    """Whether the skill's tool has the built-in `file` argument (a skill may declare its own)."""
    props = skill.parameters.get("properties")
    return not isinstance(props, dict) or FILE_ARGUMENT not in props


def skill_descriptor(skill: Skill) -> ToolDescriptor:
    """The tool a skill becomes: its name, trigger (else description) and parameter schema, plus
    the optional `file` argument."""
    schema = skill.parameters
    props = schema.get("properties")
    if isinstance(props, dict) and FILE_ARGUMENT not in props:
        schema = {**schema, "properties": {**props, FILE_ARGUMENT: FILE_ARGUMENT_SCHEMA}}
    return ToolDescriptor(skill.name, skill.tool_description, schema)


def tool_definition(descriptor: ToolDescriptor, fmt: str) -> dict:
    """One tool in a provider's shape ("openai", "anthropic" or "mcp"); ValueError otherwise."""
    schema = copy.deepcopy(descriptor.input_schema)
    if fmt == "openai":
        return {"type": "function",
                "function": {"name": descriptor.name, "description": descriptor.description,
                             "parameters": schema}}
    if fmt == "anthropic":
        return {"name": descriptor.name, "description": descriptor.description, "input_schema": schema}
    if fmt == "mcp":
        return {"name": descriptor.name, "description": descriptor.description, "inputSchema": schema}
    raise ValueError(f"unknown tool format {fmt!r}; use openai, anthropic or mcp")


def skill_error_content(name: str, message: str) -> str:
    """The tool result (is_error) of a skill whose template fails at run time."""
    return f"技能 {name} 无法执行: {message}"


def skill_file_error_content(name: str, path: Any, message: str) -> str:
    """The tool result (is_error) of a `file` argument that cannot be given."""
    return f"技能 {name} 无法读取文件 {json.dumps(path, ensure_ascii=False)}: {message}"


class ToolRegistry:
    """Lists tools for a bot host and dispatches calls by name, validating arguments first."""

    def __init__(self, memory_tools: MemoryTools, skills: SkillRouter,
                 context_fn: Callable[[str, int], str]):
        self._memory = memory_tools
        self._skills = skills
        self._context_fn = context_fn

    @property
    def skills(self) -> SkillRouter:
        return self._skills

    # ------------------------------------------------------------------ listing

    def descriptors(self) -> list[ToolDescriptor]:
        """memory_update, memory_query, memory_clear, then every enabled valid skill."""
        tools = list(MEMORY_DESCRIPTORS)
        for skill in self._skills.enabled_skills():
            tools.append(skill_descriptor(skill))
        return tools

    def descriptor(self, name: str) -> ToolDescriptor:
        """The descriptor of a callable tool, or UnknownToolError."""
        if name in _MEMORY_BY_NAME:
            return _MEMORY_BY_NAME[name]
        skill = self._skills.get(name)
        if skill is None or not skill.valid or not skill.enabled:
            raise UnknownToolError(name)
        return skill_descriptor(skill)

    def as_openai(self) -> list[dict]:
        """Chat Completions `tools`: {"type": "function", "function": {name, description, parameters}}."""
        return [tool_definition(d, "openai") for d in self.descriptors()]

    def as_anthropic(self) -> list[dict]:
        """Messages API `tools`: {name, description, input_schema}."""
        return [tool_definition(d, "anthropic") for d in self.descriptors()]

    def as_mcp(self) -> list[dict]:
        """MCP `tools/list` entries: {name, description, inputSchema}."""
        return [tool_definition(d, "mcp") for d in self.descriptors()]

    def list_tools(self, fmt: str) -> list[dict]:
        """The tool list in format "openai", "anthropic" or "mcp" (ValueError otherwise)."""
        formats = {"openai": self.as_openai, "anthropic": self.as_anthropic, "mcp": self.as_mcp}
        if fmt not in formats:
            raise ValueError(f"unknown tool format {fmt!r}; use openai, anthropic or mcp")
        return formats[fmt]()

    # ------------------------------------------------------------------ dispatch

    def call(self, name: str, user_id: str, arguments: dict | None,
             actor: str = "tool") -> ToolResult:
        """Run a tool for `user_id`. Raises UnknownToolError or ToolArgumentError; a skill whose
        template fails at run time gives a ToolResult with is_error=True."""
        descriptor = self.descriptor(name)
        if arguments is None:
            arguments = {}
        wants_file = (name not in _MEMORY_BY_NAME and isinstance(arguments, dict) and FILE_ARGUMENT in arguments
                      and FILE_ARGUMENT_SCHEMA is descriptor.input_schema.get("properties", {}).get(FILE_ARGUMENT))
        try:
            if wants_file:  # the other arguments are not needed, but must have the right types
                validate_arguments({**descriptor.input_schema, "required": []}, arguments)
                return self._skill_file(name, arguments[FILE_ARGUMENT])
            if not (name == MEMORY_UPDATE and memory_update_arguments_ok(arguments)):
                validate_arguments(descriptor.input_schema, arguments)
        except SkillArgumentError as exc:
            raise ToolArgumentError(exc.field, exc.message) from exc
        except SkillRenderError as exc:
            return ToolResult(name, skill_error_content(name, exc.message), True)

        if name == MEMORY_UPDATE:
            return ToolResult(name, *self._memory.update_result(user_id, arguments["operations"], actor))
        if name == MEMORY_QUERY:
            return ToolResult(name, self._memory.query(user_id, arguments.get("query")), False)
        if name == MEMORY_CLEAR:
            return ToolResult(name, self._memory.clear(user_id, actor), False)
        return self._call_skill(name, user_id, arguments)

    def _skill_file(self, name: str, path: str) -> ToolResult:
        try:
            content = self._skills.skill_file(name, path)
        except UnknownSkillError as exc:
            raise UnknownToolError(name) from exc
        except SkillFileReadError as exc:
            return ToolResult(name, skill_file_error_content(name, path, str(exc)), True)
        return ToolResult(name, content, False)

    def _call_skill(self, name: str, user_id: str, arguments: dict[str, Any]) -> ToolResult:
        memory_block = self._context_fn(user_id, SKILL_CONTEXT_EVENTS) or ""
        try:
            content = self._skills.render(name, arguments, memory_block)
        except UnknownSkillError as exc:  # deleted by a reload between lookup and render
            raise UnknownToolError(name) from exc
        except SkillArgumentError as exc:
            raise ToolArgumentError(exc.field, exc.message) from exc
        except SkillRenderError as exc:
            return ToolResult(name, skill_error_content(name, exc.message), True)
        return ToolResult(name, content, False)
