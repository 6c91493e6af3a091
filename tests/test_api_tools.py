"""The /v1 tool and skill routes and the OpenAPI document, on a real server."""
from __future__ import annotations

import json

import pytest

from api_helpers import api, api_engine, api_server, error_of, remember  # noqa: F401
from kiraos_desktop import cli
from kiraos_desktop.api.app import create_app

MEMORY_TOOLS = ["memory_update", "memory_query", "memory_clear"]
UPDATE = {"operations": [{"op": "set", "key": "昵称", "value": "小明", "confidence": 0.9},
                         {"op": "set", "key": "城市", "value": "北京", "ttl": "30d"},
                         {"op": "event", "value": "完成半马"}, {"op": "del", "key": "没有"}]}


@pytest.mark.parametrize("fmt, name_of", [
    ("openai", lambda t: t["function"]["name"]), ("anthropic", lambda t: t["name"]), ("mcp", lambda t: t["name"])])
def test_tool_lists_per_provider(api, api_engine, fmt, name_of):
    tools = api.get("/v1/tools", params={"format": fmt}).json()["tools"]
    assert tools == api_engine.tools.list_tools(fmt)
    assert [name_of(t) for t in tools][:3] == MEMORY_TOOLS and len(tools) == 9


def test_tool_list_defaults_to_openai_and_hides_disabled_skills(api, api_engine):
    api_engine.update_settings(api_engine.settings.replace(disabled_skills=["tarot_reading"]))
    tools = api.get("/v1/tools").json()["tools"]
    assert tools[0]["type"] == "function"
    assert "tarot_reading" not in [t["function"]["name"] for t in tools] and len(tools) == 8


def test_tool_list_rejects_unknown_formats(api):
    for query in ("format=gemini", "format=", "fmt=openai"):
        reply = api.get("/v1/tools?" + query)
        assert reply.status_code == 422
        assert "openai" in error_of(reply)["message"] or "format" in error_of(reply)["message"]


def test_memory_update_call(api, api_engine):
    reply = api.post("/v1/tools/memory_update", json={"user_id": "u1", "arguments": UPDATE})
    assert reply.status_code == 200
    body = reply.json()
    assert set(body) == {"tool", "content", "is_error"}
    assert body["tool"] == "memory_update" and body["is_error"] is False
    assert body["content"].startswith("已完成 3 项记忆操作: set 昵称=小明 [basic]; set 城市=北京 [basic] (expires: 30d); "
                                      "event: 完成半马; del 没有: not found\n当前画像: ")
    assert api_engine.store.get_profile("u1", "昵称").value == "小明"
    actors = {c.actor for c in api_engine.store.list_changes(user_id="u1")}
    assert actors == {"tool"}


def test_memory_query_and_clear_calls(api, api_engine):
    remember(api_engine, "u1", {"op": "set", "key": "昵称", "value": "小明"}, {"op": "event", "value": "完成半马"})
    body = api.post("/v1/tools/memory_query", json={"user_id": "u1"}).json()
    assert body["content"].startswith("【用户画像】\n  [basic]\n    昵称 = 小明  [置信度:0.5]\n【近期事件】")
    body = api.post("/v1/tools/memory_clear", json={"user_id": "u1", "arguments": {}}).json()
    assert body == {"tool": "memory_clear", "content": "已清除全部记忆: 删除了 1 条画像和 1 条事件记录。",
                    "is_error": False}
    assert api.post("/v1/tools/memory_query", json={"user_id": "u1"}).json()["content"] == "该用户暂无记忆数据。"
    assert api_engine.store.list_changes(user_id="u1")[0].actor == "tool"


def test_skill_call(api, api_engine):
    remember(api_engine, "u1", {"op": "set", "key": "昵称", "value": "小明"})
    body = api.post("/v1/tools/tarot_reading", json={"user_id": "u1", "arguments": {"question": "面试<顺利>吗"}}).json()
    assert body["is_error"] is False and body["tool"] == "tarot_reading"
    assert body["content"].startswith('<skill name="tarot_reading">\n')
    assert "<user_input>面试&lt;顺利&gt;吗</user_input>" in body["content"]
    assert "<context>\n[u1:basic] 昵称=小明(?)\n</context>" in body["content"]


