"""The security baseline as one pure ASGI layer: Host and Origin allowlists, bearer token, body limits."""
from __future__ import annotations

import contextlib
import hmac
import ipaddress
import logging
from urllib.parse import unquote_to_bytes

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

from kiraos_desktop.api.asgi_types import FastPath
from kiraos_desktop.api.counters import REJECTED, UNMATCHED, RequestCounters
from kiraos_desktop.api.errors import ApiError, error_payload, send_json, unhandled_error

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 1024 * 1024
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
#: Paths that answer without a token.
PUBLIC_PATHS = frozenset({"/v1/health"})
#: The request state key of a public path's request: whether it carried the token (or none is needed).
AUTHORIZED = "kiraos_authorized"
JSON_TYPES = ("application/json",)
_VERDICT_VALUE_BYTES = 128
#: The scope key that carries the host of an absolute-form request target (set by the HTTP protocol).
AUTHORITY_KEY = "kiraos.target_authority"


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and `localhost` are loopback; every other name or address is not."""
    name = host.strip().lower().strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_name_form(host: str) -> str:
    """How a host appears in a Host header without its port: IPv6 literals in brackets, lower case."""
    name = host.strip().lower()
    if ":" in name and not name.startswith("["):
        name = f"[{name}]"
    return name


def allowed_host_names(extra_hosts=()) -> frozenset[str]:
    names = set(LOOPBACK_NAMES)
    for host in extra_hosts:
        if host and host.strip():
            names.add(host_name_form(host))
    return frozenset(names)


def split_host(value: str) -> str | None:
    """The host part of a Host header (`name[:port]`, `[v6][:port]`), lower case; None when malformed
    (a port that is not a number from 1 to 65535 included)."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[:end + 1], value[end + 1:]
    else:
        name, sep, port = value.partition(":")
        rest = sep + port
    if rest:
        port = rest[1:]
        if not (rest.startswith(":") and port.isascii() and port.isdigit() and len(port) <= 5
                and 1 <= int(port) <= 65535):
            return None
    return name or None


def origin_host(origin: str) -> str | None:
    """The host of an Origin header (`scheme://host[:port]`) for http(s) origins, else None."""
    scheme, sep, rest = origin.strip().partition("://")
    if not sep or scheme.lower() not in ("http", "https") or "/" in rest:
        return None
    return split_host(rest)


def is_json_content_type(value: str | None) -> bool:
    if not value:
        return False
    media = value.split(";", 1)[0].strip().lower()
    return media in JSON_TYPES or (media.startswith("application/") and media.endswith("+json"))


def not_json() -> ApiError:
    """The 415 of a body that is not declared JSON: from the check of every request, and from a route
    reading a body that had none to check (a Content-Length of 0)."""
    return ApiError(415, "unsupported_media_type", "request bodies must be JSON: send Content-Type: application/json")


def check_path_text(scope) -> None:
    """A path whose %-escapes do not decode to UTF-8 is a 400 (the server would turn them into U+FFFD)."""
    raw = scope.get("raw_path")
    if raw and b"%" in raw:
        try:
            unquote_to_bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(400, "invalid_path", "the request path is not UTF-8 text once its %-escapes "
                                                "are decoded; percent-encode the UTF-8 bytes of the text") from None


