"""API errors and the two error shapes: /v1 objects and the plugin's `{"error": "message"}` for /api."""
from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse

PLUGIN_PREFIX = "/api/"
UNAVAILABLE_CODE = "database_unavailable"
RETRY_AFTER_S = "1"  # seconds; the store reconnects on the next request once the server is back


class ApiError(Exception):
    """Raised by handlers and checks; the outermost layer turns it into a JSON error reply."""

    def __init__(self, status: int, code: str, message: str, details: dict | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers or {}


def is_plugin_path(path: str) -> bool:
    return path.startswith(PLUGIN_PREFIX) or path == "/api"


def error_payload(path: str, code: str, message: str, details: dict | None = None) -> dict:
    """`{"error": {"code", "message", "details"?}}` on /v1; the plugin's `{"error": message}` on /api."""
    if is_plugin_path(path):
        return {"error": message}
    error: dict[str, Any] = {"code": code, "message": message}
    if details:
        error["details"] = details
    return {"error": error}


# One encoder: json.dumps() with options builds an encoder per call (about half of a reply's cost).
_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


def dump_json(data: Any) -> bytes:
    return _encode(data).encode("utf-8")


_JSON_TYPE = (b"content-type", b"application/json")


async def send_json_body(send, status: int, body: bytes, headers: dict[str, str] | None = None) -> int:
    """Send an encoded JSON reply on a raw ASGI `send` (the fast paths and the error layer, where no
    Response object exists); returns the status, which is what a fast path reports."""
    raw = [_JSON_TYPE, (b"content-length", str(len(body)).encode("ascii"))]
    if headers:
        raw += [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
    return status


async def send_json(send, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
    """Encode `data` and send it as a whole JSON reply (send_json_body)."""
    await send_json_body(send, status, dump_json(data), headers)


def json_reply(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status)


# Short constructors for the errors every route family uses.

def not_found(message: str, code: str = "not_found") -> ApiError:
    return ApiError(404, code, message)


def invalid(field: str, message: str, plugin: bool = False) -> ApiError:
    """A request that is well-formed JSON but breaks the rules: 422 on /v1, 400 on the plugin routes."""
    text = message if message.startswith(f"{field}:") or field in ("body", "") else f"{field}: {message}"
    return ApiError(400 if plugin else 422, "invalid_request", text, {"field": field})


def unavailable(exc: Exception) -> ApiError:
    """503 while the database server cannot be reached (a PostgreSQL outage): the store rolled back,
    so nothing of the request was written, and it reconnects by itself; the client may retry. A
    server that is stopping says so instead (core/writes/workers.WorkersClosed)."""
    from kiraos_desktop.core.writes.workers import WorkersClosed

    if isinstance(exc, WorkersClosed):
        return ApiError(503, "stopping", str(exc), headers={"Retry-After": RETRY_AFTER_S})
    return ApiError(503, UNAVAILABLE_CODE, f"the database is unavailable: {exc}",
                    headers={"Retry-After": RETRY_AFTER_S})


def unhandled_error(exc: Exception) -> ApiError | None:
    """The reply to an exception no route or fast path mapped, when it has one: the database being
    unreachable is a 503 wherever it surfaces (a context block built from the store, /v1/health)."""
    from kiraos_desktop.core.memory.records import StoreUnavailable

    return unavailable(exc) if isinstance(exc, StoreUnavailable) else None


def from_store_error(exc: Exception, plugin: bool = False) -> ApiError:
    """Map the core's errors: a ValidationError names its field; a LimitError is bad input too; an
    unreachable database is a 503, a write to read-only data (a 3.x tree) a 409 (the plugin routes
    keep their shape, with that status)."""
    from kiraos_desktop.core.memory.records import (
        LimitError,
        NotFoundError,
        ReadOnlyData,
        StoreUnavailable,
        ValidationError,
    )

    if isinstance(exc, StoreUnavailable):
        return unavailable(exc)
    if isinstance(exc, ValidationError):
        return invalid(exc.field, exc.message, plugin)
    if isinstance(exc, LimitError):
        return ApiError(400 if plugin else 422, "limit_reached", str(exc))
    if isinstance(exc, NotFoundError):
        return not_found(str(exc))
    if isinstance(exc, ReadOnlyData):  # a KiraOS 3.x tree: the request is fine, the data cannot take it
        return ApiError(409, "read_only", str(exc))
    return ApiError(400 if plugin else 422, "invalid_request", str(exc))
