"""POST /v1/tools/memory_update answered below the router; the write goes through the UpdateQueue.

The bot host calls memory_update after most turns, so its cost is the API's write throughput.
Only the plain case is handled here: a JSON body of exactly `user_id` and well-formed
`arguments`, with a Content-Length of at most FAST_BODY_BYTES. Anything else goes to the regular
route (with what was read replayed), which gives the same reply or the precise error.
"""
from __future__ import annotations

from kiraos_desktop.api.bodies import decode_json
from kiraos_desktop.api.asgi_types import FastPathOutcome, Receive, Scope, Send
from kiraos_desktop.api.errors import ApiError, dump_json, send_json_body
from kiraos_desktop.api.routes_tools import tool_reply
from kiraos_desktop.api.tool_calls import is_plain_call, tool_call_error
from kiraos_desktop.core.memory.records import StoreError
from kiraos_desktop.core.tool_registry import (
    MEMORY_UPDATE,
    ToolArgumentError,
    UnknownToolError,
    memory_update_arguments_ok,
)

UPDATE_PATH = "/v1/tools/" + MEMORY_UPDATE
#: Bigger bodies take the regular route (which enforces the 1 MiB cap while reading).
FAST_BODY_BYTES = 64 * 1024


def plain_update_call(body: bytes) -> tuple[str, dict] | None:
    """(user_id, arguments) of a body the route would accept as it is; None for anything else."""
    try:
        data = decode_json(body)
    except ApiError:
        return None
    if type(data) is not dict or len(data) != 2 or not is_plain_call(data):
        return None
    user_id, arguments = data["user_id"], data["arguments"]
    if not memory_update_arguments_ok(arguments):
        return None
    return user_id, arguments


def declared_length(scope) -> int | None:
    """The request's Content-Length, None when it has none or an unreadable one."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            return int(value) if value.isdigit() else None
    return None


def replaying(messages: list[dict], receive):
    """A `receive` that hands out the messages already read, then the live ones."""
    pending = list(messages)

    async def replay():
        if pending:
            return pending.pop(0)
        return await receive()

    return replay


async def read_body(receive) -> tuple[list[dict], bytes | None]:
    """The request's messages as read, and its whole body; None for the body when the client went
    away first (replay the messages so that the regular path sees and reports it)."""
    messages, chunks = [], []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return messages, b"".join(chunks)


class MemoryUpdateFastPath:
    """Returns the status it answered with, or the `receive` the router must use instead."""

    label = "/v1/tools/{name}"  # counted like the route it stands in for

    def __init__(self, queue):
        self._queue = queue

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> FastPathOutcome:
        if scope["method"] != "POST":
            return receive
        length = declared_length(scope)
        if not length or length > FAST_BODY_BYTES:
            return receive
        messages, raw = await read_body(receive)
        if raw is None:  # the client went away: the route reports it
            return replaying(messages, receive)
        call = plain_update_call(raw)
        if call is None:
            return replaying(messages, receive)
        try:
            result = await self._queue.call(*call)
        except (UnknownToolError, ToolArgumentError, StoreError) as exc:
            raise tool_call_error(MEMORY_UPDATE, exc) from None
        return await send_json_body(send, 200, dump_json(tool_reply(result)))
