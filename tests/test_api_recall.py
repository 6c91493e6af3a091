"""Relevance recall through every path: /v1/context, /v1/inject, memory_query, the CLI, another process."""
import sqlite3
import threading
import time

import pytest

from api_helpers import AUTH, TOKEN, anon, api, api_engine, api_server, error_of  # noqa: F401
from kiraos_desktop.cli import main

PLANTED = "去年在青岛学会了冲浪"


def plant(engine, user="qq_1"):
    engine.store.set_profile(user, "昵称", "小明", actor="gui", confidence=0.9)
    engine.store.add_event(user, PLANTED, actor="gui", created_at="2025-06-01T10:00:00")
    with engine.store.batch("gui") as batch:
        for i in range(30):
            batch.add_event(user, f"Daily standup number {i}", created_at=f"2026-11-{1 + i % 28:02d}T09:00:{i:02d}")


def test_context_with_a_query_recalls_the_planted_event(api, api_engine):
    plant(api_engine)
    plain = api.get("/v1/context", params={"user_id": "qq_1"}).json()
    assert PLANTED not in plain["context"]
    for query in ("冲浪好玩吗", "还记得青岛吗", "surf 冲浪 in Qingdao?"):
        reply = api.get("/v1/context", params={"user_id": "qq_1", "query": query})
        assert reply.status_code == 200
        body = reply.json()
        assert PLANTED in body["context"] and body["users"] == ["qq_1"]
        assert body["context"].split("\n")[0] == plain["context"].split("\n")[0]
    assert api.get("/v1/context", params={"user_id": "qq_1", "query": "standup"}).json()["context"] != ""
    nothing = api.get("/v1/context", params={"user_id": "qq_1", "query": "完全无关的话"}).json()
    assert nothing == plain


def test_a_repeated_query_follows_a_memory_update_of_the_user(api, api_engine):
    plant(api_engine)
    params = {"user_id": "qq_1", "query": "冲浪和潜水"}
    first = api.get("/v1/context", params=params).json()
    assert api.get("/v1/context", params=params).json() == first  # answered from the cache
    assert "潜水" not in first["context"]
    update = {"user_id": "qq_1", "arguments": {"operations": [{"op": "event", "value": "第一次潜水"}]}}
    assert api.post("/v1/tools/memory_update", json=update).status_code == 200
    again = api.get("/v1/context", params=params).json()
    assert "第一次潜水" in again["context"] and PLANTED in again["context"]


def test_inject_with_a_query_recalls_the_planted_event(api, api_engine):
    plant(api_engine)
    body = {"user_ids": ["qq_1"], "system": [{"name": "memory", "content": ""}], "query": "冲浪"}
    reply = api.post("/v1/inject", json=body)
    assert reply.status_code == 200 and PLANTED in reply.json()["system"][0]["content"]
    plain = api.post("/v1/inject", json={"user_ids": ["qq_1"], "system": "s"}).json()["system"]
    assert PLANTED not in plain
    assert api.post("/v1/inject", json={"user_ids": ["qq_1"], "system": "s", "query": ""}).json()["system"] == plain
    assert error_of(api.post("/v1/inject", json={"user_ids": ["qq_1"], "system": "s", "query": 5}))["code"]


def test_memory_query_with_a_query_lists_the_planted_event(api, api_engine):
    plant(api_engine)
    reply = api.post("/v1/tools/memory_query", json={"user_id": "qq_1", "arguments": {"query": "冲浪"}})
    assert reply.status_code == 200
    assert reply.json()["content"] == "【近期事件】\n  2025-06-01 " + PLANTED
    bad = api.post("/v1/tools/memory_query", json={"user_id": "qq_1", "arguments": {"query": ["x"]}})
    assert bad.status_code == 422


@pytest.mark.parametrize("query", ['"', "*", "NEAR(a b)", "a OR b", "((", "冲浪\" OR *)", "' OR 1=1 --", "%00",
                                   "\\", "😀" * 50])
def test_hostile_queries_give_a_block(api, api_engine, query):
    plant(api_engine)
    reply = api.get("/v1/context", params={"user_id": "qq_1", "query": query})
    assert reply.status_code == 200, reply.text
    assert reply.json()["context"].startswith("[qq_1:basic]")
    reply = api.post("/v1/inject", json={"user_ids": ["qq_1"], "system": "", "query": query})
    assert reply.status_code == 200


def test_ten_kilobytes_of_query_give_a_block(api, api_engine):
    plant(api_engine)
    query = ('冲浪 "NEAR(x y)" OR * ( ) ' * 500)[:10_240]
    reply = api.get("/v1/context", params={"user_id": "qq_1", "query": query})
    assert reply.status_code == 200 and PLANTED in reply.json()["context"]
    reply = api.post("/v1/inject", json={"user_ids": ["qq_1"], "system": "", "query": query})
    assert reply.status_code == 200 and PLANTED in reply.json()["system"]
    huge = api.post("/v1/inject", json={"user_ids": ["qq_1"], "system": "", "query": "冲浪" + "x" * 200_000})
    assert huge.status_code == 200 and PLANTED in huge.json()["system"]  # only its start is read


