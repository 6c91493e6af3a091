"""The store protocol: everything the window, the API, the command line and the rest of core may use of a
storage shape (SQLite 1.x/2.x in storage/sqlite/, PostgreSQL in storage/postgres/, next the KiraOS 3.x
file tree), and nothing else.

Callers hold a `MemoryStore` and never ask which shape it is: what differs is stated here as
capabilities (`location`, `local_file`, `entity_tree`, `inline_ok`, `layout`, `event_tags`, ...). Change events:
every committed write publishes ChangeEvents on `changes` (core/memory/changes.py), on the writing
thread, after its commit; a subscriber hands them to its own thread. Writes by another process
arrive as ChangeEvents too, once `poll_external_change()` (the watcher) or the PostgreSQL listener
has seen them.

Each implementation is checked against this protocol by the type checker (conformance.py,
tests/test_types.py).
"""
from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Protocol, Sequence, TypeVar

from kiraos_desktop.core.memory.changes import ChangeBus
from kiraos_desktop.core.memory.records import ChangeRecord, EventEntry, ProfileEntry, Stats, UserSummary
from kiraos_desktop.core.storage.plugin_layout import PluginLayout
from kiraos_desktop.core.storage.rows import ProfileRow

if TYPE_CHECKING:  # the tree's package imports this module
    from kiraos_desktop.core.storage.tree.tree import EntityTree


class WriterBusy(RuntimeError):
    """group(wait=False) would have to wait for the write lock (the caller hands its work to a thread)."""


class _KeepTag:
    """The type of KEEP_TAG."""

    def __repr__(self) -> str:
        return "KEEP_TAG"


#: update_event()'s `tag` when the event's tag stays as stored.
KEEP_TAG: Any = _KeepTag()

T = TypeVar("T")


class MemoryBatch(Protocol):
    """The writes of one transaction (MemoryStore.batch()); each records its audit row and change event."""

    def set_profile(self, user_id: str, key: str, value: Any, *, confidence: Any = 0.5, category: Any = "basic",
                    expires_at: Any = None, enforce_limit: bool = True,
                    known: dict[str, ProfileRow] | None = None) -> ProfileEntry:
        """`known`: profile_rows() of the user, kept current by the batch's writes (saves a read per write)."""
        ...

    def delete_profile(self, user_id: str, key: str, known: dict[str, ProfileRow] | None = None) -> bool: ...

    def profile_rows(self, user_id: str) -> dict[str, ProfileRow]: ...

    def is_recent_event(self, user_id: str, summary: str, window: timedelta) -> bool:
        """Whether one of the user's events of the last `window` has the same text (recall/text.repeat_key())."""
        ...

    def add_event(self, user_id: str, summary: Any, *, created_at: str | None = None, trim: bool = True,
                  tag: Any = None) -> int: ...

    def update_event(self, user_id: str, event_id: int, summary: Any, tag: Any = KEEP_TAG) -> bool: ...

    def delete_event(self, user_id: str, event_id: int) -> bool: ...

    def clear_user(self, user_id: str) -> tuple[int, int]: ...

    def purge_expired(self, user_id: str | None = None) -> int: ...

    def restore_profile(self, data: dict) -> None: ...

    def restore_event(self, data: dict) -> None: ...

    @property
    def change_ids(self) -> list[int]:
        """The audit ids this batch wrote, in order (an undo step reverts them)."""
        ...

    def leave_profile_rows(self, user_id: str, known: dict[str, ProfileRow]) -> None:
        """`known` (profile_rows() kept current by every write) is what the user has at the batch's end."""
        ...


class MemoryReader(Protocol):
    """What pages, routes and commands read of a storage shape, and its capabilities."""

    #: Change events of every committed write (see the module's docstring).
    changes: ChangeBus
    max_profiles_per_user: int
    max_event_keep: int
    #: Which KiraOS plugin layout the data has (storage/plugin_layout.py); None: not a plugin's data.
    layout: PluginLayout | None
    #: Expiries stored as epoch seconds (KiraOS plugin 2.x) rather than ISO text.
    epoch_expiries: bool
    #: Events have a tag (KiraOS plugin 2.x): read with them, and add_event/update_event take one.
    event_tags: bool

    # ---- capabilities ----------------------------------------------------------------------------

    @property
    def inline_ok(self) -> bool:
        """Whether its reads and writes may run on an event loop (they cost less than a hand-off to a
        thread); False when every operation waits on another process over a connection."""
        ...

    @property
    def location(self) -> str:
        """Where the memory lives, for people: a file's path, or a server's address without secrets."""
        ...

    @property
    def local_file(self) -> Path | None:
        """The database file when the memory is one on this machine (File > Backup and the copy to
        PostgreSQL copy it; its permissions are shown); None on a server."""
        ...

    @property
    def entity_tree(self) -> EntityTree | None:
        """The KiraOS 3.x tree of entity files the memory is (the window shows it as entities, with
        their facts and reflections); None for a database of users."""
        ...


    def stats(self) -> Stats: ...

    def count_users(self, search: str = "", in_content: bool = False) -> int: ...

    def list_users(self, search: str = "", in_content: bool = False, order_by: str = "user_id",
                   descending: bool = False, offset: int = 0, limit: int = 200) -> list[UserSummary]: ...

    def search_user_ids(self, search: str, order_by: str = "user_id", descending: bool = False) -> list[str]: ...

    def search_users(self, search: str, order_by: str = "user_id", descending: bool = False,
                     page: int = 200) -> tuple[int, list[UserSummary], list[str] | None]: ...

    def search_users_after(self, search: str, descending: bool, after: str,
                           page: int = 200) -> list[UserSummary]: ...

    def user_summaries(self, user_ids: list[str]) -> list[UserSummary]: ...

    def user_summary(self, user_id: str) -> UserSummary | None: ...

    def all_user_ids(self) -> list[str]: ...

    def get_profile(self, user_id: str, key: str) -> ProfileEntry | None: ...

    def get_profiles(self, user_id: str, include_expired: bool = True,
                     now: str | None = None) -> list[ProfileEntry]: ...

    def get_events(self, user_id: str, limit: int | None = None, offset: int = 0) -> list[EventEntry]: ...

    def get_event(self, event_id: int) -> EventEntry | None: ...

    def context_rows(self, user_id: str, max_events: int,
                     now: str) -> tuple[list[ProfileEntry], list[EventEntry]]: ...

    def newest_event_rows(self, user_id: str, limit: int) -> list[tuple]: ...

    def memory_of_users(self, user_ids: list[str]) -> tuple[dict[str, list[ProfileEntry]], dict[str, list[EventEntry]]]:
        """Every profile entry (display order) and event (oldest first) of these users, by user (an export's read)."""
        ...

    def list_changes(self, user_id: str | None = None, limit: int = 100,
                     before_id: int | None = None) -> list[ChangeRecord]: ...

    def get_change(self, change_id: int) -> ChangeRecord | None: ...

    def last_change_id(self) -> int: ...

    def recall_rows(self, user_id: str, words: tuple[str, ...], newest: int,
                    scan: bool = True) -> tuple[list[EventEntry], list[EventEntry], int]: ...


