"""Undo/redo for every write made in the window, built on the store's audit log.

A command remembers the audit ids of the write it stands for. Undo reverts those ids (which
writes new audit records); redo reverts the undo's ids. Reverting is exact, so undo restores
the profiles and events as they were.
"""
from __future__ import annotations

from typing import Callable, TypeVar

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from kiraos_desktop.core.memory.history import revert_changes
from kiraos_desktop.core.memory.records import StoreError, StoreUnavailable
from kiraos_desktop.core.storage.protocol import MemoryBatch, MemoryStore

T = TypeVar("T")
GUI_ACTOR = "gui"


class StoreCommand(QUndoCommand):
    """A write that has already happened; pushing it does not write again."""

    def __init__(self, store: MemoryStore, text: str, change_ids: list[int],
                 on_error: Callable[[str], None]) -> None:
        super().__init__(text)
        self._store = store
        self._on_error = on_error
        self._done_ids = list(change_ids)  # reverting these undoes the command
        self._undone_ids: list[int] = []  # reverting these redoes it
        self._pushed = False

    def redo(self) -> None:
        if not self._pushed:  # QUndoStack.push() calls redo(); the write is already in the database
            self._pushed = True
            return
        self._done_ids = self._revert(self._undone_ids)

    def undo(self) -> None:
        self._undone_ids = self._revert(self._done_ids)

    def _revert(self, ids: list[int]) -> list[int]:
        if not ids:
            return []
        try:
            return revert_changes(self._store, ids, actor=GUI_ACTOR)
        except StoreError as exc:
            self._on_error(str(exc))
            self.setObsolete(True)  # the stack drops a command it can no longer replay
            return []


class UndoableWriter(QObject):
    """What widgets use to write: one transaction per call, pushed onto the window's undo stack."""

    failed = Signal(str)  # an undo or redo could not be applied (message for the status bar)
    # A write the database refused (another program's lock, a full disk, the server gone): nothing of
    # it was written. The window tells the user; the caller gets the StoreUnavailable and stops there.
    refused = Signal(str, str)  # (kind: storage/errors.classify()'s or "", the store's message)

    def __init__(self, store: MemoryStore, stack: QUndoStack, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.stack = stack

    def write(self, text: str, work: Callable[[MemoryBatch], T]) -> T:
        """Run `work(batch)` in one transaction as actor "gui"; errors propagate and nothing is kept
        (a StoreUnavailable is also reported on `refused`)."""
        try:
            with self.store.batch(GUI_ACTOR) as batch:
                result = work(batch)
        except StoreUnavailable as exc:
            self.refused.emit(exc.kind or "", str(exc))
            raise
        self.record(text, batch.change_ids)
        return result

    def revert(self, text: str, change_ids: list[int]) -> list[int]:
        """Revert audited changes (History tab) as an undoable step of its own."""
        new_ids = revert_changes(self.store, change_ids, actor=GUI_ACTOR)
        self.record(text, new_ids)
        return new_ids

    def record(self, text: str, change_ids: list[int]) -> None:
        if change_ids:
            self.stack.push(StoreCommand(self.store, text, change_ids, self.failed.emit))
