"""Where blocking work runs: the API's writer threads for store writes, the shared pool for reads."""
from __future__ import annotations

import asyncio
import functools
import zlib
from concurrent.futures import Future, ThreadPoolExecutor

from kiraos_desktop.core.memory.records import StoreUnavailable

#: The names of the writer threads begin so (a stopping `serve` looks for those still writing).
WRITER_THREAD_PREFIX = "kiraos-api-writer-"


def writer_threads(store) -> int:
    """How many writer threads an API on `store` has: the store's own `writers` capability (one on
    SQLite and a 3.x tree, storage/postgres/store.PG_WRITER_THREADS on PostgreSQL)."""
    return store.writers


class WorkersClosed(StoreUnavailable):
    """A write asked for after Workers.close() (the API is stopping): a 503, nothing written."""


class Workers:
    """Writes queue up on writer threads, each in arrival order. One on SQLite: it takes one writer at a
    time anyway, and several API threads waiting on the store's write lock would only fight over the
    GIL (each handoff can cost a whole switch interval). On PostgreSQL several (`writers`), each with
    its own connection; a user's writes always go to the same one (lane_of()). Reads may wait on
    nothing, so they share the pool.
    """

    def __init__(self, writers: int = 1) -> None:
        self.writers = writers
        self._threads: list[ThreadPoolExecutor | None] = [None] * writers
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiting: dict[asyncio.Future, Future] = {}  # calls awaiting a write, and it (loop's thread)

    def lane_of(self, user_id: str) -> int:
        """The writer thread (0 to writers - 1) of a user's writes: always the same one, so that one
        user's writes stay in arrival order and never wait for each other's locks across threads."""
        return zlib.crc32(user_id.encode("utf-8", "surrogatepass")) % self.writers if self.writers > 1 else 0

    async def write(self, fn, *args, **kwargs):
        """fn(*args, **kwargs) on the first writer thread."""
        return await self.write_on(0, fn, *args, **kwargs)

    async def write_on(self, lane: int, fn, *args, **kwargs):
        """fn(*args, **kwargs) on writer thread `lane`, after the work queued there before it."""
        if self._closed:  # a new pool now would be one that nobody shuts down
            raise WorkersClosed("the API is stopping: the write was not made")
        thread = self._threads[lane]
        if thread is None:
            thread = self._threads[lane] = ThreadPoolExecutor(
                max_workers=1, thread_name_prefix=f"{WRITER_THREAD_PREFIX}{lane}")
        loop = self._loop = asyncio.get_running_loop()
        work = thread.submit(functools.partial(fn, *args, **kwargs))
        answer = loop.create_future()  # answered by the write, or by close() first (a stop cannot wait)
        work.add_done_callback(functools.partial(_hand_back, loop, answer))
        self._waiting[answer] = work
        try:
            return await answer
        finally:
            self._waiting.pop(answer, None)

    async def read(self, fn, *args, **kwargs):
        """fn(*args, **kwargs) on the loop's shared pool (reads wait on nothing, so any thread will do)."""
        return await asyncio.get_running_loop().run_in_executor(None, functools.partial(fn, *args, **kwargs))

    def close(self, grace: float = 0.0) -> None:
        """No write is accepted any more. The writes queued or under way may finish for `grace` seconds;
        then none is waited for: those still queued are dropped and every call awaiting one is answered
        WorkersClosed, so that a stopping server has no request left to wait for (another process may
        hold the store locked for a while). A write under way goes on in the background until the
        process ends; what a process ending mid-write leaves is undone or finished where the store is
        opened next (a database's transaction; a 3.x tree's write-ahead intent)."""
        self._closed = True
        closing = [thread for thread in self._threads if thread is not None]
        self._threads = [None] * self.writers
        for thread in closing:
            thread.shutdown(wait=False)

        def give_up() -> None:
            for thread in closing:
                thread.shutdown(wait=False, cancel_futures=True)
            for answer, work in list(self._waiting.items()):
                if not answer.done():  # queued: dropped; under way: it may still commit, or not
                    answer.set_exception(WorkersClosed("the API is stopping: the write was "
                                                       + ("not made" if work.cancelled() else "not confirmed")))

        loop = self._loop
        if loop is None:
            return
        try:
            loop.call_soon_threadsafe(loop.call_later, grace, give_up)
        except RuntimeError:  # the loop is closed: nothing awaits any more
            pass


def _hand_back(loop: asyncio.AbstractEventLoop, answer: asyncio.Future, work: Future) -> None:
    """On the writer thread when `work` ends: its outcome to the loop (gone when the process ends)."""
    try:
        loop.call_soon_threadsafe(_pass_on, answer, work)
    except RuntimeError:  # the loop is closed: nobody awaits the answer any more
        pass


def _pass_on(answer: asyncio.Future, work: Future) -> None:
    """The write's outcome as the answer, unless close() answered first (or its caller gave up)."""
    if answer.done():
        return  # a failure nobody awaits any more was the store's to log
    if work.cancelled():
        answer.set_exception(WorkersClosed("the API is stopping: the write was not made"))
    elif work.exception() is not None:
        answer.set_exception(work.exception())
    else:
        answer.set_result(work.result())
