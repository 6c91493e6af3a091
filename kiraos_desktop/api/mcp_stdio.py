"""`kiraos-desktop mcp`: the MCP server over stdin/stdout, for hosts that launch a command.

Only protocol goes to stdout (the SDK points file descriptor 1 at stderr while it serves); logs go
to the log file and warnings to stderr. The window or `serve` may use the same data dir meanwhile:
the store notices their commits, and the skills folder is reloaded when it changes on disk.
"""
from __future__ import annotations

import logging
import sys

import anyio
from mcp.server.stdio import stdio_server

from kiraos_desktop.api.mcp_changes import ListChangeNotifier
from kiraos_desktop.api.mcp_server import build_mcp_server
from kiraos_desktop.api.tool_calls import TOOL_ACTOR, ToolCaller
from kiraos_desktop.api.update_queue import UpdateQueue
from kiraos_desktop.api.workers import Workers
from kiraos_desktop.core.exit_codes import EXIT_OK, EXIT_USAGE

log = logging.getLogger(__name__)


def serve_stdio(engine) -> int:
    """Serve until the host closes stdin."""
    if sys.stdin is None or sys.stdout is None:  # the windowed executable has neither
        log.error("`mcp` needs standard input and output: start the console program kiraos-desktop, "
                  "not kiraos-desktop-gui")
        return EXIT_USAGE
    workers = Workers()
    caller = ToolCaller(engine.tools, workers, UpdateQueue(engine.store, engine.tools, workers, TOOL_ACTOR))
    server, _handlers, bus = build_mcp_server(engine, caller, workers)
    changes = ListChangeNotifier(engine, bus, follow_disk=True)
    changes.attach(server)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream), changes.watching():
            await server.run(read_stream, write_stream, server.create_initialization_options())

    engine.start_watching()  # other processes' writes reach the context cache within a second
    try:
        anyio.run(main)
    finally:
        workers.close()
    return EXIT_OK
