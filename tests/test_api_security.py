"""Security baseline of the API: token, Host and Origin allowlists, no CORS, JSON-only bodies, size cap."""
from __future__ import annotations

import json
import socket

import pytest

from api_helpers import AUTH, TOKEN, anon, api, api_engine, api_server, error_of, plugin_error_of  # noqa: F401
from kiraos_desktop.api import security


def test_token_is_required_by_default(anon):
    reply = anon.get("/v1/context", params={"user_id": "u1"})
    assert reply.status_code == 401
    assert error_of(reply)["code"] == "unauthorized"
    assert reply.headers["www-authenticate"] == "Bearer"


def test_wrong_token_is_refused(anon):
    for value in (f"Bearer {TOKEN}x", "Bearer", f"Basic {TOKEN}", TOKEN, f"Bearer {TOKEN[:-1]}", "Bearer  x"):
        reply = anon.get("/v1/skills", headers={"Authorization": value})
        assert reply.status_code == 401, value


def test_token_in_query_is_not_accepted(anon):
    reply = anon.get("/v1/context", params={"user_id": "u1", "token": TOKEN})
    assert reply.status_code == 401
    assert "?token=" in error_of(reply)["message"]


def test_bearer_scheme_is_case_insensitive(anon):
    assert anon.get("/v1/skills", headers={"Authorization": f"bearer {TOKEN}"}).status_code == 200


def test_token_is_compared_in_constant_time(anon, monkeypatch):
    calls = []
    real = security.hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(security.hmac, "compare_digest", spy)
    assert anon.get("/v1/skills", headers=AUTH).status_code == 200
    assert anon.get("/v1/skills", headers={"Authorization": "Bearer nope"}).status_code == 401
    assert calls == [(TOKEN.encode(), TOKEN.encode()), (b"nope", TOKEN.encode())]


def test_health_needs_no_token(anon):
    reply = anon.get("/v1/health")
    assert reply.status_code == 200
    assert reply.json()["status"] == "ok"


def test_plugin_routes_need_the_token_too(anon):
    reply = anon.get("/api/stats")
    assert reply.status_code == 401
    assert "token" in plugin_error_of(reply)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:80", "127.0.0.1.evil.example", "10.0.0.1",
                                  "localhost:abc", "[::1", ""])
def test_foreign_host_is_forbidden(api, host):
    reply = api.get("/v1/skills", headers={"Host": host})
    assert reply.status_code == 403
    assert error_of(reply)["code"] == "forbidden_host"


def test_foreign_host_is_forbidden_before_auth_and_on_health(anon):
    assert anon.get("/v1/health", headers={"Host": "evil.example"}).status_code == 403
    reply = anon.get("/api/users", headers={"Host": "evil.example"})
    assert reply.status_code == 403
    plugin_error_of(reply)


@pytest.mark.parametrize("host", ["127.0.0.1", "LOCALHOST", "localhost:1", "[::1]", "[::1]:8765"])
def test_loopback_hosts_are_allowed(api, api_server, host):
    assert api.get("/v1/skills", headers={"Host": host}).status_code == 200


def test_missing_host_header_is_forbidden(api_server):
    with socket.create_connection(("127.0.0.1", api_server.bound_port), timeout=10) as sock:
        sock.sendall(b"GET /v1/health HTTP/1.0\r\n\r\n")
        head = sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 403")


@pytest.mark.parametrize("origin", ["http://evil.example", "https://evil.example:8765", "null",
                                    "http://127.0.0.1.evil.example", "file://", "http://localhost/path"])
def test_foreign_origin_is_forbidden(api, origin):
    reply = api.get("/v1/skills", headers={"Origin": origin})
    assert reply.status_code == 403
    assert error_of(reply)["code"] == "forbidden_origin"


@pytest.mark.parametrize("origin", ["http://127.0.0.1:3000", "http://localhost", "https://[::1]:8443"])
def test_loopback_origins_are_allowed(api, origin):
    assert api.get("/v1/skills", headers={"Origin": origin}).status_code == 200


