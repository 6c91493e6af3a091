"""ToolRegistry: the three provider tool lists and dispatch with argument validation."""
from __future__ import annotations

import jsonschema
import pytest

from kiraos_desktop.core.skills import SkillRouter
from kiraos_desktop.core.tool_registry import (
    ToolArgumentError,
    ToolRegistry,
    ToolResult,
    UnknownToolError,
)
from skills_helpers import FakeMemory, manifest, params, write_skill

NAME = {"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"}
OBJECT_SCHEMA = {"type": "object", "required": ["type"], "properties": {"type": {"const": "object"}}}
SHAPES = {
    "openai": {
        "type": "object", "required": ["type", "function"], "additionalProperties": False,
        "properties": {
            "type": {"const": "function"},
            "function": {"type": "object", "required": ["name", "description", "parameters"],
                         "additionalProperties": False,
                         "properties": {"name": NAME, "description": {"type": "string"},
                                        "parameters": OBJECT_SCHEMA}},
        },
    },
    "anthropic": {
        "type": "object", "required": ["name", "description", "input_schema"], "additionalProperties": False,
        "properties": {"name": NAME, "description": {"type": "string"}, "input_schema": OBJECT_SCHEMA},
    },
    "mcp": {
        "type": "object", "required": ["name", "inputSchema"], "additionalProperties": False,
        "properties": {"name": NAME, "description": {"type": "string"}, "inputSchema": OBJECT_SCHEMA,
                       "title": {"type": "string"}},
    },
}
SCHEMA_KEY = {"openai": ("function", "parameters"), "anthropic": ("input_schema",), "mcp": ("inputSchema",)}


@pytest.fixture
def setup(tmp_path):
    write_skill(tmp_path, "a_tarot", manifest("tarot_reading", trigger="要占卜时调用", description="塔罗",
                                              parameters=params(["question"], question="string",
                                                                count={"type": "integer", "minimum": 1})),
                "问题 {question} {count}")
    write_skill(tmp_path, "b_plain", manifest("plain_skill", trigger="", description="only description"),
                "no params")
    write_skill(tmp_path, "c_off", manifest("disabled_skill"), "x")
    write_skill(tmp_path, "d_bad", manifest("bad skill"), "x")
    write_skill(tmp_path, "e_tpl", manifest("jinja_skill", template="jinja2",
                                            parameters=params(q="string")), "{{ q.nope() }}")
    memory = FakeMemory()
    contexts = {"u1": "[u1:basic] 昵称=小明(✓)"}
    asked = []

    def context_fn(user_id, max_events):
        asked.append((user_id, max_events))
        return contexts.get(user_id, "")

    router = SkillRouter(tmp_path, disabled=["disabled_skill"])
    return ToolRegistry(memory, router, context_fn), memory, asked


def test_descriptor_order_and_descriptions(setup):
    registry, _, _ = setup
    names = [d.name for d in registry.descriptors()]
    assert names == ["memory_update", "memory_query", "memory_clear", "tarot_reading", "plain_skill",
                     "jinja_skill"]
    by_name = {d.name: d for d in registry.descriptors()}
    assert by_name["tarot_reading"].description == "要占卜时调用"
    assert by_name["plain_skill"].description == "only description"
    assert "set" in by_name["memory_update"].description
    update = by_name["memory_update"].input_schema
    assert update["required"] == ["operations"]
    item = update["properties"]["operations"]["items"]["properties"]
    assert set(item) == {"op", "key", "value", "category", "confidence", "ttl", "tag", "force"}
    assert "enum" not in item["op"] and "enum" not in item["category"]
    assert "set | event | del" in item["op"]["description"]
    assert "basic | preference | social | other" in item["category"]["description"]


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "mcp"])
def test_tool_list_shapes(setup, fmt):
    registry, _, _ = setup
    tools = registry.list_tools(fmt)
    assert len(tools) == 6
    for tool in tools:
        jsonschema.validate(tool, SHAPES[fmt])
        schema = tool
        for key in SCHEMA_KEY[fmt]:
            schema = schema[key]
        jsonschema.validators.validator_for(schema).check_schema(schema)