def test_unknown_and_disabled_tools_are_404(api, api_engine):
    for name in ("nope", "memory_updatex"):
        reply = api.post(f"/v1/tools/{name}", json={"user_id": "u1", "arguments": {}})
        assert reply.status_code == 404
        assert error_of(reply)["code"] == "unknown_tool"
    api_engine.update_settings(api_engine.settings.replace(disabled_skills=["tarot_reading"]))
    reply = api.post("/v1/tools/tarot_reading", json={"user_id": "u1", "arguments": {"question": "x"}})
    assert reply.status_code == 404


@pytest.mark.parametrize("name, body, field", [
    ("memory_update", {"user_id": "u1", "arguments": {}}, "arguments.operations"),
    ("memory_update", {"user_id": "u1", "arguments": {"operations": "x"}}, "arguments.operations"),
    ("memory_update", {"user_id": "u1", "arguments": {"operations": [], "extra": 1}}, "arguments.extra"),
    ("memory_update", {"user_id": "u1", "arguments": {"operations": [{"op": 1}]}}, "arguments.operations.0.op"),
    ("memory_query", {"user_id": "u1", "arguments": {"x": 1}}, "arguments.x"),
    ("tarot_reading", {"user_id": "u1", "arguments": {}}, "arguments.question"),
    ("tarot_reading", {"user_id": "u1", "arguments": {"question": 3}}, "arguments.question"),
    ("memory_query", {"arguments": {}}, "user_id"),
    ("memory_query", {"user_id": "u1", "argument": {}}, "argument"),
    ("memory_query", {"user_id": "u1", "arguments": []}, "arguments"),
    ("memory_query", {"user_id": "   "}, "user_id"),
    ("memory_update", {"user_id": "u" * 300, "arguments": {"operations": []}}, "user_id"),
])
def test_tool_call_errors_name_the_field(api, api_engine, name, body, field):
    reply = api.post(f"/v1/tools/{name}", json=body)
    assert reply.status_code == 422
    error = error_of(reply)
    assert error["details"]["field"] == field
    assert field.split(".")[-1] in error["message"]
    assert api_engine.store.stats().total_users == 0  # nothing written


def test_core_validation_error_is_a_422(api, api_engine, monkeypatch):
    """A ValidationError raised by the core (not by the schema) is a 422 too."""
    from kiraos_desktop.core.memory.records import ValidationError

    def refuse(*args, **kwargs):
        raise ValidationError("user_id", "is not allowed here")

    monkeypatch.setattr(api_engine.memory_tools, "query", refuse)
    reply = api.post("/v1/tools/memory_query", json={"user_id": "u1"})
    assert reply.status_code == 422
    assert error_of(reply) == {"code": "invalid_request", "message": "user_id: is not allowed here",
                               "details": {"field": "user_id"}}


@pytest.mark.parametrize("tool, arguments", [
    ("memory_query", {}),
    ("memory_update", UPDATE),
    ("tarot_reading", {"question": "这次面试能顺利吗"}),
    ("daily_fortune", {"sign": "双鱼座", "focus": "学业"}),
])
def test_tool_content_equals_what_the_cli_prints(api, api_engine, data_dir, capsys, tool, arguments):
    for uid in ("api-user", "cli-user"):
        remember(api_engine, uid, {"op": "set", "key": "昵称", "value": "小明"}, {"op": "event", "value": "完成半马"})
    content = api.post(f"/v1/tools/{tool}", json={"user_id": "api-user", "arguments": arguments}).json()["content"]
    capsys.readouterr()
    code = cli.main(["call", tool, "--user", "cli-user", "--json", json.dumps(arguments, ensure_ascii=False),
                     "--data-dir", str(data_dir)])
    assert code == 0
    printed = capsys.readouterr().out
    assert printed == content.replace("api-user", "cli-user") + "\n"


def test_skills_list_and_get(api, api_engine):
    skills = api.get("/v1/skills").json()["skills"]
    assert [s["name"] for s in skills] == sorted(s["name"] for s in skills) and len(skills) == 6
    tarot = api.get("/v1/skills/tarot_reading").json()
    assert tarot == next(s for s in skills if s["name"] == "tarot_reading")
    assert tarot["command"] == "/tarot" and tarot["valid"] and tarot["enabled"] and tarot["problems"] == []
    assert tarot["folder"] == "tarot_reading" and tarot["parameters"]["required"] == ["question"]
    reply = api.get("/v1/skills/nope")
    assert reply.status_code == 404
    assert error_of(reply)["code"] == "not_found"


