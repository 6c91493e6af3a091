"""/mcp: the MCP server over Streamable HTTP, one session manager per start of the API server."""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types import INVALID_REQUEST

from kiraos_desktop.api.errors import dump_json, send_json_body
from kiraos_desktop.api.fastpath.update import declared_length, read_body, replaying
from kiraos_desktop.api.mcp.changes import ListChangeNotifier
from kiraos_desktop.api.mcp.envelope import bad_request_id
from kiraos_desktop.api.fastpath.mcp import McpCallFastPath
from kiraos_desktop.api.mcp.server import build_mcp_server
from kiraos_desktop.api.mcp.sessions import ReadySessions, open_transports
from kiraos_desktop.api.security import MAX_BODY_BYTES

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
#: A session nobody used for this long is closed (the client then starts a new one).
SESSION_IDLE_TIMEOUT_S = 30 * 60
#: Open sessions at most: a new one past it ends the session idle longest (one holds some 37 KB; the
#: SDK's own cap, 10,000, refused every new client for up to SESSION_IDLE_TIMEOUT_S once reached).
MAX_SESSIONS = 1000
#: Sessions ended to make room are logged at most this often, with their count.
LOG_EVERY_SECONDS = 60.0
# The SDK says INFO for every session it opens and ends: a flood of them would fill the logs.
logging.getLogger("mcp.server.streamable_http_manager").setLevel(logging.WARNING)
#: A group of MCP memory_update calls waits at most this many turns of the event loop, and stops
#: waiting after this many turns in a row without a new call.
MCP_WAIT_TURNS, MCP_QUIET_TURNS = 24, 4


class McpEndpoint:
    """The ASGI app behind /mcp (Host, Origin and token are checked before it, like /v1).

    The SDK's session manager runs once per instance: the app that owns this endpoint is built anew
    on each start of the server and enters `lifespan()` in its own lifespan.
    """

    def __init__(self, engine, caller, workers):
        # Replies as plain JSON, not one-event streams: about seven times the calls per second.
        # Notifications still reach handshake-era sessions on their GET event stream, and 2026-era
        # clients on the event stream that answers their `subscriptions/listen`.
        self.server, self.handlers, bus = build_mcp_server(engine, caller, workers)
        self.manager = StreamableHTTPSessionManager(
            app=self.server, json_response=True, security_settings=None,
            max_request_body_size=MAX_BODY_BYTES, session_idle_timeout=SESSION_IDLE_TIMEOUT_S)
        sessions = ReadySessions(alive=lambda key: key in open_transports(self.manager))
        self.changes = ListChangeNotifier(engine, bus, sessions=sessions)
        self.changes.attach(self.server)
        # Plain tools/call of initialized sessions, answered without the SDK's per-message work.
        self.fast_path: McpCallFastPath | None = McpCallFastPath(
            self.handlers, self.manager, sessions, SESSION_IDLE_TIMEOUT_S, self.server.server_info_stamp)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ended, self._last_report = 0, float("-inf")

    label = MCP_PATH  # the route counters' name for this traffic

    async def __call__(self, scope, receive, send) -> int:
        """Answer the request (as one of the API's fast paths: the status says it was answered)."""
        if self.fast_path is not None:
            outcome = await self.fast_path(scope, receive, send)
            if type(outcome) is int:
                return outcome
            receive = outcome
        if scope["method"] == "POST":
            receive = await self._checked_ids(scope, receive, send)
            if receive is None:
                return 400
            if not _has_session_id(scope):  # may open a session
                self._make_room()
        await self.manager.handle_request(scope, receive, send)
        return 200

    async def _checked_ids(self, scope, receive, send):
        """The `receive` to hand on (what was read replayed), or None when the body holds a request with
        an id MCP does not allow: answered here, 400 with a JSON-RPC error (the SDK would answer 202 and
        never reply). Bodies of unknown or too large a length go to the SDK unread (it bounds them)."""
        length = declared_length(scope)
        if length is None or length > MAX_BODY_BYTES:
            return receive
        messages, raw = await read_body(receive)
        if raw is None:
            return replaying(messages, receive)
        try:
            data = json.loads(raw)
        except ValueError:  # the SDK says what is wrong with it
            return replaying(messages, receive)
        reason = bad_request_id(data)
        if reason is None:
            return replaying(messages, receive)
        body = dump_json({"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": reason}})
        await send_json_body(send, 400, body)
        return None

    def _make_room(self) -> None:
        """At MAX_SESSIONS open sessions, end the one idle longest (none with a request in flight or an
        open event stream): the SDK ends it as if its idle time had run out."""
        open_now = [t for t in open_transports(self.manager).values() if not _ending(t)]
        excess = len(open_now) - MAX_SESSIONS + 1
        if excess <= 0:
            return
        idle = sorted((t for t in open_now if _idle_deadline(t) is not None), key=_idle_deadline)
        for transport in idle[:excess]:
            transport.idle_scope.cancel()
        self._ended += min(excess, len(idle))
        now = time.monotonic()
        if now - self._last_report >= LOG_EVERY_SECONDS:
            log.warning("%d MCP sessions open: ended %d idle one(s) since the last report to admit new ones",
                        len(open_now), self._ended)
            self._ended, self._last_report = 0, now

    @contextlib.asynccontextmanager
    async def lifespan(self):
        self._loop = asyncio.get_running_loop()
        try:
            async with self.manager.run(), self.changes.watching():
                yield
        finally:
            self._loop = None

    async def close_sessions(self) -> None:
        """End every open session and listen stream: a client's open event stream would otherwise
        hold up the stop."""
        self.server.listen_handler.close()  # each stream sends its final frame and ends
        for transport in list(open_transports(self.manager).values()):
            try:
                await transport.terminate()
            except Exception:
                log.exception("could not end an MCP session")

    def close_sessions_from_thread(self, timeout: float = 2) -> None:
        """close_sessions() run on the server's loop, from another thread (the one stopping it)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            asyncio.run_coroutine_threadsafe(self.close_sessions(), loop).result(timeout)
        except Exception as exc:  # the loop is gone or busy: the server's own shutdown takes over
            log.warning("MCP sessions not closed before stopping: %r", exc)


def _has_session_id(scope) -> bool:
    return any(name == b"mcp-session-id" for name, _ in scope["headers"])


def _ending(transport) -> bool:
    scope = getattr(transport, "idle_scope", None)
    return getattr(transport, "is_terminated", False) or (scope is not None and scope.cancel_called)


def _idle_deadline(transport) -> float | None:
    """When an idle session would time out (earlier: idle longer); None while it is in use (a request in
    flight or an open event stream keep the deadline infinite) or without an idle scope."""
    scope = getattr(transport, "idle_scope", None)
    deadline = getattr(scope, "deadline", None)
    return deadline if deadline is not None and math.isfinite(deadline) else None
