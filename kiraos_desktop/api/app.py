"""Builds the ASGI app: the security layer around a Starlette router with every route, /mcp included."""
from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route, Router

from kiraos_desktop.api.counters import RequestCounters
from kiraos_desktop.api.errors import ApiError, dump_json
from kiraos_desktop.api.fastpath.context import CONTEXT_PATH, ContextFastPath
from kiraos_desktop.api.fastpath.update import UPDATE_PATH, MemoryUpdateFastPath
from kiraos_desktop.api.mcp.http import MCP_PATH, MCP_QUIET_TURNS, MCP_WAIT_TURNS, McpEndpoint
from kiraos_desktop.api.openapi import build_openapi
from kiraos_desktop.api.routes_plugin import plugin_routes
from kiraos_desktop.api.routes_tools import tool_routes
from kiraos_desktop.api.routes_v1 import v1_routes
from kiraos_desktop.api.security import GuardedApp
from kiraos_desktop.api.tool_calls import TOOL_ACTOR, ToolCaller
from kiraos_desktop.core.writes import WriteScheduler


async def _no_route(scope, receive, send) -> None:
    raise ApiError(404, "not_found", f"no route for {scope['path']}")


def create_app(engine, token: str | None, extra_hosts=(), counters: RequestCounters | None = None) -> GuardedApp:
    """The whole API for one engine. `token` None serves without authentication (loopback only:
    the server enforces that); `extra_hosts` are accepted in Host/Origin besides the loopback names."""
    spec_body = dump_json(build_openapi())

    async def openapi(request):
        return Response(spec_body, media_type="application/json")

    scheduler = WriteScheduler(engine.store, engine.tools, TOOL_ACTOR)
    workers = scheduler.workers
    update_queue = scheduler.update_queue()
    caller = ToolCaller(engine.tools, workers, update_queue)
    # MCP calls reach the handlers one per turn of the loop (the SDK hands each message over in
    # turn), so their memory_update group waits more turns than /v1's to fill up.
    mcp_queue = scheduler.update_queue(max_wait_turns=MCP_WAIT_TURNS, max_quiet_turns=MCP_QUIET_TURNS)
    mcp = McpEndpoint(engine, ToolCaller(engine.tools, workers, mcp_queue), workers)  # new one per app
    routes = v1_routes(engine, workers) + tool_routes(engine, workers, caller) + plugin_routes(engine, workers)
    routes.append(Route("/v1/openapi.json", openapi, methods=["GET"]))
    router = Router(routes=routes, redirect_slashes=False, default=_no_route)
    # /mcp is the SDK's own ASGI app (GET event stream, POST messages, DELETE ends the session),
    # behind the same checks as the routes; it has no place in the router or the OpenAPI document.
    context_fast_path = ContextFastPath(engine.context, workers.read, inline_plain=engine.store.inline_ok)
    fast_paths = {CONTEXT_PATH: context_fast_path, UPDATE_PATH: MemoryUpdateFastPath(update_queue),
                  MCP_PATH: mcp}
    app = GuardedApp(router, token, extra_hosts=extra_hosts, counters=counters, fast_paths=fast_paths,
                     lifespan=mcp.lifespan)
    app.workers = workers  # the server closes them when it stops
    app.mcp = mcp
    return app
