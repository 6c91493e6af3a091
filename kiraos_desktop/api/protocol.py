"""The HTTP/1.1 connection: uvicorn's httptools protocol with a request deadline, a connection cap and JSON errors.

A local process without the token can still open connections. Each connection must deliver a whole
request (head and body) within REQUEST_SECONDS of being opened or of its last reply, else it is
closed. Past MAX_CONNECTIONS open connections, a request that arrives closes the connections idle
longest (no request under way: never used, or kept alive after a reply) to make room, and only when
none is idle is it answered 503; past HARD_MAX_CONNECTIONS a new connection likewise closes the one
idle longest, or is closed itself. So a flood of idle connections (a local process reopening them
as they are closed) costs the clients with requests nothing, file descriptors stay bounded, and what
is closed is logged once per LOG_EVERY_SECONDS with a count, not once per connection. A request head past MAX_HEAD_BYTES is refused (431) as it arrives. Requests the
parser refuses get the API's JSON error instead of uvicorn's text.
An absolute-form request target (`GET http://host/path`) is passed on to the app's Host check
(`AUTHORITY_KEY` in the scope): the target's host is the one that counts (RFC 9112 3.2.2).
"""
from __future__ import annotations

import itertools
import logging

from kiraos_desktop.api.errors import dump_json, send_json_body
from kiraos_desktop.api.security import AUTHORITY_KEY
from kiraos_desktop.api.write_combiner import WriteCombiner

try:  # uvicorn[standard] brings httptools; without it uvicorn's own choice (h11) is used as it is
    from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
except ImportError:  # pragma: no cover - depends on the installation
    HttpToolsProtocol = None

log = logging.getLogger(__name__)

#: Seconds a connection has to deliver a whole request, from its opening or its last reply.
REQUEST_SECONDS = 5.0
#: Open connections served at most; a request on a connection past this is answered 503.
MAX_CONNECTIONS = 256
#: Connections past this are closed as soon as they are accepted (bounded file descriptors).
HARD_MAX_CONNECTIONS = 512
#: Bytes a request head (request line and headers) may take; the parser would keep any amount.
MAX_HEAD_BYTES = 64 * 1024
#: The order connections became idle in (the loop's clock is too coarse: several open in one of its ticks).
_IDLE_ORDER = itertools.count()
#: Connections closed to make room are logged at most this often (a count of them since the last line).
LOG_EVERY_SECONDS = 60.0


class _RoomLog:
    """One warning per LOG_EVERY_SECONDS for the connections closed to make room, with their count."""

    def __init__(self) -> None:
        self.closed = 0
        self.refused = 0
        self._last = float("-inf")

    def note(self, now: float, closed: int = 0, refused: int = 0) -> None:
        self.closed += closed
        self.refused += refused
        if now - self._last >= LOG_EVERY_SECONDS:
            log.warning("too many open connections: closed %d idle one(s) and refused %d request(s) or "
                        "connection(s) since the last report", self.closed, self.refused)
            self.closed = self.refused = 0
            self._last = now


def _idle(connection) -> bool:
    """No request under way: nothing of a head received, no request being answered."""
    cycle = connection.cycle
    return (connection._in_head and not connection._head_bytes and not connection.transport.is_closing()
            and (cycle is None or cycle.response_complete))


def _peer(connection) -> str:
    peer = connection.transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) and peer else ""


def make_room(connections, keep, limit: int) -> int:
    """Close idle connections until at most `limit` are open (never `keep`); how many closed. Fair per
    peer: the idle connections of the address that holds the most connections go first (a local flood
    from 127.0.0.2 costs the clients on 127.0.0.1 nothing), and of those the ones idle longest."""
    excess = len(connections) - limit
    if excess <= 0:
        return 0
    held: dict[str, int] = {}
    for connection in connections:
        if isinstance(connection, GuardedHttpProtocol):
            address = _peer(connection)
            held[address] = held.get(address, 0) + 1
    idle = sorted((c for c in connections if c is not keep and isinstance(c, GuardedHttpProtocol) and _idle(c)),
                  key=lambda c: (-held.get(_peer(c), 0), c.idle_since))
    for connection in idle[:excess]:
        connection.transport.close()
        connections.discard(connection)  # gone now: it is not counted again before connection_lost
    return min(excess, len(idle))


def _error_body(status: int, code: str, message: str) -> bytes:
    return dump_json({"error": {"code": code, "message": message}})


def _raw_reply(status: int, body: bytes) -> bytes:
    return b"".join([STATUS_LINE[status], b"content-type: application/json\r\n",
                     b"content-length: ", str(len(body)).encode("ascii"), b"\r\n",
                     b"connection: close\r\n\r\n", body])


async def _busy(scope, receive, send) -> None:
    body = _error_body(503, "too_many_connections",
                       f"the server has {MAX_CONNECTIONS} connections open already; close idle ones and retry")
    await send_json_body(send, 503, body, {"connection": "close"})


def _authority(target: bytes) -> bytes | None:
    """The host[:port] of an absolute-form target (`http://host:port/path`), else None."""
    if target.startswith(b"/") or target == b"*":
        return None
    _, sep, rest = target.partition(b"://")
    if not sep:
        return b""  # neither origin- nor absolute-form: matches no allowed host
    end = len(rest)
    for stop in (b"/", b"?", b"#"):
        found = rest.find(stop)
        if 0 <= found < end:
            end = found
    authority = rest[:end]
    return authority.rpartition(b"@")[2] if b"@" in authority else authority


