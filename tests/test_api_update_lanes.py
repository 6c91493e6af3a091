"""memory_update on a store whose work may not run on the loop: each user's calls on one writer thread, in order."""
from __future__ import annotations

import asyncio
import threading

from api_helpers import api_engine  # noqa: F401
from kiraos_desktop.core.writes.update_queue import UpdateQueue
from kiraos_desktop.core.writes.workers import Workers


def test_each_users_calls_go_to_one_writer_thread_in_arrival_order(api_engine, monkeypatch):
    store, tools = api_engine.store, api_engine.tools
    monkeypatch.setattr(store, "inline_ok", False)  # as on PostgreSQL (SQLite's lock serialises the threads)
    written: list[tuple[str, str, str]] = []  # (thread, user, event) as the calls run
    real_call = tools.call

    def call(name, user_id, arguments, **kwargs):
        written.append((threading.current_thread().name, user_id, arguments["operations"][0]["value"]))
        return real_call(name, user_id, arguments, **kwargs)

    monkeypatch.setattr(tools, "call", call)
    workers = Workers(4)
    queue = UpdateQueue(store, tools, workers, "tool")
    users = [f"user{n}" for n in range(8)]

    async def one(user_id: str, n: int, turns: int):
        for _ in range(turns):
            await asyncio.sleep(0)
        return await queue.call(user_id, {"operations": [{"op": "event", "value": f"{user_id} call {n}"}]})

    async def main():
        return await asyncio.gather(*(one(user, n, n * 2 + u % 3) for n in range(5) for u, user in enumerate(users)))

    try:
        results = asyncio.run(main())
    finally:
        workers.close()
    assert len(results) == 40 and not any(r.is_error for r in results)
    for user in users:
        mine = [(thread, event) for thread, who, event in written if who == user]
        assert [event for _, event in mine] == [f"{user} call {n}" for n in range(5)]  # in arrival order
        assert {thread for thread, _ in mine} == {f"kiraos-api-writer-{workers.lane_of(user)}_0"}
        assert [e.summary for e in store.get_events(user)] == [f"{user} call {n}" for n in reversed(range(5))]
    assert len({thread for thread, _, _ in written}) > 1  # the users are spread over the threads
