"""The one way a process writes a KiraOS 3.x tree: one editor and one journal per tree, every change made
under one lock (two writers of this process never interleave: the window and the API's writer lanes
take turns), kept in the history with its write-ahead intent (storage/tree/journal.py), then published
once as a change event on the store's channel, as a database store publishes its commits."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

from kiraos_desktop.core.memory.changes import ChangeBus, ChangeEvent
from kiraos_desktop.core.storage.tree.change import TreeChange
from kiraos_desktop.core.storage.tree.editor import TreeEditor
from kiraos_desktop.core.storage.tree.journal import JournalEntry, TreeJournal
from kiraos_desktop.core.storage.tree.layout import parse_ref


class TreeEdits:
    """`editor` and `journal` of the tree under `memory_root`; `changes` gets an event per change kept;
    `written()` is called (under the lock) after each, before the event goes out."""

    def __init__(self, memory_root: str, journal_file: str | Path, changes: ChangeBus | None = None,
                 written: Callable[[], None] | None = None) -> None:
        self.editor = TreeEditor(memory_root)
        self.journal = TreeJournal(journal_file)
        self.changes = changes if changes is not None else ChangeBus()
        self._written = written
        self._lock = threading.RLock()

    def recover(self) -> list[str]:
        """Settle the edits a stopped process left half done (TreeJournal.recover)."""
        with self._lock:
            return self.journal.recover(self.editor)

    def keep(self, write: Callable[[], TreeChange], actor: str,
             reverts: int | None = None) -> tuple[TreeChange, JournalEntry]:
        """The change `write()` makes with the editor, kept in the history and published."""
        with self._lock:
            change, entry = self.journal.keep(self.editor, write, actor, reverts)
            if self._written is not None:
                self._written()
        self.changes.publish(ChangeEvent(_user_of(change.ref), change.action, actor))
        return change, entry


def _user_of(label: str) -> str | None:
    """The user a change was about (None for a group, a channel or the bot's own memory: any may show it)."""
    try:
        ref = parse_ref(label)
    except ValueError:
        return None
    return ref.id if ref.kind == "user" else None
