"""A KiraOS plugin 3.x memory tree as a MemoryStore (storage/protocol.py), read only: what the API, MCP
and the command line serve from it, so that a second bot host shares the bot's memory.

Users are the tree's user entities, by the id the plugin keeps (`qq:12345`, its `{adapter}:{id}`).
A user's profile entries are the fields of its profile.json (lists and dicts as JSON text, category
"profile"); its events are its facts and reflections, newest first by their source time, numbered
1, 2, ... from the oldest (a 3.x memory is named by its file, not by a number: get_event() finds
none). The global and self memory and groups and channels are not users. What a bot host recalls
for a message is the plugin's injection (context/tree.py), not this mapping.

The store's own writes (the plugin routes' profile and event edits, which assume rows) are refused
(ReadOnlyData); the tree is written by the memory tools (tools/tree_tools.py), the 3.x window
and the `memory` commands, through the store's one `edits` (storage/tree/edits.py: one editor, one
journal and one lock per process, each change published on `changes`). group() itself writes nothing and is
allowed, so a memory_update reaches the memory tools.
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

from kiraos_desktop.core.memory.changes import ChangeBus, ChangeEvent
from kiraos_desktop.core.memory.records import (
    ChangeRecord,
    EventEntry,
    NotFoundError,
    ProfileEntry,
    ReadOnlyData,
    Stats,
    UserSummary,
    check_user_id,
)
from kiraos_desktop.core.storage import user_queries
from kiraos_desktop.core.storage.plugin_layout import PluginLayout, folder_layout
from kiraos_desktop.core.storage import upkeep
from kiraos_desktop.core.storage.protocol import KEEP_TAG
from kiraos_desktop.core.storage.tree.edits import TreeEdits
from kiraos_desktop.core.storage.tree.journal import journal_path
from kiraos_desktop.core.storage.tree.layout import EntityRef
from kiraos_desktop.core.storage.tree.tree import EntityTree

T = TypeVar("T")
#: profile.json fields that say what the file is, not what the bot knows.
_NOT_ENTRIES = ("entity_id", "entity_type")
PROFILE_CATEGORY = "profile"
USER_FOLDERS = ("facts", "reflections")


def read_only(root: str) -> ReadOnlyData:
    return ReadOnlyData(f"{root} holds KiraOS plugin 3.x data, a tree of files that this way of writing does not "
                        "reach: nothing was changed. Write it with memory_update or memory_clear, in the 3.x "
                        "window, or with `kiraos-desktop memory ...` and `profile set`.")


def entry_value(value: Any) -> str:
    """A profile field as an entry's value: text as it is, anything else as compact JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


