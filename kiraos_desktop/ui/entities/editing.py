"""Editing a KiraOS 3.x tree from its window: add, edit, archive, restore and delete memories, each kept in
the tree's history (core/storage/tree/journal.py) and on the window's undo stack.

A write runs on a task thread while the window keeps painting (ui/undo.run_held): the plugin's index may
be locked by the running plugin for a moment. A refused write (a bad value, a file that cannot be read,
a file changed since) is shown as an error and changes nothing.
"""
from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack
from PySide6.QtWidgets import QWidget

from kiraos_desktop.core.memory.records import StoreError
from kiraos_desktop.core.storage.tree.editor import REFLECTING_KINDS, TreeChange, TreeEditor
from kiraos_desktop.core.storage.tree.files import TreeMemory
from kiraos_desktop.core.storage.tree.edits import TreeEdits
from kiraos_desktop.core.storage.tree.journal import JournalEntry
from kiraos_desktop.core.storage.tree.layout import EntityRef
from kiraos_desktop.ui.entities.memory_dialog import MemoryValues, ask_memory
from kiraos_desktop.ui.entities.refusal_texts import refusal_text
from kiraos_desktop.ui.entities.profile_dialog import ask_profile_field
from kiraos_desktop.ui.prompts import Prompts
from kiraos_desktop.ui.undo import run_held

ACTOR = "gui"


class TreeCommand(QUndoCommand):
    """An edit already made (pushing it writes nothing); undo reverts it, redo reverts that revert."""

    def __init__(self, actions: "TreeEditActions", text: str, change: TreeChange) -> None:
        super().__init__(text)
        self._actions = actions
        self._to_undo: TreeChange | None = change
        self._to_redo: TreeChange | None = None
        self._pushed = False

    def redo(self) -> None:
        if not self._pushed:
            self._pushed = True
            return
        self._to_undo = self._revert(self._to_redo)

    def undo(self) -> None:
        self._to_redo = self._revert(self._to_undo)

    def _revert(self, change: TreeChange | None) -> TreeChange | None:
        applied = self._actions.revert(change) if change is not None else None
        if applied is None:
            self.setObsolete(True)  # the stack drops a step it can no longer replay
        return applied


class TreeEditActions(QObject):
    """What the window's buttons do; `changed(label)` after each write (TYPE:ID of the entity)."""

    changed = Signal(str)

    def __init__(self, edits: TreeEdits, stack: QUndoStack, prompts: Prompts,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edits = edits  # the engine's one editor and history of the tree (shared with its API)
        self.editor = edits.editor
        self.journal = edits.journal
        self.stack = stack
        self.prompts = prompts
        self.ask: Callable[..., MemoryValues | None] = ask_memory  # a test puts its own answers here
        self.ask_field: Callable[..., tuple[str, Any] | None] = ask_profile_field

    def _window(self) -> QWidget | None:
        parent = self.parent()
        return parent if isinstance(parent, QWidget) else None

    def _write(self, text: str, write: Callable[[], TreeChange], undoable: bool = True,
               reverts: int | None = None) -> TreeChange | None:
        try:  # the change and its history entry together, off the GUI thread
            change = run_held(lambda: self.edits.keep(write, ACTOR, reverts)[0], self._window())
        except (StoreError, OSError) as exc:
            self.prompts.error(self._window(), self.tr("Not written"), refusal_text(exc))
            return None
        if undoable:
            self.stack.push(TreeCommand(self, text, change))
        self.changed.emit(change.ref)
        return change

    # ---- the buttons -------------------------------------------------------------------------

    def add(self, ref: EntityRef) -> TreeChange | None:
        values = self.ask(self._window(), self.tr("New memory of {who}").format(who=ref.label()), None,
                          ref.kind in REFLECTING_KINDS)
        if values is None:
            return None
        return self._write(self.tr("Add memory"), lambda: self.editor.add(
            ref, values.text, importance=values.importance, tags=values.tags, reflection=values.reflection))

    def edit(self, ref: EntityRef, memory: TreeMemory) -> TreeChange | None:
        initial = MemoryValues(memory.text, memory.importance, list(memory.tags), memory.folder == "reflections")
        can_move = memory.folder in ("facts", "reflections") and ref.kind in REFLECTING_KINDS
        values = self.ask(self._window(), self.tr("Edit memory {id}").format(id=memory.id), initial, can_move)
        if values is None or values == initial:
            return None
        return self._write(self.tr("Edit memory"), lambda: self.editor.edit(
            ref, memory.id, text=values.text, importance=values.importance, tags=values.tags,
            reflection=values.reflection if can_move else None))

    def archive(self, ref: EntityRef, memory: TreeMemory) -> TreeChange | None:
        return self._write(self.tr("Archive memory"), lambda: self.editor.archive(ref, memory.id))

    def restore(self, ref: EntityRef, memory: TreeMemory) -> TreeChange | None:
        return self._write(self.tr("Restore memory"), lambda: self.editor.restore(ref, memory.id))

    def delete_archived(self, ref: EntityRef, memory: TreeMemory) -> TreeChange | None:
        if not self.prompts.confirm(self._window(), self.tr("Delete for good"), self.tr(
                "Delete the archived memory “{text}” for good? The plugin cannot bring it back; this "
                "window's history still can.").format(text=memory.text[:80]), self.tr("Delete")):
            return None
        return self._write(self.tr("Delete archived memory"), lambda: self.editor.delete_archived(ref, memory.id))

    def edit_profile(self, ref: EntityRef, field: str = "name") -> TreeChange | None:
        """A profile field edited in its form, written as the plugin writes profile.json."""
        try:
            profile = self.editor.profile(ref)
        except StoreError as exc:
            self.prompts.error(self._window(), self.tr("Not written"), refusal_text(exc))
            return None
        answer = self.ask_field(self._window(), self.tr("Profile of {who}").format(who=ref.label()), profile, field)
        if answer is None or profile.get(answer[0]) == answer[1]:
            return None
        name, value = answer
        return self._write(self.tr("Edit profile field {name}").format(name=name),
                           lambda: self.editor.set_profile(ref, name, value))

    def reindex(self, ref: EntityRef) -> TreeChange | None:
        """Index the entity's hand-edited memories as their files say (the running bot then recalls them)."""
        return self._write(self.tr("Re-index memories"), lambda: self._reindexed(ref))

    def _reindexed(self, ref: EntityRef) -> TreeChange:
        change = self.editor.reindex(ref)
        if change is None:
            raise StoreError(self.tr("Every memory of {who} is indexed as its file says.").format(who=ref.label()))
        return change

    def revert_entry(self, entry: JournalEntry) -> TreeChange | None:
        """Revert a change of the history (the History tab); itself a step of the undo stack."""
        return self._write(self.tr("Revert change {n}").format(n=entry.id),
                           lambda: self.editor.revert(entry.change), reverts=entry.id)

    def revert(self, change: TreeChange) -> TreeChange | None:
        """Undo or redo of the stack: the revert is kept in the history, not pushed again."""
        return self._write("", lambda: self.editor.revert(change), undoable=False)
