"""A PostgreSQL outage under a running API: 503 with the error shape, nothing written, then service again."""
from __future__ import annotations

import threading

import httpx
import pytest

from kiraos_desktop.api.server import ApiServer
from kiraos_desktop.core.memory.changes import ChangeEvent
from kiraos_desktop.core.engine import Engine
from api_helpers import AUTH, TOKEN, error_of, plugin_error_of
from mcp_helpers import INITIALIZE, MCP_HEADERS

UPDATE = {"user_id": "w", "arguments": {"operations": [{"op": "set", "key": "城市", "value": "北京"},
                                                       {"op": "event", "value": "搬家"}]}}
UPDATE_NOT_PLAIN = {"arguments": {"operations": [{"op": "event", "value": "第二件事"}]}, "user_id": "w"}


@pytest.fixture
def served(tmp_path, pg_server, pg_url):
    if not pg_server.managed:
        pytest.skip("the developer's own server is not stopped by the tests")
    engine = Engine.open(data_dir=tmp_path / "data", database_url=pg_url)
    server = ApiServer(engine, "127.0.0.1", 0, TOKEN)
    server.start()
    try:
        with httpx.Client(base_url=server.url, headers=AUTH, timeout=30) as client:
            yield engine, client
    finally:
        server.stop()
        engine.close()
        if not _running(pg_server):
            pg_server.start()


def _running(pg_server) -> bool:
    try:
        pg_server._admin().close()
    except Exception:
        return False
    return True


def mcp_call(client: httpx.Client, name: str, arguments: dict) -> dict:
    """One tools/call over /mcp (a fresh session); the JSON-RPC result."""
    opened = client.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS)
    assert opened.status_code == 200, opened.text
    session = {"Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-06-18"}
    client.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                headers={**MCP_HEADERS, **session})
    reply = client.post("/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                      "params": {"name": name, "arguments": arguments}},
                        headers={**MCP_HEADERS, **session})
    assert reply.status_code == 200, reply.text
    return reply.json()["result"]


def assert_unavailable(reply) -> None:
    assert reply.status_code == 503, reply.text
    error = error_of(reply)
    assert error["code"] == "database_unavailable"
    assert "unavailable" in error["message"] and "test-secret" not in error["message"]
    assert reply.headers["retry-after"] == "1"


def test_requests_during_an_outage_get_503_and_succeed_again_once_the_server_is_back(served, pg_server):
    engine, api = served
    heard = threading.Event()  # our own write's notification: it drops the block once more when it comes
    engine.store.changes.subscribe(lambda event: heard.set() if event == ChangeEvent("seen", "external",
                                                                                     "external") else None)
    assert engine.change_listener.wait_listening(10)
    assert api.post("/v1/tools/memory_update", json={**UPDATE, "user_id": "seen"}).status_code == 200
    assert heard.wait(10)
    assert api.get("/v1/context", params={"user_id": "seen"}).status_code == 200  # now cached
    pg_server.stop()
    try:
        assert_unavailable(api.post("/v1/tools/memory_update", json=UPDATE))  # the fast path
        assert_unavailable(api.post("/v1/tools/memory_update", json=UPDATE_NOT_PLAIN))  # the route
        assert_unavailable(api.post("/v1/tools/memory_query", json={"user_id": "w"}))
        assert_unavailable(api.get("/v1/context", params={"user_id": "w"}))
        assert_unavailable(api.get("/v1/context", params={"user_id": "w", "query": "城市"}))
        assert_unavailable(api.get("/v1/health"))
        stats = api.get("/api/stats")
        assert stats.status_code == 503 and "unavailable" in plugin_error_of(stats)
        put = api.put("/api/users/w/profiles/城市", json={"value": "上海"})
        assert put.status_code == 503 and "unavailable" in plugin_error_of(put)
        # A tool call over MCP fails as a tool result, with the /v1 error's message: the model sees it.
        result = mcp_call(api, "memory_update", {**UPDATE["arguments"], "user_id": "w"})
        assert result["isError"] is True and "unavailable" in result["content"][0]["text"]
        # No write was possible, so a block cached before the outage is still what is stored.
        cached = api.get("/v1/context", params={"user_id": "seen"})
        assert cached.status_code == 200 and "北京" in cached.json()["context"]
    finally:
        pg_server.start()
    # Without restarting the app: the store reconnects on its next operation.
    assert api.get("/v1/health").status_code == 200
    reply = api.get("/v1/context", params={"user_id": "w"})
    assert reply.status_code == 200 and reply.json()["context"] == ""  # nothing half-written
    assert api.get(f"/api/users/w").json()["profiles"] == []
    assert api.post("/v1/tools/memory_update", json=UPDATE).status_code == 200
    assert "北京" in api.get("/v1/context", params={"user_id": "w"}).json()["context"]
    result = mcp_call(api, "memory_update", {"operations": [{"op": "event", "value": "回来了"}], "user_id": "w"})
    assert result["isError"] is False
    assert [e.summary for e in engine.store.get_events("w", limit=10)] == ["回来了", "搬家"]


def test_the_watcher_reports_an_outage_once_not_every_tick(caplog):
    from kiraos_desktop.core.memory.records import StoreUnavailable
    from kiraos_desktop.core.watcher import ExternalChangeWatcher

    outcomes = [StoreUnavailable("down")] * 5 + [None] + [StoreUnavailable("down again")] * 3
    done = threading.Event()

    def poll():
        if not outcomes:
            done.set()
            return
        outcome = outcomes.pop(0)
        if outcome is not None:
            raise outcome

    watcher = ExternalChangeWatcher(poll, interval=0.001)
    watcher.start()
    try:
        assert done.wait(10)
    finally:
        watcher.stop()
    records = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "kiraos_desktop.core.watcher"]
    assert records == [("WARNING", "the database is unavailable; the watcher retries: down"),
                       ("WARNING", "the database is unavailable; the watcher retries: down again")]
