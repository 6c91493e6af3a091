"""memory_update calls of concurrent requests written together: one transaction, one commit.

A commit writes every page the transaction touched; the calls of concurrent requests share many of
them (the tails of event_logs and memory_changes, the sequence table), so writing the calls that
arrived together in one transaction costs much less than a commit each. Each call still runs in its
own savepoint: a call that fails undoes only its own writes. Replies go out after the commit.

The group is written on the event loop when the store's writer is free, else on the API's writer
thread: another thread or process holding the write lock never stalls the loop.
"""
from __future__ import annotations

import asyncio

from kiraos_desktop.core.store import WriterBusy
from kiraos_desktop.core.tool_registry import MEMORY_UPDATE

_Call = tuple[str, dict, "asyncio.Future"]
#: Calls per group at most: a group holds the event loop for its duration (about 0.3 ms a call).
MAX_GROUP = 32


class UpdateQueue:
    """Collects the calls made during one turn of the event loop and writes them as one group."""

    def __init__(self, store, tools, workers, actor: str):
        self._store = store
        self._tools = tools
        self._workers = workers
        self._actor = actor
        self._pending: list[_Call] = []
        self._flush_scheduled = False
        self._handed_off: set[asyncio.Task] = set()  # groups on the writer thread (kept referenced)

    async def call(self, user_id: str, arguments: dict):
        """The ToolResult of memory_update for `user_id`, once it is committed; raises what the call raised."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._pending.append((user_id, arguments, future))
        if not self._flush_scheduled:
            self._flush_scheduled = True
            # After the other requests that are ready in this turn have queued their calls too.
            loop.call_soon(self._flush)
        return await future

    def _flush(self) -> None:
        calls, self._pending = self._pending[:MAX_GROUP], self._pending[MAX_GROUP:]
        # More than a group's worth waiting: the rest goes next turn, after other work of the loop.
        self._flush_scheduled = bool(self._pending)
        if self._pending:
            asyncio.get_running_loop().call_soon(self._flush)
        try:
            outcomes = self._write(calls, wait=False)
        except WriterBusy:
            task = asyncio.ensure_future(self._write_on_thread(calls))
            self._handed_off.add(task)
            task.add_done_callback(self._handed_off.discard)
            return
        except Exception as exc:  # the commit failed: nothing of the group was written
            _fail(calls, exc)
            return
        _deliver(calls, outcomes)

    async def _write_on_thread(self, calls: list[_Call]) -> None:
        try:
            outcomes = await self._workers.write(self._write, calls, True)
        except Exception as exc:
            _fail(calls, exc)
            return
        _deliver(calls, outcomes)

    def _write(self, calls: list[_Call], wait: bool) -> list[tuple[bool, object]]:
        outcomes: list[tuple[bool, object]] = []
        with self._store.group(wait=wait):
            for user_id, arguments, _ in calls:
                try:
                    # The call's batch is a savepoint of the group, and everything that can fail
                    # in a memory_update (the reply included) happens inside it: a failing call
                    # undoes its own writes and drops its change events; the other calls stand.
                    result = self._tools.call(MEMORY_UPDATE, user_id, arguments, actor=self._actor)
                except Exception as exc:
                    outcomes.append((False, exc))
                else:
                    outcomes.append((True, result))
        return outcomes


def _deliver(calls: list[_Call], outcomes: list[tuple[bool, object]]) -> None:
    for (_, _, future), (ok, value) in zip(calls, outcomes):
        if future.done():  # the request went away while its call was being written
            continue
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)


def _fail(calls: list[_Call], exc: Exception) -> None:
    for _, _, future in calls:
        if not future.done():
            future.set_exception(exc)
