"""Fixtures for API tests: an engine on the test's data dir and a real server on an ephemeral port."""
from __future__ import annotations

import httpx
import pytest

from kiraos_desktop.api.server import ApiServer

TOKEN = "test-token-4f1c9a2b7d"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def api_engine(engine):
    """The engine the server serves (the shared `engine` fixture of conftest.py)."""
    return engine


@pytest.fixture
def api_server(api_engine):
    server = ApiServer(api_engine, "127.0.0.1", 0, TOKEN)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def api(api_server):
    """An httpx client that sends the token."""
    with httpx.Client(base_url=api_server.url, headers=AUTH, timeout=30) as client:
        yield client


@pytest.fixture
def anon(api_server):
    """An httpx client without a token."""
    with httpx.Client(base_url=api_server.url, timeout=30) as client:
        yield client


def remember(engine, user_id: str, *operations: dict) -> str:
    """Write through the engine as a tool would; returns the tool's reply."""
    return engine.tools.call("memory_update", user_id, {"operations": list(operations)}, actor="tool").content


def error_of(reply) -> dict:
    """The /v1 error object of a reply (asserting its shape)."""
    body = reply.json()
    assert set(body) == {"error"}, body
    assert {"code", "message"} <= set(body["error"]), body
    return body["error"]


def plugin_error_of(reply) -> str:
    """The plugin's `{"error": "message"}` (asserting its shape)."""
    body = reply.json()
    assert set(body) == {"error"} and isinstance(body["error"], str), body
    return body["error"]
