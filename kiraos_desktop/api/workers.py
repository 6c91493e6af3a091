"""Where blocking work runs: one writer thread for the API's store writes, the shared pool for reads."""
from __future__ import annotations

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor

from starlette.concurrency import run_in_threadpool


class Workers:
    """Writes queue up on a single thread, in arrival order: SQLite takes one writer at a time anyway,
    and several API threads waiting on the store's write lock would only fight over the GIL (each
    handoff can cost a whole switch interval). Reads may wait on nothing, so they share the pool.
    """

    def __init__(self) -> None:
        self._writer: ThreadPoolExecutor | None = None

    async def write(self, fn, *args, **kwargs):
        if self._writer is None:
            self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kiraos-api-writer")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._writer, functools.partial(fn, *args, **kwargs))

    async def read(self, fn, *args, **kwargs):
        return await run_in_threadpool(fn, *args, **kwargs)

    def close(self) -> None:
        """Let queued writes finish in the background; no new ones are accepted after the server stops."""
        if self._writer is not None:
            self._writer.shutdown(wait=False)
            self._writer = None
