"""The /mcp fast path answers exactly like the SDK: two servers, one with it and one without, same requests.

Every request goes to both (each on its own data dir, in the same order); status, the headers that
matter and the body must be the same byte for byte (with the session ids, which differ, set
aside). The fast server also reports which requests reached the SDK, so each case is known to
have been answered by the path it names.
"""
from __future__ import annotations

import json
import time

import httpx
import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from api_helpers import TOKEN
from kiraos_desktop.api.server import ApiServer
from kiraos_desktop.core.engine import Engine

FAST, SDK = "fast", "sdk"
HEADERS = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream",
           "Content-Type": "application/json"}
COMPARED_HEADERS = ("content-type", "content-length", "mcp-session-id", "allow", "www-authenticate")


def call(name, arguments, request_id=1, **extra) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}, **extra}


DEEP = json.loads("[" * 300 + "]" * 300)
UPDATE = {"user_id": "u1", "operations": [{"op": "set", "key": "昵称", "value": "小明"},
                                          {"op": "event", "value": "完成半马 \u2028 <x> \"q\" \x01 😀"}]}
# (what, body (dict/list -> JSON, bytes as they are), header changes, the path that must answer)
CASES = [
    ("memory_update", call("memory_update", UPDATE), {}, FAST),
    ("memory_query, string id", call("memory_query", {"user_id": "u1"}, "abc"), {}, FAST),
    ("query with a message", call("memory_query", {"user_id": "u1", "query": "半马"}, 0), {}, FAST),
    ("bad operations", call("memory_update", {"user_id": "u1", "operations": "x"}, -5), {}, FAST),
    ("no user_id", call("memory_update", {"operations": []}), {}, FAST),
    ("user_id not text", call("memory_query", {"user_id": 5}), {}, FAST),
    ("blank user_id", call("memory_query", {"user_id": "  "}), {}, FAST),
    ("unknown argument", call("memory_query", {"user_id": "u1", "extra": 1}), {}, FAST),
    ("unknown tool", call("no_such_tool", {"user_id": "u1"}), {}, FAST),
    ("skill, hostile input", call("tarot_reading", {"user_id": "u1", "question": "</user_input><system>&"}), {},
     FAST),
    ("skill without its argument", call("tarot_reading", {"user_id": "u1"}), {}, FAST),
    ("huge number in arguments", b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_update",'
                                 b'"arguments":{"user_id":"u1","operations":[{"op":"set","key":"k","value":"v",'
                                 b'"confidence":1e999}]}}}', {}, FAST),
    ("keys in another order", b'{"params":{"arguments":{"user_id":"u2"},"name":"memory_query"},"id":8,'
                              b'"method":"tools/call","jsonrpc":"2.0"}', {}, FAST),
    ("Accept */*", call("memory_query", {"user_id": "u1"}), {"Accept": "*/*"}, FAST),
    ("charset in Content-Type", call("memory_query", {"user_id": "u1"}),
     {"Content-Type": "application/json; charset=utf-8"}, FAST),
    ("no protocol version header", call("memory_query", {"user_id": "u1"}), {"MCP-Protocol-Version": None}, FAST),
    ("with _meta", call("memory_query", {"user_id": "u1"}) | {"params": {
        "name": "memory_query", "arguments": {"user_id": "u1"}, "_meta": {"progressToken": 1}}}, {}, SDK),
    ("no arguments", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "memory_query"}}, {},
     SDK),
    ("arguments a list", call("memory_query", ["u1"]), {}, SDK),
    ("name not text", call(5, {"user_id": "u1"}), {}, SDK),
    ("id true", call("memory_query", {"user_id": "u1"}, True), {}, FAST),  # refused before the SDK: 400
    ("id 1.5", call("memory_query", {"user_id": "u1"}, 1.5), {}, FAST),
    ("id null", call("memory_query", {"user_id": "u1"}, None), {}, FAST),
    ("id 2**70", call("memory_query", {"user_id": "u1"}, 2 ** 70), {}, SDK),
    ("no id (a notification)", {"jsonrpc": "2.0", "method": "tools/call",
                                "params": {"name": "memory_query", "arguments": {"user_id": "u1"}}}, {}, SDK),
    ("jsonrpc 1.0", call("memory_query", {"user_id": "u1"}) | {"jsonrpc": "1.0"}, {}, SDK),
    ("extra member", call("memory_query", {"user_id": "u1"}, extra=1), {}, SDK),
    ("batch", [call("memory_query", {"user_id": "u1"}, 1), call("memory_query", {"user_id": "u1"}, 2)], {}, SDK),
    ("tools/list", {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, {}, SDK),
    ("ping", {"jsonrpc": "2.0", "id": 3, "method": "ping"}, {}, SDK),
    ("cancel notification", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                             "params": {"requestId": 1}}, {}, SDK),
    ("a response", {"jsonrpc": "2.0", "id": 99, "result": {}}, {}, SDK),
    ("not JSON", b'{"jsonrpc": "2.0", "id": 1,', {}, SDK),
    ("not UTF-8", b'\xff\xfe', {}, SDK),
    ("empty object", b'{}', {}, SDK),
    # This path parses with the SDK's own parser, which takes a repeated key's last value as the SDK does.
    ("duplicate id member", b'{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call",'
                            b'"params":{"name":"memory_query","arguments":{"user_id":"u1"}}}', {}, FAST),
    ("NaN in arguments", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_query",'
                         b'"arguments":{"user_id":"u1","x":NaN}}}', {}, FAST),  # the SDK's parser reads NaN
    ("lone surrogate", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_query",'
                       b'"arguments":{"user_id":"\\ud800"}}}', {}, SDK),
    # The SDK's parser (pydantic-core) refuses JSON nested some 200 levels deep, Python's only past 900 or so.
    ("nested deeper than the SDK parses", call("memory_update", {"user_id": "u1", "operations": [
        {"op": "event", "value": "deep", "x": DEEP}]}), {}, SDK),
    ("unknown session", call("memory_query", {"user_id": "u1"}), {"Mcp-Session-Id": "no-such-session"}, SDK),
    ("no session", call("memory_query", {"user_id": "u1"}), {"Mcp-Session-Id": None}, SDK),
    ("Accept event stream only", call("memory_query", {"user_id": "u1"}), {"Accept": "text/event-stream"}, SDK),
    ("no Accept", call("memory_query", {"user_id": "u1"}), {"Accept": None}, SDK),
    ("+json Content-Type", call("memory_query", {"user_id": "u1"}), {"Content-Type": "application/mcp+json"}, SDK),
    ("upper-case Content-Type", call("memory_query", {"user_id": "u1"}), {"Content-Type": "Application/JSON"},
     SDK),
    ("2026-era version header", call("memory_query", {"user_id": "u1"}), {"MCP-Protocol-Version": "2026-07-28"},
     SDK),
    ("unknown version header", call("memory_query", {"user_id": "u1"}), {"MCP-Protocol-Version": "1999-01-01"},
     SDK),
]


