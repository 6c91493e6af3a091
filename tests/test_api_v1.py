"""The /v1 routes for prompts: health, context, inject and slash commands, on a real server."""
from __future__ import annotations

import pytest

from api_helpers import anon, api, api_engine, api_server, error_of, remember  # noqa: F401
from kiraos_desktop import __version__
from kiraos_desktop.api.inject import SKILL_LINE_PREFIX, append_text, inject

ALL_SKILLS = ["daily_fortune", "emoji_interpret", "nickname_generator", "personality_test", "story_continue",
              "tarot_reading"]
SKILL_LINE = SKILL_LINE_PREFIX + ", ".join(ALL_SKILLS)


def test_health(api, api_engine):
    remember(api_engine, "u1", {"op": "set", "key": "昵称", "value": "小明"})
    assert api.get("/v1/health").json() == {"status": "ok", "version": __version__, "users": 1, "skills": 6}


def test_health_without_the_token_says_only_that_it_is_up(anon, api_engine):
    # Any local process may ask; how many users and skills the memory holds is not its business.
    remember(api_engine, "u1", {"op": "set", "key": "昵称", "value": "小明"})
    for headers in ({}, {"Authorization": "Bearer nope"}):
        assert anon.get("/v1/health", headers=headers).json() == {"status": "ok", "version": __version__}


def test_context_of_one_user(api, api_engine):
    remember(api_engine, "u1", {"op": "set", "key": "昵称", "value": "小明", "confidence": 0.9},
             {"op": "event", "value": "完成半马"})
    body = api.get("/v1/context", params={"user_id": "u1"}).json()
    assert set(body) == {"context", "users", "truncated"}
    assert body["users"] == ["u1"] and body["truncated"] is False
    assert body["context"] == api_engine.context.build(["u1"]).text
    assert body["context"].startswith("[u1:basic] 昵称=小明(✓)\n[u1:events] ")


def test_context_of_several_users_and_unknown_users(api, api_engine):
    remember(api_engine, "u1", {"op": "set", "key": "a", "value": "1"})
    remember(api_engine, "u2", {"op": "set", "key": "b", "value": "2"})
    body = api.get("/v1/context?user_id=u1&user_id=nobody&user_id=u2").json()
    assert body == {"context": "[u1:basic] a=1(?)\n[u2:basic] b=2(?)", "users": ["u1", "nobody", "u2"],
                    "truncated": False}
    assert api.get("/v1/context", params={"user_id": "nobody"}).json()["context"] == ""


def test_context_sees_every_write_at_once(api, api_engine):
    assert api.get("/v1/context", params={"user_id": "u1"}).json()["context"] == ""  # now cached
    remember(api_engine, "u1", {"op": "set", "key": "城市", "value": "北京"})
    assert api.get("/v1/context", params={"user_id": "u1"}).json()["context"] == "[u1:basic] 城市=北京(?)"
    api.post("/v1/tools/memory_update", json={"user_id": "u1", "arguments": {
        "operations": [{"op": "set", "key": "城市", "value": "上海"}]}})
    assert api.get("/v1/context", params={"user_id": "u1"}).json()["context"] == "[u1:basic] 城市=上海(?)"
    api_engine.store.clear_user("u1", actor="gui")
    assert api.get("/v1/context", params={"user_id": "u1"}).json()["context"] == ""


def test_context_truncates_whole_items_and_says_so(api, api_engine):
    remember(api_engine, "u1", *({"op": "set", "key": f"键{i}", "value": "值" * 10} for i in range(5)))
    full = api.get("/v1/context", params={"user_id": "u1", "max_chars": 0}).json()
    assert full["truncated"] is False and full["context"].count("键") == 5
    cut = api.get("/v1/context", params={"user_id": "u1", "max_chars": 50}).json()
    assert cut["truncated"] is True
    assert 0 < len(cut["context"]) <= 50 and full["context"].startswith(cut["context"])
    assert cut["context"].endswith(")")  # an item is never cut in the middle


def test_context_uses_the_settings_budget(api, api_engine):
    remember(api_engine, "u1", *({"op": "set", "key": f"k{i}", "value": "v" * 20} for i in range(5)))
    api_engine.update_settings(api_engine.settings.replace(max_context_chars=40))
    body = api.get("/v1/context", params={"user_id": "u1"}).json()
    assert body["truncated"] is True and len(body["context"]) <= 40


@pytest.mark.parametrize("query, field", [
    ("", "user_id"), ("user_id=", "user_id"), ("user_id=%20%20", "user_id"), ("user_id=" + "x" * 257, "user_id"),
    ("user_id=u1&max_chars=-1", "max_chars"), ("user_id=u1&max_chars=abc", "max_chars"),
    ("user_id=u1&max_chars=1&max_chars=2", "max_chars"), ("user_id=u1&max_chars=99999999", "max_chars"),
    ("user_id=u1&limit=3", "limit"), ("user_id=u1&token=x", "token"), ("user_id=%FF", "query"),
    ("&".join(f"user_id=u{i}" for i in range(101)), "user_id"),
])
def test_context_rejects_bad_queries(api, query, field):
    reply = api.get("/v1/context?" + query)
    assert reply.status_code == 422
    assert error_of(reply)["details"]["field"] == field