def test_no_cors_headers_even_for_a_preflight(api):
    for reply in (api.options("/v1/context", headers={"Origin": "http://127.0.0.1:3000",
                                                      "Access-Control-Request-Method": "GET"}),
                  api.get("/v1/skills", headers={"Origin": "http://localhost:3000"})):
        assert not [name for name in reply.headers if name.lower().startswith("access-control-")]


def test_bodies_must_be_json(api):
    reply = api.post("/v1/commands", content=b"user_id=u1", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert reply.status_code == 415
    assert error_of(reply)["code"] == "unsupported_media_type"
    reply = api.post("/v1/commands", content=b'{"user_id": "u1", "text": "/x"}', headers={"Content-Type": ""})
    assert reply.status_code == 415
    reply = api.put("/api/users/u1/profiles/k", content=b"v", headers={"Content-Type": "text/plain"})
    assert reply.status_code == 415
    plugin_error_of(reply)


@pytest.mark.parametrize("path", ["/v1/tools/memory_update", "/v1/commands", "/api/users/u1/events"])
def test_a_body_that_is_not_json_gets_one_reply_whether_empty_or_not(api, path):
    """An empty body is judged by the route, a non-empty one before it: their 415s said it in two ways."""
    replies = [api.post(path, content=content) for content in (b"", b"x")]
    assert [r.status_code for r in replies] == [415, 415]
    assert replies[0].content == replies[1].content


def test_json_media_type_with_charset_is_accepted(api):
    reply = api.post("/v1/commands", content=b'{"user_id": "u1", "text": "hi"}',
                     headers={"Content-Type": "application/json; charset=utf-8"})
    assert reply.status_code == 200


def test_declared_body_over_one_mib_is_refused_unread(api_server):
    with socket.create_connection(("127.0.0.1", api_server.bound_port), timeout=10) as sock:
        sock.sendall(f"POST /v1/inject HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
                     f"Content-Type: application/json\r\nContent-Length: {2 * 1024 * 1024}\r\n\r\n".encode())
        head = sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 413")
    assert b"body_too_large" in head


def test_chunked_body_over_one_mib_is_refused(api):
    def chunks():
        yield b'{"user_id": "u1", "text": "'
        for _ in range(17):
            yield b"x" * 65536
        yield b'"}'

    reply = api.post("/v1/commands", content=chunks(), headers={"Content-Type": "application/json"})
    assert reply.status_code == 413
    assert error_of(reply)["code"] == "body_too_large"


def test_body_of_exactly_one_mib_is_read(api):
    text = "x" * (1024 * 1024 - len('{"user_id":"u1","text":""}'))
    reply = api.post("/v1/commands", content=f'{{"user_id":"u1","text":"{text}"}}'.encode(),
                     headers={"Content-Type": "application/json"})
    assert reply.status_code == 200


def test_invalid_json_is_a_400(api):
    for raw in (b"{", b"", b"[1, NaN]", b"\xff\xfe"):
        reply = api.post("/v1/inject", content=raw, headers={"Content-Type": "application/json"})
        assert reply.status_code == 400, raw
        assert error_of(reply)["code"] == "invalid_json"


@pytest.mark.parametrize("method, path, raw", [
    ("POST", "/v1/tools/memory_update",  # the fast path's plain case
     b'{"user_id": "u1", "user_id": "u2", "arguments": {"operations": [{"op": "event", "value": "x"}]}}'),
    ("POST", "/v1/tools/memory_update",
     b'{"user_id": "u1", "arguments": {"operations": [{"op": "set", "key": "k", "value": "a", "value": "b"}]}}'),
    ("POST", "/v1/tools/memory_update", b'{"user_id": "u1", "arguments": {"operations": []},'
                                        b' "arguments": {"operations": [{"op": "event", "value": "x"}]}}'),
    ("POST", "/v1/tools/memory_query", b'{"user_id": "u1", "user_id": "u2"}'),
    ("POST", "/v1/inject", b'{"user_ids": ["u1"], "system": "s", "system": "t"}'),
    ("PUT", "/api/users/u1/profiles/k", b'{"value": "a", "value": "b"}'),
    ("POST", "/api/users/u1/events", b'{"event_summary": "a", "event_summary": "b"}'),
])
def test_a_key_repeated_within_an_object_is_a_400_and_changes_nothing(api, api_engine, method, path, raw):
    """Which of the values counts is the parser's choice (Python's: the last), so a body another tool
    reads one way could be written another: such a body used to be written with its last values."""
    reply = api.request(method, path, content=raw, headers={"Content-Type": "application/json"})
    assert reply.status_code == 400, reply.text
    message = plugin_error_of(reply) if path.startswith("/api/") else error_of(reply)["message"]
    assert "repeats the key" in message
    assert api_engine.store.stats().total_users == 0


def test_a_repeated_key_is_named_in_ascii(api):
    raw = b'{"user_id": "u1", "\\ud800": 1, "\\ud800": 2}'
    reply = api.post("/v1/tools/memory_query", content=raw, headers={"Content-Type": "application/json"})
    assert reply.status_code == 400 and '"\\ud800"' in error_of(reply)["message"]


def test_unknown_fields_are_rejected(api):
    reply = api.post("/v1/commands", json={"user_id": "u1", "text": "hi", "extra": 1})
    assert reply.status_code == 422
    error = error_of(reply)
    assert error["details"]["field"] == "extra"
    reply = api.post("/v1/inject", json={"user_ids": [], "system": [{"name": "a", "content": "", "role": "x"}]})
    assert reply.status_code == 422
    assert error_of(reply)["details"]["field"] == "system.0.role"
    reply = api.put("/api/users/u1/profiles/k", json={"value": "v", "colour": "red"})
    assert reply.status_code == 400
    assert "colour" in plugin_error_of(reply)


def test_unknown_route_and_method_give_json_errors(api):
    reply = api.get("/v1/nothing-here")
    assert reply.status_code == 404
    assert error_of(reply)["code"] == "not_found"
    reply = api.delete("/v1/context")
    assert reply.status_code == 405
    assert error_of(reply)["code"] == "method_not_allowed"
    reply = api.patch("/api/users/u1")
    assert reply.status_code == 405
    plugin_error_of(reply)
    assert set(reply.headers["allow"].replace(" ", "").split(",")) == {"GET", "HEAD", "DELETE"}


def test_host_helpers():
    assert security.split_host("LocalHost:8765") == "localhost"
    assert security.split_host("[::1]:1") == "[::1]"
    assert security.split_host("a:b") is None
    assert security.origin_host("https://127.0.0.1:3") == "127.0.0.1"
    assert security.origin_host("null") is None
    assert security.is_loopback("127.0.0.2") and security.is_loopback("::1") and security.is_loopback("localhost")
    assert not security.is_loopback("0.0.0.0") and not security.is_loopback("192.168.1.2")
    assert security.allowed_host_names(["192.168.1.5", "::"]) >= {"192.168.1.5", "[::]", "localhost"}


def _raw_request(port: int, head: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head)
        reply = b""
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return reply
            reply += chunk


def test_a_url_not_percent_encoded_is_told_to_encode_it(api_server):
    """curl '...&query=我最近在学吉他' sends the UTF-8 bytes as they are: say what to do about it."""
    target = "/v1/context?user_id=u1&query=我最近在学吉他".encode()
    reply = _raw_request(api_server.bound_port, b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 400")
    body = json.loads(reply.partition(b"\r\n\r\n")[2])
    assert "percent-encoded" in body["error"]["message"] and "--data-urlencode" in body["error"]["message"]
    garbled = _raw_request(api_server.bound_port, b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n")
    assert garbled.startswith(b"HTTP/1.1 400") and b"not valid HTTP/1.1" in garbled  # other bad requests unchanged