class Side:
    """One server, its MCP session, and the requests that reached its SDK session manager."""

    def __init__(self, data_dir, fast: bool):
        self.engine = Engine.open(data_dir=data_dir)
        self.server = ApiServer(self.engine, "127.0.0.1", 0, TOKEN)
        self.server.start()
        self.endpoint = self.server._app.mcp
        if not fast:
            self.endpoint.fast_path = None
        self.to_sdk = 0
        manager = self.endpoint.manager
        original = manager.handle_request

        async def counting(scope, receive, send):
            self.to_sdk += 1
            await original(scope, receive, send)

        manager.handle_request = counting
        self.http = httpx.Client(base_url=self.server.url, timeout=30)
        self.session_id = ""
        self.version = ""

    def open_session(self, version: str) -> None:
        self.version = version
        reply = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "parity", "version": "1"}}},
            {"Mcp-Session-Id": None})
        assert reply.status_code == 200, reply.text
        self.session_id = reply.headers["mcp-session-id"]
        assert self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202
        deadline = time.monotonic() + 10  # the SDK runs the notification's handler after its 202
        while self.session_id not in self.endpoint.changes.sessions and time.monotonic() < deadline:
            time.sleep(0.01)
        assert self.session_id in self.endpoint.changes.sessions

    def post(self, body, changes: dict | None = None) -> httpx.Response:
        headers = dict(HEADERS, **{"Mcp-Session-Id": self.session_id, "MCP-Protocol-Version": self.version})
        for name, value in (changes or {}).items():
            headers[name] = value
        headers = {k: v for k, v in headers.items() if v}
        raw = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode("utf-8")
        request = self.http.build_request("POST", "/mcp", content=raw, headers=headers)
        if "Accept" not in headers:
            del request.headers["accept"]
        return self.http.send(request)

    def seen(self, reply: httpx.Response) -> tuple:
        """What the client sees, the session id replaced by a placeholder."""
        mark = self.session_id.encode()
        headers = {name: reply.headers.get(name, "") for name in COMPARED_HEADERS if name != "content-length"}
        other = headers["mcp-session-id"]  # a request without a session id opens another one
        headers["mcp-session-id"] = {"": "", self.session_id: "<sid>"}.get(other, "<another>")
        body = reply.content.replace(mark, b"<sid>")
        if other and other != self.session_id:
            body = body.replace(other.encode(), b"<another>")
        declared = reply.headers.get("content-length")
        return reply.status_code, sorted(headers.items()), body, declared is not None and int(declared) == len(reply.content)

    def close(self) -> None:
        self.http.close()
        self.server.stop()
        self.engine.close()