class MemoryWriter(Protocol):
    """The writes of a storage shape; each commit is published on `changes`."""

    changes: ChangeBus

    @property
    def writers(self) -> int:
        """How many threads a server gives its writes (core/writes): each writes on its own connection,
        a user's writes always on the same one; 1 where the store takes one writer at a time."""
        ...

    def batch(self, actor: str, users: Iterable[str] | None = None, wait: bool = True,
              origin: str | None = None) -> AbstractContextManager[MemoryBatch]:
        """One transaction of writes; inside another batch or a group(), a savepoint; wait=False raises
        WriterBusy instead of waiting. `origin`: the view that made it, named in its change events (it
        shows the write already: it is not refreshed again). A caller that can run its work again uses
        run_batch()."""
        ...

    def run_batch(self, actor: str, work: Callable[[MemoryBatch], T], users: Iterable[str] | None = None,
                  wait: bool = True, origin: str | None = None) -> tuple[T, list[int]]:
        """`work(batch)` in one batch(), run again whole when the store's one retry policy says so (a
        PostgreSQL deadlock or serialization victim; never inside a group or another batch, where it
        is a savepoint); (what work returned, the batch's change ids). Every write a caller opens
        itself goes through here, so every batch is retried alike."""
        ...

    def group(self, wait: bool = True) -> AbstractContextManager[None]:
        """Batches opened inside share one commit; wait=False raises WriterBusy instead of waiting."""
        ...

    def allocate_change_ids(self, count: int) -> Sequence[int]: ...

    def set_profile(self, user_id: str, key: str, value: str, *, actor: str, confidence: float = 0.5,
                    category: str = "basic", expires_at: str | None = None) -> ProfileEntry: ...

    def delete_profile(self, user_id: str, key: str, *, actor: str) -> bool: ...

    def add_event(self, user_id: str, summary: str, *, actor: str, created_at: str | None = None,
                  tag: str | None = None) -> int: ...

    def update_event(self, user_id: str, event_id: int, summary: str, *, actor: str, tag: Any = KEEP_TAG) -> bool: ...

    def delete_event(self, user_id: str, event_id: int, *, actor: str) -> bool: ...

    def clear_user(self, user_id: str, *, actor: str) -> tuple[int, int]: ...

    def purge_expired(self, *, actor: str, user_id: str | None = None) -> int: ...


class StoreUpkeep(Protocol):
    """Index and WAL upkeep and other processes' writes: the engine's watcher (maintain()) and the
    window's build task (the build steps) alone call these."""

    def poll_external_change(self) -> bool: ...

    def recall_catch_up(self) -> int: ...

    @property
    def recall_build_complete(self) -> bool: ...

    def recall_build_step(self, batch: int = ...) -> tuple[int, int]: ...

    def recall_progress(self) -> tuple[int, int]: ...


    def user_search_catch_up(self, everything: bool = False) -> int: ...

    @property
    def user_search_build_complete(self) -> bool: ...

    def user_search_build_step(self, users: int = ..., events: int = ...) -> tuple[int, int]: ...

    def checkpoint(self) -> None: ...

    def checkpoint_if_due(self) -> bool: ...

    def maintain(self, poll: bool = False, build: bool = False) -> None:
        """The watcher's one call, every tick (core/engine.py): with `poll`, look for other processes'
        commits (publishing them) and checkpoint; else checkpoint when our writes made it due; then
        bring the indexes up to date with what was written; with `build`, one step of building an
        existing database's indexes."""
        ...


class MemoryStore(MemoryReader, MemoryWriter, StoreUpkeep, Protocol):
    """A storage shape as a whole: what the engine opens and closes."""

    def close(self) -> None: ...
