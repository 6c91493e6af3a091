"""memory_update / memory_query / memory_clear: the plugin's exact texts and the fixes of DESIGN §4."""
from datetime import datetime, timedelta

import pytest

from core_helpers import make_engine
from store_backends import SQLITE_ONLY

pytestmark = pytest.mark.usefixtures("engine_backend")  # every test on SQLite and PostgreSQL


def update(engine, ops, user="u1"):
    return engine.memory_tools.update(user, ops, actor="tool")


def test_update_reply_matches_the_plugin(engine):
    reply = update(engine, [
        {"op": "set", "key": "昵称", "value": "小明", "category": "basic", "confidence": 0.9},
        {"op": "set", "key": "城市", "value": "北京", "category": "basic", "confidence": 0.8},
        {"op": "event", "value": "完成半马"},
    ])
    assert reply == ("已完成 3 项记忆操作: set 昵称=小明 [basic]; set 城市=北京 [basic]; event: 完成半马"
                     "\n当前画像: 昵称=小明, 城市=北京")


def test_updated_ttl_delete_and_skip_texts(engine):
    update(engine, [{"op": "set", "key": "城市", "value": "北京"}])
    reply = update(engine, [
        {"op": "set", "key": "城市", "value": "上海", "category": "basic"},
        {"op": "set", "key": "最近在减肥", "value": "是", "category": "other", "ttl": "30d"},
        {"op": "set", "key": "x", "value": "y", "ttl": "forever"},
        {"op": "del", "key": "不存在"},
        {"op": "del", "key": "城市"},
        {"op": "jump"},
        {"op": "set", "key": "只有键"},
    ])
    parts = reply.split("\n")[0].split(": ", 1)[1].split("; ")
    assert parts[0] == "updated 城市=上海 [basic]"
    assert parts[1] == "set 最近在减肥=是 [other] (expires: 30d)"
    assert parts[2].startswith("skip: set x: 无效的 ttl \"forever\"") and "30m, 12h, 7d, 2w, 1d12h" in parts[2]
    assert parts[3:] == ["del 不存在: not found", "del 城市: ok", "skip: 未知操作 \"jump\"（可用: set, event, del）",
                         "skip: set 缺少 key 或 value"]
    assert reply.startswith("已完成 3 项记忆操作: ")
    # the plugin kept a bad TTL as "never expires"; we refuse it and store nothing
    assert engine.store.get_profile("u1", "x") is None


def test_ttl_sets_an_expiry(engine):
    update(engine, [{"op": "set", "key": "考试", "value": "是", "ttl": "1d12h"}])
    expires = datetime.fromisoformat(engine.store.get_profile("u1", "考试").expires_at)
    assert timedelta(hours=35, minutes=59) < expires - datetime.now() <= timedelta(hours=36)


def test_profile_limit_is_a_skip_and_counts_only_unexpired(data_dir):
    engine = make_engine(data_dir, max_profiles_per_user=2)
    engine.store.set_profile("u1", "old", "x", actor="gui", expires_at="2000-01-01T00:00:00")
    reply = update(engine, [{"op": "set", "key": f"k{i}", "value": "v"} for i in range(3)])
    assert reply.split("\n")[0] == ("已完成 2 项记忆操作: set k0=v [basic]; set k1=v [basic]; "
                                    "skip: set k2: 画像已达上限（2 条）")
    engine.close()


def test_an_expired_key_is_set_anew_and_counts_against_the_limit(data_dir):
    engine = make_engine(data_dir, max_profiles_per_user=2)
    engine.store.set_profile("u1", "old", "x", actor="gui", expires_at="2000-01-01T00:00:00")
    engine.store.set_profile("u1", "live", "y", actor="gui")
    assert update(engine, [{"op": "set", "key": "old", "value": "again"}]).startswith(
        "已完成 1 项记忆操作: set old=again [basic]")  # "set", not "updated": the entry had expired
    engine.store.set_profile("u1", "old", "x", actor="gui", expires_at="2000-01-01T00:00:00")
    engine.store.set_profile("u1", "third", "z", actor="gui")  # two unexpired entries: the limit
    reply = update(engine, [{"op": "set", "key": "old", "value": "again"}, {"op": "set", "key": "live", "value": "w"}])
    assert reply.split("\n")[0] == ("已完成 1 项记忆操作: skip: set old: 画像已达上限（2 条）; "
                                    "updated live=w [basic]")
    engine.close()


def test_echo_is_sanitised(engine):
    reply = update(engine, [{"op": "set", "key": "名<字>", "value": "a\nb</skill>"},
                            {"op": "event", "value": "x\r\n<context>"}])
    assert "<" not in reply and ">" not in reply
    assert reply.count("\n") == 1  # only the line before 当前画像
    assert "名＜字＞=a b＜/skill＞" in reply


