"""The MCP sessions: those that finished their handshake (to notify, and for the /mcp fast path), and the SDK's open ones."""
from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Mapping

log = logging.getLogger(__name__)

MCP_SESSION_ID_HEADER = "mcp-session-id"
_stdio_keys = itertools.count(1)
_warned = False


def open_transports(manager) -> Mapping[str, object]:
    """The SDK's open Streamable HTTP sessions: session id -> its StreamableHTTPServerTransport.

    mcp 2.x offers no public way to look a session up or to list them, so this is the one place
    that reads the session manager's private table (`_server_instances`). The SDK's contract test
    (tests/test_mcp_sdk_contract.py) fails as soon as a release renames or reshapes it; until then
    an unexpected shape makes this return no session at all: the fast path then leaves every call
    to the SDK and the stop waits for open event streams, but nothing breaks.
    """
    global _warned
    sessions = getattr(manager, "_server_instances", None)
    if not isinstance(sessions, dict):
        if not _warned:
            _warned = True
            log.warning("the MCP SDK keeps its sessions differently than expected; /mcp runs without its fast path")
        return {}
    return sessions


def session_key(ctx) -> str:
    """The key of the connection a handler runs for: its Mcp-Session-Id over HTTP; over stdio
    (one connection per process, no session id) a key of its own."""
    request = ctx.request  # the HTTP request the message came in (Starlette's), None over stdio
    headers = getattr(request, "headers", None)
    session_id = headers.get(MCP_SESSION_ID_HEADER) if headers is not None else None
    return session_id if session_id else f"stdio-{next(_stdio_keys)}"


class ReadySessions:
    """The sessions that sent `notifications/initialized`, with the SDK session object to notify them.

    `alive(key)` says whether a session is still open (the HTTP endpoint asks the SDK); sessions
    that ended are dropped when the table is pruned or when a notification to them fails.
    """

    def __init__(self, alive: Callable[[str], bool] | None = None):
        self._sessions: dict[str, object] = {}  # key -> mcp.server.session.ServerSession
        self._alive = alive

    def add(self, key: str, session) -> None:
        self._sessions[key] = session

    def discard(self, key: str) -> None:
        self._sessions.pop(key, None)

    def __contains__(self, key: str) -> bool:
        return key in self._sessions

    def __len__(self) -> int:
        return len(self._sessions)

    def prune(self) -> None:
        if self._alive is not None:
            for key in [k for k in self._sessions if not self._alive(k)]:
                del self._sessions[key]

    def items(self) -> list[tuple[str, object]]:
        return list(self._sessions.items())