def test_context_accepts_escaped_user_ids(api, api_engine):
    remember(api_engine, "群 1/用户+x", {"op": "set", "key": "k", "value": "v"})
    reply = api.get("/v1/context", params={"user_id": "群 1/用户+x"})
    assert reply.json()["context"] == "[群 1/用户+x:basic] k=v(?)"


def test_inject_into_a_string(api, api_engine):
    remember(api_engine, "u1", {"op": "set", "key": "昵称", "value": "小明"})
    body = api.post("/v1/inject", json={"user_ids": ["u1"], "system": "你是助手。"}).json()
    assert body == {"system": "你是助手。\n[u1:basic] 昵称=小明(?)\n" + SKILL_LINE, "injected": True}


def test_inject_into_named_sections(api, api_engine):
    remember(api_engine, "u1", {"op": "set", "key": "昵称", "value": "小明"})
    system = [{"name": "persona", "content": "你是助手。"}, {"name": "memory", "content": "已知信息:\n"},
              {"name": "tools", "content": "可用工具"}, {"name": "tail", "content": "结束"}]
    body = api.post("/v1/inject", json={"user_ids": ["u1"], "system": system}).json()
    assert body["injected"] is True
    assert body["system"] == [{"name": "persona", "content": "你是助手。"},
                              {"name": "memory", "content": "已知信息:\n[u1:basic] 昵称=小明(?)"},
                              {"name": "tools", "content": "可用工具\n" + SKILL_LINE},
                              {"name": "tail", "content": "结束"}]


def test_inject_without_named_sections_appends_to_the_last(api, api_engine):
    remember(api_engine, "u1", {"op": "set", "key": "k", "value": "v"})
    system = [{"name": "a", "content": "A"}, {"name": "b", "content": "B"}]
    body = api.post("/v1/inject", json={"user_ids": ["u1"], "system": system}).json()
    assert body["system"] == [{"name": "a", "content": "A"},
                              {"name": "b", "content": "B\n[u1:basic] k=v(?)\n" + SKILL_LINE}]
    body = api.post("/v1/inject", json={"user_ids": ["u1"], "system": []}).json()
    assert body["system"] == [{"name": "memory", "content": "[u1:basic] k=v(?)\n" + SKILL_LINE}]


def test_inject_with_nothing_to_add(api, api_engine):
    api_engine.update_settings(api_engine.settings.replace(disabled_skills=ALL_SKILLS))
    body = api.post("/v1/inject", json={"user_ids": ["nobody"], "system": "hi"}).json()
    assert body == {"system": "hi", "injected": False}
    body = api.post("/v1/inject", json={"user_ids": [], "system": [{"name": "memory", "content": ""}]}).json()
    assert body == {"system": [{"name": "memory", "content": ""}], "injected": False}


def test_inject_skill_line_lists_only_enabled_skills(api, api_engine):
    api_engine.update_settings(api_engine.settings.replace(disabled_skills=ALL_SKILLS[1:]))
    body = api.post("/v1/inject", json={"user_ids": [], "system": ""}).json()
    assert body == {"system": SKILL_LINE_PREFIX + "daily_fortune", "injected": True}


@pytest.mark.parametrize("body, field", [
    ({"system": "x"}, "user_ids"), ({"user_ids": ["u1"]}, "system"), ({"user_ids": "u1", "system": "x"}, "user_ids"),
    ({"user_ids": [" "], "system": "x"}, "user_ids.0"), ({"user_ids": [], "system": [{"name": "a"}]}, "system.0.content"),
    ({"user_ids": [], "system": 3}, "system"), ([], "body"),
])
def test_inject_rejects_bad_bodies(api, body, field):
    reply = api.post("/v1/inject", json=body)
    assert reply.status_code == 422
    assert error_of(reply)["details"]["field"] == field


def test_inject_helpers():
    assert append_text("", "m") == "m" and append_text("a\n", "m") == "a\nm" and append_text("a", "m") == "a\nm"
    assert inject("x", "", []) == ("x", False)


def test_commands_are_off_by_default(api):
    reply = api.post("/v1/commands", json={"user_id": "u1", "text": "/tarot 面试顺利吗"})
    assert reply.json() == {"matched": False}


def test_commands_match_enabled_skills(api, api_engine):
    api_engine.update_settings(api_engine.settings.replace(enable_slash_commands=True))
    reply = api.post("/v1/commands", json={"user_id": "u1", "text": "/tarot 面试顺利吗"})
    assert reply.json() == {"matched": True, "skill": "tarot_reading", "command": "/tarot",
                            "args_text": "面试顺利吗", "rewritten": "[用户使用了技能命令 /tarot] 面试顺利吗"}
    assert api.post("/v1/commands", json={"user_id": "u1", "text": "你好"}).json() == {"matched": False}
    assert api.post("/v1/commands", json={"user_id": "u1", "text": "/nope x"}).json() == {"matched": False}
    api_engine.update_settings(api_engine.settings.replace(disabled_skills=["tarot_reading"]))
    assert api.post("/v1/commands", json={"user_id": "u1", "text": "/tarot x"}).json() == {"matched": False}


@pytest.mark.parametrize("body, field", [({"text": "/tarot"}, "user_id"), ({"user_id": "u1"}, "text"),
                                         ({"user_id": "", "text": "x"}, "user_id"),
                                         ({"user_id": "u1", "text": 5}, "text")])
def test_commands_reject_bad_bodies(api, body, field):
    reply = api.post("/v1/commands", json=body)
    assert reply.status_code == 422
    assert error_of(reply)["details"]["field"] == field