def test_summary_shows_five_and_counts_the_rest(engine):
    update(engine, [{"op": "set", "key": f"k{i}", "value": str(i), "confidence": 0.9 - i / 100} for i in range(8)])
    reply = update(engine, [{"op": "event", "value": "e"}])
    assert reply.endswith("\n当前画像: k0=0, k1=1, k2=2, k3=3, k4=4 (+3)")


def test_all_operations_share_one_transaction(engine, monkeypatch):
    from kiraos_desktop.core.storage import sql_write_batch as write_batch

    calls = {"n": 0}
    original = write_batch.WriteBatch.add_event

    def failing(self, *args, **kwargs):
        calls["n"] += 1
        raise OSError("disk full")

    monkeypatch.setattr(write_batch.WriteBatch, "add_event", failing)
    with pytest.raises(OSError):
        update(engine, [{"op": "set", "key": "a", "value": "1"}, {"op": "event", "value": "boom"}])
    monkeypatch.setattr(write_batch.WriteBatch, "add_event", original)
    assert calls["n"] == 1
    assert engine.store.get_profile("u1", "a") is None  # the set before the failure was rolled back


def test_query_dump_and_empty_text(engine):
    assert engine.memory_tools.query("nobody") == "该用户暂无记忆数据。"
    engine.store.set_profile("u1", "昵称", "小明", actor="gui", confidence=0.9)
    engine.store.set_profile("u1", "城市", "北京", actor="gui", confidence=0.8, expires_at="2099-01-01T00:00:00")
    engine.store.set_profile("u1", "喜欢猫", "是", actor="gui", category="preference", confidence=0.6)
    engine.store.set_profile("u1", "旧", "x", actor="gui", expires_at="2001-01-01T00:00:00")
    engine.store.add_event("u1", "完成半马", actor="gui", created_at="2025-03-01T09:00:00")
    assert engine.memory_tools.query("u1") == (
        "【用户画像】\n"
        "  [basic]\n"
        "    昵称 = 小明  [置信度:0.9]\n"
        "    城市 = 北京  [置信度:0.8] (过期: 2099-01-01)\n"
        "  [preference]\n"
        "    喜欢猫 = 是  [置信度:0.6]\n"
        "【近期事件】\n"
        "  2025-03-01 完成半马")


def test_query_limits_events_to_setting(data_dir):
    engine = make_engine(data_dir, max_events_per_user=2)
    for i in range(4):
        engine.store.add_event("u1", f"e{i}", actor="gui", created_at=f"2025-01-0{i + 1}T00:00:00")
    assert engine.memory_tools.query("u1") == "【近期事件】\n  2025-01-04 e3\n  2025-01-03 e2"
    engine.close()


def test_clear_reply(engine):
    update(engine, [{"op": "set", "key": "a", "value": "1"}, {"op": "set", "key": "b", "value": "2"},
                    {"op": "event", "value": "e"}])
    assert engine.memory_tools.clear("u1") == "已清除全部记忆: 删除了 2 条画像和 1 条事件记录。"
    assert engine.memory_tools.query("u1") == "该用户暂无记忆数据。"


@pytest.mark.parametrize("variables", [
    {"done": 0, "results": [], "summary": [], "more": 0},
    {"done": 2, "results": ["set a=b [basic]", "skip: x"], "summary": ["a=b"], "more": 0},
    {"done": 1, "results": ["event: e"], "summary": ["k=v"] * 5, "more": 7},
])
def test_the_hot_render_of_the_update_reply_is_the_plain_render(variables):
    from kiraos_desktop.core.templates import render_hot, template

    assert render_hot("memory_update.j2", **variables) == template("memory_update.j2").render(**variables)


def test_the_hot_render_reports_a_missing_variable():
    import jinja2

    from kiraos_desktop.core.templates import render_hot

    with pytest.raises(jinja2.UndefinedError, match="done"):
        render_hot("memory_update.j2", results=[], summary=[], more=0)


def test_an_update_that_stores_nothing_because_of_refusals_is_an_error_result(engine):
    """A host must be able to tell that nothing was stored: every operation refused is is_error, with
    what was skipped listed; a repeat or a del of a missing key refuses nothing (the memory already is
    as asked), and one stored operation makes the call a success that still lists the skips."""
    call = engine.tools.call
    refused = call("memory_update", "u1", {"operations": [{"op": "set", "key": "k"}, {"op": "fly"}]})
    assert refused.is_error and refused.content.startswith("已完成 0 项记忆操作: skip: set 缺少 key 或 value; skip: 未知操作")
    assert engine.store.get_profiles("u1") == []
    stored = call("memory_update", "u1", {"operations": [{"op": "event", "value": "跑了半马"}, {"op": "fly"}]})
    assert not stored.is_error and "event: 跑了半马; skip: 未知操作" in stored.content
    unchanged = call("memory_update", "u1", {"operations": [{"op": "event", "value": "跑了半马"},
                                                            {"op": "del", "key": "nothing"}]})
    assert not unchanged.is_error and "event (repeat)" in unchanged.content and "not found" in unchanged.content
    assert call("memory_update", "u1", {"operations": []}).is_error is False  # nothing asked, nothing refused
