"""Text the API accepts: valid Unicode only; a lone surrogate anywhere gets a 4xx naming the field and changes nothing."""
from __future__ import annotations

import json

import pytest

from api_helpers import AUTH, api, api_engine, api_server, remember  # noqa: F401
from kiraos_desktop import cli

LONE = "\ud800"
JSON = {**AUTH, "Content-Type": "application/json"}


def raw(data) -> bytes:
    """JSON with ASCII escapes: the only way a lone surrogate reaches the server as valid UTF-8."""
    return json.dumps(data).encode("ascii")


def snapshot(engine) -> tuple:
    """Everything a write could touch: both tables and the audit log."""
    rows = engine.store._rows
    return (rows("SELECT * FROM user_profiles ORDER BY user_id, memory_key"),
            rows("SELECT * FROM event_logs ORDER BY id"), rows("SELECT count(*), max(id) FROM memory_changes"))


def seed(engine) -> int:
    remember(engine, "u", {"op": "set", "key": "k", "value": "old"}, {"op": "event", "value": "e"})
    return engine.store.get_events("u")[0].id


def update(op: dict, user_id: str = "u") -> dict:
    return {"user_id": user_id, "arguments": {"operations": [{"op": "set", "key": "k", "value": "new"}, op]}}


CASES = [
    # (method, path, body, field named in the error)
    ("POST", "/v1/tools/memory_update", update({"op": LONE, "key": "k", "value": "v"}),
     "arguments.operations.1.op"),
    ("POST", "/v1/tools/memory_update", update({"op": "set", "key": "k2", "value": "v", "ttl": LONE}),
     "arguments.operations.1.ttl"),
    ("POST", "/v1/tools/memory_update", update({"op": "set", "key": "k2", "value": "v", "category": LONE}),
     "arguments.operations.1.category"),
    ("POST", "/v1/tools/memory_update", update({"op": "set", "key": "k" + LONE, "value": "v"}),
     "arguments.operations.1.key"),
    ("POST", "/v1/tools/memory_update", update({"op": "set", "key": "k2", "value": "a" + LONE + "b"}),
     "arguments.operations.1.value"),
    ("POST", "/v1/tools/memory_update", update({"op": "event", "value": LONE}), "arguments.operations.1.value"),
    ("POST", "/v1/tools/memory_update", update({"op": "set", "key": "k2", "value": "v"}, user_id=LONE), "user_id"),
    ("POST", "/v1/tools/memory_update", update({"op": "set", "key": "k2", "value": "v", LONE: "x"}),
     "arguments.operations.1.\\ud800"),
    # Past the fast path's size: the regular route decides the same way.
    ("POST", "/v1/tools/memory_update",
     update({"op": "set", "key": "k2", "value": "v", "ttl": LONE, "pad": "x" * 70_000}),
     "arguments.operations.1.ttl"),
    ("POST", "/v1/tools/memory_query", {"user_id": LONE}, "user_id"),
    ("POST", "/v1/tools/memory_clear", {"user_id": "u" + LONE}, "user_id"),
    ("POST", "/v1/tools/tarot_reading", {"user_id": "u", "arguments": {"question": LONE}}, "arguments.question"),
    ("POST", "/v1/inject", {"user_ids": ["u"], "system": "prompt" + LONE}, "system"),
    ("POST", "/v1/inject", {"user_ids": ["u"], "system": [{"name": LONE, "content": "x"}]}, "system.0.name"),
    ("POST", "/v1/inject", {"user_ids": [LONE], "system": "x"}, "user_ids.0"),
    ("POST", "/v1/commands", {"user_id": "u", "text": "/tarot " + LONE}, "text"),
    ("PUT", "/api/users/u/profiles/k", {"value": LONE}, "value"),
    ("PUT", "/api/users/u/profiles/k", {"value": "v", "category": LONE}, "category"),
    ("PUT", "/api/users/u/profiles/k", {"value": "v", "expires_at": LONE}, "expires_at"),
    ("POST", "/api/users/u/events", {"event_summary": LONE}, "event_summary"),
    ("PUT", "/api/users/u/events/{event}", {"event_summary": "x" + LONE}, "event_summary"),
]


