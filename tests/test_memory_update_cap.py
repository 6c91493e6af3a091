"""One cap on the operations of a memory_update call (tool_registry.MAX_OPERATIONS), the same for the
API, MCP and the command line: more is refused as a whole, naming the cap, and nothing is written."""
from __future__ import annotations

import json

import anyio

from api_helpers import api, api_engine, api_server, error_of  # noqa: F401
from kiraos_desktop.cli import main
from kiraos_desktop.core.tool_registry import MAX_OPERATIONS
from mcp_helpers import http_client, text_of


def _events(n: int) -> list[dict]:
    return [{"op": "event", "value": f"事件 {i}"} for i in range(n)]


def test_the_api_refuses_a_call_over_the_cap_naming_it(api, api_engine):
    """422, as for every argument that fails the tool's schema (DESIGN §6), naming the field and cap."""
    reply = api.post("/v1/tools/memory_update", json={"user_id": "u1", "arguments": {"operations": _events(MAX_OPERATIONS + 1)}})
    assert reply.status_code == 422 and error_of(reply)["code"] == "invalid_request"
    message = error_of(reply)["message"]
    assert f"at most {MAX_OPERATIONS}" in message and "operations" in message and len(message) < 300
    assert api_engine.store.user_summary("u1") is None
    fits = api.post("/v1/tools/memory_update", json={"user_id": "u1", "arguments": {"operations": _events(MAX_OPERATIONS)}})
    assert fits.status_code == 200 and fits.json()["content"].startswith(f"已完成 {MAX_OPERATIONS} 项记忆操作")


def test_mcp_answers_a_tool_error_naming_the_cap(api, api_engine, api_server):
    async def go():
        async with http_client(api_server.url) as client:
            return await client.call_tool("memory_update", {"user_id": "u2", "operations": _events(MAX_OPERATIONS + 1)})

    result = anyio.run(go)
    assert result.is_error and f"at most {MAX_OPERATIONS}" in text_of(result)
    assert api_engine.store.user_summary("u2") is None


def test_the_command_line_exits_2_naming_the_cap(data_dir, capsys):
    arguments = json.dumps({"operations": _events(MAX_OPERATIONS + 1)}, ensure_ascii=False)
    code = main(["--data-dir", str(data_dir), "call", "memory_update", "--user", "u3", "--json", arguments])
    err = capsys.readouterr().err
    assert code == 2 and f"at most {MAX_OPERATIONS}" in err and len(err.strip().splitlines()) == 1


def test_the_tool_definition_states_the_cap(api):
    tools = api.get("/v1/tools", params={"format": "openai"}).json()["tools"]
    update = next(t for t in tools if t["function"]["name"] == "memory_update")
    assert update["function"]["parameters"]["properties"]["operations"]["maxItems"] == MAX_OPERATIONS
