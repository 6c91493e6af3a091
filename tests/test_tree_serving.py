"""A KiraOS 3.x tree served to a second bot host: /v1/context, memory_query and the command line give
the plugin's injection for the user (ids in the plugin's `{adapter}:{id}` form); writes are refused
with a clear message and change nothing."""
from __future__ import annotations

import json

import httpx
import pytest

from api_helpers import AUTH, TOKEN
from cli_helpers import run
from kiraos_desktop.api.server import ApiServer
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.storage.tree.layout import EntityRef
from kiraos_desktop.core.context.tree import fit_lines
from kiraos_desktop.core.tools.tree_tools import NO_MEMORY
from kiraos_desktop.core.memory.records import ReadOnlyData
from tree_fixtures import build_tree, write_index

XIAOMING = "qq:10001"


@pytest.fixture
def kira(tmp_path):
    root = build_tree(tmp_path / "kira")
    write_index(root / "memory", [
        {"id": "learning_guitar", "entity_id": XIAOMING, "text": "小明最近在学吉他", "importance": 7,
         "tags": ["hobby"], "last_accessed": 1.7e9},
        {"id": "hates_css", "entity_id": XIAOMING, "text": "User hates writing CSS", "importance": 3,
         "last_accessed": 1.7e9},
    ])
    return root