def test_tool_lists_are_copies(setup):
    registry, _, _ = setup
    registry.as_openai()[3]["function"]["parameters"]["properties"].clear()
    assert "question" in registry.as_anthropic()[3]["input_schema"]["properties"]
    with pytest.raises(ValueError):
        registry.list_tools("gemini")


def test_memory_tools_dispatch(setup):
    registry, memory, _ = setup
    ops = [{"op": "set", "key": "昵称", "value": "小明", "confidence": 0.9, "ttl": "30d"},
           {"op": "zap"}, {"op": "set", "key": "k", "value": "v", "confidence": 7, "category": "weird"}]
    result = registry.call("memory_update", "u1", {"operations": ops}, actor="api")
    assert result == ToolResult("memory_update", "已完成 3 项记忆操作: ", False)
    assert memory.calls[-1] == ("update", "u1", ops, "api")
    assert registry.call("memory_query", "u1", {}).content == "该用户暂无记忆数据。"
    assert registry.call("memory_clear", "u1", None).is_error is False
    assert memory.calls[-1] == ("clear", "u1", "tool")


@pytest.mark.parametrize("arguments, field", [
    ({}, "operations"),
    ({"operations": "set k=v"}, "operations"),
    ({"operations": [], "user": "x"}, "user"),
    ({"operations": ["set"]}, "operations.0"),
    ({"operations": [{"op": "set", "key": "k", "value": "v"}, {"op": "set", "confidence": "high"}]},
     "operations.1.confidence"),
    ({"operations": [{"op": 1}]}, "operations.0.op"),
    ([], "arguments"),
])
def test_memory_update_bad_arguments_name_the_field(setup, arguments, field):
    registry, memory, _ = setup
    with pytest.raises(ToolArgumentError) as info:
        registry.call("memory_update", "u1", arguments)
    assert info.value.field == field
    assert memory.calls == []


def test_memory_query_rejects_arguments(setup):
    registry, _, _ = setup
    with pytest.raises(ToolArgumentError) as info:
        registry.call("memory_query", "u1", {"user_id": "other"})
    assert info.value.field == "user_id"


def test_skill_dispatch_with_and_without_memory(setup):
    registry, _, asked = setup
    result = registry.call("tarot_reading", "u1", {"question": "今天", "count": 2})
    assert result.tool == "tarot_reading" and not result.is_error
    assert "问题 <user_input>今天</user_input> <user_input>2</user_input>" in result.content
    assert "<context>\n[u1:basic] 昵称=小明(✓)\n</context>\n</skill>" in result.content
    assert asked[-1] == ("u1", 3)
    plain = registry.call("plain_skill", "nobody", {})
    assert plain.content == ('<skill name="plain_skill">\nno params\n</skill>\n'
                             "请严格按照上述技能指令执行，直接输出执行结果。")


@pytest.mark.parametrize("arguments, field", [
    ({}, "question"),
    ({"question": 5}, "question"),
    ({"question": "q", "count": 0}, "count"),
    ({"question": "q", "count": "2"}, "count"),
])
def test_skill_dispatch_rejects_schema_violations(setup, arguments, field):
    registry, _, _ = setup
    with pytest.raises(ToolArgumentError) as info:
        registry.call("tarot_reading", "u1", arguments)
    assert info.value.field == field


@pytest.mark.parametrize("name", ["nope", "disabled_skill", "bad skill", ""])
def test_unknown_disabled_or_invalid_tools(setup, name):
    registry, _, _ = setup
    with pytest.raises(UnknownToolError):
        registry.call(name, "u1", {})


def test_template_failure_is_an_error_result(setup):
    registry, _, _ = setup
    result = registry.call("jinja_skill", "u1", {"q": "x"})
    assert result.is_error and "jinja_skill" in result.content


def test_reload_changes_the_tool_list(setup, tmp_path):
    registry, _, _ = setup
    write_skill(tmp_path, "f_new", manifest("fresh"), "x")
    assert "fresh" not in [d.name for d in registry.descriptors()]
    registry.skills.reload()
    assert [d.name for d in registry.descriptors()][-1] == "fresh"
    registry.skills.set_disabled(["fresh", "tarot_reading"])
    assert "tarot_reading" not in [t["name"] for t in registry.as_mcp()]
