"""What the MCP server relies on in the SDK beyond its documented API: fails loudly when a release changes it."""
from __future__ import annotations

import inspect

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.streamable_http import StreamableHTTPServerTransport

from api_helpers import api_engine, api_server  # noqa: F401
from kiraos_desktop.api.mcp.sessions import open_transports
from mcp_helpers import http_client


def test_the_session_manager_keeps_its_open_sessions_where_open_transports_reads_them(api_server):
    endpoint = api_server._app.mcp
    assert isinstance(getattr(endpoint.manager, "_server_instances", None), dict), \
        "StreamableHTTPSessionManager._server_instances is gone: update api/mcp/sessions.open_transports"

    async def go():
        async with http_client(api_server.url) as client:
            await client.list_tools()
            return dict(open_transports(endpoint.manager))

    sessions = anyio.run(go)
    assert len(sessions) == 1
    (session_id, transport), = sessions.items()
    assert isinstance(transport, StreamableHTTPServerTransport) and transport.mcp_session_id == session_id
    # What the fast path reads of a transport.
    assert isinstance(transport.is_terminated, bool)
    assert transport.idle_scope is not None and hasattr(transport.idle_scope, "deadline")


def test_the_public_pieces_the_notifications_use_are_there():
    fields = inspect.signature(ServerRequestContext).parameters
    assert "session" in fields and "request" in fields
    for method in ("send_tool_list_changed", "send_prompt_list_changed"):
        assert inspect.iscoroutinefunction(getattr(ServerSession, method))
