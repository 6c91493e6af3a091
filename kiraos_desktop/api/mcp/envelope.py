"""The shape checks of JSON-RPC bodies on /mcp: a plain `tools/call` (both MCP fast paths), a request's id."""
from __future__ import annotations

from typing import Any

_REQUEST_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
_ID_RANGE = range(-2 ** 63, 2 ** 63)  # JSON-RPC ids the SDK echoes as they came (strings or these)


def plain_tools_call(data: Any, param_keys: frozenset) -> tuple[int | str, dict] | None:
    """(id, params) of a parsed body that is exactly one tools/call request whose params have exactly
    `param_keys`, a string `name` and an object `arguments`; None for anything else (the SDK answers it).

    Each fast path parses the body as the SDK's entry it stands in for would: a body that entry
    cannot read must reach it, for its own error."""
    if type(data) is not dict or data.keys() != _REQUEST_KEYS or data["jsonrpc"] != "2.0" \
            or data["method"] != "tools/call":
        return None
    request_id, params = data["id"], data["params"]
    if not (type(request_id) is str or (type(request_id) is int and request_id in _ID_RANGE)):
        return None
    if type(params) is not dict or params.keys() != param_keys:
        return None
    if type(params["name"]) is not str or type(params["arguments"]) is not dict:
        return None
    return request_id, params


def bad_request_id(data: Any) -> str | None:
    """Why a parsed body holds a request whose id MCP does not allow (a string or an integer; not null,
    a fraction, true/false, an object or a list), else None. The SDK takes such a message for a
    notification and answers 202 with no reply, so the client would wait for ever."""
    for message in data if type(data) is list else [data]:
        if type(message) is dict and "method" in message and "id" in message:
            request_id = message["id"]
            if not (type(request_id) is str or type(request_id) is int):
                kind = "null" if request_id is None else type(request_id).__name__
                kind = {"bool": "true/false", "dict": "an object", "float": "a fraction"}.get(kind, kind)
                return f"the request id must be a string or an integer, not {kind}"
    return None
