"""What a database gives the store (storage/sql_store.py's SqlStore): its connections, transactions
and indexes. storage/sqlite/store.py and storage/postgres/store.py each have one."""
from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence, TypeVar

from kiraos_desktop.core.memory.changes import ChangeBus, ChangeEvent
from kiraos_desktop.core.storage import search_index as user_search_index
from kiraos_desktop.core.storage.plugin_layout import PluginLayout

T = TypeVar("T")


def savepoint_name(depth: int) -> str:
    """The savepoint of a batch opened at transaction nesting `depth` (1: directly inside a group)."""
    return f"kd_batch_{depth}"


class SqlBackend(Protocol):
    """What a database gives the store: its connections, transactions and indexes.

    The write state (`depth`, `deferred`, `in_group`) is the calling thread's where several threads
    write at once (PostgreSQL) and the one writer's otherwise (SQLite); it changes only between
    acquire() and release().
    """

    changes: ChangeBus
    max_profiles_per_user: int
    max_event_keep: int
    layout: PluginLayout | None
    epoch_expiries: bool
    event_tags: bool
    inline_ok: bool
    like: str  # the user list's case-insensitive LIKE
    depth: int  # transaction nesting on this thread's writer (0: none open)
    deferred: list[ChangeEvent | None] | None  # events of the open transaction, waiting for its commit
    in_group: bool  # the open transaction is a group()'s

    @property
    def writers(self) -> int:
        """MemoryWriter.writers."""
        ...

    @property
    def location(self) -> str: ...

    @property
    def local_file(self) -> Path | None: ...

    @property
    def recall_build_complete(self) -> bool: ...

    @property
    def user_search_build_complete(self) -> bool: ...

    def close(self) -> None: ...

    def acquire(self, wait: bool) -> None:
        """Take this thread's way to the writer (WriterBusy when wait is False and it is taken)."""
        ...

    def release(self) -> None: ...

    def transaction(self, wait: bool) -> AbstractContextManager[None]:
        """BEGIN ... COMMIT at depth 0, savepoint_name(depth) below it; the indexes drained before a commit."""
        ...

    def new_batch(self, actor: str) -> Any: ...

    def after_batch(self, batch: Any) -> None:
        """A batch's writes are done, before its commit (None: it failed)."""
        ...

    def retrying(self, work: Callable[[], T]) -> T:
        """Run a whole one-batch write again where the database may pick it as a deadlock victim."""
        ...

    def allocate_change_ids(self, count: int) -> Sequence[int]: ...

    def rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        """A read in SQLite's words (`?` parameters), on this thread's reader."""
        ...

    def query(self, query: Any) -> list[tuple]:
        """The rows of a peewee query, compiled for this database."""
        ...

    def user_search(self, work: Callable[[Any, user_search_index.BuildState], T]) -> T:
        """work(connection, build state) on a connection the user-search reads take."""
        ...

    def context_rows(self, user_id: str, max_events: int, now: str) -> tuple[list[tuple], list[tuple]]: ...

    def newest_event_rows(self, user_id: str, limit: int) -> list[tuple]: ...

    def recall_rows(self, user_id: str, words: tuple[str, ...], newest: int,
                    scan: bool) -> tuple[list[tuple], list[tuple], int]: ...

    def poll_external_change(self) -> bool: ...

    def recall_catch_up(self) -> int: ...

    def recall_build_step(self, batch: int) -> tuple[int, int]: ...

    def recall_progress(self) -> tuple[int, int]: ...

    def user_search_catch_up(self, everything: bool) -> int: ...

    def user_search_build_step(self, users: int, events: int) -> tuple[int, int]: ...

    def checkpoint(self) -> None: ...

    def checkpoint_if_due(self) -> bool: ...