def test_a_plain_sqlite_writer_is_recalled_within_a_second_and_never_fails(api, api_engine, index_every_user):
    plant(api_engine)
    errors, written = [], []
    stop = threading.Event()

    def plugin():
        conn = sqlite3.connect(api_engine.paths.db_path, timeout=10)
        for i in range(40):
            if stop.is_set():
                break
            try:
                conn.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES (?, ?, ?)",
                             ("qq_1", f"插件写入的滑雪记录{i}", "2025-01-01T00:00:00"))
                conn.commit()
                written.append(i)
            except sqlite3.Error as exc:  # must never happen
                errors.append(exc)
            time.sleep(0.01)
        conn.close()

    thread = threading.Thread(target=plugin)
    thread.start()
    try:
        writes = [api.post("/v1/tools/memory_update", json={"user_id": "qq_1", "arguments": {
            "operations": [{"op": "event", "value": f"API 写入 {n}"}]}}) for n in range(20)]
        assert all(w.status_code == 200 for w in writes)
        deadline = time.monotonic() + 5
        while not written and time.monotonic() < deadline:
            time.sleep(0.01)
        seen_at = time.monotonic()
        while time.monotonic() < deadline:
            context = api.get("/v1/context", params={"user_id": "qq_1", "query": "滑雪"}).json()["context"]
            if "滑雪" in context:
                break
            time.sleep(0.02)
        else:
            pytest.fail("the other process's events were never recalled")
        assert time.monotonic() - seen_at < 1.0
        thread.join(timeout=30)
    finally:
        stop.set()
        thread.join()
    assert errors == [] and len(written) == 40
    deadline = time.monotonic() + 5  # the watcher moves the queue into the index
    while api_engine.store._rows("SELECT count(*) FROM recall_queue")[0][0] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert api_engine.store._rows("SELECT count(*) FROM recall_queue")[0][0] == 0
    assert api_engine.store._rows("SELECT count(DISTINCT event_id) FROM recall_terms WHERE term = '滑雪'")[0][0] \
        == len(written)


def test_cli_context_with_a_query(capsys, data_dir):
    from kiraos_desktop.core.engine import Engine

    engine = Engine.open(data_dir=data_dir)
    plant(engine)
    engine.close()
    assert main(["context", "--user", "qq_1", "--query", "冲浪", "--data-dir", str(data_dir)]) == 0
    assert PLANTED in capsys.readouterr().out
    assert main(["context", "--user", "qq_1", "--data-dir", str(data_dir)]) == 0
    assert PLANTED not in capsys.readouterr().out
    assert main(["context", "--user", "qq_1", "--query", "", "--data-dir", str(data_dir)]) == 0
    assert PLANTED not in capsys.readouterr().out


def test_the_mcp_context_resource_takes_a_query(api, api_engine, api_server):
    import anyio

    from mcp_helpers import http_client

    plant(api_engine)

    async def go():
        async with http_client(api_server.url) as client:
            recalled = await client.read_resource("kiraos://users/qq_1/context?query=%E5%86%B2%E6%B5%AA")  # 冲浪
            plain = await client.read_resource("kiraos://users/qq_1/context")
            hostile = await client.read_resource('kiraos://users/qq_1/context?query=%22%20OR%20*%20NEAR(')
            return recalled.contents[0].text, plain.contents[0].text, hostile.contents[0].text

    recalled, plain, hostile = anyio.run(go)
    v1 = api.get("/v1/context", params={"user_id": "qq_1", "query": "冲浪"}).json()["context"]
    assert recalled == v1 and PLANTED in recalled
    assert PLANTED not in plain and hostile == plain


def test_a_block_for_a_message_is_made_on_the_loop_for_a_small_window_and_off_it_for_a_large_one(
        api, api_engine, monkeypatch):
    """Recall scores candidate events from their text: a user whose newest events are short (the usual
    case) has the first block for a message made on the loop, as a plain block is (handing it to a
    thread cost the API about four times the work); a user whose window holds more text than
    LOOP_WINDOW_CHARS, and every cold user of a request but one, on a reader thread."""
    from kiraos_desktop.core.context.builder import LOOP_WINDOW_CHARS

    tools = api_engine.memory_tools
    for user in ("small", "other1", "other2"):
        tools.update(user, [{"op": "event", "value": "今天去跑了半马"}])
    long_events = LOOP_WINDOW_CHARS // 240 + 2  # each shown in the block (500 characters), more than the bound together
    tools.update("large", [{"op": "event", "value": f"第{n}次 半马 " + "长" * 240} for n in range(long_events)])
    threads: list[tuple[str, str | None, str]] = []
    real = api_engine.context.fast_block

    def fast_block(user_id, max_chars=None, query=None):
        threads.append((user_id, query, threading.current_thread().name))
        return real(user_id, max_chars=max_chars, query=query)

    monkeypatch.setattr(api_engine.context, "fast_block", fast_block)
    # the app took the bound method at start: ask through a new app on the same engine
    import httpx

    from kiraos_desktop.api.server import ApiServer

    server = ApiServer(api_engine, "127.0.0.1", 0, TOKEN)
    server.start()
    try:
        with httpx.Client(base_url=server.url, headers=AUTH, timeout=30) as client:
            def ask(*users, query="半马"):
                params = [("user_id", user) for user in users] + ([("query", query)] if query else [])
                return client.get("/v1/context", params=params).json()["context"]

            assert "半马" in ask("small", query=None)  # plain: built on the loop
            loop_thread = threads[-1][2]
            assert "半马" in ask("small")
            assert threads[-1][0] == "small" and threads[-1][1] is None  # no thread asked for the message's block
            assert "半马" in ask("large")
            assert threads[-1][:2] == ("large", "半马") and threads[-1][2] != loop_thread
            assert "半马" in ask("other1", "other2")
            assert threads[-1][:2] == ("other2", "半马") and threads[-1][2] != loop_thread
    finally:
        server.stop()
    assert not loop_thread.startswith("kiraos-api-writer")
    assert [user for user, query, _ in threads if query] == ["large", "other2"]
