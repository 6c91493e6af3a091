"""A multi-line editor (dialog) for long or multi-line profile values and event texts."""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QCoreApplication, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from kiraos_desktop.ui.users.entry_dialogs import submit_on_ctrl_enter
from kiraos_desktop.ui.users.field_validation import Check

#: A value longer than this, or with a line break, opens in this dialog instead of the table cell.
INLINE_LIMIT = 120


def needs_dialog(text: str | None) -> bool:
    return text is not None and ("\n" in text or len(text) > INLINE_LIMIT)


class TextEditDialog(QDialog):
    """`submit(text)` writes and returns "" or a message that keeps the dialog open; Ctrl+Enter submits."""

    def __init__(self, title: str, label: str, text: str, limit: int, check: Check,
                 submit: Callable[[str], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self._limit = limit
        self._check = check
        self._submit = submit
        self.editor = QPlainTextEdit()
        self.editor.setObjectName("longTextEditor")
        self.editor.setPlainText(text)
        self.editor.setTabChangesFocus(True)
        self.counter = QLabel()
        self.counter.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.error = QLabel()
        self.error.setObjectName("fieldError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #d33;")
        self.error.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        hint = QLabel(self.tr("Ctrl+Enter saves; Enter starts a new line."))
        hint.setEnabled(False)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(label))
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.counter)
        layout.addWidget(self.error)
        layout.addWidget(hint)
        layout.addWidget(self.buttons)
        submit_on_ctrl_enter(self, self._on_buttons_accepted)
        self.editor.textChanged.connect(self._on_editor_text_changed)
        self._on_editor_text_changed()
        self.resize(560, 360)

    def _on_editor_text_changed(self) -> None:
        self.counter.setText(self.tr("{n} / {max} characters").format(n=len(self.editor.toPlainText()),
                                                                      max=self._limit))
        self.error.hide()

    def _on_buttons_accepted(self) -> None:
        text = self.editor.toPlainText()
        message = self._check(text) or self._submit(text)
        if message:
            self.error.setText(message)
            self.error.show()
            return
        self.accept()


def open_text_dialog(parent: QWidget, writes, index: QModelIndex, title: str, label: str, limit: int,
                     check: Check) -> TextEditDialog:
    """Edit the text at `index` in the dialog; saving is `setData` on its model (so it is undoable),
    and a refusal the model reports on `writes.write_failed` keeps the dialog open with the message."""
    target = QPersistentModelIndex(index)
    messages: list[str] = []

    def capture(_field: str, message: str) -> None:
        messages.append(message)

    def submit(text: str) -> str:
        messages.clear()
        if not target.isValid():
            return QCoreApplication.translate("TextEditDialog", "this entry no longer exists")
        target.model().setData(QModelIndex(target), text)
        return messages[-1] if messages else ""

    writes.write_failed.connect(capture)
    dialog = TextEditDialog(title, label, index.data(Qt.ItemDataRole.EditRole) or "", limit, check, submit, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.finished.connect(lambda _result: writes.write_failed.disconnect(capture))
    dialog.open()
    return dialog
