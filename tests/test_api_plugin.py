"""The plugin WebUI's /api routes: same paths and shapes, validated, audited as actor `api`."""
from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta

import pytest

from api_helpers import api, api_engine, api_server, plugin_error_of, remember  # noqa: F401


def actors(engine, user_id):
    return {c.actor for c in engine.store.list_changes(user_id=user_id)}


def test_stats_and_users(api, api_engine):
    assert api.get("/api/stats").json() == {"total_users": 0, "total_profiles": 0, "total_events": 0}
    assert api.get("/api/users").json() == []
    remember(api_engine, "u2", {"op": "set", "key": "a", "value": "1"}, {"op": "event", "value": "e"})
    remember(api_engine, "u1", {"op": "set", "key": "a", "value": "1"}, {"op": "set", "key": "b", "value": "2"})
    assert api.get("/api/stats").json() == {"total_users": 2, "total_profiles": 3, "total_events": 1}
    assert api.get("/api/users").json() == [{"user_id": "u1", "profile_count": 2, "event_count": 0},
                                            {"user_id": "u2", "profile_count": 1, "event_count": 1}]


def test_user_detail_includes_expired_entries_and_the_newest_200_events(api, api_engine):
    store = api_engine.store
    store.set_profile("u1", "城市", "北京", actor="gui", confidence=0.9, category="basic")
    store.set_profile("u1", "旧", "x", actor="gui", expires_at="2000-01-01T00:00:00")
    api_engine.update_settings(api_engine.settings.replace(max_event_keep=0))
    start = datetime(2025, 1, 1)
    with store.batch("gui") as batch:
        for i in range(205):
            batch.add_event("u1", f"事件{i}", created_at=(start + timedelta(minutes=i)).isoformat())
    body = api.get("/api/users/u1").json()
    assert set(body) == {"user_id", "profiles", "events"} and body["user_id"] == "u1"
    assert {p["key"] for p in body["profiles"]} == {"城市", "旧"}
    city = next(p for p in body["profiles"] if p["key"] == "城市")
    assert city == {"key": "城市", "value": "北京", "updated_at": city["updated_at"], "confidence": 0.9,
                    "category": "basic", "expires_at": None}
    assert len(body["events"]) == 200
    assert body["events"][0]["event_summary"] == "事件204" and body["events"][-1]["event_summary"] == "事件5"
    assert set(body["events"][0]) == {"id", "event_summary", "created_at"}


def test_unknown_user_detail_is_empty(api):
    assert api.get("/api/users/nobody").json() == {"user_id": "nobody", "profiles": [], "events": []}


def test_put_profile(api, api_engine):
    reply = api.put("/api/users/u1/profiles/城市", json={"value": "北京", "confidence": 0.9, "category": "basic",
                                                        "expires_at": "2999-01-31"})
    assert reply.json() == {"ok": True, "key": "城市", "value": "北京"}
    entry = api_engine.store.get_profile("u1", "城市")
    assert (entry.value, entry.confidence, entry.category, entry.expires_at) == ("北京", 0.9, "basic",
                                                                                 "2999-01-31T00:00:00")
    reply = api.put("/api/users/u1/profiles/城市", json={"value": "上海"})
    assert reply.json() == {"ok": True, "key": "城市", "value": "上海"}
    entry = api_engine.store.get_profile("u1", "城市")
    assert (entry.confidence, entry.category, entry.expires_at) == (0.5, "basic", None)
    assert actors(api_engine, "u1") == {"api"}
    assert "城市=上海" in api.get("/v1/context", params={"user_id": "u1"}).json()["context"]


