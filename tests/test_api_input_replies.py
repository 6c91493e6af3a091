"""What the API says back about input: control characters kept out of blocks, one block per user, JSON spellings."""
from __future__ import annotations

import json

import pytest

from api_helpers import AUTH, api, api_engine, api_server, error_of, plugin_error_of, remember  # noqa: F401

CONTROLS = "\x00\x07\t\x0b\x0c\x1b\x1c\x7f\x85\x9f\u2028\u2029\r\n"


def test_control_characters_are_replaced_in_the_context_and_everything_echoed(api, api_engine):
    value = "a" + CONTROLS + "b"
    reply = api.post("/v1/tools/memory_update", json={"user_id": "u", "arguments": {"operations": [
        {"op": "set", "key": "k" + CONTROLS + "z", "value": value}, {"op": "event", "value": value}]}})
    assert reply.status_code == 200
    content = reply.json()["content"]
    spaces = " " * len(CONTROLS)
    assert f"set k{spaces}z=a{spaces}b [basic]" in content and f"event: a{spaces}b" in content
    assert len(content.splitlines()) == 2  # the results line and the summary line
    block = api.get("/v1/context", params={"user_id": "u"}).json()["context"]
    assert block.splitlines() == [f"[u:basic] k{spaces}z=a{spaces}b(?)", block.splitlines()[1]]
    assert block.splitlines()[1].endswith(f" a{spaces}b")
    dump = api.post("/v1/tools/memory_query", json={"user_id": "u"}).json()["content"]
    assert f"k{spaces}z = a{spaces}b" in dump
    assert not any(c in dump.replace("\n", "") for c in CONTROLS)
    skill = api.post("/v1/tools/tarot_reading", json={"user_id": "u", "arguments": {"question": "q"}})
    context = skill.json()["content"].split("<context>\n", 1)[1].split("\n</context>", 1)[0]
    assert context.splitlines()[0] == f"[u:basic] k{spaces}z=a{spaces}b(?)"
    assert not any(c in context.replace("\n", "") for c in CONTROLS)


def test_a_user_given_twice_gets_one_block(api, api_engine):
    remember(api_engine, "u1", {"op": "set", "key": "a", "value": "1"})
    remember(api_engine, "u2", {"op": "set", "key": "b", "value": "2"})
    for _ in range(2):  # the second time from the cache (the fast path)
        reply = api.get("/v1/context?user_id=u1&user_id=u2&user_id=u1")
        assert reply.json() == {"context": "[u1:basic] a=1(?)\n[u2:basic] b=2(?)", "users": ["u1", "u2"],
                                "truncated": False}
    reply = api.get("/v1/context?user_id=u1&user_id=u1&max_chars=0")  # the route, not the fast path
    assert reply.json()["users"] == ["u1"] and reply.json()["context"] == "[u1:basic] a=1(?)"
    system = api.post("/v1/inject", json={"user_ids": ["u1", "u1"], "system": ""}).json()["system"]
    assert system.count("[u1:basic]") == 1


@pytest.mark.parametrize("body, field, words", [
    ({"user_id": "u", "arguments": None}, "arguments", "got null"),
    ({"user_id": "u", "arguments": True}, "arguments", "got boolean true"),
    ({"user_id": None, "arguments": {}}, "user_id", "got null"),
])
def test_schema_errors_use_json_spellings(api, body, field, words):
    reply = api.post("/v1/tools/memory_update", json=body)
    assert reply.status_code == 422
    message = error_of(reply)["message"]
    assert message.startswith(f"{field}: ") and words in message, message
    assert "None" not in message and "True" not in message and "'" not in message


def test_schema_errors_of_the_plugin_routes_and_skills_use_json_spellings(api):
    message = plugin_error_of(api.put("/api/users/u/profiles/k", content=b"null",
                                      headers={"Content-Type": "application/json"}))
    assert message == "body: must be an object, got null"
    message = plugin_error_of(api.put("/api/users/u/profiles/k", json={"value": "v", "category": None}))
    assert message == "category: must be a string, got null", message
    message = plugin_error_of(api.put("/api/users/u/profiles/k", json={"value": "v", "category": "x"}))
    assert message == 'category: must be one of "basic", "preference", "social", "other", got "x"', message
    message = plugin_error_of(api.put("/api/users/u/profiles/k", json={"value": "v", "confidence": True}))
    assert message == "confidence: must be a number, got boolean true", message
    reply = api.post("/v1/tools/tarot_reading", json={"user_id": "u", "arguments": {"question": None}})
    message = error_of(reply)["message"]
    assert message == "arguments.question: must be a string, got null", message


def test_skill_manifest_schema_problems_use_json_spellings():
    from kiraos_desktop.core.skills.manifest import parameters_problems

    messages = [p.message for p in parameters_problems({"type": "object", "required": True})]
    assert messages and "got boolean true" in messages[0] and "True" not in messages[0], messages
