"""Keeping the SQLite store's two word indexes (recall, user search) up to date: what a commit takes of
their queues, what the watcher takes in idle time, and the builds of an existing database.

IndexUpkeep is a part of SqliteBackend (storage/sqlite/store.py), kept here: it uses the backend's
writer and reader, write lock, transaction(), the open transaction's state (`in_group`,
`_search_drained`) and the groups' (`groups_undrained`, `last_group_commit`), and the profile rows
its memory_update calls left (`_profile_hints`).
"""
from __future__ import annotations

import time

from kiraos_desktop.core.storage import recall_index
from kiraos_desktop.core.storage import search_index as user_search_index

# Both word indexes take their queues before a commit, in the same transaction. A write group's
# commit (the API under load) takes the recall queue every GROUPS_PER_DRAIN-th group only: the index
# pages that several groups share (the same words' ranges, the queues' tails) are then written once,
# some 20% less work per call, and the group that takes the queue carries a few ms more. The
# user-search queue (read by the window's Users search only) is left to idle time while groups come:
# once the API has been idle DRAIN_IDLE_S, the watcher takes it in transactions of IDLE_DRAIN_ROWS
# rows, for at most IDLE_DRAIN_BUDGET_S a tick; each user's words are then recomputed once for all
# the calls that changed them. Past USER_SEARCH_BACKLOG queued rows (sustained load) the groups take
# it again, every GROUPS_PER_DRAIN-th: the excess and BACKLOG_DRAIN_ROWS more (more than groups of
# 8 calls queue meanwhile, few enough, ~6 ms, not to stall the calls waiting). Readers never wait
# for either: recall reads its user's queued rows, and a user search takes the whole queue first.
GROUPS_PER_DRAIN = 4
DRAIN_IDLE_S = 0.1
USER_SEARCH_BACKLOG = 20000
IDLE_DRAIN_ROWS = 500
IDLE_DRAIN_BUDGET_S = 0.05
BACKLOG_DRAIN_ROWS = 250


class IndexUpkeep:
    """The index half of SqliteBackend."""

    # ---- before a commit ------------------------------------------------------------------

    def _leaves_queues(self) -> bool:
        """Whether the open transaction's commit leaves both queues to a later one (a write group that
        is not the GROUPS_PER_DRAIN-th)."""
        return self.in_group and self.groups_undrained + 1 < GROUPS_PER_DRAIN

    def _drain_before_commit(self) -> None:
        """Our own writes (queued by the triggers) reach both word indexes in the same commit, and
        with them whatever another process queued meanwhile."""
        conn = self.writer.connection()
        recall_index.drain(conn)
        rows = self._search_rows_before_commit(conn)
        if rows:
            self._drain_user_search(rows)

    def _search_rows_before_commit(self, conn) -> int:
        """How many rows of the user-search queue this commit takes: a window's or command's up to
        IDLE_DRAIN_ROWS (unless its body took some already); a write group's none, unless the queue is
        past USER_SEARCH_BACKLOG (then the excess and BACKLOG_DRAIN_ROWS more)."""
        if not self.in_group:
            return 0 if self._search_drained else IDLE_DRAIN_ROWS
        excess = user_search_index.backlog(conn) - USER_SEARCH_BACKLOG
        return min(user_search_index.DRAIN_BATCH, excess + BACKLOG_DRAIN_ROWS) if excess > 0 else 0

    def _drain_user_search(self, rows: int | None = None) -> int:
        """Move up to `rows` rows of the user-search queue into the index (write lock held, in a
        transaction, which then takes no more of it before its commit)."""
        hints = self._profile_hints.take(self._data_version_now)
        self._search_drained = True
        return user_search_index.drain(self.writer.connection(), self._search_state_now(),
                                       IDLE_DRAIN_ROWS if rows is None else rows, hints=hints)

    # ---- recall index --------------------------------------------------------------------

    def recall_catch_up(self) -> int:
        """Index what other processes queued (the watcher calls this); the number of queue rows taken.
        Nothing while the API's write groups, which take the queues every few groups, keep coming."""
        if self._groups_coming() or not self.rows("SELECT 1 FROM recall_queue LIMIT 1"):
            return 0
        with self._write_lock:
            if self.writer.is_closed():
                return 0
            conn = self.writer.connection()
            with self.transaction(wait=True):
                # transaction() drains before it commits; this drains first to learn how much.
                return recall_index.drain(conn)

    @property
    def recall_build_complete(self) -> bool:
        return self._recall_state.complete

    def recall_build_step(self, batch: int = recall_index.BUILD_BATCH) -> tuple[int, int]:
        """Index the next events of an existing database; (done, total) of the build, estimated."""
        with self._write_lock:
            if self.writer.is_closed():
                return 1, 1
            conn = self.writer.connection()
            with self.transaction(wait=True):
                self._recall_state = recall_index.build_step(conn, batch)
                progress = recall_index.build_progress(conn)
        return progress

    def recall_progress(self) -> tuple[int, int]:
        return recall_index.build_progress(self.reader.connection())

    # ---- user search index (core/storage/search_index.py) ------------------------------------

    def user_search_catch_up(self, everything: bool = False) -> int:
        """Index what the user-search queue holds (the watcher calls this; a search, `everything`); the
        number of rows taken. `everything`: the whole queue (DRAIN_BATCH rows a transaction). Else
        nothing while the API's write groups keep coming, and IDLE_DRAIN_ROWS a transaction for at
        most IDLE_DRAIN_BUDGET_S, the write lock free between them."""
        taken = 0
        if not everything and self._writes_coming():
            return taken
        started = time.monotonic()
        while self.rows("SELECT 1 FROM usersearch_queue LIMIT 1"):
            with self._write_lock:
                if self.writer.is_closed():
                    return taken
                with self.transaction(wait=True):
                    moved = self._drain_user_search(user_search_index.DRAIN_BATCH if everything else IDLE_DRAIN_ROWS)
            taken += moved
            if not moved:
                break
            if not everything and (self._writes_coming() or time.monotonic() - started > IDLE_DRAIN_BUDGET_S):
                break
        return taken

    def _search_state_now(self) -> user_search_index.BuildState:
        """The user search build's state, read again while a build runs (maybe in another process);
        inside a write transaction."""
        state = self._search_state
        return state if state.complete else user_search_index.read_build_state(self.writer.connection())

    def _groups_coming(self) -> bool:
        """Whether the API's write groups left the queues for one of their next commits, and are coming."""
        return bool(self.groups_undrained) and self._writes_coming()

    def _writes_coming(self) -> bool:
        """Whether the API's write groups are coming (one committed within DRAIN_IDLE_S)."""
        return time.monotonic() - self.last_group_commit < DRAIN_IDLE_S

    @property
    def user_search_build_complete(self) -> bool:
        return self._search_state.complete

    def user_search_build_step(self, users: int = user_search_index.BUILD_USERS,
                               events: int = user_search_index.BUILD_EVENTS) -> tuple[int, int]:
        """Index the next users' profiles or events of an existing database for user search; (done, total), estimated."""
        with self._write_lock:
            if self.writer.is_closed():
                return 1, 1
            conn = self.writer.connection()
            with self.transaction(wait=True):
                self._search_state = user_search_index.build_step(conn, users, events)
                progress = user_search_index.build_progress(conn)
        return progress
