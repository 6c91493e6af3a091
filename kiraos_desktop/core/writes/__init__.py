"""When and where the writes of a server run: the one home of write scheduling.

`WriteScheduler` owns, for one store, the writer threads (how many: the store's `writers`
capability), the lanes that give each user one of them, and the queues that group memory_update
calls into one transaction (update_queue.py, one waiting rule: GroupWait). The HTTP API and both
MCP transports (HTTP and stdio) take theirs from it, so a stdio server on PostgreSQL writes on as
many lanes as the HTTP one. The store itself decides only what a transaction does inside (its
index drains, storage/sqlite/store.py), never when one runs.
"""
from __future__ import annotations

from kiraos_desktop.core.writes.update_queue import MAX_WAIT_TURNS, UpdateQueue
from kiraos_desktop.core.writes.workers import Workers, WorkersClosed, writer_threads

__all__ = ["WriteScheduler", "UpdateQueue", "Workers", "WorkersClosed", "writer_threads"]


class WriteScheduler:
    """The workers of one server and the memory_update queues built on them."""

    def __init__(self, store, tools, actor: str) -> None:
        self._store = store
        self._tools = tools
        self._actor = actor
        self.workers = Workers(writer_threads(store))

    def update_queue(self, max_wait_turns: int = MAX_WAIT_TURNS, max_quiet_turns: int = 1) -> UpdateQueue:
        """A queue grouping memory_update calls on this scheduler's workers (see UpdateQueue for the turns)."""
        return UpdateQueue(self._store, self._tools, self.workers, self._actor, max_wait_turns=max_wait_turns,
                           max_quiet_turns=max_quiet_turns)

    def close(self) -> None:
        """Later writes are refused (WorkersClosed); queued ones finish (Workers.close)."""
        self.workers.close()