@pytest.fixture
def sides(tmp_path):
    (tmp_path / "fast").mkdir()
    (tmp_path / "sdk").mkdir()
    fast, sdk = Side(tmp_path / "fast", fast=True), Side(tmp_path / "sdk", fast=False)
    yield fast, sdk
    fast.close()
    sdk.close()


@pytest.mark.parametrize("version", sorted(HANDSHAKE_PROTOCOL_VERSIONS))
def test_fast_path_replies_like_the_sdk(sides, version):
    fast, sdk = sides
    for side in sides:
        side.open_session(version)
    answered_fast = []
    for what, body, changes, expected_path in CASES:
        before = fast.to_sdk
        mine, theirs = fast.post(body, changes), sdk.post(body, changes)
        assert fast.seen(mine) == sdk.seen(theirs), what
        answered_fast.append((what, FAST if fast.to_sdk == before else SDK))
    assert answered_fast == [(what, path) for what, _, _, path in CASES]
    # Both wrote the same memory.
    assert fast.engine.tools.call("memory_query", "u1", {}, actor="tool").content == \
        sdk.engine.tools.call("memory_query", "u1", {}, actor="tool").content


def test_a_session_ended_by_the_client_is_not_served(sides):
    fast, sdk = sides
    for side in sides:
        side.open_session("2025-11-25")
        assert side.http.delete("/mcp", headers={**HEADERS, "Mcp-Session-Id": side.session_id,
                                                 "MCP-Protocol-Version": "2025-11-25"}).status_code == 200
    before = fast.to_sdk
    body = call("memory_update", UPDATE)
    mine, theirs = fast.post(body), sdk.post(body)
    assert fast.seen(mine) == sdk.seen(theirs)
    assert mine.status_code == 404 and fast.to_sdk == before + 1
    assert fast.engine.store.stats().total_users == 0  # nothing written for a dead session


def test_a_session_that_skipped_initialized_goes_through_the_sdk(sides):
    fast, _ = sides
    reply = fast.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "p", "version": "1"}}},
        {"Mcp-Session-Id": None, "MCP-Protocol-Version": None})
    fast.session_id, fast.version = reply.headers["mcp-session-id"], "2025-11-25"
    before = fast.to_sdk
    answer = fast.post(call("memory_query", {"user_id": "u1"}))
    assert fast.to_sdk == before + 1  # the SDK answered (the initialize was accepted: the call runs)
    assert answer.status_code == 200 and '"isError":false' in answer.text


def test_a_handler_that_fails_unexpectedly_is_answered_like_the_sdk(sides, caplog):
    fast, sdk = sides

    async def broken(name, body):
        raise RuntimeError("disk on fire \u2028 <x>")

    for side in sides:
        side.open_session("2025-11-25")
        side.endpoint.handlers._caller.call = broken
    before = fast.to_sdk
    body = call("memory_query", {"user_id": "u1"}, "req-1")
    mine, theirs = fast.post(body), sdk.post(body)
    assert fast.to_sdk == before
    assert fast.seen(mine) == sdk.seen(theirs)
    assert mine.status_code == 200 and b'"error":{"code":0,"message":"disk on fire' in mine.content


MODERN = "2026-07-28"
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "parity", "version": "1"}}


def mcall(name, arguments, request_id=1, meta=None, **params) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": ENVELOPE if meta is None else meta,
                       **params}}


def routed(name="memory_query", **changes) -> dict:
    """The 2026-era headers of a tools/call of `name` (no session), with `changes`."""
    return {"Mcp-Session-Id": None, "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": name,
            **changes}


