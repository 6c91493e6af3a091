"""What one connection may hold, on raw sockets: a deadline for the request, a connection cap, JSON errors."""
from __future__ import annotations

import json
import socket
import time

import pytest

from api_helpers import TOKEN, api_engine, api_server  # noqa: F401
from kiraos_desktop.api import protocol

pytestmark = pytest.mark.skipif(protocol.GuardedHttpProtocol is None, reason="needs httptools")


def connect(server, timeout: float = 10) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.bound_port), timeout=timeout)


def exchange(server, raw: bytes) -> tuple[int, dict, bytes]:
    """Send `raw` on a new connection; the status, headers and body of the reply."""
    with connect(server) as sock:
        sock.sendall(raw)
        return read_reply(sock)


def read_reply(sock: socket.socket) -> tuple[int, dict, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed without a reply: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk
        body += chunk
    return int(lines[0].split()[1]), headers, body


def request(path: str = "/v1/skills", extra: str = "", host: str = "127.0.0.1") -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {TOKEN}\r\n{extra}"
            f"Connection: close\r\n\r\n").encode()


def closed_by_server(sock: socket.socket) -> bool:
    """Wait (up to the socket's timeout) until the server closes the connection."""
    try:
        return sock.recv(4096) == b""
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


@pytest.fixture
def short_deadline(monkeypatch):
    monkeypatch.setattr(protocol, "REQUEST_SECONDS", 0.5)


