"""Property: no JSON string, on any write route, gives a 5xx, and a refused request changes nothing."""
from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api_helpers import AUTH, api, api_engine, api_server, remember  # noqa: F401
from test_api_input_text import snapshot

JSON = {**AUTH, "Content-Type": "application/json"}

# Any text, lone surrogates included, plus the shapes that once broke a route.
SURROGATES = st.text(alphabet=st.characters(codec=None, categories=["Cs"]), min_size=1, max_size=2)
TEXT = st.one_of(
    st.text(max_size=12),
    st.tuples(st.text(max_size=6), SURROGATES, st.text(max_size=6)).map("".join),
    st.sampled_from(["", " ", "set", "event", "del", "basic", "7d", "1" * 4301 + "d", "0" * 5000 + "1m",
                     "9999-12-31T23:59:59.999999", "9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00",
                     "2999-01-01", "\x00\x1b\u2028", "<context>", "u", "k", "x" * 5000]),
)


def path_part(text: str) -> str:
    """A path segment as a client would send it: the text's UTF-8 bytes (surrogates kept), %-escaped."""
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def memory_update(text: str, where: str) -> tuple[str, str, dict]:
    op = {"op": "set", "key": "k", "value": "v", "category": "basic", "ttl": "7d"}
    if where == "user_id":
        return "POST", "/v1/tools/memory_update", {"user_id": text, "arguments": {"operations": [op]}}
    if where == "event":
        op = {"op": "event", "value": text}
    elif where == "del":
        op = {"op": "del", "key": text}
    else:
        op[where] = text
    return "POST", "/v1/tools/memory_update", {"user_id": "u", "arguments": {"operations": [
        {"op": "set", "key": "k1", "value": "first"}, op]}}


def plugin_write(text: str, where: str) -> tuple[str, str, dict]:
    if where in ("value", "category", "expires_at"):
        return "PUT", "/api/users/u/profiles/k", {"value": "v", where: text}
    if where == "user":
        return "PUT", f"/api/users/{path_part(text)}/profiles/k", {"value": "v"}
    if where == "key":
        return "PUT", f"/api/users/u/profiles/{path_part(text)}", {"value": "v"}
    if where == "event":
        return "POST", "/api/users/u/events", {"event_summary": text}
    return "PUT", f"/api/users/u/events/{path_part(text)}", {"event_summary": "x"}


def other_write(text: str, where: str) -> tuple[str, str, dict]:
    if where == "skill":
        return "POST", "/v1/tools/tarot_reading", {"user_id": "u", "arguments": {"question": text}}
    if where == "skill_user":
        return "POST", "/v1/tools/tarot_reading", {"user_id": text, "arguments": {"question": "q"}}
    if where == "inject":
        return "POST", "/v1/inject", {"user_ids": ["u"], "system": text}
    if where == "section":
        return "POST", "/v1/inject", {"user_ids": ["u"], "system": [{"name": text, "content": text}]}
    if where == "inject_user":
        return "POST", "/v1/inject", {"user_ids": [text], "system": "s"}
    return "POST", "/v1/commands", {"user_id": "u", "text": text}


ROUTES = [
    (memory_update, ["op", "key", "value", "category", "ttl", "user_id", "event", "del"]),
    (plugin_write, ["value", "category", "expires_at", "user", "key", "event", "event_id"]),
    (other_write, ["skill", "skill_user", "inject", "section", "inject_user", "command"]),
]


@pytest.mark.parametrize("build, places", ROUTES, ids=[r[0].__name__ for r in ROUTES])
def test_no_string_gives_a_5xx_or_a_partial_write(api, api_engine, build, places):
    remember(api_engine, "u", {"op": "set", "key": "k", "value": "old"}, {"op": "event", "value": "e"})

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(text=TEXT, where=st.sampled_from(places))
    def check(text, where):
        method, path, body = build(text, where)
        before = snapshot(api_engine)
        reply = api.request(method, path, content=json.dumps(body).encode("ascii"), headers=JSON)
        assert reply.status_code < 500, (reply.status_code, reply.text)
        reply.json()  # every answer is JSON
        if reply.status_code >= 400:
            assert snapshot(api_engine) == before, reply.text

    check()