class TreeMemoryStore:
    """The read-only MemoryStore of a plugin data folder holding a 3.x tree (see the module's docstring)."""

    inline_ok = False  # listing or searching reads thousands of files: never on an event loop
    writers = 1  # storage/tree/edits.py makes one change at a time: a second writer thread would wait
    epoch_expiries = False
    event_tags = False
    max_profiles_per_user = 50  # limits of writes, which a tree refuses
    max_event_keep = 100

    def __init__(self, folder: str | Path, data_dir: str | Path | None = None) -> None:
        """`data_dir`: our data dir, where the tree's history is kept (storage/tree/journal.py); none: the
        store cannot be edited (`edits` is None)."""
        root = Path(folder).expanduser().resolve()
        self.layout: PluginLayout | None = folder_layout(root)
        self.tree = EntityTree(root / "memory")
        self.changes = ChangeBus()
        self._stamp = self.tree.change_stamp()
        self.edits: TreeEdits | None = None
        if data_dir is not None:
            self.edits = TreeEdits(self.tree.root, journal_path(data_dir, self.tree.root), self.changes,
                                   written=self._own_write)

    def _own_write(self) -> None:
        """Our own change is published by `edits`: the watcher's next look must not report it again."""
        self._stamp = self.tree.change_stamp()

    # ---- capabilities and life -------------------------------------------------------------

    @property
    def location(self) -> str:
        return self.tree.root

    @property
    def local_file(self) -> Path | None:
        return None  # a tree of files, not one database file to back up or copy

    @property
    def entity_tree(self) -> EntityTree:
        return self.tree

    def close(self) -> None:
        """Nothing is held open: every read opens and closes its file."""

    # ---- writes: refused ----------------------------------------------------------------------

    @contextmanager
    def batch(self, actor: str, users: Iterable[str] | None = None, wait: bool = True,
              origin: str | None = None) -> Iterator[Any]:
        raise read_only(self.tree.root)
        yield  # a generator, as a batch is

    def run_batch(self, actor: str, work: Callable[[Any], T], users: Iterable[str] | None = None,
                  wait: bool = True, origin: str | None = None) -> tuple[T, list[int]]:
        raise read_only(self.tree.root)

    @contextmanager
    def group(self, wait: bool = True) -> Iterator[None]:
        yield  # a group writes nothing itself; the batches inside it are refused

    def allocate_change_ids(self, count: int) -> Sequence[int]:
        raise read_only(self.tree.root)

    def set_profile(self, user_id: str, key: str, value: str, *, actor: str, confidence: float = 0.5,
                    category: str = "basic", expires_at: str | None = None) -> ProfileEntry:
        raise read_only(self.tree.root)

    def delete_profile(self, user_id: str, key: str, *, actor: str) -> bool:
        raise read_only(self.tree.root)

    def add_event(self, user_id: str, summary: str, *, actor: str, created_at: str | None = None,
                  tag: str | None = None) -> int:
        raise read_only(self.tree.root)

    def update_event(self, user_id: str, event_id: int, summary: str, *, actor: str, tag: Any = KEEP_TAG) -> bool:
        raise read_only(self.tree.root)

    def delete_event(self, user_id: str, event_id: int, *, actor: str) -> bool:
        raise read_only(self.tree.root)

    def clear_user(self, user_id: str, *, actor: str) -> tuple[int, int]:
        raise read_only(self.tree.root)

    def purge_expired(self, *, actor: str, user_id: str | None = None) -> int:
        raise read_only(self.tree.root)

    # ---- other processes; no indexes of our own -------------------------------------------

    def poll_external_change(self) -> bool:
        """True (and an event published) when the plugin wrote since the last poll (a dozen stat calls)."""
        stamp = self.tree.change_stamp()
        changed, self._stamp = stamp != self._stamp, stamp
        if changed:
            self.changes.publish(ChangeEvent(None, "external", "external"))
        return changed

    def maintain(self, poll: bool = False, build: bool = False) -> None:
        upkeep.maintain(self, poll, build)

    def recall_catch_up(self) -> int:
        return 0

    @property
    def recall_build_complete(self) -> bool:
        return True

    def recall_build_step(self, batch: int = 0) -> tuple[int, int]:
        return 1, 1

    def recall_progress(self) -> tuple[int, int]:
        return 1, 1

    def recall_rows(self, user_id: str, words: tuple[str, ...], newest: int,
                    scan: bool = True) -> tuple[list[EventEntry], list[EventEntry], int]:
        events = self.get_events(user_id)
        return events[:newest], events, len(events)

    def user_search_catch_up(self, everything: bool = False) -> int:
        return 0

    @property
    def user_search_build_complete(self) -> bool:
        return True

    def user_search_build_step(self, users: int = 0, events: int = 0) -> tuple[int, int]:
        return 1, 1

    def checkpoint(self) -> None:
        """Nothing to checkpoint: the plugin's files are written whole."""

    def checkpoint_if_due(self) -> bool:
        return False

    # ---- reads ----------------------------------------------------------------------------

    def _user_ids(self) -> list[str]:
        refs, _ = self.tree.refs()
        return [ref.id for ref in refs if ref.kind == "user"]

    def _profile(self, user_id: str) -> dict[str, Any]:
        return self.tree.profile(EntityRef("user", user_id))[0]

    def _summary(self, user_id: str, memories: int) -> UserSummary:
        profile = self._profile(user_id)
        entries = sum(1 for key, value in profile.items() if key not in _NOT_ENTRIES and value not in ("", [], {}, None))
        last = profile.get("last_interaction")
        return UserSummary(user_id, entries, memories, str(last) if last not in (None, "") else None)

    def _summaries(self, search: str = "", in_content: bool = False) -> list[UserSummary]:
        words = search.strip()
        if in_content and words:
            listed = self.tree.entities(kind="user", search=words)
        else:
            listed = self.tree.entities(kind="user")
            if words:
                folded = words.casefold()
                listed = [s for s in listed if folded in s.ref.id.casefold()]
        return [self._summary(s.ref.id, sum(s.counts.get(folder, 0) for folder in USER_FOLDERS)) for s in listed]

    def _ordered(self, summaries: list[UserSummary], order_by: str, descending: bool) -> list[UserSummary]:
        if order_by not in user_queries.SORT_COLUMNS:
            raise ValueError(f"cannot sort users by {order_by!r}")
        ordered = sorted(summaries, key=lambda s: s.user_id, reverse=descending)
        if order_by != "user_id":
            ordered.sort(key=lambda s: (getattr(s, order_by) is not None, getattr(s, order_by) or 0),
                         reverse=descending)
        return ordered

    def stats(self) -> Stats:
        summaries = self._summaries()
        return Stats(len(summaries), sum(s.profile_count for s in summaries), sum(s.event_count for s in summaries))

    def count_users(self, search: str = "", in_content: bool = False) -> int:
        if not search.strip():
            return len(self._user_ids())
        return len(self._summaries(search, in_content))

    def list_users(self, search: str = "", in_content: bool = False, order_by: str = "user_id",
                   descending: bool = False, offset: int = 0, limit: int = 200) -> list[UserSummary]:
        ordered = self._ordered(self._summaries(search, in_content), order_by, descending)
        return ordered[offset:] if limit < 0 else ordered[offset:offset + limit]

    def search_user_ids(self, search: str, order_by: str = "user_id", descending: bool = False) -> list[str]:
        return [s.user_id for s in self._ordered(self._summaries(search, True), order_by, descending)]

    def search_users(self, search: str, order_by: str = "user_id", descending: bool = False,
                     page: int = 200) -> tuple[int, list[UserSummary], list[str] | None]:
        ordered = self._ordered(self._summaries(search, True), order_by, descending)
        return len(ordered), ordered[:page], [s.user_id for s in ordered]

    def search_users_after(self, search: str, descending: bool, after: str, page: int = 200) -> list[UserSummary]:
        ordered = self._ordered(self._summaries(search, True), "user_id", descending)
        later = [s for s in ordered if (s.user_id < after if descending else s.user_id > after)]
        return later[:page]

    def user_summaries(self, user_ids: list[str]) -> list[UserSummary]:
        known = set(self._user_ids())
        return [self._summary(uid, len(self._memories(uid))) for uid in user_ids if uid in known]

    def user_summary(self, user_id: str) -> UserSummary | None:
        found = self.user_summaries([user_id])
        return found[0] if found else None

    def all_user_ids(self) -> list[str]:
        return sorted(self._user_ids())

    def get_profile(self, user_id: str, key: str) -> ProfileEntry | None:
        return next((entry for entry in self.get_profiles(user_id) if entry.key == key), None)

    def get_profiles(self, user_id: str, include_expired: bool = True, now: str | None = None) -> list[ProfileEntry]:
        check_user_id(user_id)
        profile = self._profile(user_id)
        last = profile.get("last_interaction")
        updated = str(last) if last not in (None, "") else None
        return [ProfileEntry(user_id, key, entry_value(value), updated, 1.0, PROFILE_CATEGORY, None)
                for key, value in profile.items() if key not in _NOT_ENTRIES and value not in ("", [], {}, None)]

    def _memories(self, user_id: str) -> list[EventEntry]:
        """The user's facts and reflections as events, oldest first (numbered from 1)."""
        try:
            detail = self.tree.entity(EntityRef("user", user_id))
        except NotFoundError:
            return []
        memories = [m for folder in USER_FOLDERS for m in detail.memories.get(folder, [])]
        memories.sort(key=lambda m: (m.time, m.id))
        return [EventEntry(n, user_id, m.text, m.time or None) for n, m in enumerate(memories, 1)]

    def get_events(self, user_id: str, limit: int | None = None, offset: int = 0) -> list[EventEntry]:
        check_user_id(user_id)
        newest = self._memories(user_id)[::-1]
        return newest[offset:] if limit is None or limit < 0 else newest[offset:offset + limit]

    def get_event(self, event_id: int) -> EventEntry | None:
        return None  # a 3.x memory is named by its file (see the module's docstring)

    def context_rows(self, user_id: str, max_events: int, now: str) -> tuple[list[ProfileEntry], list[EventEntry]]:
        return self.get_profiles(user_id), self.get_events(user_id, limit=max(0, max_events))

    def newest_event_rows(self, user_id: str, limit: int) -> list[tuple]:
        return [(e.id, e.user_id, e.summary, e.created_at) for e in self.get_events(user_id, limit=limit)]

    def memory_of_users(self, user_ids: list[str]) -> tuple[dict[str, list[ProfileEntry]], dict[str, list[EventEntry]]]:
        return ({uid: self.get_profiles(uid) for uid in user_ids}, {uid: self._memories(uid) for uid in user_ids})

    def list_changes(self, user_id: str | None = None, limit: int = 100,
                     before_id: int | None = None) -> list[ChangeRecord]:
        return []  # nothing written here, so nothing in our history

    def get_change(self, change_id: int) -> ChangeRecord | None:
        return None

    def last_change_id(self) -> int:
        return 0
