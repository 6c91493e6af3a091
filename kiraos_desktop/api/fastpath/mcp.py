"""POST /mcp `tools/call` answered below the SDK in its plain case (a bot's hot path), at every protocol version.

Through the SDK a call is parsed and validated by pydantic, handed over memory streams to the
session's task, validated again, run, shaped by the result sieve and serialised back: some 0.4 ms
of work per call, more than the call itself. Only the plain case is answered here: a single
JSON-RPC request `{"jsonrpc": "2.0", "id", "method": "tools/call", "params": {"name", "arguments"}}`
(no `_meta`), JSON body with a Content-Length of at most FAST_BODY_BYTES, Accept and Content-Type
as the SDK requires them, a handshake-era protocol version header (or none), in a session that
the SDK still has open and that sent `notifications/initialized`. The tool runs through the same
handler as the SDK's (McpHandlers.tool_result) and the reply has the SDK's bytes and headers.
Everything else (another method, notifications, errors of any kind, unknown sessions) goes to
the SDK with what was read replayed. The 2026-era protocol has no session: its plain call is
recognised and answered by mcp_modern.py.

A `notifications/cancelled` for a call answered here is not seen by it: the call completes and is
answered, which the protocol allows (a cancellation may arrive too late to stop a request).
"""
from __future__ import annotations

import logging
import math

import anyio
from mcp_types import ErrorData, JSONRPCError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic_core import from_json, to_json

from kiraos_desktop.api.asgi_types import FastPathOutcome, Receive, Scope, Send
from kiraos_desktop.api.errors import send_json_body
from kiraos_desktop.api.fastpath.update import FAST_BODY_BYTES, read_body, replaying
from kiraos_desktop.api.mcp.envelope import plain_tools_call
from kiraos_desktop.api.fastpath.mcp_modern import MODERN_VERSIONS, ModernToolCalls
from kiraos_desktop.api.mcp.sessions import open_transports

log = logging.getLogger(__name__)

_PARAM_KEYS = frozenset({"name", "arguments"})
_VERSIONS = frozenset(v.encode("ascii") for v in HANDSHAKE_PROTOCOL_VERSIONS)


def accepts_json(accept: bytes) -> bool:
    """The SDK's rule for a JSON reply (check_accept_headers): application/json, application/* or */*."""
    for part in accept.decode("latin-1").split(","):
        media = part.strip().split(";")[0].strip().lower()
        if media in ("application/json", "application/*", "*/*"):
            return True
    return False


def plain_tool_call(raw: bytes) -> tuple[int | str, str, dict] | None:
    """(id, tool name, arguments) of a body that is exactly one plain tools/call; None otherwise.

    The body is parsed with the SDK's own parser (pydantic-core), as its transport parses it: that
    parser refuses what Python's json takes (nesting past some 200 levels, lone surrogates), and
    the SDK answers those with its parse error."""
    try:
        data = from_json(raw)
    except ValueError:
        return None
    call = plain_tools_call(data, _PARAM_KEYS)
    if call is None:
        return None
    request_id, params = call
    return request_id, params["name"], params["arguments"]


def tool_call_reply(request_id: int | str, text: str, is_error: bool) -> bytes:
    """The JSON-RPC response the SDK sends for a text tool result (same keys, order and escapes)."""
    return to_json({"jsonrpc": "2.0", "id": request_id,
                    "result": {"content": [{"text": text, "type": "text"}], "isError": is_error}})


def handler_failure_reply(request_id: int | str, exc: Exception) -> bytes:
    """What the SDK's dispatcher answers when a handler raises something unexpected (code 0)."""
    error = JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=0, message=str(exc)))
    return error.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8")