def test_silent_and_half_sent_connections_are_closed(short_deadline, api_server):
    silent = connect(api_server, timeout=5)
    half_head = connect(api_server, timeout=5)
    half_head.sendall(b"GET /v1/skills HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never the empty line
    half_body = connect(api_server, timeout=5)
    half_body.sendall(f"POST /v1/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
                      f"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"user_id\"".encode())
    idle = connect(api_server, timeout=5)  # a whole request, then nothing on the kept-alive connection
    idle.sendall(request().replace(b"Connection: close\r\n", b""))
    assert read_reply(idle)[0] == 200
    started = time.monotonic()
    for sock in (silent, half_head, half_body, idle):
        with sock:
            assert closed_by_server(sock)
    assert time.monotonic() - started < 4


def test_a_request_being_answered_is_not_cut_by_the_deadline(short_deadline, api_server, api_engine, monkeypatch):
    real = api_engine.skills.reload

    def slow_reload():
        time.sleep(1.0)  # longer than the deadline: only the arrival of a request is timed
        return real()

    monkeypatch.setattr(api_engine.skills, "reload", slow_reload)
    status, _, body = exchange(api_server, f"POST /v1/skills/reload HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                           f"Authorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n".encode())
    assert status == 200 and "skills" in json.loads(body)


def test_requests_are_answered_while_silent_connections_are_open(api_server):
    silent = [connect(api_server) for _ in range(50)]
    try:
        status, _, body = exchange(api_server, request())
        assert status == 200 and "skills" in json.loads(body)
    finally:
        for sock in silent:
            sock.close()


def test_past_the_cap_idle_connections_make_room_for_a_request_oldest_first(api_server, monkeypatch):
    """A flood of idle connections (a local process without the token) costs a request nothing: the
    connections idle longest are closed to make room (before: 503 for every request past the cap)."""
    monkeypatch.setattr(protocol, "MAX_CONNECTIONS", 8)
    monkeypatch.setattr(protocol, "HARD_MAX_CONNECTIONS", 12)
    held = [connect(api_server, timeout=3) for _ in range(8)]
    try:
        time.sleep(0.2)  # all accepted, in order
        status, _, body = exchange(api_server, request())
        assert status == 200 and "skills" in json.loads(body)
        assert closed_by_server(held[0])  # the oldest idle one made the room
        extra = [connect(api_server, timeout=3) for _ in range(8)]
        held += extra
        time.sleep(0.2)
        # past the hard cap new connections are kept, the oldest idle ones closed
        assert closed_by_server(held[1]) and closed_by_server(held[2])
        extra[-1].sendall(request())
        assert read_reply(extra[-1])[0] == 200
    finally:
        for sock in held:
            sock.close()


def test_past_the_cap_a_request_gets_503_only_when_no_connection_is_idle(api_server, monkeypatch):
    monkeypatch.setattr(protocol, "MAX_CONNECTIONS", 8)
    monkeypatch.setattr(protocol, "HARD_MAX_CONNECTIONS", 12)
    busy = [connect(api_server) for _ in range(8)]
    try:
        for sock in busy:  # each in the middle of a head: not idle
            sock.sendall(b"GET /v1/skills HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        time.sleep(0.2)
        status, headers, body = exchange(api_server, request())
        assert status == 503
        assert headers["content-type"] == "application/json"
        assert json.loads(body)["error"]["code"] == "too_many_connections"
        time.sleep(0.2)  # the refused connection is gone
        busy[0].sendall(f"Authorization: Bearer {TOKEN}\r\n\r\n".encode())  # requests under way are never cut
        assert read_reply(busy[0])[0] == 200
    finally:
        for sock in busy:
            sock.close()


def test_a_flood_of_connections_is_logged_once_with_a_count(api_server, monkeypatch, caplog):
    monkeypatch.setattr(protocol, "MAX_CONNECTIONS", 4)
    monkeypatch.setattr(protocol, "HARD_MAX_CONNECTIONS", 6)
    held = []
    with caplog.at_level("WARNING", logger=protocol.__name__):
        try:
            for _ in range(30):
                held.append(connect(api_server, timeout=3))
            time.sleep(0.3)
            assert exchange(api_server, request())[0] == 200
        finally:
            for sock in held:
                sock.close()
    lines = [r for r in caplog.records if r.name == protocol.__name__]
    assert len(lines) == 1 and "closed" in lines[0].getMessage()  # before: one line per connection


@pytest.mark.parametrize("raw", [b"GARBAGE\r\n\r\n", b"GET /v1/health HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n",
                                 b"GET /v1/health HTTP/9.9\r\n\r\n"])
def test_a_malformed_request_gets_a_json_error(api_server, raw):
    status, headers, body = exchange(api_server, raw)
    assert status == 400
    assert headers["content-type"] == "application/json"
    error = json.loads(body)["error"]
    assert error["code"] == "bad_request" and "HTTP" in error["message"]


def test_repeated_host_headers_are_a_400(api_server):
    for hosts in ("Host: evil.example\r\nHost: 127.0.0.1\r\n", "Host: 127.0.0.1\r\nHost: 127.0.0.1\r\n"):
        raw = f"GET /v1/skills HTTP/1.1\r\n{hosts}Authorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
        status, _, body = exchange(api_server, raw.encode())
        assert status == 400, hosts
        assert "Host" in json.loads(body)["error"]["message"]


@pytest.mark.parametrize("path", ["/v1/tools/memory_update", "/v1/tools/memory_query"])
@pytest.mark.parametrize("types", [("text/plain", "application/json"), ("application/json", "text/plain"),
                                   ("application/json", "application/json")])
def test_repeated_content_types_are_a_400_on_the_fast_path_and_the_routes_alike(api_server, api_engine, path, types):
    """The routes read the first Content-Type, the security check the last: the memory_update fast path
    once wrote a body whose first type was text/plain, which every route refused with a 415."""
    body = json.dumps({"user_id": "u1", "arguments": {"operations": [{"op": "event", "value": "x"}]}
                       if path.endswith("update") else {}}).encode()
    raw = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
           + "".join(f"Content-Type: {media}\r\n" for media in types)
           + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body
    status, _, reply = exchange(api_server, raw)
    assert status == 400, reply
    error = json.loads(reply)["error"]
    assert error["code"] == "bad_request" and "Content-Type" in error["message"]
    assert api_engine.store.stats().total_users == 0


@pytest.mark.parametrize("tokens", [("wrong", TOKEN), (TOKEN, "wrong"), (TOKEN, TOKEN)])
def test_repeated_authorization_headers_are_a_400(api_server, tokens):
    extra = "".join(f"Authorization: Bearer {token}\r\n" for token in tokens)
    raw = f"GET /v1/skills HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}Connection: close\r\n\r\n"
    status, _, reply = exchange(api_server, raw.encode())
    assert status == 400 and "Authorization" in json.loads(reply)["error"]["message"]


@pytest.mark.parametrize("origins", [("http://127.0.0.1", "http://evil.example"),
                                     ("http://evil.example", "http://localhost")])
def test_any_foreign_origin_among_several_is_a_403(api_server, origins):
    extra = "".join(f"Origin: {origin}\r\n" for origin in origins)
    status, _, body = exchange(api_server, request(extra=extra))
    assert status == 403 and json.loads(body)["error"]["code"] == "forbidden_origin"


def test_several_allowed_origins_pass(api_server):
    status, _, _ = exchange(api_server, request(extra="Origin: http://127.0.0.1\r\nOrigin: http://localhost:3000\r\n"))
    assert status == 200


@pytest.mark.parametrize("host", ["localhost:99999999999", "localhost:65536", "localhost:0", "localhost:http",
                                  "127.0.0.1:8x", "[::1]:-1", "localhost:\u00b2"])
def test_a_host_port_that_is_no_port_is_refused(api_server, host):
    status, _, body = exchange(api_server, request(host=host.encode("latin-1").decode("latin-1")))
    assert status == 403 and json.loads(body)["error"]["code"] == "forbidden_host"


@pytest.mark.parametrize("target", ["http://evil.example/v1/skills", "http://evil.example:80/v1/skills",
                                    "http://127.0.0.1@evil.example/v1/skills", "https://evil.example/v1/skills?x=1"])
def test_an_absolute_form_target_with_a_foreign_host_is_refused(api_server, target):
    status, _, body = exchange(api_server, request(path=target))
    assert status == 403 and json.loads(body)["error"]["code"] == "forbidden_host"


def test_an_absolute_form_target_naming_this_server_is_served(api_server):
    status, _, _ = exchange(api_server, request(path=f"http://127.0.0.1:{api_server.bound_port}/v1/skills"))
    assert status == 200


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br, gzip"])
def test_a_compressed_body_is_a_415_about_content_encoding(api_server, encoding):
    import gzip

    body = gzip.compress(b'{"user_id": "u1", "text": "/x"}')
    raw = (f"POST /v1/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
           f"Content-Type: application/json\r\nContent-Encoding: {encoding}\r\nContent-Length: {len(body)}\r\n"
           f"Connection: close\r\n\r\n").encode() + body
    status, _, reply = exchange(api_server, raw)
    assert status == 415
    assert "Content-Encoding" in json.loads(reply)["error"]["message"]


def test_a_head_that_never_ends_is_refused_as_it_arrives(api_server):
    with connect(api_server) as sock:
        sock.sendall(b"GET /v1/skills HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: ")
        status = None
        try:
            for _ in range(64):  # 4 MiB of one header value, unless the server stops it first
                sock.sendall(b"a" * 65536)
        except (BrokenPipeError, ConnectionResetError):
            pass
        try:
            status, headers, body = read_reply(sock)
        except (ConnectionResetError, AssertionError):
            pytest.fail("the connection was dropped without a reply")
    assert status == 431 and json.loads(body)["error"]["code"] == "head_too_large"


@pytest.mark.parametrize("raw", [
    # a whole head of 90 KB in one send (it was accepted)
    b"GET /v1/skills HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + b"a" * 90_000 + b"\r\n\r\n",
    # a request line of 100 KB (the parser's own limit answered 400 "not valid HTTP/1.1")
    b"GET /v1/context?user_id=" + b"u" * 100_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
])
def test_a_head_past_the_limit_sent_at_once_is_a_431(api_server, raw):
    with connect(api_server) as sock:
        try:
            sock.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass
        status, _, body = read_reply(sock)
    assert status == 431 and json.loads(body)["error"]["code"] == "head_too_large"


def test_a_large_body_is_not_counted_as_head(api_server):
    body = json.dumps({"user_id": "u1", "text": "x" * 900_000}).encode()
    raw = (f"POST /v1/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
           f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
    with connect(api_server) as sock:
        sock.sendall(raw)
        status, _, _ = read_reply(sock)
        assert status == 200
        sock.sendall(request())  # the same connection, after a large request: a head of its own
        assert read_reply(sock)[0] == 200


def connect_from(server, address: str, timeout: float = 3) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.bind((address, 0))
    sock.connect(("127.0.0.1", server.bound_port))
    return sock


def test_making_room_is_fair_per_peer_the_address_holding_most_goes_first(api_server, monkeypatch):
    """Idle connections of the address holding the most are closed first, even when another address's
    idle ones are older: a flood from one local address costs the others nothing."""
    monkeypatch.setattr(protocol, "MAX_CONNECTIONS", 8)
    monkeypatch.setattr(protocol, "HARD_MAX_CONNECTIONS", 12)
    try:
        connect_from(api_server, "127.0.0.2").close()
    except OSError:
        pytest.skip("this machine does not route 127.0.0.2 to the loopback interface")
    time.sleep(0.2)
    keepers = [connect(api_server, timeout=3) for _ in range(2)]  # 127.0.0.1, idle longest
    time.sleep(0.1)
    flood = [connect_from(api_server, "127.0.0.2") for _ in range(6)]
    try:
        time.sleep(0.2)
        status, _, _ = exchange(api_server, request())  # the 9th: room is made
        assert status == 200
        time.sleep(0.2)
        assert closed_by_server(flood[0])  # the flood's oldest, not 127.0.0.1's older ones
        for sock in flood[1:]:
            sock.settimeout(0.1)  # quick looks: idle connections are closed anyway after REQUEST_SECONDS
        assert not any(closed_by_server(sock) for sock in flood[1:])
        for sock in keepers:
            sock.sendall(request())
            assert read_reply(sock)[0] == 200
    finally:
        for sock in keepers + flood:
            sock.close()