@pytest.mark.parametrize("body, word", [
    ({"value": "v", "expires_at": "next week"}, "expires_at"), ({"value": "v", "expires_at": 5}, "expires_at"),
    ({"value": "v", "confidence": 1.5}, "confidence"), ({"value": "v", "category": "misc"}, "category"),
    ({"value": ""}, "value"), ({"value": "   "}, "value"), ({}, "value"), ({"value": None}, "value"),
    ({"value": "v", "ttl": "7d"}, "ttl"),
])
def test_put_profile_validates(api, api_engine, body, word):
    reply = api.put("/api/users/u1/profiles/k", json=body)
    assert reply.status_code == 400
    assert word in plugin_error_of(reply)
    assert api_engine.store.get_profile("u1", "k") is None


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1" + "0" * 400 + ".0"])
def test_put_profile_refuses_a_number_beyond_a_double_as_value(api, api_engine, number):
    """Python reads such a JSON number as an infinity: it was stored as the text "inf"."""
    reply = api.put("/api/users/u1/profiles/k", content=f'{{"value": {number}}}',
                    headers={"Content-Type": "application/json"})
    assert reply.status_code == 400 and plugin_error_of(reply).startswith("value: "), reply.text
    assert api_engine.store.get_profile("u1", "k") is None
    reply = api.put("/api/users/u1/profiles/k", content='{"value": 1e300}', headers={"Content-Type": "application/json"})
    assert reply.json()["value"] == "1e+300"


def test_put_profile_respects_the_profile_limit(api, api_engine):
    api_engine.update_settings(api_engine.settings.replace(max_profiles_per_user=2))
    assert api.put("/api/users/u1/profiles/a", json={"value": "1"}).status_code == 200
    assert api.put("/api/users/u1/profiles/b", json={"value": "2"}).status_code == 200
    reply = api.put("/api/users/u1/profiles/c", json={"value": "3"})
    assert reply.status_code == 400
    assert "limit" in plugin_error_of(reply)
    assert api.put("/api/users/u1/profiles/a", json={"value": "changed"}).status_code == 200  # update, not new
    assert api_engine.store.get_profile("u1", "c") is None


def test_put_profile_rejects_a_blank_key_and_user(api):
    assert api.put("/api/users/u1/profiles/%20", json={"value": "v"}).status_code == 400
    assert api.put("/api/users/%20/profiles/k", json={"value": "v"}).status_code == 400


def test_delete_profile(api, api_engine):
    remember(api_engine, "u1", {"op": "set", "key": "a", "value": "1"})
    assert api.delete("/api/users/u1/profiles/a").json() == {"ok": True}
    reply = api.delete("/api/users/u1/profiles/a")
    assert reply.status_code == 404
    plugin_error_of(reply)
    assert "api" in actors(api_engine, "u1")


def test_add_event(api, api_engine):
    assert api.post("/api/users/u1/events", json={"event_summary": "完成半马"}).json() == {"ok": True}
    events = api_engine.store.get_events("u1")
    assert [e.summary for e in events] == ["完成半马"]
    assert actors(api_engine, "u1") == {"api"}


@pytest.mark.parametrize("body", [{"event_summary": "x" * 1001}, {"event_summary": ""}, {"event_summary": 3},
                                  {}, {"event_summary": "ok", "when": "now"}])
def test_add_event_validates(api, api_engine, body):
    reply = api.post("/api/users/u1/events", json=body)
    assert reply.status_code == 400
    plugin_error_of(reply)
    assert api_engine.store.get_events("u1") == []


def test_event_of_exactly_1000_characters_is_stored(api, api_engine):
    assert api.post("/api/users/u1/events", json={"event_summary": "长" * 1000}).status_code == 200


def test_update_and_delete_events(api, api_engine):
    own = api_engine.store.add_event("u1", "旧", actor="gui")
    other = api_engine.store.add_event("u2", "别人的", actor="gui")
    assert api.put(f"/api/users/u1/events/{own}", json={"event_summary": "新"}).json() == {"ok": True}
    assert api_engine.store.get_event(own).summary == "新"
    for path in (f"/api/users/u1/events/{other}", "/api/users/u1/events/999999", "/api/users/u1/events/abc",
                 "/api/users/u1/events/99999999999999999999999"):
        reply = api.put(path, json={"event_summary": "x"})
        assert reply.status_code == 404, path
        plugin_error_of(reply)
        assert api.delete(path).status_code == 404
    assert api_engine.store.get_event(other).summary == "别人的"
    reply = api.put(f"/api/users/u1/events/{own}", json={"event_summary": "y" * 1001})
    assert reply.status_code == 400
    assert api.delete(f"/api/users/u1/events/{own}").json() == {"ok": True}
    assert api_engine.store.get_event(own) is None
    assert actors(api_engine, "u1") == {"gui", "api"}