class PlainHeaders:
    """What the fast paths look at in a request's headers, read in one pass; `plain` is False as
    soon as one is repeated where the SDK would judge it, or the body is chunked."""

    __slots__ = ("session_id", "accept", "content_type", "length", "version", "method", "name", "params",
                 "plain")

    def __init__(self, headers):
        self.session_id = self.accept = self.content_type = self.length = None
        self.version = self.method = self.name = None
        self.params = False  # an Mcp-Param-* header (2026-era): the SDK checks those
        self.plain = True
        for name, value in headers:
            if name == b"accept":
                self.accept = value if self.accept is None else self.accept  # the SDK reads the first one
            elif name == b"content-length":
                self.length = value
            elif name in _SINGLE:
                slot = _SINGLE[name]
                if getattr(self, slot) is not None:
                    self.plain = False
                setattr(self, slot, value)
            elif name.startswith(b"mcp-param-"):
                self.params = True
            elif name == b"transfer-encoding":
                self.plain = False

    def body_fits(self) -> bool:
        """A JSON body of a declared length the fast paths read whole."""
        return (self.plain and self.content_type is not None
                and self.content_type.split(b";")[0] == b"application/json"
                and self.accept is not None and accepts_json(self.accept)
                and self.length is not None and self.length.isdigit() and 0 < int(self.length) <= FAST_BODY_BYTES)


_SINGLE = {b"mcp-session-id": "session_id", b"content-type": "content_type", b"mcp-protocol-version": "version",
           b"mcp-method": "method", b"mcp-name": "name"}


class McpCallFastPath:
    """Returns the status it answered with, or the `receive` the SDK must read the request from."""

    def __init__(self, handlers, manager, sessions, idle_timeout: float, server_info: dict):
        self._handlers = handlers
        self._manager = manager
        self._ready = sessions  # ReadySessions: those that sent notifications/initialized
        self._idle_timeout = idle_timeout
        self._modern = ModernToolCalls(handlers, server_info)

    def _transport(self, headers: PlainHeaders):
        """The open, initialized session's transport of a handshake-era request, else None."""
        if headers.session_id is None or headers.method is not None or headers.name is not None:
            return None
        key = headers.session_id.decode("latin-1")
        if key not in self._ready:
            return None
        transport = open_transports(self._manager).get(key)
        if transport is None or transport.is_terminated:
            return None
        idle = transport.idle_scope
        if idle is not None and idle.cancel_called:  # expiring: the SDK answers that it is gone
            return None
        return transport

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> FastPathOutcome:
        if scope["method"] != "POST" or "user" in scope:
            return receive
        headers = PlainHeaders(scope["headers"])
        if not headers.body_fits():
            return receive
        modern = headers.version in MODERN_VERSIONS
        transport = None
        if not modern:
            if headers.version is not None and headers.version not in _VERSIONS:
                return receive  # an unknown version: the SDK says which it serves
            transport = self._transport(headers)
            if transport is None:
                return receive
        elif not self._modern.headers_fit(headers):
            return receive
        messages, raw = await read_body(receive)
        if raw is None:  # the client went away: the SDK sees it
            return replaying(messages, receive)
        if modern:
            call = self._modern.plain_call(raw, headers, scope["headers"])
            if call is None:
                return replaying(messages, receive)
            status, body = await self._modern.answer(*call)
            return await send_json_body(send, status, body)
        call = plain_tool_call(raw)
        if call is None:
            return replaying(messages, receive)
        request_id, name, arguments = call
        try:
            text, is_error = await self._handlers.tool_result(name, arguments)
            body = tool_call_reply(request_id, text, is_error)
        except Exception as exc:  # as the SDK's dispatcher does: logged, answered with code 0
            log.exception("handler for 'tools/call' raised")
            body = handler_failure_reply(request_id, exc)
        self._restart_idle_countdown(transport)
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"),
                                (b"mcp-session-id", transport.mcp_session_id.encode("ascii")),
                                (b"content-length", str(len(body)).encode("ascii"))]})
        await send({"type": "http.response.body", "body": body})
        return 200

    def _restart_idle_countdown(self, transport) -> None:
        """A call keeps its session alive, as through the SDK: the idle countdown starts again now
        (unless another request of the session is in flight: the SDK restarts it when that ends)."""
        idle = transport.idle_scope
        if idle is not None and idle.deadline != math.inf:
            idle.deadline = anyio.current_time() + self._idle_timeout
