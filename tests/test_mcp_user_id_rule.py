"""A skill parameter may not be called user_id: every tool call (MCP's especially) carries the user's id under that name."""
from __future__ import annotations

import anyio

from kiraos_desktop.api.mcp.server import build_mcp_server
from kiraos_desktop.api.tool_calls import ToolCaller
from kiraos_desktop.core.writes.workers import Workers
from kiraos_desktop.core.skills.manifest import validate_manifest_text
from skills_helpers import manifest, params, write_skill


def test_a_user_id_parameter_is_a_manifest_error_that_says_what_to_do():
    data = manifest("greeter", parameters=params(["user_id"], user_id="string", tone="string"))
    import json
    text = json.dumps(data, indent=2)
    _, problems = validate_manifest_text(text)
    errors = [p for p in problems if p.is_error]
    assert [p.field for p in errors] == ["parameters.properties.user_id"]
    message = errors[0].message
    assert "user_id" in message and "rename" in message.lower()
    assert errors[0].line == text.splitlines().index('      "user_id": {') + 1


def test_such_a_skill_is_neither_an_mcp_tool_nor_a_prompt(engine):
    write_skill(engine.skills.skills_dir, "greeter",
                manifest("greeter", parameters=params(["user_id"], user_id="string")), "hi {user_id}")
    write_skill(engine.skills.skills_dir, "fine", manifest("fine", parameters=params(["who"], who="string")),
                "hi {who}")
    engine.skills.reload()
    workers = Workers()
    try:
        _, handlers, _ = build_mcp_server(engine, ToolCaller(engine.tools, workers), workers)

        async def go():
            tools = [t.name for t in handlers.tool_list()]
            prompts = [p.name for p in (await handlers.list_prompts(None, None)).prompts]
            return tools, prompts, await handlers.tool_result("greeter", {"user_id": "u1"})

        tools, prompts, called = anyio.run(go)
    finally:
        workers.close()
    assert "fine" in tools and "fine" in prompts
    assert "greeter" not in tools and "greeter" not in prompts
    assert called[1] is True and "greeter" in called[0]  # an unknown tool: a tool error naming it
    assert "greeter" not in [d.name for d in engine.tools.descriptors()]  # nor on /v1/tools