def test_clear_user(api, api_engine):
    remember(api_engine, "u1", {"op": "set", "key": "a", "value": "1"}, {"op": "set", "key": "b", "value": "2"},
             {"op": "event", "value": "e"})
    assert api.get("/v1/context", params={"user_id": "u1"}).json()["context"]
    assert api.delete("/api/users/u1").json() == {"ok": True, "profiles_deleted": 2, "events_deleted": 1}
    assert api.delete("/api/users/u1").json() == {"ok": True, "profiles_deleted": 0, "events_deleted": 0}
    assert api.get("/v1/context", params={"user_id": "u1"}).json()["context"] == ""
    assert api_engine.store.list_changes(user_id="u1")[0].actor == "api"


def test_plugin_errors_keep_the_plugin_shape(api):
    reply = api.put("/api/users/u1/profiles/k", content=b"{", headers={"Content-Type": "application/json"})
    assert reply.status_code == 400
    plugin_error_of(reply)
    reply = api.get("/api/nowhere")
    assert reply.status_code == 404
    plugin_error_of(reply)


@pytest.mark.parametrize("confidence", ["high", "", float("inf"), float("-inf"), b"\x00"])
def test_an_entry_another_program_wrote_with_a_confidence_that_is_no_number_is_read(api, api_engine, confidence):
    """SQLite keeps text (a plugin storing an LLM's "high") or an infinity in the REAL column as it is:
    every read and write of the user was a 500 (float() of the text, or JSON refusing the infinity)."""
    with sqlite3.connect(api_engine.paths.db_path, timeout=10) as conn:
        conn.execute("INSERT INTO user_profiles VALUES ('ext', '城市', '杭州', '2026-01-01T00:00:00', ?, 'basic', NULL)",
                     (confidence,))
        conn.execute("INSERT INTO user_profiles VALUES ('ext', '昵称', '小明', '2026-01-02T00:00:00', 0.9, 'basic', NULL)")
    assert api.get("/v1/context", params={"user_id": "ext"}).json()["context"] == "[ext:basic] 昵称=小明(✓) | 城市=杭州(?)"
    detail = api.get("/api/users/ext")
    assert detail.status_code == 200 and [p["confidence"] for p in detail.json()["profiles"]] == [0.9, 0.5]
    reply = api.post("/v1/tools/memory_query", json={"user_id": "ext"})
    assert reply.status_code == 200 and "城市 = 杭州  [置信度:0.5]" in reply.json()["content"]
    reply = api.post("/v1/tools/memory_update", json={"user_id": "ext", "arguments": {"operations": [
        {"op": "set", "key": "城市", "value": "上海", "confidence": 0.8}]}})
    assert reply.status_code == 200 and "updated 城市=上海" in reply.json()["content"], reply.text
    assert api.delete("/api/users/ext/profiles/昵称").status_code == 200


def test_times_stored_as_numbers_never_give_a_5xx(api, api_engine):
    """Another writer (a 2.x plugin, a script) stored times as epoch numbers, text that is no time
    and NULL: every route that shows the user answers."""
    conn = sqlite3.connect(api_engine.store.path, timeout=10)
    later = int((datetime.now() + timedelta(days=1)).timestamp())
    conn.execute("INSERT INTO user_profiles VALUES ('n1', '城市', '北京', 1767225600, 0.9, 'basic', ?)", (later,))
    conn.execute("INSERT INTO user_profiles VALUES ('n1', '旧', 'x', 'soon', 0.9, 'basic', 1000)")
    for stamp in (1767225600, 1767225600.25, "not a time", None):
        conn.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES ('n1', '完成半马', ?)", (stamp,))
    conn.commit()
    conn.close()
    api_engine.store.poll_external_change()
    context = api.get("/v1/context", params={"user_id": "n1", "query": "半马"})
    assert context.status_code == 200 and "城市=北京" in context.json()["context"] and "旧" not in context.json()["context"]
    query = api.post("/v1/tools/memory_query", json={"user_id": "n1", "arguments": {}})
    assert query.status_code == 200 and "城市 = 北京" in query.text
    detail = api.get("/api/users/n1")
    assert detail.status_code == 200
    assert {e["created_at"] for e in detail.json()["events"]} >= {datetime.fromtimestamp(1767225600).isoformat()}
    assert api.get("/api/users", params={"search": "n1"}).status_code == 200
