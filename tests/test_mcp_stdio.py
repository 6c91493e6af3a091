"""`kiraos-desktop mcp`: the SDK's stdio client launches it on a data dir a running API server also uses."""
from __future__ import annotations

import time

import anyio
from mcp import Client

from api_helpers import api, api_engine, api_server  # noqa: F401
from mcp_helpers import stdio_params, text_of


def wait_for(check, timeout: float = 10):
    """The first truthy check() within `timeout` seconds (the other process's commit is polled for)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def test_stdio_server_and_api_server_share_the_data_dir(api, data_dir):
    api.post("/v1/tools/memory_update",
             json={"user_id": "u1", "arguments": {"operations": [{"op": "set", "key": "城市", "value": "杭州"}]}})

    async def go():
        async with Client(stdio_params(data_dir), mode="legacy") as client:
            names = [t.name for t in (await client.list_tools()).tools]
            read = await client.call_tool("memory_query", {"user_id": "u1"})
            written = await client.call_tool("memory_update",
                                             {"user_id": "u1", "operations": [{"op": "event", "value": "去了西湖"}]})
            bad = await client.call_tool("memory_update", {"user_id": "u1"})
            return names, read, written, bad

    names, read, written, bad = anyio.run(go)
    assert names == [t["name"] for t in api.get("/v1/tools", params={"format": "mcp"}).json()["tools"]]
    assert "城市 = 杭州" in text_of(read)
    assert not written.is_error and "event: 去了西湖" in text_of(written)
    assert bad.is_error and "operations" in text_of(bad)
    seen = wait_for(lambda: "去了西湖" in api.get("/v1/context", params={"user_id": "u1"}).json()["context"])
    assert seen


def test_stdio_stdout_carries_only_the_protocol(data_dir):
    import json
    import subprocess

    params = stdio_params(data_dir)
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    stdin = "".join(json.dumps(m) + "\n" for m in messages)
    done = subprocess.run([params.command, *params.args], input=stdin.encode(), env=params.env,
                          capture_output=True, timeout=60)
    lines = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [m.get("id") for m in lines] == [1, 2]
    assert all(m["jsonrpc"] == "2.0" for m in lines)
    assert done.returncode == 0, done.stderr
