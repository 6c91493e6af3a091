"""Helpers for MCP tests: the SDK's own client over HTTP (with our token) and over stdio."""
from __future__ import annotations

import contextlib
import os
import sys

from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from api_helpers import TOKEN

#: What an MCP client sends with its first message.
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "1"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@contextlib.asynccontextmanager
async def http_client(url: str, token: str | None = TOKEN, mode: str = "legacy", **kwargs):
    """A connected SDK Client on `url`/mcp, sending `token` as the bearer token."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with create_mcp_http_client(headers=headers) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode, **kwargs) as client:
            yield client


def stdio_params(data_dir) -> StdioServerParameters:
    """`python -m kiraos_desktop mcp --data-dir D`, as a host would launch it."""
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "kiraos_desktop", "mcp", "--data-dir", str(data_dir)], env=env)


def text_of(result) -> str:
    """The single text content of a tool result."""
    assert len(result.content) == 1 and result.content[0].type == "text", result
    return result.content[0].text
