"""Hostile MCP clients: a flood of sessions (the one idle longest ends, no newcomer refused) and request ids MCP does not allow."""
from __future__ import annotations

import logging
import time

import httpx

from api_helpers import AUTH, api_engine, api_server  # noqa: F401
from kiraos_desktop.api.mcp import http as mcp_http
from mcp_helpers import INITIALIZE, MCP_HEADERS

LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def open_session(client: httpx.Client, url: str) -> dict:
    reply = client.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **AUTH})
    assert reply.status_code == 200, reply.text
    session = {**MCP_HEADERS, **AUTH, "Mcp-Session-Id": reply.headers["mcp-session-id"],
               "MCP-Protocol-Version": "2025-06-18"}
    assert client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                       headers=session).status_code == 202
    return session


def status_of(client: httpx.Client, url: str, session: dict, wait_for: int | None = None) -> int:
    deadline = time.monotonic() + 10
    while True:
        status = client.post(url, json=LIST, headers=session).status_code
        if wait_for is None or status == wait_for or time.monotonic() > deadline:
            return status
        time.sleep(0.05)


def test_a_new_client_past_the_cap_ends_the_session_idle_longest(api_server, monkeypatch, caplog):
    monkeypatch.setattr(mcp_http, "MAX_SESSIONS", 3)
    url = f"{api_server.url}/mcp"
    with httpx.Client(timeout=30) as client, caplog.at_level(logging.INFO):
        first, second, third = (open_session(client, url) for _ in range(3))
        assert status_of(client, url, first) == 200  # used just now: the second is idle longest
        fourth = open_session(client, url)  # the SDK's cap refused it (503) once reached
        assert status_of(client, url, second, wait_for=404) == 404
        for session in (first, third, fourth):
            assert status_of(client, url, session) == 200
        for _ in range(5):  # more newcomers: each admitted, the cap holds
            open_session(client, url)
        assert len(mcp_http.open_transports(api_server._app.mcp.manager)) <= 3 + 1
    sdk_lines = [r for r in caplog.records if r.name == "mcp.server.streamable_http_manager" and r.levelno < logging.WARNING]
    ours = [r for r in caplog.records if r.name == mcp_http.__name__]
    assert sdk_lines == [] and len(ours) == 1  # one report, not a line per session


def test_a_request_whose_id_mcp_does_not_allow_gets_an_error_not_silence(api_server):
    """The SDK took such a message for a notification: 202 and no reply, the client waiting for ever."""
    url = f"{api_server.url}/mcp"
    with httpx.Client(timeout=30) as client:
        session = open_session(client, url)
        for bad, says in [({"a": 1}, "an object"), (1.5, "a fraction"), (None, "null"), (True, "true/false"),
                          ([1], "list")]:
            reply = client.post(url, json={**LIST, "id": bad}, headers=session)
            assert reply.status_code == 400, (bad, reply.status_code)
            body = reply.json()
            assert body["id"] is None and body["error"]["code"] == -32600 and says in body["error"]["message"]
        for good in ("req-1", 7, 0):
            reply = client.post(url, json={**LIST, "id": good}, headers=session)
            assert reply.status_code == 200 and reply.json()["id"] == good
        notification = client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                                   headers=session)
        assert notification.status_code == 202  # no id at all: a notification, as before
        opening = client.post(url, json={**INITIALIZE, "id": 2.5}, headers={**MCP_HEADERS, **AUTH})
        assert opening.status_code == 400 and "mcp-session-id" not in opening.headers
