"""One way to run a tool call for the API and the MCP server: checked like POST /v1/tools/{name}, run off the loop."""
from __future__ import annotations

from kiraos_desktop.api.errors import ApiError, from_store_error, invalid, not_found
from kiraos_desktop.api.schemas import TOOL_CALL_BODY
from kiraos_desktop.core.memory.records import StoreError, user_id_ok
from kiraos_desktop.core.tool_registry import (
    MEMORY_CLEAR,
    MEMORY_UPDATE,
    ToolArgumentError,
    UnknownToolError,
    memory_update_arguments_ok,
    qualified_field,
    refused_arguments_text,
)

#: Tool calls coming in over the API (and MCP) are audited with this actor.
TOOL_ACTOR = "tool"
WRITING_TOOLS = frozenset({MEMORY_UPDATE, MEMORY_CLEAR})


def unknown_tool(name: str) -> ApiError:
    return not_found(f"unknown tool {name!r}; GET /v1/tools lists the tools", "unknown_tool")


def tool_call_error(name: str, exc: Exception) -> ApiError:
    """The reply to a tool call that failed: 404 unknown tool, 422 naming the bad field."""
    if isinstance(exc, UnknownToolError):
        return unknown_tool(name)
    if isinstance(exc, ToolArgumentError):
        return invalid(qualified_field(exc.field), refused_arguments_text(exc.field, exc.message))
    return from_store_error(exc)


def is_plain_call(body) -> bool:
    """True for a body TOOL_CALL_BODY accepts as it is, checked by hand: jsonschema costs about
    0.2 ms a call. On False the schema judges the body and names the culprit."""
    if type(body) is not dict or not 0 < len(body) <= 2:
        return False
    user_id = body.get("user_id")
    if not user_id_ok(user_id):
        return False
    return len(body) == 1 or type(body.get("arguments")) is dict


class ToolCaller:
    """Checks a call's body and runs it: memory_update through the shared update queue (its plain
    case), other writes on the writer thread, reads in the pool. Raises ApiError for a bad call."""

    def __init__(self, tools, workers, update_queue=None):
        self._tools = tools
        self._workers = workers
        self._queue = update_queue

    def check(self, name: str, body) -> dict:
        """The body when the tool exists and the body has the shape of a call, else ApiError."""
        try:
            self._tools.descriptor(name)
        except UnknownToolError:
            raise unknown_tool(name) from None
        return body if is_plain_call(body) else TOOL_CALL_BODY.check(body)

    async def call(self, name: str, body):
        """The ToolResult of a call `{"user_id", "arguments"?}`; ApiError when the call is bad."""
        body = self.check(name, body)
        user_id, arguments = body["user_id"], body.get("arguments", {})
        try:
            if name == MEMORY_UPDATE and self._queue is not None and memory_update_arguments_ok(arguments):
                return await self._queue.call(user_id, arguments)

            def run():
                return self._tools.call(name, user_id, arguments, actor=TOOL_ACTOR)

            # Writes may wait on SQLite locks, reads on disk: neither runs on the event loop.
            return await (self._workers.write(run) if name in WRITING_TOOLS else self._workers.read(run))
        except (UnknownToolError, ToolArgumentError, StoreError) as exc:
            raise tool_call_error(name, exc) from None