def _sweep_every() -> float:
    return max(0.05, min(1.0, REQUEST_SECONDS / 4))


def _owes_request(connection) -> bool:
    """No whole request is being answered: the connection is idle, or a head or body is arriving."""
    cycle = connection.cycle
    return cycle is None or cycle.response_complete or cycle.more_body


def _sweep(loop, state) -> None:
    """Close the connections that have owed the same request for more than REQUEST_SECONDS.

    A connection owes a request from its opening or its last reply until a whole request (head and
    body) has arrived; uvicorn starts a new cycle for each request head, so a connection seen owing
    with the same cycle (or none) in sweeps REQUEST_SECONDS apart made no progress meanwhile. One
    sweep per server, every _sweep_every() seconds while connections are open: nothing per request.
    """
    now = loop.time()
    connections = state.connections
    for connection in list(connections):
        if not isinstance(connection, GuardedHttpProtocol) or connection.transport.is_closing():
            continue
        if not _owes_request(connection):
            connection.owing = None
            continue
        owing = connection.owing
        if owing is None or owing[0] is not connection.cycle:
            connection.owing = (connection.cycle, now)
        elif now - owing[1] > REQUEST_SECONDS:
            connection.transport.close()
    state.kiraos_sweeping = bool(connections)
    if connections:
        loop.call_later(_sweep_every(), _sweep, loop, state)


if HttpToolsProtocol is not None:

    class GuardedHttpProtocol(HttpToolsProtocol):
        """Bounds what one connection may hold; everything else is uvicorn's.

        `owing` is (cycle, loop time) of the first sweep that saw the connection owe a request.
        """

        owing: tuple | None = None
        idle_since = 0  # when it became idle, in _IDLE_ORDER: which idle connection goes first
        _head_bytes = 0  # received since the last request was complete (or the opening): the next head
        _in_head = True  # False from a head's end to its request's end (the app bounds the body)
        _ended = False  # a request ended in the chunk being fed
        _raw_target = False  # the request line holds bytes that are not ASCII (a URL not percent-encoded)

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self.transport = WriteCombiner(transport, self.loop)  # a reply's head and body: one send
            self._app = self.app
            self.idle_since = next(_IDLE_ORDER)
            state = self.server_state
            if len(self.connections) > HARD_MAX_CONNECTIONS:
                closed = make_room(self.connections, self, HARD_MAX_CONNECTIONS)
                refused = int(len(self.connections) > HARD_MAX_CONNECTIONS)
                _room_log(state).note(self.loop.time(), closed, refused)
                if refused:
                    transport.abort()
                    return
            if not getattr(state, "kiraos_sweeping", False):  # one sweep per server, while connections are open
                state.kiraos_sweeping = True
                self.loop.call_later(_sweep_every(), _sweep, self.loop, state)

        def data_received(self, data: bytes) -> None:
            self._ended = False
            if self._in_head:
                if not self._head_bytes:  # a request's first bytes: its request line
                    self._raw_target = not data.partition(b"\n")[0].isascii()
                # Measured before the parser sees it: a whole head in one read (70-100 KB were
                # accepted) and a long request line (the parser's own limit answered 400) are 431.
                end = data.find(b"\r\n\r\n")
                if self._head_bytes + (len(data) if end < 0 else end + 4) > MAX_HEAD_BYTES:
                    self._refuse_head()
                    return
            super().data_received(data)
            # Counted once the parser has seen the data: a chunk that ends a head is not head bytes
            # (the body is bounded by the app), one that ends a request counts from the next chunk.
            if self._in_head and not self._ended and not self.transport.is_closing():
                self._head_bytes += len(data)

        def _refuse_head(self) -> None:
            body = _error_body(431, "head_too_large",
                               f"the request line and headers take more than {MAX_HEAD_BYTES} bytes")
            self.transport.write(_raw_reply(431, body))
            self.transport.close()  # no more data is read

        def on_message_complete(self) -> None:
            self._in_head, self._head_bytes, self._ended = True, 0, True
            super().on_message_complete()

        def on_headers_complete(self) -> None:
            self._in_head = False
            if not self.url.startswith(b"/"):
                authority = _authority(self.url)
                if authority is not None:
                    self.scope[AUTHORITY_KEY] = authority
            self.app = self._app
            if len(self.connections) > MAX_CONNECTIONS:
                closed = make_room(self.connections, self, MAX_CONNECTIONS)
                if len(self.connections) > MAX_CONNECTIONS:
                    self.app = _busy
                _room_log(self.server_state).note(self.loop.time(), closed, int(self.app is _busy))
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            self.idle_since = next(_IDLE_ORDER)
            super().on_response_complete()

        def send_400_response(self, msg: str) -> None:
            if self._raw_target:  # what a shell's curl sends for '...&query=我最近在学吉他'
                body = _error_body(400, "bad_request", "the URL holds characters that are not percent-encoded: "
                                   "encode them (curl -G --data-urlencode 'query=...' does it)")
            else:
                body = _error_body(400, "bad_request", f"the request is not valid HTTP/1.1 ({msg.rstrip('.')})")
            self.transport.write(_raw_reply(400, body))
            self.transport.close()

    def _room_log(state) -> _RoomLog:
        room_log = getattr(state, "kiraos_room_log", None)
        if room_log is None:
            room_log = state.kiraos_room_log = _RoomLog()
        return room_log

else:  # pragma: no cover
    GuardedHttpProtocol = None