def test_skills_reload_shows_problems(api, api_engine):
    broken = api_engine.paths.skills_dir / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text('{"name": "memory_query", "command": "no-slash"}', encoding="utf-8")
    assert "broken" not in [s["folder"] for s in api.get("/v1/skills").json()["skills"]]
    skills = api.post("/v1/skills/reload").json()["skills"]
    entry = next(s for s in skills if s["folder"] == "broken")
    assert entry["valid"] is False
    fields = {p["field"] for p in entry["problems"] if p["severity"] == "error"}
    assert {"name", "command", "instruction"} <= fields
    assert all(set(p) == {"severity", "field", "message", "file", "line"} for p in entry["problems"])
    assert {p["file"] for p in entry["problems"]} == {"manifest.json", "instruction.md"}
    assert entry["format"] == "kiraos"
    assert api.get("/v1/skills/broken").json()["valid"] is False
    assert len(api.get("/v1/tools").json()["tools"]) == 9  # a broken skill is never a tool


def test_openapi_describes_every_route(api, api_engine):
    spec = api.get("/v1/openapi.json").json()
    assert spec["openapi"].startswith("3.")
    documented = {(path, method.upper()) for path, ops in spec["paths"].items() for method in ops}
    served = set()
    for route in create_app(api_engine, "t").router.routes:
        for method in route.methods - {"HEAD"}:
            served.add((route.path, method))
    assert documented == served
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            assert "200" in op["responses"] and "403" in op["responses"]
            assert ("401" in op["responses"]) == (path != "/v1/health")
            if method in ("post", "put") and "requestBody" in op:
                assert {"400", "413", "415"} <= set(op["responses"])
            params = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
            assert params == set(part[1:-1] for part in path.split("/") if part.startswith("{"))


def test_skill_md_skills_are_served_like_manifest_skills(api, api_engine):
    folder = api_engine.paths.skills_dir / "pdf-tools"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: pdf-tools\ndescription: Work with PDFs.\nextra: 1\n---\n# PDF\n",
                                     encoding="utf-8")
    entry = next(s for s in api.post("/v1/skills/reload").json()["skills"] if s["folder"] == "pdf-tools")
    assert entry["format"] == "agent" and entry["valid"] is False
    assert entry["problems"][0]["file"] == "SKILL.md" and entry["problems"][0]["line"] == 4
    (folder / "SKILL.md").write_text("---\nname: pdf-tools\ndescription: Work with PDFs.\n---\n# PDF\n",
                                     encoding="utf-8")
    api.post("/v1/skills/reload")
    tools = api.get("/v1/tools", params={"format": "mcp"}).json()["tools"]
    tool = next(t for t in tools if t["name"] == "pdf-tools")
    assert tool["description"] == "Work with PDFs." and set(tool["inputSchema"]["properties"]) == {"request", "file"}
    body = api.post("/v1/tools/pdf-tools", json={"user_id": "u1", "arguments": {"request": "merge"}}).json()
    assert body["is_error"] is False and body["content"].startswith('<skill name="pdf-tools">\n# PDF\n')


def test_skill_file_argument_over_http(api, api_engine):
    folder = api_engine.skills.get("tarot_reading").folder
    (folder / "references").mkdir()
    (folder / "references" / "cards.md").write_text("愚者\n", encoding="utf-8")
    tools = api.get("/v1/tools", params={"format": "anthropic"}).json()["tools"]
    tarot = [t for t in tools if t["name"] == "tarot_reading"][0]
    assert tarot["input_schema"]["properties"]["file"]["type"] == "string"
    body = api.post("/v1/tools/tarot_reading", json={"user_id": "u1", "arguments": {"file": "references/cards.md"}})
    assert body.json() == {"tool": "tarot_reading", "content": "愚者\n", "is_error": False}
    for path in ("../../settings.json", "%2e%2e/%2e%2e/settings.json", "/etc/passwd"):
        reply = api.post("/v1/tools/tarot_reading", json={"user_id": "u1", "arguments": {"file": path}})
        assert reply.status_code == 200 and reply.json()["is_error"] is True
    reply = api.post("/v1/tools/tarot_reading", json={"user_id": "u1", "arguments": {"file": ["x"]}})
    assert reply.status_code == 422
