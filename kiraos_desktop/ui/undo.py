"""Undo/redo for every write made in the window, built on the store's audit log.

A command remembers the audit ids of the write it stands for. Undo reverts those ids (which
writes new audit records); redo reverts the undo's ids. Reverting is exact, so undo restores
the profiles and events as they were.
"""
from __future__ import annotations

from typing import Callable, TypeVar

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack
from PySide6.QtWidgets import QWidget

from kiraos_desktop.core.storage.revert import revert_changes
from kiraos_desktop.core.memory.records import StoreError, StoreUnavailable
from kiraos_desktop.core.storage.protocol import MemoryBatch, MemoryStore, WriterBusy
from kiraos_desktop.ui.busy_box import InputHold
from kiraos_desktop.ui.tasks import run_task

T = TypeVar("T")
GUI_ACTOR = "gui"


def run_write(store: MemoryStore, job: Callable[[bool], T], parent: QWidget | None = None) -> T:
    """Run a window's write without ever blocking the window.

    `job(wait)` writes; with wait=False it refuses with WriterBusy rather than wait for the writer.
    Where the store may work on this thread (`inline_ok`), the write is tried here without waiting;
    when the writer is taken (another program holds SQLite's lock) or the store waits on a server
    for everything, it runs on a task thread while the window goes on painting, input held, behind
    a busy box after a moment. What the write raised is raised here, as from an inline write.
    """
    if store.inline_ok:
        try:
            return job(False)
        except WriterBusy:
            pass
    return run_held(lambda: job(True), parent)


def run_held(write: Callable[[], T], parent: QWidget | None = None) -> T:
    """Run `write` on a task thread while the window goes on painting with its input held (a busy box
    after a moment); what it raised is raised here."""
    #: The busy box's title and text while a write from the window waits for the database.
    title = QCoreApplication.translate("UndoableWriter", "Writing to the memory")
    label = QCoreApplication.translate("UndoableWriter", "Waiting for the database: another program is writing "
                                       "to it. Your change is written as soon as it is free.")
    with InputHold():
        outcome = run_task(parent, title, lambda progress, cancelled: write(), label=label, cancellable=False)
    if outcome.error is not None:
        raise outcome.error
    if not outcome.ok:
        raise StoreUnavailable(outcome.message)
    return outcome.result


class StoreCommand(QUndoCommand):
    """A write that has already happened; pushing it does not write again."""

    def __init__(self, store: MemoryStore, text: str, change_ids: list[int],
                 on_error: Callable[[str], None], parent: QWidget | None = None) -> None:
        super().__init__(text)
        self._store = store
        self._on_error = on_error
        self._parent = parent
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
            return run_write(self._store, lambda wait: revert_changes(self._store, ids, actor=GUI_ACTOR, wait=wait),
                             self._parent)
        except StoreError as exc:
            self._on_error(str(exc))
            self.setObsolete(True)  # the stack drops a command it can no longer replay
            return []


class UndoableWriter(QObject):
    """What widgets use to write: one transaction per call, pushed onto the window's undo stack.
    A write never blocks the window (run_write())."""

    failed = Signal(str)  # an undo or redo could not be applied (message for the status bar)
    # A write the database refused (another program's lock, a full disk, the server gone): nothing of
    # it was written. The window tells the user; the caller gets the StoreUnavailable and stops there.
    refused = Signal(str, str)  # (kind: storage/errors.classify()'s or "", the store's message)

    def __init__(self, store: MemoryStore, stack: QUndoStack, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.stack = stack

    def _window(self) -> QWidget | None:
        parent = self.parent()
        return parent if isinstance(parent, QWidget) else None

    def write(self, text: str, work: Callable[[MemoryBatch], T], origin: str | None = None) -> T:
        """Run `work(batch)` in one transaction as actor "gui"; errors propagate and nothing is kept
        (a StoreUnavailable is also reported on `refused`). `origin`: the view making the write, which
        shows it itself (its change events name it: the change refresh passes it over)."""
        def job(wait: bool) -> tuple[T, list[int]]:
            return self.store.run_batch(GUI_ACTOR, work, wait=wait, origin=origin)

        try:
            result, change_ids = run_write(self.store, job, self._window())
        except StoreUnavailable as exc:
            self.refused.emit(exc.kind or "", str(exc))
            raise
        self.record(text, change_ids)
        return result

    def revert(self, text: str, change_ids: list[int]) -> list[int]:
        """Revert audited changes (History tab) as an undoable step of its own."""
        new_ids: list[int] = run_write(self.store, lambda wait: revert_changes(self.store, change_ids, actor=GUI_ACTOR, wait=wait),
                            self._window())
        self.record(text, new_ids)
        return new_ids

    def record(self, text: str, change_ids: list[int]) -> None:
        if change_ids:
            self.stack.push(StoreCommand(self.store, text, change_ids, self.failed.emit, self._window()))