class GuardedApp:
    """Checks every HTTP request before the router sees it, counts replies and turns errors into JSON.

    Order: Host, Authorization and Content-Type each at most once (400), Host (403 when foreign, the host
    of an absolute-form target too),
    Origin (403 when any is foreign), token (401), declared body size (413), body encoding and
    media type (415).
    ApiError, Starlette's HTTPException and unexpected exceptions raised by handlers become the
    route family's error shape (a 500 is logged, never shown as a traceback).
    """

    def __init__(self, router, token: str | None, extra_hosts=(), counters: RequestCounters | None = None,
                 fast_paths: dict[str, FastPath] | None = None, lifespan=None):
        self.router = router
        self._lifespan_context = lifespan  # () -> async context manager held for the app's life
        self.counters = counters or RequestCounters()
        self._hosts = allowed_host_names(extra_hosts)
        self._token = token.encode("utf-8") if token is not None else None
        # path -> the FastPath tried first (the plain case); its FastPathOutcome says whether it answered.
        self._fast_paths = dict(fast_paths or {})
        self._verdicts: dict[tuple[bytes, bytes], bool] = {}  # (header, value) -> allowed, for Host/Origin

    async def __call__(self, scope, receive, send) -> None:
        kind = scope["type"]
        if kind != "http":
            if kind == "lifespan":
                await self._lifespan(receive, send)
            return
        status = 500
        started = False

        async def tracking_send(message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status = message["status"]
                started = True
            await send(message)

        label = REJECTED
        path = scope["path"]
        try:
            self._check(scope)
            check_path_text(scope)
            fast = self._fast_paths.get(path)
            if fast is not None:
                outcome = await fast(scope, receive, tracking_send)
                if type(outcome) is int:
                    label = getattr(fast, "label", path)
                    return
                receive = outcome
            label = UNMATCHED
            scope["app"] = self  # makes Starlette raise HTTPException (405) instead of replying in text
            await self.router(scope, receive, tracking_send)
        except ApiError as exc:
            if not started:
                status = exc.status
                await send_json(send, exc.status, error_payload(path, exc.code, exc.message, exc.details),
                                exc.headers)
        except HTTPException as exc:
            if not started:
                status = exc.status_code
                code = {404: "not_found", 405: "method_not_allowed"}.get(status, "http_error")
                message = {404: f"no route for {path}", 405: f"{scope['method']} is not allowed on {path}"}.get(
                    status, str(exc.detail))
                await send_json(send, status, error_payload(path, code, message), dict(exc.headers or {}))
        except ClientDisconnect:
            status = 499
        except Exception as exc:
            known = unhandled_error(exc)
            if known is None:
                log.exception("unexpected error while answering %s %s", scope["method"], path)
            if not started and known is not None:
                status = known.status
                await send_json(send, known.status, error_payload(path, known.code, known.message), known.headers)
            elif not started:
                status = 500
                await send_json(send, 500, error_payload(path, "internal_error",
                                                         "internal error; see the application log"))
        finally:
            route = scope.get("route")
            if route is not None:
                label = getattr(route, "path", label)
            self.counters.record(label, status)

    def _check(self, scope) -> None:
        host = authorization = content_type = content_length = encoding = None
        origins: list[bytes] = []
        repeated = None  # the name of the first header that may appear once and came again
        chunked = False
        for name, value in scope["headers"]:
            if name == b"host":
                repeated = repeated or (host is not None and "Host")
                host = value
            elif name == b"authorization":
                repeated = repeated or (authorization is not None and "Authorization")
                authorization = value
            elif name == b"origin":
                origins.append(value)
            elif name == b"content-type":
                repeated = repeated or (content_type is not None and "Content-Type")
                content_type = value
            elif name == b"content-length":
                content_length = value
            elif name == b"transfer-encoding":
                chunked = True
            elif name == b"content-encoding":
                encoding = value
        if repeated:  # which of the values counts is ambiguous: the routes read the first, this check the last
            raise ApiError(400, "bad_request", f"the request has more than one {repeated} header; send exactly one")
        target = scope.get(AUTHORITY_KEY)  # an absolute-form request target: its host counts too
        if (host is None or not self._allowed(b"host", host)
                or (target is not None and not self._allowed(b"host", target))):
            raise ApiError(403, "forbidden_host",
                           "the Host header must name this machine's loopback address "
                           "(127.0.0.1, localhost or [::1]) or the configured host")
        for origin in origins:  # any foreign one among several is enough
            if not self._allowed(b"origin", origin):
                raise ApiError(403, "forbidden_origin",
                               "requests from web pages of other origins are not allowed")
        if self._token is not None and scope["path"] not in PUBLIC_PATHS:
            self._check_token(authorization)
        elif scope["path"] in PUBLIC_PATHS:  # answered to anyone: how much it says depends on the token
            scope.setdefault("state", {})[AUTHORIZED] = self._token is None or self._token_ok(authorization)
        has_body = chunked
        if content_length is not None:
            if not content_length.isdigit():
                raise ApiError(400, "bad_request", "Content-Length must be a whole number")
            size = int(content_length)
            if size > MAX_BODY_BYTES:
                raise ApiError(413, "body_too_large",
                               f"the request body is {size} bytes; at most {MAX_BODY_BYTES} bytes are accepted")
            has_body = has_body or size > 0
        if has_body and encoding is not None and encoding.strip().lower() != b"identity":
            raise ApiError(415, "unsupported_media_type",
                           "Content-Encoding is not supported: send the JSON body uncompressed, without a "
                           "Content-Encoding header")
        if has_body and not is_json_content_type(content_type and content_type.decode("latin-1")):
            raise not_json()

    def _allowed(self, header: bytes, value: bytes) -> bool:
        verdict = self._verdicts.get((header, value))
        if verdict is None:
            text = value.decode("latin-1")
            verdict = (split_host(text) if header == b"host" else origin_host(text)) in self._hosts
            if len(value) <= _VERDICT_VALUE_BYTES:  # at most 256 short values: a few tens of KiB
                if len(self._verdicts) >= 256:
                    self._verdicts.clear()
                self._verdicts[(header, value)] = verdict
        return verdict

    def _check_token(self, authorization: bytes | None) -> None:
        challenge = {"WWW-Authenticate": "Bearer"}
        if authorization is None:
            raise ApiError(401, "unauthorized",
                           "a bearer token is required: send Authorization: Bearer <token> "
                           "(a ?token= query is not accepted); `kiraos-desktop token` prints it", headers=challenge)
        if not self._token_ok(authorization):
            raise ApiError(401, "unauthorized", "the bearer token is not valid", headers=challenge)

    def _token_ok(self, authorization: bytes | None) -> bool:
        if authorization is None or self._token is None:
            return False
        scheme, _, credentials = authorization.strip().partition(b" ")
        # Constant-time comparison of the whole credential, whatever its length.
        return scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self._token)

    async def _lifespan(self, receive, send) -> None:
        async with contextlib.AsyncExitStack() as stack:
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    try:
                        if self._lifespan_context is not None:
                            await stack.enter_async_context(self._lifespan_context())
                    except Exception as exc:
                        log.exception("the API could not start")
                        await send({"type": "lifespan.startup.failed", "message": str(exc)})
                        return
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await stack.aclose()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
