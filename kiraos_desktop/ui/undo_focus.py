"""Ctrl+Z / Ctrl+Shift+Z reach the window's undo stack wherever the focus is, except in a text field
whose own typing is what the user did last.

A QLineEdit or text editor with the focus claims the undo keys for itself (it accepts the
ShortcutOverride event), so after a dialog hands the focus back to the search field, Ctrl+Z did
nothing to the Clear it just confirmed. This filter decides per key press: when the field has its
own step to undo (or redo) and the user typed in that field after the window's last command, the
field takes the key; otherwise the event is left unaccepted and the window's shortcut runs.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QKeyEvent, QKeySequence, QUndoStack
from PySide6.QtWidgets import QAbstractSpinBox, QLineEdit, QPlainTextEdit, QTextEdit

_TEXT_WIDGETS = (QLineEdit, QPlainTextEdit, QTextEdit, QAbstractSpinBox)


def _has_step(widget: QObject, redo: bool) -> bool:
    """Whether the text field can undo (or redo) typing of its own."""
    if isinstance(widget, QLineEdit):
        return not widget.isReadOnly() and (widget.isRedoAvailable() if redo else widget.isUndoAvailable())
    if isinstance(widget, (QPlainTextEdit, QTextEdit)):
        document = widget.document()
        return not widget.isReadOnly() and (document.isRedoAvailable() if redo else document.isUndoAvailable())
    if isinstance(widget, QAbstractSpinBox):
        line = widget.findChild(QLineEdit)
        return line is not None and _has_step(line, redo)
    return False


class UndoShortcutRouter(QObject):
    """Installed on the application by the main window for its undo stack."""

    def __init__(self, stack: QUndoStack, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # The text field the user typed in since the window's last command (None: the command came last).
        self._typed_in: QObject | None = None
        stack.indexChanged.connect(self._on_stack_index_changed)

    def _on_stack_index_changed(self, _index: int) -> None:
        self._typed_in = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if not isinstance(watched, _TEXT_WIDGETS) or not isinstance(event, QKeyEvent):
            return False
        redo = event.matches(QKeySequence.StandardKey.Redo)
        undo_key = redo or event.matches(QKeySequence.StandardKey.Undo)
        if event.type() == QEvent.Type.KeyPress:
            if not undo_key and event.text():  # typing (not a bare modifier or an arrow)
                self._typed_in = watched
        elif event.type() == QEvent.Type.ShortcutOverride and undo_key:
            if not (watched is self._typed_in and _has_step(watched, redo)):
                event.ignore()  # not claimed: the window's Undo/Redo shortcut runs
                return True
        return False
