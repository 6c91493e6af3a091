"""memory_update calls of concurrent requests written together: one transaction, one commit.

A commit writes every page the transaction touched; the calls of concurrent requests share many of
them (the tails of event_logs and memory_changes, the sequence table), so writing the calls that
arrived together in one transaction costs much less than a commit each. Each call still runs in its
own savepoint: a call that fails undoes only its own writes. Replies go out after the commit.

The group is written on the event loop when the store's writer is free, else on the API's writer
thread: another thread or process holding the write lock never stalls the loop. One group at a time
goes to the thread; the calls that arrive meanwhile wait for it and are then written on the loop.
The loop's share is bounded by cost (operations), not by body size: see LOOP_OPERATIONS.
A store that says its work may not run on the loop (`inline_ok` False: PostgreSQL, where a group
waits on round trips and its commit's flush) has every group written on a writer thread, several at
once: see _Lanes.
"""
from __future__ import annotations

import asyncio
from typing import Any

from kiraos_desktop.core.storage.protocol import WriterBusy
from kiraos_desktop.core.tool_registry import MEMORY_UPDATE

_Call = tuple[str, dict, "asyncio.Future"]
#: Calls per group at most: a group holds the event loop for its duration (about 0.3 ms a call).
MAX_GROUP = 32
#: The loop's share of work per group, in operations (some 50 us each): a group closes before its
#: operations would pass it, and a call with more goes to the writer thread on its own, so no call
#: holds the loop (and every context read behind it) for more than about 10 ms, whatever its size.
LOOP_OPERATIONS = 200
#: Text costs too (checked, folded for the repeat check, copied by the index queues' triggers, later
#: segmented): about an operation's worth per this many characters of the call's strings.
CHARS_PER_OPERATION = 100
#: Turns of the event loop a group waits at most for more calls, while they keep arriving.
MAX_WAIT_TURNS = 3


class UpdateQueue:
    """Collects the calls that arrive while it waits (up to MAX_WAIT_TURNS turns of the event loop,
    as long as calls keep coming, and at most MAX_GROUP of them) and writes them as one group."""

    def __init__(self, store, tools, workers, actor: str, max_wait_turns: int = MAX_WAIT_TURNS,
                 max_quiet_turns: int = 1):
        """`max_wait_turns`: turns a group waits at most; `max_quiet_turns`: turns in a row without
        a new call after which it stops waiting (1: as soon as a turn brings none)."""
        self._wait = GroupWait(max_wait_turns, max_quiet_turns)
        self._arrived = 0  # calls so far
        self._store = store
        self._inline = store.inline_ok
        self._tools = tools
        self._workers = workers
        self._actor = actor
        self._pending: list[_Call] = []
        self._flush_scheduled = False
        self._on_thread: asyncio.Task | None = None  # the group handed to the writer thread
        self._lanes = None if self._inline else _Lanes(workers, self._write, max_wait_turns, max_quiet_turns)

    async def call(self, user_id: str, arguments: dict):
        """The ToolResult of memory_update for `user_id`, once it is committed; raises what the call raised."""
        if self._lanes is not None:
            return await self._lanes.call(user_id, arguments)
        if call_cost(arguments) > LOOP_OPERATIONS:
            return await self._call_on_thread(user_id, arguments)
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._pending.append((user_id, arguments, future))
        self._arrived += 1
        if not self._flush_scheduled and self._on_thread is None:
            self._flush_scheduled = True
            self._wait.start()
            loop.call_soon(self._flush)
        return await future

    def _flush(self) -> None:
        if self._on_thread is not None:
            # The calls wait for the group on the writer thread rather than follow it there: while
            # the loop runs, writes on another thread fight it for the GIL and each costs about
            # twice as much. The group's end flushes them.
            self._flush_scheduled = False
            return
        if self._wait.again(self._arrived, len(self._pending)):
            asyncio.get_running_loop().call_soon(self._flush)
            return
        size = _group_size(self._pending)
        calls, self._pending = self._pending[:size], self._pending[size:]
        # More than a group's worth waiting: the rest goes next turn, after other work of the loop.
        self._flush_scheduled = bool(self._pending)
        self._wait.restart(self._arrived)
        if self._pending:
            asyncio.get_running_loop().call_soon(self._flush)
        try:
            outcomes = self._write(calls, wait=False)
        except WriterBusy:
            self._hand_to_thread(calls)
            return
        except Exception as exc:  # the commit failed: nothing of the group was written
            _fail(calls, exc)
            return
        _deliver(calls, outcomes)

    def _hand_to_thread(self, calls: list[_Call]) -> None:
        self._on_thread = asyncio.ensure_future(self._write_on_thread(calls))
        self._on_thread.add_done_callback(self._thread_group_done)

    async def _call_on_thread(self, user_id: str, arguments: dict):
        """A call too costly for the loop, written alone on the writer thread (after what is queued there)."""
        [(ok, value)] = await self._workers.write(self._write, [(user_id, arguments, None)], True)
        if ok:
            return value
        raise value

    def _thread_group_done(self, _task: asyncio.Task) -> None:
        self._on_thread = None
        if self._pending and not self._flush_scheduled:
            self._flush_scheduled = True
            self._wait.start()
            asyncio.get_running_loop().call_soon(self._flush)

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