@pytest.mark.parametrize("method, path, body, field", CASES)
def test_a_lone_surrogate_is_refused_naming_the_field_and_changes_nothing(api, api_engine, method, path, body,
                                                                           field):
    event = seed(api_engine)
    before = snapshot(api_engine)
    reply = api.request(method, path.format(event=event), content=raw(body), headers=JSON)
    assert reply.status_code in (400, 422), reply.text
    error = reply.json()["error"]
    if path.startswith("/api/"):
        assert reply.status_code == 400 and error.startswith(f"{field}: ")
    else:
        assert reply.status_code == 422 and error["details"] == {"field": field}, error
        assert error["message"].startswith(f"{field}: ")
    assert snapshot(api_engine) == before


def test_surrogate_pairs_are_text(api, api_engine):
    """A pair of escapes is one character (an emoji): accepted and stored as such."""
    reply = api.post("/v1/tools/memory_update", content=raw(update({"op": "set", "key": "emoji", "value": "😀"})),
                     headers=JSON)
    assert reply.status_code == 200, reply.text
    assert api_engine.store.get_profile("u", "emoji").value == "😀"


@pytest.mark.parametrize("path", ["/api/users/%ED%A0%80/profiles/k", "/api/users/u/profiles/%ED%A0%80",
                                  "/api/users/%FF/events"])
def test_a_path_that_is_not_utf8_once_decoded_is_refused(api, api_engine, path):
    seed(api_engine)
    before = snapshot(api_engine)
    method = "POST" if path.endswith("events") else "PUT"
    body = {"event_summary": "x"} if method == "POST" else {"value": "x"}
    reply = api.request(method, path, json=body)
    assert reply.status_code == 400, reply.text
    assert "UTF-8" in reply.json()["error"]
    assert snapshot(api_engine) == before


def test_the_cli_refuses_a_lone_surrogate_too(capsys, data_dir):
    args = raw({"operations": [{"op": "set", "key": "k", "value": "v"}, {"op": LONE}]}).decode()
    code = cli.main(["call", "memory_update", "--user", "u", "--json", args, "--data-dir", str(data_dir)])
    out, err = capsys.readouterr()
    assert code == 2 and "operations.1.op" in err and len(err.strip().splitlines()) == 1
    code = cli.main(["--data-dir", str(data_dir), "context", "--user", "u"])
    assert code == 0 and capsys.readouterr().out == ""


def test_an_import_file_with_a_lone_surrogate_is_refused(tmp_path, api_engine):
    from kiraos_desktop.core.transfer import export_import as transfer

    path = tmp_path / "in.json"
    path.write_text(json.dumps({"format": transfer.EXPORT_FORMAT, "version": transfer.EXPORT_VERSION, "users": [
        {"user_id": "u", "profiles": [{"key": "k", "value": "x" + LONE}]}]}), encoding="utf-8")
    with pytest.raises(transfer.TransferError, match=r"users\.0\.profiles\.0\.value"):
        transfer.read_import_file(path)


def test_a_manifest_with_a_lone_surrogate_is_a_problem_not_a_tool(tmp_path):
    from kiraos_desktop.core.skills.manifest import validate_manifest_text

    data, problems = validate_manifest_text(json.dumps({"name": "s", "description": "d" + LONE}))
    assert data is None and [p.field for p in problems] == ["manifest"] and "description" in problems[0].message


@pytest.mark.parametrize("query", ["user_id=%ED%A0%80", "user_id=u&user_id=%ED%A0%80", "user_id=%FF"])
def test_a_query_that_is_not_utf8_is_refused(api, query):
    reply = api.get("/v1/context?" + query)
    assert reply.status_code == 422 and reply.json()["error"]["details"] == {"field": "query"}


def test_mcp_prompt_arguments_with_a_lone_surrogate_stay_text_for_the_schema_check():
    from kiraos_desktop.api.mcp.server import coerce_prompt_arguments

    params = {"type": "object", "properties": {"tags": {"type": "array"}}}
    assert coerce_prompt_arguments(params, {"tags": '["\\ud800"]'}) == {"tags": '["\\ud800"]'}
    assert coerce_prompt_arguments(params, {"tags": '["\\ud83d\\ude00"]'}) == {"tags": ["😀"]}
