"""The /mcp fast path's 2026-era half: a plain, self-describing `tools/call` answered like the SDK's single-exchange entry.

At the 2026-07-28 protocol each request carries its protocol version and client capabilities in
`params._meta` and repeats method and tool name in the Mcp-Method and Mcp-Name headers; there is
no session. The SDK checks all that, builds a connection, runs the call and writes the reply with
`json.dumps` (ASCII escapes), the result stamped `resultType: complete` and the server's
`serverInfo`. Here only the plain case is answered: exactly `name`, `arguments` and a `_meta` of
the envelope keys, headers that agree with the body, no Mcp-Param-* header, params the SDK's own
validator accepts and arguments its own Mcp-Param check accepts. Everything else goes to the SDK.
"""
from __future__ import annotations

import json
import logging

from mcp.shared.inbound import ERROR_CODE_HTTP_STATUS, validate_mcp_param_headers
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    INTERNAL_ERROR,
    PROTOCOL_VERSION_META_KEY,
    SERVER_INFO_META_KEY,
)
from mcp_types import methods as sdk_methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from kiraos_desktop.api.bodies import decode_json
from kiraos_desktop.api.errors import ApiError
from kiraos_desktop.api.mcp.envelope import plain_tools_call

log = logging.getLogger(__name__)

MODERN_VERSIONS = frozenset(v.encode("ascii") for v in MODERN_PROTOCOL_VERSIONS)
_PARAM_KEYS = frozenset({"name", "arguments", "_meta"})
_META_KEYS = frozenset({PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY})
_OK = 200


class ModernToolCalls:
    """Recognises and answers the plain 2026-era tools/call (see the module's docstring)."""

    def __init__(self, handlers, server_info: dict):
        self._handlers = handlers
        self._server_info = dict(server_info)  # the SDK's `server_info_stamp`

    @staticmethod
    def headers_fit(headers) -> bool:
        """Routing headers of a tools/call with a plain (unencoded ASCII) tool name, no Mcp-Param-*."""
        name = headers.name
        return (headers.method == b"tools/call" and name is not None and not headers.params
                and name.isascii() and not name.startswith(b"=?"))

    def plain_call(self, raw: bytes, headers, raw_headers) -> tuple[int | str, str, dict] | None:
        """(id, tool name, arguments) when the SDK would run the call as it is; None otherwise."""
        try:  # json.loads, as the SDK's 2026-era entry parses, but stricter: what it refuses goes there
            data = decode_json(raw)
        except ApiError:
            return None
        call = plain_tools_call(data, _PARAM_KEYS)
        if call is None:
            return None
        request_id, params = call
        name, arguments, meta = params["name"], params["arguments"], params["_meta"]
        if type(meta) is not dict:
            return None
        if not meta.keys() <= _META_KEYS or CLIENT_CAPABILITIES_META_KEY not in meta:
            return None
        version = meta.get(PROTOCOL_VERSION_META_KEY)
        if type(version) is not str or version.encode("latin-1", "replace") != headers.version \
                or name.encode("ascii", "replace") != headers.name:
            return None
        try:
            sdk_methods.validate_client_request("tools/call", version, params)
        except (ValidationError, KeyError):
            return None
        schema = self._handlers.tool_input_schema(name)
        if schema is not None:
            text_headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in raw_headers}
            if validate_mcp_param_headers(schema, arguments, text_headers) is not None:
                return None
        return request_id, name, arguments

    async def answer(self, request_id: int | str, name: str, arguments: dict) -> tuple[int, bytes]:
        """(HTTP status, body) of the call, as the SDK's single-exchange entry writes them."""
        try:
            text, is_error = await self._handlers.tool_result(name, arguments)
        except Exception:  # as the SDK does: logged, a generic internal error on the wire
            log.exception("modern request handler raised")
            error = {"code": INTERNAL_ERROR, "message": "Internal server error"}
            body = {"jsonrpc": "2.0", "id": request_id, "error": error}
            return ERROR_CODE_HTTP_STATUS.get(INTERNAL_ERROR, _OK), _dump(body)
        result = {"content": [{"text": text, "type": "text"}], "isError": is_error, "resultType": "complete",
                  "_meta": {SERVER_INFO_META_KEY: self._server_info}}
        return _OK, _dump({"jsonrpc": "2.0", "id": request_id, "result": result})


def _dump(body: dict) -> bytes:
    return json.dumps(body, separators=(",", ":")).encode("ascii")
