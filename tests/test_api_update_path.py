"""memory_update's fast path and group commit: same replies as the route, errors unchanged, no stalls."""
from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time

import httpx
import pytest

from api_helpers import AUTH, api, api_engine, api_server, error_of  # noqa: F401
from core_helpers import WriterHolder
from kiraos_desktop.api.fastpath.update import plain_update_call
from kiraos_desktop.core.writes.update_queue import UpdateQueue
from kiraos_desktop.core.writes.workers import Workers
from kiraos_desktop.core.memory.records import ValidationError

OPERATIONS = [
    {"op": "set", "key": "城市", "value": "杭州", "category": "basic", "confidence": 0.9},
    {"op": "set", "key": "最近在减肥", "value": "是", "category": "other", "ttl": "30d"},
    {"op": "event", "value": "完成半马"},
]


def call_body(user_id: str, operations=OPERATIONS) -> dict:
    return {"user_id": user_id, "arguments": {"operations": operations}}


def _group_sizes(api_engine, monkeypatch) -> list[int]:
    """Sizes of the groups the store is asked for, filled in as the calls of each group run."""
    store, tools = api_engine.store, api_engine.tools
    sizes: list[int] = []
    real_group, real_call = store.group, tools.call

    def counting_group(*args, **kwargs):
        sizes.append(0)
        return real_group(*args, **kwargs)

    def call(*args, **kwargs):
        sizes[-1] += 1
        return real_call(*args, **kwargs)

    monkeypatch.setattr(store, "group", counting_group)
    monkeypatch.setattr(tools, "call", call)
    return sizes


def _calls_turns_apart(queue, users: list[str], turns_apart: int):
    async def late(user_id, turns):
        for _ in range(turns):
            await asyncio.sleep(0)  # one turn of the loop each
        return await queue.call(user_id, {"operations": OPERATIONS})

    async def main():
        return await asyncio.gather(*(late(u, n * turns_apart) for n, u in enumerate(users)))

    return asyncio.run(main())


def test_fast_path_and_route_reply_alike(api, api_engine):
    """A chunked body (no Content-Length) takes the regular route; the replies are the same bytes."""
    fast = api.post("/v1/tools/memory_update", json=call_body("u1"))
    raw = json.dumps(call_body("u2")).encode()
    routed = api.post("/v1/tools/memory_update", content=iter([raw[:20], raw[20:]]),
                      headers={"Content-Type": "application/json"})
    assert fast.status_code == routed.status_code == 200
    assert fast.content == routed.content
    assert fast.headers["content-type"] == routed.headers["content-type"] == "application/json"
    assert fast.json()["content"].startswith("已完成 3 项记忆操作: set 城市=杭州 [basic]")
    for uid in ("u1", "u2"):
        assert {p.key for p in api_engine.store.get_profiles(uid)} == {"城市", "最近在减肥"}


@pytest.mark.parametrize("body", [
    b'{"user_id": "u1", "arguments": {"operations": []}, "x": 1}',
    b'{"user_id": " ", "arguments": {"operations": []}}',
    b'{"user_id": "u1"}',
    b'{"user_id": "u1", "arguments": {"operations": [{"op": "set", "key": 5}]}}',
    b'{"user_id": "u1", "arguments": {"operations": [{"op": "set", "confidence": NaN}]}}',
    b'{"user_id": "u1", "arguments": ',
    b'\xff\xfe',
    b'[]',
])
def test_bodies_the_fast_path_declines_get_the_routes_errors(api, api_engine, body):
    assert plain_update_call(body) is None
    reply = api.post("/v1/tools/memory_update", content=body, headers={"Content-Type": "application/json"})
    assert reply.status_code in (400, 422), reply.text
    error = error_of(reply)
    assert error["code"] in ("invalid_json", "invalid_request")
    assert api_engine.store.stats().total_users == 0


def test_plain_update_call_accepts_exactly_the_plain_case():
    assert plain_update_call(json.dumps(call_body("u1")).encode()) == ("u1", {"operations": OPERATIONS})
    assert plain_update_call(json.dumps(call_body("u" * 257)).encode()) is None  # over the user id limit
    assert plain_update_call(json.dumps({"user_id": "u1", "arguments": {"operations": [], "y": 1}}).encode()) is None


