"""Message boxes and file dialogs behind one patchable object, so tests can answer them."""
from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget


class Prompts:
    """Every modal question the dialogs in this package ask goes through `prompts`.

    Tests replace methods on the module-level instance (`monkeypatch.setattr(prompts,
    "confirm", lambda *a: False)`) instead of driving native dialogs.
    """

    def confirm(self, parent: QWidget | None, title: str, text: str, ok_text: str = "") -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.Cancel, parent)
        ok = box.addButton(ok_text or QMessageBox.tr("OK"), QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is ok

    def info(self, parent: QWidget | None, title: str, text: str) -> None:
        QMessageBox.information(parent, title, text)

    def error(self, parent: QWidget | None, title: str, text: str) -> None:
        QMessageBox.critical(parent, title, text)

    def save_file(self, parent: QWidget | None, caption: str, path: str, filters: str) -> str:
        """The chosen file name, or "" when cancelled. The dialog asks before overwriting."""
        return QFileDialog.getSaveFileName(parent, caption, path, filters)[0]

    def open_file(self, parent: QWidget | None, caption: str, folder: str, filters: str) -> str:
        return QFileDialog.getOpenFileName(parent, caption, folder, filters)[0]

    def folder(self, parent: QWidget | None, caption: str, start: str) -> str:
        return QFileDialog.getExistingDirectory(parent, caption, start)


prompts = Prompts()