class _Lanes:
    """The groups of a store whose work may not run on the loop: each user's calls go to the user's
    writer thread (Workers.lane_of()), which writes one group at a time; the calls for its users that
    arrive meanwhile make its next group. The threads' groups wait on the database at once (each has
    its own connection), so their round trips and commit flushes overlap. Because a user always has
    the same thread, one user's calls are written in arrival order, and two threads of this process
    never wait for each other on a user's lock (which, taken in another order elsewhere, would make
    the store split a group to avoid a deadlock).

    Before a lane's group goes, it waits while calls keep arriving (any lane's: the signal that
    requests are coming in), as UpdateQueue does: fewer, larger groups cost fewer commits per call.
    """

    def __init__(self, workers, write, max_wait_turns: int, max_quiet_turns: int) -> None:
        self._workers = workers
        self._write = write
        lanes = range(workers.writers)
        self._pending: list[list[_Call]] = [[] for _ in lanes]
        self._busy = [False for _ in lanes]  # a group of the lane is being collected or written
        self._arrived = 0  # calls so far, of all lanes
        self._waits = [GroupWait(max_wait_turns, max_quiet_turns) for _ in lanes]
        self._tasks: set[asyncio.Task] = set()  # the groups being written (referenced until done)

    async def call(self, user_id: str, arguments: dict):
        lane = self._workers.lane_of(user_id)
        future = asyncio.get_running_loop().create_future()
        self._pending[lane].append((user_id, arguments, future))
        self._arrived += 1
        if not self._busy[lane]:
            self._busy[lane] = True
            self._collect(lane)
        return await future

    def _collect(self, lane: int) -> None:
        """Wait at least a turn of the loop, then while calls keep coming (or until the group is full)."""
        self._waits[lane].start()
        asyncio.get_running_loop().call_soon(self._collect_more, lane)

    def _collect_more(self, lane: int) -> None:
        pending = self._pending[lane]
        if self._waits[lane].again(self._arrived, len(pending)):
            asyncio.get_running_loop().call_soon(self._collect_more, lane)
            return
        if not pending:
            self._busy[lane] = False
            return
        size = _group_size(pending)
        calls, self._pending[lane] = pending[:size], pending[size:]
        task = asyncio.ensure_future(self._run(lane, calls))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, lane: int, calls: list[_Call]) -> None:
        try:
            outcomes = await self._workers.write_on(lane, self._write, calls, True)
        except Exception as exc:
            _fail(calls, exc)
        else:
            _deliver(calls, outcomes)
        if self._pending[lane]:  # arrived while the group was written: they make the next one
            asyncio.get_running_loop().call_soon(self._collect, lane)
        else:  # the next call starts a group (waiting from now would close it before the clients
            self._busy[lane] = False  # answered just now have sent their next calls)


class GroupWait:
    """The one rule for how long a group being collected waits: another turn of the event loop while
    calls keep arriving (a turn that brought none, max_quiet_turns in a row, ends it), at most
    max_wait_turns turns, and not once the group is full (MAX_GROUP). Calls that arrived during the
    last turn mean more may be on their way: the requests whose bytes come with the next poll for
    I/O. Fewer, larger groups mean fewer commits per call; flushing on the first turn gave groups of
    about 3 calls at 8 connections instead of about 7, and some 15% less throughput."""

    __slots__ = ("_max_wait", "_max_quiet", "_seen", "_turns", "_quiet")

    def __init__(self, max_wait_turns: int, max_quiet_turns: int) -> None:
        self._max_wait, self._max_quiet = max_wait_turns, max_quiet_turns
        self.start()

    def start(self) -> None:
        """A new group: its first check always counts as a turn that brought calls."""
        self._seen, self._turns, self._quiet = -1, 0, 0

    def restart(self, arrived: int) -> None:
        """A group went with calls left waiting: they make the next, which waits for new arrivals."""
        self._seen, self._turns, self._quiet = arrived, 0, 0

    def again(self, arrived: int, pending: int) -> bool:
        """Whether to wait another turn, given the calls arrived so far (a running count) and those
        pending for the group."""
        self._quiet = 0 if arrived > self._seen else self._quiet + 1
        if self._quiet < self._max_quiet and pending < MAX_GROUP and self._turns < self._max_wait:
            self._seen, self._turns = arrived, self._turns + 1
            return True
        return False


def call_cost(arguments: dict) -> int:
    """What a memory_update call costs the writer, in operations: one per operation, and one per
    CHARS_PER_OPERATION characters of their texts (a call of 200 events of 1,000 characters costs
    as much as 2,200 small operations)."""
    operations = arguments["operations"]
    chars = 0
    for op in operations:
        if isinstance(op, dict):
            for value in op.values():
                if isinstance(value, str):
                    chars += len(value)
    return max(1, len(operations)) + chars // CHARS_PER_OPERATION


def _group_size(pending: list[_Call]) -> int:
    """How many of the first pending calls make the next group: at most MAX_GROUP calls and
    LOOP_OPERATIONS operations (one call at least)."""
    cost = 0
    for count, (_, arguments, _) in enumerate(pending[:MAX_GROUP]):
        cost += call_cost(arguments)
        if cost > LOOP_OPERATIONS and count:
            return count
    return min(len(pending), MAX_GROUP)


def _deliver(calls: list[_Call], outcomes: list[tuple[bool, Any]]) -> None:
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
