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
            event = {"user_id": "u1", "operations": [{"op": "event", "value": "去了西湖"}]}
            written = await client.call_tool("memory_update", event)
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
    process = subprocess.Popen([params.command, *params.args], env=params.env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        process.stdin.write("".join(json.dumps(m) + "\n" for m in messages).encode())
        process.stdin.flush()
        lines = [json.loads(process.stdout.readline()) for _ in range(2)]  # the replies to 1 and 2
        process.stdin.close()  # the host goes away: the server ends
        rest = process.stdout.read()
        assert process.wait(timeout=60) == 0, process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert [m.get("id") for m in lines] == [1, 2] and "tools" in lines[1]["result"]
    assert rest == b""  # nothing but protocol, and nothing after it


def test_the_claude_desktop_snippet_starts_a_working_server(api_engine):
    import json

    from mcp import StdioServerParameters

    from kiraos_desktop.core.host_configs import claude_desktop, data_arguments, stdio_command

    snippet = claude_desktop(stdio_command() + data_arguments(api_engine.paths, api_engine.settings.skills_dir))
    entry = json.loads(snippet)["mcpServers"]["kiraos-desktop"]
    env = stdio_params(api_engine.paths.data_dir).env  # this checkout on the path, as an install would be
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env)
    api_engine.tools.call("memory_update", "u9", {"operations": [{"op": "set", "key": "k", "value": "v"}]})

    async def go():
        async with Client(params, mode="legacy") as client:
            return await client.call_tool("memory_query", {"user_id": "u9"})

    assert "k = v" in text_of(anyio.run(go))


def test_stdio_server_follows_skills_written_by_another_process(api_engine):
    from skills_helpers import manifest, write_skill

    async def go():
        changed = anyio.Event()

        async def on_message(message):
            if getattr(message, "method", None) == "notifications/tools/list_changed":
                changed.set()

        async with Client(stdio_params(api_engine.paths.data_dir), mode="legacy", message_handler=on_message) as c:
            before = [t.name for t in (await c.list_tools()).tools]
            write_skill(api_engine.paths.skills_dir, "weather", manifest("weather_report", description="天气"))
            with anyio.fail_after(20):
                await changed.wait()
            after = [t.name for t in (await c.list_tools()).tools]
            prompts = [p.name for p in (await c.list_prompts()).prompts]
            return before, after, prompts

    before, after, prompts = anyio.run(go)
    assert "weather_report" not in before
    assert "weather_report" in after and "weather_report" in prompts


def test_stdio_server_follows_settings_saved_by_another_process(api_engine):
    """Disabling a skill in the window (or any process on the data dir) reaches a running `mcp`."""

    async def go():
        changed = anyio.Event()

        async def on_message(message):
            if getattr(message, "method", None) == "notifications/tools/list_changed":
                changed.set()

        async with Client(stdio_params(api_engine.paths.data_dir), mode="legacy", message_handler=on_message) as c:
            before = [t.name for t in (await c.list_tools()).tools]
            api_engine.update_settings(api_engine.settings.replace(disabled_skills=["tarot_reading"]))
            with anyio.fail_after(20):
                await changed.wait()
            after = [t.name for t in (await c.list_tools()).tools]
            prompts = [p.name for p in (await c.list_prompts()).prompts]
            called = await c.call_tool("tarot_reading", {"user_id": "u1", "question": "x"})
            return before, after, prompts, called

    before, after, prompts, called = anyio.run(go)
    assert "tarot_reading" in before
    assert "tarot_reading" not in after and "tarot_reading" not in prompts
    assert called.is_error and "tarot_reading" in text_of(called)


def test_without_stdin_and_stdout_mcp_says_which_program_to_start(api_engine, caplog):
    import sys

    from kiraos_desktop.api.mcp.stdio import serve_stdio

    real = sys.stdin, sys.stdout
    sys.stdin = sys.stdout = None  # a windowed executable on Windows
    try:
        code = serve_stdio(api_engine)
    finally:
        sys.stdin, sys.stdout = real
    assert code == 2 and "console program kiraos-desktop" in caplog.text


def exchange(data_dir, lines: list[bytes], replies: int) -> list[dict]:
    """The first `replies` messages `mcp` writes back for `lines` sent after its handshake (fewer if
    it writes no more within a minute); stdin is closed then (in-flight calls end with it).

    Its stdout is read line by line on a thread of its own: a select() on the pipe beside a buffered
    readline() missed replies that arrived in one chunk with the one read (they waited in the
    reader's buffer while select() saw an empty pipe), which failed this on a busy machine."""
    import json
    import queue
    import subprocess
    import threading

    params = stdio_params(data_dir)
    handshake = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    process = subprocess.Popen([params.command, *params.args], env=params.env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    written: queue.Queue = queue.Queue()

    def read_stdout() -> None:
        for line in process.stdout:
            written.put(line)

    reader = threading.Thread(target=read_stdout, daemon=True)
    reader.start()
    received = []
    try:
        process.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in handshake) + b"".join(lines))
        process.stdin.flush()
        deadline = time.monotonic() + 60
        while len(received) < replies + 1:
            try:
                received.append(json.loads(written.get(timeout=max(0.0, deadline - time.monotonic()))))
            except queue.Empty:
                break
        process.stdin.close()
        assert process.wait(timeout=60) == 0, process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        reader.join(5)
    assert received[0]["id"] == 0
    return received[1:]


def test_stdio_answers_lines_it_cannot_read_like_http_and_goes_on(data_dir):
    """JSON-RPC answers a message it cannot parse with a parse error (-32700) and one that is no
    JSON-RPC message with an error too; the HTTP transport does, the stdio one said nothing."""
    replies = exchange(data_dir, [b"garbage\n", b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}\n', b"\n",
                                  b'{"jsonrpc": "2.0", "id": 2, "method": "ping"}\n'], 3)
    assert [(r["id"], r.get("error", {}).get("code")) for r in replies] == [(None, -32700), (None, -32602), (2, None)]
    assert replies[0]["error"]["message"].startswith("Parse error: ")
    assert replies[1]["error"]["message"].startswith("Validation error: ")


def test_stdio_refuses_a_line_that_is_not_utf8_and_stores_nothing(data_dir):
    """A host writing its console's code page (GBK, say) instead of UTF-8 gets a parse error, as
    /mcp gives for the same bytes, rather than its text stored as U+FFFD and a success."""
    update = ('{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "memory_update", "arguments": '
              '{"user_id": "u1", "operations": [{"op": "set", "key": "城市", "value": "杭州"}]}}}\n')
    query = b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory_query", ' \
            b'"arguments": {"user_id": "u1"}}}\n'
    refused, read = exchange(data_dir, [update.encode("gbk"), query], 2)
    assert (refused["id"], refused["error"]["code"]) == (None, -32700)
    assert "UTF-8" in refused["error"]["message"]
    assert read["id"] == 2 and read["result"]["content"][0]["text"] == "该用户暂无记忆数据。"


def test_stdio_answers_a_request_whose_id_mcp_does_not_allow(data_dir):
    """The SDK read such a line as a notification and never answered: the host waited for ever."""
    lines = [b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}\n', b"\n",
             b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}\n',
             b'{"jsonrpc": "2.0", "id": 3, "method": "ping"}\n']
    replies = exchange(data_dir, lines, 3)
    assert [(r["id"], r.get("error", {}).get("code")) for r in replies] == [(None, -32600), (None, -32600), (3, None)]
    assert "not a fraction" in replies[0]["error"]["message"] and "not an object" in replies[1]["error"]["message"]