def tree_files(root):
    return {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def engine(kira, tmp_path):
    engine = Engine.open(kira_data=kira)
    yield engine
    engine.close()


def test_a_3x_folder_opens_read_only_and_nothing_is_written_into_it(kira, engine):
    before = tree_files(kira)
    assert engine.store.layout.name == "3.x" and engine.store.local_file is None
    assert engine.store.count_users() == 5 and XIAOMING in engine.store.all_user_ids()
    assert {e.key: e.value for e in engine.store.get_profiles(XIAOMING)}["traits"] == '["爱猫"]'
    assert [e.summary for e in engine.store.get_events(XIAOMING)][0] in {"小明最近在学吉他", "User hates writing CSS",
                                                                         "他经常深夜聊天，作息不规律"}
    with pytest.raises(ReadOnlyData) as refused:
        engine.store.set_profile(XIAOMING, "city", "Paris", actor="gui")
    assert "3.x" in str(refused.value) and "nothing was changed" in str(refused.value)
    assert tree_files(kira) == before and not (kira / "memory" / "kiraos.db").exists()


def test_the_context_is_the_plugins_injection(engine):
    expected = engine.store.tree.injection(EntityRef("user", XIAOMING), "吉他").text
    assert "小明最近在学吉他" in expected and expected.startswith("[用户 qq:10001 画像]")
    assert engine.context.build([XIAOMING], query="吉他").text == expected
    assert engine.tools.call("memory_query", XIAOMING, {"query": "吉他"}).content == expected
    assert engine.tools.call("memory_query", "qq:nobody", {}).content == NO_MEMORY
    assert engine.context.build(["qq:nobody"]).text == ""


def profile_of(kira, user_id=XIAOMING):
    from urllib.parse import quote

    return json.loads((kira / "memory" / "entities" / f"user_{quote(user_id, safe='-._~')}" / "profile.json")
                      .read_text(encoding="utf-8"))


def test_memory_update_maps_as_the_plugins_migration_and_the_operator_can_revert_it(kira, engine):
    from kiraos_desktop.core.storage.tree.editor import TreeEditor
    from kiraos_desktop.core.storage.tree.journal import TreeJournal, journal_path

    before = tree_files(kira)
    result = engine.tools.call("memory_update", XIAOMING, {"operations": [
        {"op": "set", "key": "昵称", "value": "阿明"},
        {"op": "set", "key": "饮料", "value": "咖啡", "category": "preference"},
        {"op": "set", "key": "qq:10003", "value": "室友", "category": "social"},
        {"op": "set", "key": "城市", "value": "杭州"},
        {"op": "set", "key": "城市", "value": "上海", "ttl": "7d"},
        {"op": "set", "key": "血型", "value": "O", "category": "other"},
        {"op": "event", "value": "小明考过了驾照", "tag": "milestone"},
        {"op": "del", "key": "不存在的"},
        {"op": "set", "key": "x", "value": "y", "category": "bogus"}]})
    assert not result.is_error
    assert result.content.startswith("已完成 7 项记忆操作: set 昵称=阿明 [basic]; ")
    assert "set 城市=上海 [basic]（3.x 记忆无有效期：ttl 未保存）" in result.content
    assert "del 不存在的: not found" in result.content and "skip: set x: 无效的分类" in result.content
    profile = profile_of(kira)
    assert profile["nickname"] == "阿明" and profile["preferences"] == {"饮料": "咖啡"}
    assert profile["relationships"] == {"qq:10002": "同事", "qq:10003": "室友"}
    assert profile["traits"] == ["爱猫", "城市: 上海"] and profile["facts"] == ["血型: O"]
    found = engine.context.build([XIAOMING], query="驾照").text
    assert "- [fact] [milestone] 小明考过了驾照" in found  # recalled at once, as the running plugin would
    journal = TreeJournal(journal_path(engine.paths.data_dir, engine.store.tree.root))
    entries = journal.entries()
    assert [e.actor for e in entries] == ["tool"] * 7
    editor = TreeEditor(engine.store.tree.root)
    for entry in reversed(entries):  # the operator undoes the bot host's writes
        editor.revert(entry.change)
    assert tree_files(kira) == {k: v for k, v in before.items()} | {
        k: v for k, v in tree_files(kira).items() if k.name.startswith("memory_index.db")}
    removed = engine.tools.call("memory_update", XIAOMING, {"operations": [{"op": "del", "key": "nickname"}]})
    assert "del nickname: ok" in removed.content and profile_of(kira)["nickname"] == ""
    nobody = engine.tools.call("memory_update", "qq:nobody", {"operations": [{"op": "event", "value": "x"}]})
    assert nobody.is_error and "没有该用户" in nobody.content


def test_a_block_cut_to_its_budget_ends_at_a_line():
    text, cut = fit_lines("first line\nsecond line", 15)
    assert (text, cut) == ("first line", True)
    assert fit_lines("short", 0) == ("short", False)


def test_the_api_serves_the_tree(kira, engine):
    before = tree_files(kira)
    server = ApiServer(engine, "127.0.0.1", 0, TOKEN)
    server.start()
    try:
        with httpx.Client(base_url=server.url, headers=AUTH, timeout=30) as api:
            expected = engine.context.build([XIAOMING], query="吉他").text
            body = api.get("/v1/context", params={"user_id": XIAOMING, "query": "吉他"}).json()
            assert body == {"context": expected, "users": [XIAOMING], "truncated": False}
            plain = api.get("/v1/context", params={"user_id": XIAOMING}).json()["context"]
            assert plain.startswith("[用户 qq:10001 画像]") and "[相关记忆]" not in plain
            cut = api.get("/v1/context", params={"user_id": XIAOMING, "query": "吉他", "max_chars": 40}).json()
            assert cut["truncated"] is True and len(cut["context"]) <= 40
            queried = api.post("/v1/tools/memory_query", json={"user_id": XIAOMING, "arguments": {"query": "吉他"}})
            assert queried.status_code == 200 and queried.json()["content"] == expected
            update = api.post("/v1/tools/memory_update", json={"user_id": XIAOMING, "arguments": {
                "operations": [{"op": "event", "value": "小明下周去上海"}]}})
            assert update.status_code == 200 and update.json()["is_error"] is False
            assert update.json()["content"].startswith("已完成 1 项记忆操作: event: 小明下周去上海")
            later = api.get("/v1/context", params={"user_id": XIAOMING, "query": "上海"}).json()["context"]
            assert "小明下周去上海" in later
            plugin_write = api.put(f"/api/users/{XIAOMING}/profiles/k", json={"value": "v"})
            assert plugin_write.status_code == 409 and "3.x" in plugin_write.json()["error"]
            assert api.get("/v1/health").json()["users"] == 5
    finally:
        server.stop()
    changed = {k for k, v in tree_files(kira).items() if before.get(k) != v}
    assert all(k.name.startswith("memory_index.db") or k.parent.name == "facts" for k in changed)


def test_the_command_line_context_on_a_tree(kira, tmp_path, capsys):
    code, out, err = run(capsys, "context", "--kira-data", str(kira), "--user", XIAOMING, "--query", "吉他", "--json")
    assert code == 0, err
    assert "小明最近在学吉他" in json.loads(out)["context"]


def test_an_import_into_a_tree_is_refused_in_one_line(kira, tmp_path, capsys):
    before = tree_files(kira)
    data = tmp_path / "export.json"
    data.write_text(json.dumps({"format": "kiraos-desktop-export", "version": 1, "users": [
        {"user_id": "u1", "profiles": [{"key": "k", "value": "v"}], "events": []}]}), encoding="utf-8")
    code, out, err = run(capsys, "import", str(data), "--kira-data", str(kira))
    assert code == 2 and "3.x" in err and "nothing was changed" in err and len(err.strip().splitlines()) == 1
    assert tree_files(kira) == before


def test_mcp_serves_the_tree(kira, engine):
    import anyio

    from mcp_helpers import http_client, text_of

    server = ApiServer(engine, "127.0.0.1", 0, TOKEN)
    server.start()

    async def go():
        async with http_client(server.url) as client:
            queried = await client.call_tool("memory_query", {"user_id": XIAOMING, "query": "吉他"})
            written = await client.call_tool("memory_update", {"user_id": XIAOMING,
                                                               "operations": [{"op": "event", "value": "小明养了鹦鹉"}]})
            return queried, written

    try:
        queried, written = anyio.run(go)
    finally:
        server.stop()
    assert text_of(queried) == engine.context.build([XIAOMING], query="吉他").text
    assert not written.is_error and "event: 小明养了鹦鹉" in text_of(written)


def test_memory_clear_archives_every_memory_of_the_user_in_one_revertable_change(kira, engine):
    """Issue 50: memory_clear on 3.x answered that this version reads but does not write 3.x data.
    It now archives the user's memories as the plugin archives one: the bot stops recalling them,
    the profile stays, and one revert of the history brings every file and index row back."""
    from kiraos_desktop.core.storage.tree.editor import TreeEditor
    from kiraos_desktop.core.storage.tree.journal import TreeJournal, journal_path

    def state():
        import sqlite3

        files = {k: v for k, v in tree_files(kira).items() if not k.name.startswith("memory_index.db")}
        conn = sqlite3.connect(kira / "memory" / "memory_index.db")
        try:
            rows = sorted(map(repr, conn.execute("SELECT * FROM memories")))
            fts = sorted(map(repr, conn.execute("SELECT * FROM memories_fts")))
        finally:
            conn.close()
        return files, rows, fts

    before = state()
    shown = engine.store.tree.entity(EntityRef("user", XIAOMING))
    count = sum(len(folder) for folder in shown.memories.values())
    assert count >= 2 and "小明最近在学吉他" in engine.context.build([XIAOMING], query="吉他").text
    reply = engine.tools.call("memory_clear", XIAOMING, {})
    assert not reply.is_error and reply.content.startswith(f"已归档该用户的全部 {count} 条记忆")
    after = engine.store.tree.entity(EntityRef("user", XIAOMING))
    assert not any(after.memories.values()) and len(after.archived) == len(shown.archived) + count
    assert after.profile == shown.profile
    assert "小明最近在学吉他" not in engine.context.build([XIAOMING], query="吉他").text
    assert engine.tools.call("memory_clear", XIAOMING, {}).content == "该用户没有可归档的记忆，未做任何修改。"
    journal = TreeJournal(journal_path(engine.paths.data_dir, engine.store.tree.root))
    entry = journal.entries()[-1]
    assert entry.change.action == "clear" and f"第 {entry.id} 条" in reply.content
    TreeEditor(engine.store.tree.root).revert(entry.change)
    assert state() == before  # every file and every index row as they were


def test_memory_clear_of_a_user_the_tree_does_not_hold_changes_nothing(kira, engine):
    before = tree_files(kira)
    reply = engine.tools.call("memory_clear", "qq:nobody", {})
    assert (reply.is_error, reply.content) == (False, NO_MEMORY)  # as a database answers for no memory
    assert tree_files(kira) == before


def test_memory_clear_through_the_api_archives_on_a_tree(kira, engine):
    server = ApiServer(engine, "127.0.0.1", 0, TOKEN)
    server.start()
    try:
        with httpx.Client(base_url=server.url, headers=AUTH, timeout=30) as api:
            reply = api.post("/v1/tools/memory_clear", json={"user_id": XIAOMING, "arguments": {}})
            assert reply.status_code == 200 and reply.json()["is_error"] is False
            assert reply.json()["content"].startswith("已归档该用户的全部")
            assert "小明最近在学吉他" not in api.get("/v1/context", params={"user_id": XIAOMING, "query": "吉他"}).json()["context"]
    finally:
        server.stop()


def test_opening_a_3x_folder_creates_no_skills_folder_in_it(tmp_path):
    """Issue 50: opening a 3.x folder left an empty skills/ in the plugin's folder."""
    root = build_tree(tmp_path / "kira")
    assert not (root / "skills").exists()
    Engine.open(kira_data=root).close()
    assert not (root / "skills").exists()


def test_a_deeply_nested_file_is_a_problem_and_hides_nothing_else(kira, capsys):
    """Issue 51: a 400 KB profile.json of 200,000 nested lists made `entities`, `info`, /api/users and
    memory_query fail with RecursionError (500s), and a fact TOML nested 2,000 deep took its entity
    and /v1/context down. The plugin skips such a file; so do we, and list it as a problem."""
    from tree_fixtures import entity_dir, write_profile

    memory = kira / "memory"
    write_profile(memory, "user", "qq:deep")
    (entity_dir(memory, "user", "qq:deep") / "profile.json").write_text("[" * 200_000 + "]" * 200_000)
    fact = entity_dir(memory, "user", XIAOMING) / "facts" / "deep.toml"
    fact.write_text('id = "deep"\ntext = "x"\nmeta = ' + "[" * 2000 + "]" * 2000 + "\n", encoding="utf-8")
    engine = Engine.open(kira_data=kira)
    try:
        assert "qq:deep" in engine.store.all_user_ids()
        detail = engine.store.tree.entity(EntityRef("user", XIAOMING))
        assert any(p.path.endswith("deep.toml") and p.kind == "too_deep" for p in detail.problems)
        assert "小明最近在学吉他" in engine.context.build([XIAOMING], query="吉他").text
        assert engine.tools.call("memory_query", "qq:deep", {}).content  # an answer, not an error
        assert [e.key for e in engine.store.get_profiles("qq:deep")] == []
        server = ApiServer(engine, "127.0.0.1", 0, TOKEN)
        server.start()
        try:
            with httpx.Client(base_url=server.url, headers=AUTH, timeout=30) as api:
                assert api.get("/api/users").status_code == 200
                assert api.get("/api/stats").status_code == 200
                assert api.get("/v1/context", params={"user_id": XIAOMING}).status_code == 200
        finally:
            server.stop()
    finally:
        engine.close()
    for argv in (["entities"], ["info"], ["entity", "show", "user:qq:deep"]):
        code, out, err = run(capsys, *argv, "--kira-data", str(kira))
        assert code == 0, (argv, err)
    code, out, err = run(capsys, "memory", "edit", "user:qq:10001", "deep", "new text", "--kira-data", str(kira))
    assert code == 2 and "nested deeper than" in err


def test_a_set_over_a_hand_edited_profile_field_is_skipped_with_a_reason(kira, engine):
    """Issue 51: memory_update `set` over a profile whose traits is a string, or preferences a list,
    answered 500 (AttributeError); the file was unchanged."""
    from tree_fixtures import entity_dir

    path = entity_dir(kira / "memory", "user", XIAOMING) / "profile.json"
    profile = json.loads(path.read_text(encoding="utf-8"))
    profile.update(traits="爱猫", preferences=["奶茶"])
    path.write_text(json.dumps(profile, ensure_ascii=False), encoding="utf-8")
    before = path.read_bytes()
    for category, field in (("basic", "traits"), ("preference", "preferences")):
        reply = engine.tools.call("memory_update", XIAOMING, {"operations": [
            {"op": "set", "key": "颜色", "value": "蓝", "category": category}]})
        assert reply.is_error and f"profile.json's {field} is not" in reply.content
    assert path.read_bytes() == before


def test_an_index_locked_past_its_wait_is_a_skip_not_a_500(kira, engine, monkeypatch):
    """An index the plugin holds locked past the 10 s wait made a memory_update on a tree raise
    sqlite3's OperationalError through the API (a 500); it is now that operation's skip, nothing
    written."""
    from tree_fixtures import lock_the_index

    lock_the_index(monkeypatch)
    before = tree_files(kira)
    reply = engine.tools.call("memory_update", XIAOMING, {"operations": [{"op": "event", "value": "小明去游泳了"}]})
    assert reply.is_error and "memory_index.db 无法写入" in reply.content and "database is locked" in reply.content
    assert {k: v for k, v in tree_files(kira).items() if not k.name.startswith("memory_index.db")} == \
        {k: v for k, v in before.items() if not k.name.startswith("memory_index.db")}