def test_a_write_waiting_for_another_process_does_not_stall_the_server(api, api_engine):
    """While the plugin holds SQLite's write lock, other requests are answered; the write lands after."""
    other = sqlite3.connect(api_engine.store.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    replies: list[httpx.Response] = []
    writer = threading.Thread(target=lambda: replies.append(
        httpx.post(f"{api.base_url}/v1/tools/memory_update", json=call_body("waiting"), headers=AUTH, timeout=30)))
    try:
        writer.start()
        time.sleep(0.3)
        started = time.monotonic()
        assert api.get("/v1/health").status_code == 200
        assert api.get("/v1/context", params={"user_id": "someone"}).status_code == 200
        assert time.monotonic() - started < 1.0
        assert writer.is_alive()  # still waiting for the lock
    finally:
        other.execute("COMMIT")
        other.close()
    writer.join(30)
    assert replies and replies[0].status_code == 200, replies
    assert api_engine.store.get_profile("waiting", "城市").value == "杭州"


def test_update_queue_groups_calls_and_isolates_a_failing_one(api_engine, monkeypatch):
    store, tools, memory = api_engine.store, api_engine.tools, api_engine.memory_tools
    groups: list[int] = []
    real_group, real_apply = store.group, memory._apply

    def counting_group(*args, **kwargs):
        groups.append(1)
        return real_group(*args, **kwargs)

    def apply(batch, user_id, op, known):
        if op.get("value") == "boom":  # fails after the call's first writes: they must be undone
            raise ValidationError("value", "refused")
        return real_apply(batch, user_id, op, known)

    monkeypatch.setattr(store, "group", counting_group)
    monkeypatch.setattr(memory, "_apply", apply)
    seen = []
    store.changes.subscribe(lambda event: seen.append(event.user_id))
    workers = Workers()
    queue = UpdateQueue(store, tools, workers, "tool")
    failing = OPERATIONS + [{"op": "event", "value": "boom"}]

    async def main():
        return await asyncio.gather(queue.call("a", {"operations": OPERATIONS}),
                                    queue.call("bad", {"operations": failing}),
                                    queue.call("c", {"operations": OPERATIONS}), return_exceptions=True)

    try:
        first, failed, third = asyncio.run(main())
    finally:
        workers.close()
    assert groups == [1]  # one transaction for the three calls
    assert first.content == third.content and not first.is_error
    assert isinstance(failed, ValidationError)
    assert store.get_profile("bad", "城市") is None and store.get_events("bad") == []
    assert [c.user_id for c in store.list_changes()].count("bad") == 0
    assert store.get_profile("a", "城市").value == store.get_profile("c", "城市").value == "杭州"
    assert seen == ["a", "c"]  # published after the commit, none for the undone call


def test_a_call_made_one_turn_of_the_loop_later_joins_the_group(api_engine, monkeypatch):
    sizes = _group_sizes(api_engine, monkeypatch)
    workers = Workers()
    try:
        results = _calls_turns_apart(UpdateQueue(api_engine.store, api_engine.tools, workers, "tool"),
                                     ["early", "late"], 1)
    finally:
        workers.close()
    assert sizes == [2] and len(results) == 2
    assert api_engine.store.get_profile("late", "城市").value == "杭州"


def test_calls_arriving_turn_after_turn_join_one_group(api_engine, monkeypatch):
    sizes = _group_sizes(api_engine, monkeypatch)
    workers = Workers()
    try:
        results = _calls_turns_apart(UpdateQueue(api_engine.store, api_engine.tools, workers, "tool"),
                                     ["a", "b", "c"], 1)
    finally:
        workers.close()
    assert sizes == [3] and len(results) == 3


def test_a_steady_stream_of_calls_is_still_written_in_bounded_groups(api_engine, monkeypatch):
    from kiraos_desktop.core.writes.update_queue import MAX_WAIT_TURNS

    sizes = _group_sizes(api_engine, monkeypatch)
    workers = Workers()
    try:
        results = _calls_turns_apart(UpdateQueue(api_engine.store, api_engine.tools, workers, "tool"),
                                     [f"u{n}" for n in range(12)], 1)
    finally:
        workers.close()
    assert len(results) == 12 and sum(sizes) == 12
    assert len(sizes) > 1 and max(sizes) <= MAX_WAIT_TURNS + 1


def test_a_queue_allowed_quiet_turns_groups_calls_that_arrive_every_few_turns(api_engine, monkeypatch):
    sizes = _group_sizes(api_engine, monkeypatch)
    workers = Workers()
    users = [f"u{n}" for n in range(6)]
    try:
        _calls_turns_apart(UpdateQueue(api_engine.store, api_engine.tools, workers, "tool"), users, 3)
        default = list(sizes)
        sizes.clear()
        patient = UpdateQueue(api_engine.store, api_engine.tools, workers, "tool", max_wait_turns=24,
                              max_quiet_turns=4)
        _calls_turns_apart(patient, users, 3)
    finally:
        workers.close()
    assert default == [1] * 6  # the default stops waiting after one turn without a call
    assert sizes == [6]


def test_update_queue_hands_a_busy_group_to_the_writer_thread(api_engine):
    store, tools = api_engine.store, api_engine.tools
    workers = Workers()
    queue = UpdateQueue(store, tools, workers, "tool")

    async def main(holder):
        task = asyncio.ensure_future(queue.call("u", {"operations": OPERATIONS}))
        await asyncio.sleep(0.2)
        assert not task.done()  # waiting on the writer thread, while the loop keeps running
        threading.Timer(0.1, holder.release).start()
        return await task

    try:
        with WriterHolder(store, "gui", "k") as holder:
            result = asyncio.run(main(holder))
    finally:
        workers.close()
    assert result.content.startswith("已完成 3 项记忆操作")
    assert store.get_profile("u", "城市").value == "杭州" and store.get_profile("gui", "k").value == "held"


def test_calls_arriving_while_a_group_is_on_the_writer_thread_wait_and_go_back_to_the_loop(api_engine,
                                                                                        monkeypatch):
    store, tools = api_engine.store, api_engine.tools
    written: list[tuple[str, str]] = []  # (user, thread) in the order of the writes
    groups: list[int] = []
    real_call, real_group = tools.call, store.group

    def call(name, user_id, *args, **kwargs):
        written.append((user_id, threading.current_thread().name))
        return real_call(name, user_id, *args, **kwargs)

    def counting_group(*args, **kwargs):
        groups.append(1)
        return real_group(*args, **kwargs)

    monkeypatch.setattr(tools, "call", call)
    monkeypatch.setattr(store, "group", counting_group)
    workers = Workers()
    queue = UpdateQueue(store, tools, workers, "tool")

    async def main(holder):
        first = asyncio.ensure_future(queue.call("first", {"operations": OPERATIONS}))
        await asyncio.sleep(0.1)  # handed to the writer thread, which waits for the lock
        later = [asyncio.ensure_future(queue.call(u, {"operations": OPERATIONS})) for u in ("b", "c")]
        await asyncio.sleep(0.1)
        assert written == [] and groups == [1, 1]  # the loop's try, then the thread's wait
        holder.release()
        return await asyncio.gather(first, *later)

    try:
        with WriterHolder(store, "gui", "k") as holder:
            results = asyncio.run(main(holder))
    finally:
        workers.close()
    loop_thread = threading.current_thread().name
    assert [user for user, _ in written] == ["first", "b", "c"]
    assert written[0][1].startswith("kiraos-api-writer")
    assert {thread for _, thread in written[1:]} == {loop_thread}
    assert len(groups) == 3  # b and c as one group, after the thread's group
    assert all(r.content.startswith("已完成 3 项记忆操作") for r in results)


def test_update_queue_splits_a_crowd_into_bounded_groups(api_engine, monkeypatch):
    from kiraos_desktop.core.writes import update_queue

    store = api_engine.store
    sizes = _group_sizes(api_engine, monkeypatch)
    monkeypatch.setattr(update_queue, "MAX_GROUP", 4)
    workers = Workers()
    queue = UpdateQueue(store, api_engine.tools, workers, "tool")

    async def main():
        return await asyncio.gather(*(queue.call(f"u{n}", {"operations": OPERATIONS}) for n in range(10)))

    try:
        results = asyncio.run(main())
    finally:
        workers.close()
    assert sizes == [4, 4, 2] and len(results) == 10
    assert store.stats().total_users == 10


def _writing_threads(api_engine, monkeypatch) -> list[str]:
    """Names of the threads memory_update calls run on, in order."""
    names: list[str] = []
    real_call = api_engine.tools.call

    def call(*args, **kwargs):
        names.append(threading.current_thread().name)
        return real_call(*args, **kwargs)

    monkeypatch.setattr(api_engine.tools, "call", call)
    return names


def _on_loop_or_thread(api_engine, monkeypatch, calls: list[tuple[str, list]]) -> list[str]:
    """The threads that write the calls (user, operations), one after the other."""
    names = _writing_threads(api_engine, monkeypatch)
    workers = Workers()
    queue = UpdateQueue(api_engine.store, api_engine.tools, workers, "tool")

    async def main():
        for user, operations in calls:
            await queue.call(user, {"operations": operations})

    try:
        asyncio.run(main())
    finally:
        workers.close()
    return names


def test_the_loops_share_is_bounded_by_cost_not_bytes(api_engine, monkeypatch):
    from kiraos_desktop.core.writes.update_queue import LOOP_OPERATIONS, call_cost

    events = [{"op": "event", "value": f"e{n}"} for n in range(LOOP_OPERATIONS + 1)]
    fits = max(n for n in range(LOOP_OPERATIONS + 1) if call_cost({"operations": events[:n]}) <= LOOP_OPERATIONS)
    names = _on_loop_or_thread(api_engine, monkeypatch, [("cheap", events[:fits]), ("costly", events[:fits + 1])])
    assert names[0] == threading.current_thread().name  # on the loop
    assert names[1].startswith("kiraos-api-writer")
    assert api_engine.store.stats().total_users == 2


def test_a_call_of_few_long_events_is_written_off_the_loop(api_engine, monkeypatch):
    """Text costs the writer as operations do: 40 events of 900 characters are too much for the loop."""
    long = [{"op": "event", "value": f"{n} " + "今天去了西湖边散步" * 100} for n in range(40)]
    short = [{"op": "event", "value": f"今天去了西湖 {n}"} for n in range(40)]
    names = _on_loop_or_thread(api_engine, monkeypatch, [("short", short), ("long", long)])
    assert names[0] == threading.current_thread().name
    assert names[1].startswith("kiraos-api-writer")
    assert len(api_engine.store.get_events("long")) == 40


def test_groups_close_before_their_operations_pass_the_loops_share(api_engine, monkeypatch):
    from kiraos_desktop.core.writes import update_queue

    monkeypatch.setattr(update_queue, "LOOP_OPERATIONS", 200)
    sizes = _group_sizes(api_engine, monkeypatch)
    workers = Workers()
    queue = UpdateQueue(api_engine.store, api_engine.tools, workers, "tool")
    operations = [{"op": "event", "value": f"e{n}"} for n in range(90)]

    async def main():
        return await asyncio.gather(*(queue.call(f"u{n}", {"operations": operations}) for n in range(5)))

    try:
        asyncio.run(main())
    finally:
        workers.close()
    assert sizes == [2, 2, 1]


def test_a_small_body_of_many_operations_is_written_off_the_loop(api, api_engine, monkeypatch):
    names = _writing_threads(api_engine, monkeypatch)
    from kiraos_desktop.core.tool_registry import MAX_OPERATIONS

    body = json.dumps(call_body("big", [{"op": "event", "value": f"e{n}"} for n in range(MAX_OPERATIONS)]),
                      separators=(",", ":")).encode()
    assert len(body) < 64 * 1024  # the fast path's body size: once written on the loop
    reply = api.post("/v1/tools/memory_update", content=body, headers={"Content-Type": "application/json"})
    assert reply.status_code == 200 and not reply.json()["is_error"]
    assert len(names) == 1 and names[0].startswith("kiraos-api-writer")


def test_an_update_whose_every_operation_is_refused_answers_is_error_on_the_fast_path(api):
    reply = api.post("/v1/tools/memory_update", json={"user_id": "u", "arguments": {"operations": [
        {"op": "set", "key": "k", "value": "v", "category": "nope"}]}})
    assert reply.status_code == 200
    body = reply.json()
    assert body["is_error"] is True and "无效的分类" in body["content"]
