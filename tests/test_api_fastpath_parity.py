"""The fast paths answer exactly like the routes they stand in for: the same bad inputs get the same replies."""
from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from api_helpers import AUTH, TOKEN
from kiraos_desktop.api.app import create_app
from kiraos_desktop.api.security import GuardedApp
from kiraos_desktop.core.memory.records import MAX_USER_ID_CHARS

LONG_ID = "u" * (MAX_USER_ID_CHARS + 1)

CONTEXT_QUERIES = [
    "user_id=u1",  # a good one: both answer it, alike
    "user_id=u1&max_chars=50",
    "user_id=u1&user_id=u2",
    "user_id=u1&query=%E5%B0%8F%E6%98%8E",  # with a message (小明): asked twice below, the second from the caches
    "user_id=u1&user_id=u2&query=%E5%B0%8F%E6%98%8E&max_chars=40",
    "user_id=u1&query=%22%20OR%20*",
    "",
    "user_id=",
    "user_id=%20%20",
    f"user_id={LONG_ID}",
    "user_id=u1&max_chars=1000001",
    "user_id=u1&max_chars=-1",
    "user_id=u1&max_chars=abc",
    "user_id=u1&max_chars=1&max_chars=2",
    "user_id=u1&other=1",
    "user_id=%FF",
    "max_chars=10",
    "&".join(f"user_id=u{n}" for n in range(101)),
]

UPDATE_BODIES = [
    {"user_id": "u1", "arguments": {"operations": [{"op": "event", "value": "x"}]}, "extra": 1},
    {"user_id": " ", "arguments": {"operations": [{"op": "event", "value": "x"}]}},
    {"user_id": LONG_ID, "arguments": {"operations": [{"op": "event", "value": "x"}]}},
    {"user_id": 5, "arguments": {"operations": []}},
    {"user_id": "u1"},
    {"user_id": "u1", "arguments": []},
    {"user_id": "u1", "arguments": {"operations": [{"op": "set", "key": 5, "value": "v"}]}},
    {"user_id": "u1", "arguments": {"operations": [{"op": "nope"}]}},
    {"user_id": "u1", "arguments": {"operations": [{"op": "set", "key": "k", "value": "v", "confidence": 2}]}},
    {"user_id": "u1", "arguments": {"operations": "all"}},
    [],
    "text",
]
RAW_UPDATE_BODIES = [b'{"user_id": "u1", "arguments": ', b"\xff\xfe", b'{"user_id": "u1", "arguments": {}, }']


def _exchange(app, method: str, url: str, content: bytes | None = None) -> tuple[int, str, bytes]:
    async def run():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", headers=AUTH) as client:
            headers = {"Content-Type": "application/json"} if content is not None else {}
            reply = await client.request(method, url, content=content, headers=headers)
            return reply.status_code, reply.headers.get("content-type", ""), reply.content

    return asyncio.run(run())


@pytest.fixture
def apps(engine):
    """The app as served (fast paths first) and the same router without fast paths."""
    served = create_app(engine, TOKEN)
    routed = GuardedApp(served.router, TOKEN)
    yield served, routed
    served.workers.close()


@pytest.mark.parametrize("query", CONTEXT_QUERIES)
def test_context_fast_path_and_route_give_the_same_reply(apps, engine, query):
    engine.tools.call("memory_update", "u1", {"operations": [{"op": "set", "key": "昵称", "value": "小明"}]},
                          actor="tool")
    served, routed = apps
    url = "/v1/context" + (f"?{query}" if query else "")
    fast = _exchange(served, "GET", url)
    slow = _exchange(routed, "GET", url)
    assert fast == slow
    assert _exchange(served, "GET", url) == fast
    assert fast[0] in (200, 422), fast


@pytest.mark.parametrize("body", [json.dumps(b, ensure_ascii=False).encode() for b in UPDATE_BODIES]
                         + RAW_UPDATE_BODIES)
def test_memory_update_fast_path_and_route_give_the_same_error(apps, engine, body):
    served, routed = apps
    fast = _exchange(served, "POST", "/v1/tools/memory_update", body)
    slow = _exchange(routed, "POST", "/v1/tools/memory_update", body)
    assert fast == slow
    assert fast[0] in (400, 422) or "已完成 0 项记忆操作" in fast[2].decode(), fast  # bad operations: reported
    assert engine.store.stats().total_users == 0  # and neither wrote anything
