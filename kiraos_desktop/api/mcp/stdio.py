"""`kiraos-desktop mcp`: the MCP server over stdin/stdout, for hosts that launch a command.

Only protocol goes to stdout (the SDK points file descriptor 1 at stderr while it serves); logs go
to the log file and warnings to stderr. The window or `serve` may use the same data dir meanwhile:
the store notices their commits, and the skills folder is reloaded when it changes on disk.
"""
from __future__ import annotations

import contextlib
import io
import json
import logging
import sys

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

from kiraos_desktop.api.mcp.changes import ListChangeNotifier
from kiraos_desktop.api.mcp.envelope import bad_request_id
from kiraos_desktop.api.mcp.server import build_mcp_server
from kiraos_desktop.api.tool_calls import TOOL_ACTOR, ToolCaller
from kiraos_desktop.core.exit_codes import EXIT_OK, EXIT_USAGE
from kiraos_desktop.core.writes import WriteScheduler

log = logging.getLogger(__name__)


def unreadable_line_reply(exc: Exception) -> JSONRPCError | None:
    """The answer to a line the stdio transport could not read (it hands over the exception instead
    of a message), as the Streamable HTTP transport answers such a body: -32700 for what is not
    JSON, -32602 for JSON that is no JSON-RPC message, the id null (it was not read). None for a
    blank line, which carries no message to answer."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        if first["type"] == "string_unicode":  # bytes that are not UTF-8 (see utf8_lines)
            return _error(PARSE_ERROR, "Parse error: the line is not UTF-8 text; send JSON encoded in UTF-8")
        if first["type"] == "json_invalid":
            if isinstance(first.get("input"), str) and not first["input"].strip():
                return None
            return _error(PARSE_ERROR, f"Parse error: {first.get('ctx', {}).get('error', exc)}")
        return _error(INVALID_PARAMS, f"Validation error: {exc}")
    return _error(PARSE_ERROR, f"Parse error: {exc}")


def _error(code: int, message: str) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=code, message=message))


def utf8_lines(fd: int):
    """The lines of file descriptor `fd` as the SDK's stdio transport reads stdin (UTF-8 text),
    except for bytes that are not UTF-8: its own reader replaces them with U+FFFD, so a host that
    wrote another encoding (its console's code page, say) had U+FFFD stored and a success reported.
    Here they stay as lone surrogates, which the transport's parser refuses: the line is answered
    with a parse error and nothing is stored. (Given its stdin, the transport no longer points fd 0
    at the null device while it serves; nothing else in this process reads it.)"""
    binary = open(fd, "rb", closefd=False)  # closing it leaves the descriptor open
    return anyio.wrap_file(io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape"))


class IdCheckedLines:
    """The lines of `stdin` but those holding a request whose id MCP does not allow (null, a fraction,
    true/false, an object): the SDK reads such a line as a notification and never answers it, so
    their invalid-request errors are kept in `refusals` for answering_unreadable_lines() to send."""

    def __init__(self, stdin) -> None:
        self._stdin = stdin
        self.refusals: list[JSONRPCError] = []

    async def __aiter__(self):
        async for line in self._stdin:
            reason = bad_request_id(_json_or_none(line)) if '"id"' in line else None
            if reason is None:
                yield line
            else:
                self.refusals.append(JSONRPCError(jsonrpc="2.0", id=None,
                                                  error=ErrorData(code=INVALID_REQUEST, message=reason)))
                yield ""  # a blank line: read and dropped by the transport, so the reply goes out in turn


def _json_or_none(line: str):
    try:
        return json.loads(line)
    except ValueError:
        return None


@contextlib.asynccontextmanager
async def answering_unreadable_lines(read_stream, write_stream, checked: IdCheckedLines | None = None):
    """`read_stream` without the lines the transport could not read: those are answered here (the
    SDK's server drops them without a word, and a host would wait for a reply that never comes), as
    are the requests `checked` refused."""
    send, receive = anyio.create_memory_object_stream(0)

    async def relay() -> None:
        async with send:
            async for item in read_stream:
                if not isinstance(item, Exception):
                    await send.send(item)
                    continue
                reply = unreadable_line_reply(item)
                if reply is None and checked is not None and checked.refusals:
                    reply = checked.refusals.pop(0)  # the blank line that stands for a refused request
                if reply is not None:
                    await write_stream.send(SessionMessage(reply))

    async with anyio.create_task_group() as group:
        group.start_soon(relay)
        try:
            async with receive:
                yield receive
        finally:  # the server stopped: stop reading for it
            group.cancel_scope.cancel()


def serve_stdio(engine) -> int:
    """Serve until the host closes stdin."""
    if sys.stdin is None or sys.stdout is None:  # the windowed executable has neither
        log.error("`mcp` needs standard input and output: start the console program kiraos-desktop, "
                  "not kiraos-desktop-gui")
        return EXIT_USAGE
    scheduler = WriteScheduler(engine.store, engine.tools, TOOL_ACTOR)  # the HTTP API's writer lanes too
    workers = scheduler.workers
    caller = ToolCaller(engine.tools, workers, scheduler.update_queue())
    server, _handlers, bus = build_mcp_server(engine, caller, workers)
    changes = ListChangeNotifier(engine, bus)
    changes.attach(server)

    async def main() -> None:
        stdin = IdCheckedLines(utf8_lines(sys.stdin.fileno()))
        async with stdio_server(stdin=stdin) as (lines, write_stream), changes.watching(), \
                answering_unreadable_lines(lines, write_stream, stdin) as read_stream:
            await server.run(read_stream, write_stream, server.create_initialization_options())

    engine.start_watching()  # other processes' writes reach the context cache within a second
    try:
        anyio.run(main)
    finally:
        scheduler.close()
    return EXIT_OK
