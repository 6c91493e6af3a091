"""Where writes run (core/writes): worker threads, the scheduler every server takes them from, the grouping rule."""
from __future__ import annotations

import asyncio
import threading

import pytest

from kiraos_desktop.core.writes.workers import Workers, WorkersClosed


def test_a_write_after_close_is_refused_and_starts_no_thread():
    workers = Workers(writers=2)
    assert asyncio.run(workers.write(lambda: 1)) == 1
    workers.close()
    before = {t.name for t in threading.enumerate()}
    with pytest.raises(WorkersClosed, match="stopping"):
        asyncio.run(workers.write_on(1, lambda: 2))
    started = {t.name for t in threading.enumerate()} - before
    assert not any(name.startswith("kiraos-api-writer") for name in started)
    assert workers._threads == [None, None]


class _Store:
    """What the scheduler asks of a store: whether its work may run on the event loop."""

    def __init__(self, inline_ok: bool, writers: int = 1) -> None:
        self.inline_ok = inline_ok
        self.writers = writers


def test_stdio_mcp_writes_on_the_same_lanes_as_the_http_api(monkeypatch):
    """A store whose work may not run on the loop (PostgreSQL) has PG_WRITER_THREADS writer lanes for
    every server: the stdio MCP server had one writer thread whatever the store."""
    from types import SimpleNamespace

    from kiraos_desktop.api.mcp import stdio
    from kiraos_desktop.core.storage.postgres.store import PG_WRITER_THREADS

    built = []

    def build_mcp_server(engine, caller, workers):
        built.append((caller, workers))
        raise RuntimeError("stop here: the server is not needed")

    monkeypatch.setattr(stdio, "build_mcp_server", build_mcp_server)
    monkeypatch.setattr(stdio.sys, "stdin", object())
    monkeypatch.setattr(stdio.sys, "stdout", object())
    engine = SimpleNamespace(store=_Store(inline_ok=False, writers=PG_WRITER_THREADS), tools=object())
    with pytest.raises(RuntimeError, match="stop here"):
        stdio.serve_stdio(engine)
    [(caller, workers)] = built
    assert workers.writers == PG_WRITER_THREADS > 1
    assert caller._queue._lanes is not None and caller._queue._workers is workers


@pytest.mark.parametrize("inline_ok, writers", [(True, 1), (False, 3), (False, 1)])
def test_the_scheduler_sizes_its_writers_from_the_store(inline_ok, writers):
    """Issue 52: the count is the store's `writers` capability, not `inline_ok` (a 3.x tree, whose
    reads may not run on the loop, got PostgreSQL's two writer lanes)."""
    from kiraos_desktop.core.writes import WriteScheduler

    scheduler = WriteScheduler(_Store(inline_ok, writers), tools=object(), actor="tool")
    assert scheduler.workers.writers == writers
    first, second = scheduler.update_queue(), scheduler.update_queue(max_wait_turns=9)
    assert first._workers is second._workers is scheduler.workers
    scheduler.close()
    with pytest.raises(WorkersClosed):
        asyncio.run(scheduler.workers.write(lambda: 1))


def test_a_group_waits_while_calls_keep_arriving_and_no_longer_than_its_turns():
    from kiraos_desktop.core.writes.update_queue import MAX_GROUP, GroupWait

    wait = GroupWait(max_wait_turns=3, max_quiet_turns=1)
    assert wait.again(arrived=1, pending=1)  # the first check: calls just came
    assert wait.again(arrived=3, pending=3)  # more came during the turn
    assert not wait.again(arrived=3, pending=3)  # a quiet turn ends it
    wait.start()
    assert [wait.again(arrived=n, pending=n) for n in range(1, 6)] == [True, True, True, False, False]
    wait.start()
    assert not wait.again(arrived=MAX_GROUP, pending=MAX_GROUP)  # full
    patient = GroupWait(max_wait_turns=5, max_quiet_turns=2)
    assert patient.again(1, 1) and patient.again(1, 1) and not patient.again(1, 1)  # two quiet turns
    patient.restart(arrived=7)  # calls left over from the last group: wait for new arrivals only
    assert not patient.again(7, 3) or not patient.again(7, 3)


def test_close_answers_a_write_held_up_after_its_grace_and_lets_a_quick_one_finish():
    """Issue 51: a write held up by another process's lock kept a stopping server (and its requests)
    waiting for the lock's whole wait; close() lets writes finish for its grace, then answers the
    calls still waiting WorkersClosed (the queued write behind is dropped, never made)."""
    workers = Workers(writers=1)
    held, release = threading.Event(), threading.Event()
    made = []

    def blocked():
        held.set()
        release.wait(30)
        return "late"

    async def scenario():
        quick = await workers.write(lambda: "quick")
        slow = asyncio.ensure_future(workers.write(blocked))
        queued = asyncio.ensure_future(workers.write(lambda: made.append("queued")))
        await asyncio.get_running_loop().run_in_executor(None, held.wait, 30)
        threading.Thread(target=workers.close, args=(0.2,)).start()  # as Server.stop does, from another thread
        outcomes = await asyncio.wait_for(asyncio.gather(slow, queued, return_exceptions=True), 10)
        return quick, outcomes

    try:
        quick, (slow, queued) = asyncio.run(scenario())
    finally:
        release.set()
    assert quick == "quick"
    assert isinstance(slow, WorkersClosed) and "not confirmed" in str(slow)
    assert isinstance(queued, WorkersClosed) and "not made" in str(queued) and made == []


def test_close_lets_a_write_that_ends_within_its_grace_answer():
    workers = Workers(writers=1)
    started = threading.Event()

    def short():
        started.set()
        threading.Event().wait(0.05)
        return "made"

    async def scenario():
        call = asyncio.ensure_future(workers.write(short))
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 30)
        workers.close(5)
        return await asyncio.wait_for(call, 10)

    assert asyncio.run(scenario()) == "made"


def test_each_store_says_how_many_writers_it_takes(tmp_path):
    from kiraos_desktop.core.storage.postgres.store import PG_WRITER_THREADS, PgBackend
    from kiraos_desktop.core.storage.sqlite.store import SqliteStore
    from kiraos_desktop.core.storage.tree.store import TreeMemoryStore
    from tree_fixtures import indexed_tree

    sqlite_store = SqliteStore(tmp_path / "m.db")
    try:
        assert sqlite_store.writers == 1
    finally:
        sqlite_store.close()
    assert TreeMemoryStore(indexed_tree(tmp_path / "kira")).writers == 1
    assert PgBackend.writers.fget(None) == PG_WRITER_THREADS > 1