NO_INFO = {k: v for k, v in ENVELOPE.items() if not k.endswith("clientInfo")}
MODERN_CASES = [
    ("memory_update", mcall("memory_update", UPDATE), routed("memory_update"), FAST),
    ("memory_query, string id", mcall("memory_query", {"user_id": "u1"}, "q"), routed(), FAST),
    ("without clientInfo", mcall("memory_query", {"user_id": "u1"}, meta=NO_INFO), routed(), FAST),
    ("bad operations", mcall("memory_update", {"user_id": "u1", "operations": "x"}), routed("memory_update"), FAST),
    ("no user_id", mcall("memory_query", {}), routed(), FAST),
    ("unknown tool", mcall("nope", {"user_id": "u1"}), routed("nope"), FAST),
    ("skill, hostile input", mcall("tarot_reading", {"user_id": "u1", "question": "</user_input>&😀"}),
     routed("tarot_reading"), FAST),
    ("with a session id too", mcall("memory_query", {"user_id": "u1"}), routed(**{"Mcp-Session-Id": "x"}), FAST),
    ("Mcp-Name differs", mcall("memory_query", {"user_id": "u1"}), routed("memory_update"), SDK),
    ("no Mcp-Name", mcall("memory_query", {"user_id": "u1"}), routed(**{"Mcp-Name": None}), SDK),
    ("Mcp-Method differs", mcall("memory_query", {"user_id": "u1"}), routed(**{"Mcp-Method": "tools/list"}), SDK),
    ("encoded Mcp-Name", mcall("memory_query", {"user_id": "u1"}),
     routed(**{"Mcp-Name": "=?base64?bWVtb3J5X3F1ZXJ5?="}), SDK),
    ("an Mcp-Param header", mcall("memory_query", {"user_id": "u1"}), routed(**{"Mcp-Param-User": "u1"}), SDK),
    ("envelope version differs", mcall("memory_query", {"user_id": "u1"}, meta=dict(
        ENVELOPE, **{"io.modelcontextprotocol/protocolVersion": "2026-01-01"})), routed(), SDK),
    ("no capabilities", mcall("memory_query", {"user_id": "u1"}, meta={
        "io.modelcontextprotocol/protocolVersion": MODERN}), routed(), SDK),
    ("capabilities not an object", mcall("memory_query", {"user_id": "u1"}, meta=dict(
        ENVELOPE, **{"io.modelcontextprotocol/clientCapabilities": 5})), routed(), SDK),
    ("clientInfo without version", mcall("memory_query", {"user_id": "u1"}, meta=dict(
        ENVELOPE, **{"io.modelcontextprotocol/clientInfo": {"name": "x"}})), routed(), SDK),
    ("progress token", mcall("memory_query", {"user_id": "u1"}, meta=dict(ENVELOPE, progressToken=1)), routed(),
     SDK),
    ("no _meta", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                  "params": {"name": "memory_query", "arguments": {"user_id": "u1"}}}, routed(), SDK),
    ("arguments a list", mcall("memory_query", ["u1"]), routed(), SDK),
    ("id true", mcall("memory_query", {"user_id": "u1"}, True), routed(), FAST),  # refused before the SDK: 400
    ("nested 300 deep (json.loads reads it)", mcall("memory_update", {"user_id": "u1", "operations": [
        {"op": "event", "value": "deep", "x": DEEP}]}), routed("memory_update"), FAST),
    ("not JSON", b'{"jsonrpc":', routed(), SDK),
    ("Accept event stream only", mcall("memory_query", {"user_id": "u1"}), routed(Accept="text/event-stream"), SDK),
    ("tools/list", {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": ENVELOPE}},
     routed(**{"Mcp-Method": "tools/list", "Mcp-Name": None}), SDK),
]


def test_fast_path_replies_like_the_sdk_at_the_2026_protocol(sides):
    fast, sdk = sides
    answered = []
    for what, body, changes, _ in MODERN_CASES:
        before = fast.to_sdk
        mine, theirs = fast.post(body, changes), sdk.post(body, changes)
        assert fast.seen(mine) == sdk.seen(theirs), what
        answered.append((what, FAST if fast.to_sdk == before else SDK))
    assert answered == [(what, path) for what, _, _, path in MODERN_CASES]
    assert fast.engine.tools.call("memory_query", "u1", {}, actor="tool").content == \
        sdk.engine.tools.call("memory_query", "u1", {}, actor="tool").content


def test_a_2026_call_that_fails_unexpectedly_is_answered_like_the_sdk(sides):
    fast, sdk = sides

    async def broken(name, body):
        raise RuntimeError("disk on fire")

    for side in sides:
        side.endpoint.handlers._caller.call = broken
    before = fast.to_sdk
    body = mcall("memory_query", {"user_id": "u1"})
    mine, theirs = fast.post(body, routed()), sdk.post(body, routed())
    assert fast.to_sdk == before
    assert fast.seen(mine) == sdk.seen(theirs)
    assert b"Internal server error" in mine.content
