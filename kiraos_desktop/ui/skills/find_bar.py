"""An inline find bar for a QPlainTextEdit (Ctrl+F opens it, Enter finds next, Esc closes)."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QToolButton,
    QWidget,
)


class _FindLine(QLineEdit):
    escapePressed = Signal()
    shiftReturnPressed = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        if event.key() == Qt.Key.Key_Escape:
            self.escapePressed.emit()
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and \
                event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.shiftReturnPressed.emit()
            return
        super().keyPressEvent(event)


class FindBar(QWidget):
    """Searches the editor it is given; wraps around; shows "not found" when nothing matches."""

    def __init__(self, editor: QPlainTextEdit, parent: QWidget | None = None):
        super().__init__(parent)
        self._editor = editor
        self._field = _FindLine(self)
        self._field.setPlaceholderText(self.tr("Find"))
        self._field.setClearButtonEnabled(True)
        self._case = QCheckBox(self.tr("Match case"), self)
        self._status = QLabel(self)
        previous = QToolButton(self)
        previous.setText(self.tr("Previous"))
        following = QToolButton(self)
        following.setText(self.tr("Next"))
        close = QToolButton(self)
        close.setText("✕")
        close.setToolTip(self.tr("Close the find bar (Esc)"))
        close.setAutoRaise(True)

        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.addWidget(QLabel(self.tr("Find:"), self))
        layout.addWidget(self._field, 1)
        layout.addWidget(previous)
        layout.addWidget(following)
        layout.addWidget(self._case)
        layout.addWidget(self._status)
        layout.addWidget(close)

        self._field.textEdited.connect(self._on_field_edited)
        self._field.returnPressed.connect(self.find_next)
        self._field.shiftReturnPressed.connect(self.find_previous)
        self._field.escapePressed.connect(self.close_bar)
        previous.clicked.connect(self.find_previous)
        following.clicked.connect(self.find_next)
        close.clicked.connect(self.close_bar)
        self.hide()

    @property
    def field(self) -> QLineEdit:
        return self._field

    @property
    def status_text(self) -> str:
        return self._status.text()

    def open_bar(self) -> None:
        """Show the bar, prefilled with the editor's selection (if on one line), focused."""
        selected = self._editor.textCursor().selectedText()
        if selected and "\u2029" not in selected:
            self._field.setText(selected)
        self.show()
        self._field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self._field.selectAll()

    def close_bar(self) -> None:
        self.hide()
        self._status.clear()
        self._editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def _flags(self, backward: bool = False) -> QTextDocument.FindFlag:
        flags = QTextDocument.FindFlag(0)
        if self._case.isChecked():
            flags |= QTextDocument.FindFlag.FindCaseSensitively
        if backward:
            flags |= QTextDocument.FindFlag.FindBackward
        return flags

    def _on_field_edited(self, _text: str) -> None:
        cursor = self._editor.textCursor()
        cursor.setPosition(cursor.selectionStart())
        self._editor.setTextCursor(cursor)
        self.find_next()

    def find_next(self) -> bool:
        return self._find(backward=False)

    def find_previous(self) -> bool:
        return self._find(backward=True)

    def _find(self, backward: bool) -> bool:
        needle = self._field.text()
        if not needle:
            self._status.clear()
            return False
        flags = self._flags(backward)
        if self._editor.find(needle, flags):
            self._status.clear()
            return True
        cursor = self._editor.textCursor()  # wrap around and try once more
        cursor.movePosition(QTextCursor.MoveOperation.End if backward else QTextCursor.MoveOperation.Start)
        self._editor.setTextCursor(cursor)
        found = self._editor.find(needle, flags)
        self._status.setText("" if found else self.tr("Not found"))
        return found
