"""The store protocol (storage/protocol.py) over an SQL database, written once for SQLite and PostgreSQL.

`SqlStore` holds a backend (storage/sqlite/store.py, storage/postgres/store.py) and owns what both
databases share: the batches and write groups with their change events, the convenience writes, and
the reads in the SQL both run (storage/rows.py). A backend owns what differs: its connections, how a
transaction begins and ends, the word indexes' upkeep, and the few reads one of them runs its own way.
The store asks its backend through `SqlBackend` (storage/sql_backend.py); nothing is overridden or inherited.
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

from kiraos_desktop.core.memory.changes import ChangeEvent
from kiraos_desktop.core.memory.records import (
    ChangeRecord,
    EventEntry,
    ProfileEntry,
    Stats,
    UserSummary,
    check_user_id,
)
from kiraos_desktop.core.storage import recall_index, upkeep
from kiraos_desktop.core.storage import search_index as user_search_index
from kiraos_desktop.core.storage import user_queries
from kiraos_desktop.core.storage import user_search
from kiraos_desktop.core.storage import change_history
from kiraos_desktop.core.storage.sql_backend import SqlBackend
from kiraos_desktop.core.storage.protocol import KEEP_TAG
from kiraos_desktop.core.storage.rows import (
    EVENT_SELECT,
    LIVE_CONDITION,
    NEWEST_EVENTS_FIRST,
    PROFILE_SELECT,
    TAGGED_EVENT_SELECT,
    event_from_row,
    profile_from_row,
    sort_profiles,
    summary_from_row,
)
from kiraos_desktop.core.timeutil import now_iso

T = TypeVar("T")
USER_SORT_COLUMNS = tuple(user_queries.SORT_COLUMNS)
#: A LIMIT that means "all rows" in both databases (SQLite's -1 and PostgreSQL's NULL are not shared).
ALL_ROWS = 2 ** 62


class _Events:
    """The change events of one batch, appended to those of the transaction it belongs to."""

    def __init__(self, pending: list[ChangeEvent | None]) -> None:
        self.all = pending
        self._mark = len(pending)
        self.publishable: list[ChangeEvent | None] = []  # set when the outermost transaction committed

    def extend(self, events: Iterable[ChangeEvent]) -> None:
        self.all.extend(events)

    def drop(self) -> None:
        del self.all[self._mark:]


class SqlStore:
    """A MemoryStore on an SQL database (see the module's docstring)."""

    def __init__(self, backend: SqlBackend) -> None:
        self.backend = backend
        self.changes = backend.changes
        self.layout = backend.layout
        self.epoch_expiries = backend.epoch_expiries
        self.event_tags = backend.event_tags
        self.inline_ok = backend.inline_ok
        self.writers = backend.writers

    # The limits are read by every batch (the backend's), and changed by the settings at run time.
    @property
    def max_profiles_per_user(self) -> int:
        return self.backend.max_profiles_per_user

    @max_profiles_per_user.setter
    def max_profiles_per_user(self, value: int) -> None:
        self.backend.max_profiles_per_user = value

    @property
    def max_event_keep(self) -> int:
        return self.backend.max_event_keep

    @max_event_keep.setter
    def max_event_keep(self, value: int) -> None:
        self.backend.max_event_keep = value

    @property
    def location(self) -> str:
        return self.backend.location

    @property
    def local_file(self) -> Path | None:
        return self.backend.local_file

    @property
    def entity_tree(self) -> None:
        return None  # a database of users

    def close(self) -> None:
        self.backend.close()

    # ---- writing -------------------------------------------------------------------------

    @contextmanager
    def batch(self, actor: str, users: Iterable[str] | None = None, wait: bool = True,
              origin: str | None = None) -> Iterator[Any]:
        """One transaction; change events are published after it commits, never on rollback.

        Inside another batch or a group() on the same thread it is a savepoint: its failure undoes
        only its own writes (and drops its events), and its events wait for the outermost commit.
        `users`: every user the batch will write, for a caller that knows them before it starts and
        may write several (a revert, an import). SQLite ignores it; on PostgreSQL their locks are
        taken at once, in one order, and writing another user is an error (see PgWriteBatch).
        With wait=False it is refused with WriterBusy (nothing written) instead of waiting, as group()'s.
        """
        backend = self.backend
        backend.acquire(wait)
        try:
            try:
                with self._collecting_events(wait) as events:
                    batch = backend.new_batch(actor)
                    if users is not None:
                        batch.declare_users(users)
                    yield batch
                    batch.end_audit()
                    events.extend(ChangeEvent(user_id, action, actor, origin) for user_id, action in batch.touched())
                    backend.after_batch(batch)  # before the commit: it drains the queues
            except BaseException:
                backend.after_batch(None)
                raise
        finally:
            backend.release()
        self._publish(events)

    @contextmanager
    def group(self, wait: bool = True) -> Iterator[None]:
        """Group commit: the batches opened inside (on this thread) share one transaction.

        For a writer with several independent writes at hand (the API under load): the commit
        writes the pages the writes share once. Callers acknowledge each write only after this
        block has exited, that is after the commit. With wait=False it never blocks: WriterBusy
        (nothing written) when another thread holds SQLite's write lock or another process holds
        the database's, so an event loop can write inline when the way is free.
        """
        backend = self.backend
        backend.acquire(wait)
        try:
            if backend.depth:
                raise RuntimeError("write groups do not nest, nor go inside a batch")
            backend.in_group = True
            try:
                with self._collecting_events(wait) as events:
                    yield
            finally:
                backend.in_group = False
        finally:
            backend.release()
        self._publish(events)

    def _publish(self, events: _Events) -> None:
        for event in events.publishable:
            if event is not None:  # None: published already (a PostgreSQL group that committed early)
                self.changes.publish(event)

    @contextmanager
    def _collecting_events(self, wait: bool) -> Iterator[_Events]:
        """A transaction or savepoint whose change events are kept until the outermost one commits."""
        backend = self.backend
        outermost = backend.deferred is None
        if outermost:
            backend.deferred = []
        events = _Events(backend.deferred)  # type: ignore[arg-type]  # set just above when it was None
        try:
            with backend.transaction(wait):
                yield events
        except BaseException:
            events.drop()  # rolled back: its events (and those of batches inside it) never happened
            raise
        finally:
            if outermost:
                backend.deferred = None
        if outermost:
            events.publishable = events.all

    def allocate_change_ids(self, count: int) -> Sequence[int]:
        return self.backend.allocate_change_ids(count)

    def run_batch(self, actor: str, work: Callable[[Any], T], users: Iterable[str] | None = None,
                  wait: bool = True, origin: str | None = None) -> tuple[T, list[int]]:
        def run() -> tuple[T, list[int]]:
            with self.batch(actor, users=users, wait=wait, origin=origin) as batch:
                result = work(batch)
            return result, list(batch.change_ids)
        backend = self.backend
        if backend.depth or backend.in_group:  # a savepoint: the transaction around it is not ours to rerun
            return run()
        return backend.retrying(run)

    def _one_batch(self, actor: str, work: Callable[[Any], T]) -> T:
        return self.run_batch(actor, work)[0]

    def set_profile(self, user_id: str, key: str, value: str, *, actor: str, confidence: float = 0.5,
                    category: str = "basic", expires_at: str | None = None) -> ProfileEntry:
        return self._one_batch(actor, lambda batch: batch.set_profile(
            user_id, key, value, confidence=confidence, category=category, expires_at=expires_at))

    def delete_profile(self, user_id: str, key: str, *, actor: str) -> bool:
        return self._one_batch(actor, lambda batch: batch.delete_profile(user_id, key))

    def add_event(self, user_id: str, summary: str, *, actor: str, created_at: str | None = None,
                  tag: str | None = None) -> int:
        return self._one_batch(actor, lambda batch: batch.add_event(user_id, summary, created_at=created_at, tag=tag))

    def update_event(self, user_id: str, event_id: int, summary: str, *, actor: str, tag: Any = KEEP_TAG) -> bool:
        """A new text; with `tag`, a new tag too (event_tags data only; None removes it)."""
        return self._one_batch(actor, lambda batch: batch.update_event(user_id, event_id, summary, tag))

    def delete_event(self, user_id: str, event_id: int, *, actor: str) -> bool:
        return self._one_batch(actor, lambda batch: batch.delete_event(user_id, event_id))

    def clear_user(self, user_id: str, *, actor: str) -> tuple[int, int]:
        return self._one_batch(actor, lambda batch: batch.clear_user(user_id))

    def purge_expired(self, *, actor: str, user_id: str | None = None) -> int:
        return self._one_batch(actor, lambda batch: batch.purge_expired(user_id))

    # ---- other processes and background indexes ---------------------------------------------

    def poll_external_change(self) -> bool:
        return self.backend.poll_external_change()

    def maintain(self, poll: bool = False, build: bool = False) -> None:
        upkeep.maintain(self, poll, build)

    def recall_catch_up(self) -> int:
        return self.backend.recall_catch_up()

    @property
    def recall_build_complete(self) -> bool:
        return self.backend.recall_build_complete

    def recall_build_step(self, batch: int = recall_index.BUILD_BATCH) -> tuple[int, int]:
        return self.backend.recall_build_step(batch)

    def recall_progress(self) -> tuple[int, int]:
        return self.backend.recall_progress()

    def recall_rows(self, user_id: str, words: tuple[str, ...], newest: int,
                    scan: bool = True) -> tuple[list[EventEntry], list[EventEntry], int]:
        """The user's `newest` newest events (newest first), those that may hold one of the words (a
        superset), and how many events the user has."""
        latest, found, counted = self.backend.recall_rows(user_id, words, newest, scan)
        return [event_from_row(row) for row in latest], [event_from_row(row) for row in found], max(len(found), counted)

    def user_search_catch_up(self, everything: bool = False) -> int:
        return self.backend.user_search_catch_up(everything)

    @property
    def user_search_build_complete(self) -> bool:
        return self.backend.user_search_build_complete

    def user_search_build_step(self, users: int = user_search_index.BUILD_USERS,
                               events: int = user_search_index.BUILD_EVENTS) -> tuple[int, int]:
        return self.backend.user_search_build_step(users, events)

    def checkpoint(self) -> None:
        self.backend.checkpoint()

    def checkpoint_if_due(self) -> bool:
        return self.backend.checkpoint_if_due()

    # ---- reading -------------------------------------------------------------------------

    def _rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        return self.backend.rows(sql, params)

    def stats(self) -> Stats:
        row = self.backend.query(user_queries.stats_query())[0]
        return Stats(int(row[0]), int(row[1]), int(row[2]))

    def _user_filter(self, search: str) -> Any:
        return user_queries.id_filter(user_search.like_pattern(search) if search else None, self.backend.like)

    def count_users(self, search: str = "", in_content: bool = False) -> int:
        if in_content and search.strip():
            return len(self.search_user_ids(search))
        return int(self.backend.query(user_queries.count_query(self._user_filter(search)))[0][0])

    def list_users(self, search: str = "", in_content: bool = False, order_by: str = "user_id",
                   descending: bool = False, offset: int = 0, limit: int = 200) -> list[UserSummary]:
        """A page of the user list; a negative limit: every user from `offset` on."""
        if order_by not in USER_SORT_COLUMNS:
            raise ValueError(f"cannot sort users by {order_by!r}")
        if in_content and search.strip():
            ids = self.search_user_ids(search, order_by, descending)
            return self.user_summaries(ids[offset:] if limit < 0 else ids[offset:offset + limit])
        rows = self.backend.query(user_queries.list_query(
            self._user_filter(search), order_by, descending, offset, ALL_ROWS if limit < 0 else limit))
        return [summary_from_row(row) for row in rows]

    def search_user_ids(self, search: str, order_by: str = "user_id", descending: bool = False) -> list[str]:
        """Ids of the users whose id contains `search` or whose keys, values or events match it (see
        core/storage/user_search.py), in the list's order; what other processes queued is indexed first."""
        self.user_search_catch_up(everything=True)
        return self.backend.user_search(
            lambda conn, state: user_search.search_user_ids(conn, search, state, order_by, descending))

    def search_users(self, search: str, order_by: str = "user_id", descending: bool = False,
                     page: int = 200) -> tuple[int, list[UserSummary], list[str] | None]:
        """(how many users match, the first `page` of them, every id when they were computed at once;
        None: read later pages with search_users_after)."""
        self.user_search_catch_up(everything=True)
        found = self.backend.user_search(
            lambda conn, state: user_search.search(conn, search, state, order_by, descending, page))
        return found.total, self.user_summaries(found.first), found.ids

    def search_users_after(self, search: str, descending: bool, after: str, page: int = 200) -> list[UserSummary]:
        """The next page of a search in id order, after the user id `after`."""
        return self.user_summaries(self.backend.user_search(
            lambda conn, state: user_search.page_after(conn, search, state, descending, after, page)))

    def user_summaries(self, user_ids: list[str]) -> list[UserSummary]:
        """The summaries of these users in the given order; users without entries or events left out."""
        found: dict[str, UserSummary] = {}
        for start in range(0, len(user_ids), 500):
            chunk = user_ids[start:start + 500]
            for row in self.backend.query(user_queries.summaries_query(chunk)):
                found[row[0]] = summary_from_row(row)
        return [found[user_id] for user_id in user_ids if user_id in found]

    def user_summary(self, user_id: str) -> UserSummary | None:
        rows = self.backend.query(user_queries.summaries_query([user_id]))
        return summary_from_row(rows[0]) if rows else None

    def all_user_ids(self) -> list[str]:
        return [r[0] for r in self.backend.query(user_queries.all_ids_query())]

    def get_profile(self, user_id: str, key: str) -> ProfileEntry | None:
        rows = self._rows(f"{PROFILE_SELECT} WHERE user_id = ? AND memory_key = ?", (user_id, key))
        return profile_from_row(rows[0]) if rows else None

    def get_profiles(self, user_id: str, include_expired: bool = True, now: str | None = None) -> list[ProfileEntry]:
        check_user_id(user_id)
        if include_expired:
            rows = self._rows(f"{PROFILE_SELECT} WHERE user_id = ?", (user_id,))
        else:
            rows = self._rows(f"{PROFILE_SELECT} WHERE user_id = ? AND {LIVE_CONDITION}",
                              (user_id, now or now_iso()))
        return sort_profiles(profile_from_row(r) for r in rows)

    @property
    def _events_read(self) -> str:
        return TAGGED_EVENT_SELECT if self.event_tags else EVENT_SELECT

    def get_events(self, user_id: str, limit: int | None = None, offset: int = 0) -> list[EventEntry]:
        """The user's events, newest first, with their tags where the data has them."""
        rows = self._rows(f"{self._events_read} WHERE user_id = ? {NEWEST_EVENTS_FIRST} LIMIT ? OFFSET ?",
                          (user_id, ALL_ROWS if limit is None else limit, offset))
        return [event_from_row(row) for row in rows]

    def get_event(self, event_id: int) -> EventEntry | None:
        rows = self._rows(f"{self._events_read} WHERE id = ?", (event_id,))
        return event_from_row(rows[0]) if rows else None

    def context_rows(self, user_id: str, max_events: int, now: str) -> tuple[list[ProfileEntry], list[EventEntry]]:
        """What the context block needs: the user's live entries and newest `max_events` events."""
        profiles, events = self.backend.context_rows(user_id, max_events, now)
        return sort_profiles(profile_from_row(r) for r in profiles), [event_from_row(r) for r in events]

    def newest_event_rows(self, user_id: str, limit: int) -> list[tuple]:
        """The user's `limit` newest events as rows (EVENT_COLUMNS), newest first: what recall holds per user."""
        return self.backend.newest_event_rows(user_id, limit)

    def memory_of_users(self, user_ids: list[str]) -> tuple[dict[str, list[ProfileEntry]], dict[str, list[EventEntry]]]:
        """Every profile entry (in display order) and event (oldest first) of these users, in two
        reads (an export reads its users a few hundred at a time)."""
        among = f"user_id IN ({', '.join('?' * len(user_ids))})"
        profiles: dict[str, list[ProfileEntry]] = {uid: [] for uid in user_ids}
        for row in sorted(self._rows(f"{PROFILE_SELECT} WHERE {among}", tuple(user_ids)), key=lambda r: (r[0], r[1])):
            profiles[row[0]].append(profile_from_row(row))  # one order on both databases (code points)
        events: dict[str, list[EventEntry]] = {uid: [] for uid in user_ids}
        rows = self._rows(f"{self._events_read} WHERE {among}", tuple(user_ids))
        # Oldest first: get_events()'s order (created_at, then id) reversed, a missing time first as SQLite has it.
        for row in sorted(rows, key=lambda r: (r[3] is not None, r[3] or "", r[0])):
            events[row[1]].append(event_from_row(row))
        return {uid: sort_profiles(entries) for uid, entries in profiles.items()}, events

    def list_changes(self, user_id: str | None = None, limit: int = 100,
                     before_id: int | None = None) -> list[ChangeRecord]:
        """The newest changes first (of one user, or of all), older than `before_id` when given; a
        negative limit: all of them."""
        return change_history.list_changes(self._rows, user_id, ALL_ROWS if limit < 0 else limit, before_id)

    def get_change(self, change_id: int) -> ChangeRecord | None:
        return change_history.get_change(self._rows, change_id)

    def last_change_id(self) -> int:
        return int(self._rows("SELECT coalesce(max(id), 0) FROM memory_changes")[0][0])
