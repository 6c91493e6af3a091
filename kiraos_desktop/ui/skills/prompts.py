"""The questions the Skills page asks (message boxes, name input); tests replace them."""
from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QInputDialog, QLineEdit, QMessageBox, QWidget

SAVE, DISCARD, CANCEL = "save", "discard", "cancel"
REPLACE, RENAME = "replace", "rename"


class Prompter(QObject):
    """Modal dialogs parented to the page. Every method returns the user's answer."""

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self._widget = parent

    def unsaved_changes(self, skill: str) -> str:
        """SAVE, DISCARD or CANCEL."""
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Unsaved changes"),
                          self.tr("The skill {0} has unsaved changes.").format(skill),
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self._widget)
        box.setInformativeText(self.tr("Save them before leaving this skill?"))
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        answer = box.exec()
        if answer == QMessageBox.StandardButton.Save:
            return SAVE
        if answer == QMessageBox.StandardButton.Discard:
            return DISCARD
        return CANCEL

    def save_invalid(self, skill: str, errors: list[str]) -> bool:
        """The skill has errors: True to save it anyway (hosts cannot call it until they are fixed)."""
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Save skill"),
                          self.tr("{0} has errors, so hosts cannot call it: it leaves the tool list when it "
                                  "is saved, until the errors are fixed.").format(skill),
                          QMessageBox.StandardButton.Cancel, self._widget)
        shown = errors[:5] + ([self.tr("… and %n more", "", len(errors) - 5)] if len(errors) > 5 else [])
        box.setInformativeText("\n".join("• " + line for line in shown))
        save_button = box.addButton(self.tr("Save anyway"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is save_button

    def confirm_delete(self, skill: str, backups: str) -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Delete skill"),
                          self.tr("Delete the skill {0}?").format(skill),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self._widget)
        box.setInformativeText(self.tr("Its folder is moved to {0}, where you can get it back.").format(backups))
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.button(QMessageBox.StandardButton.Yes).setText(self.tr("Delete"))
        return box.exec() == QMessageBox.StandardButton.Yes

    def reload_changed_files(self, skill: str) -> bool:
        """True: reload from disk (drop the edits); False: keep editing."""
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Skill changed on disk"),
                          self.tr("The files of {0} were changed by another program.").format(skill),
                          QMessageBox.StandardButton.NoButton, self._widget)
        box.setInformativeText(self.tr("You have unsaved changes. Reload the files from disk and lose "
                                       "them, or keep your version (saving will overwrite the files)?"))
        reload_button = box.addButton(self.tr("Reload from disk"), QMessageBox.ButtonRole.DestructiveRole)
        keep_button = box.addButton(self.tr("Keep my changes"), QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(keep_button)
        box.exec()
        return box.clickedButton() is reload_button

    def name_clash(self, skill: str) -> str:
        """An imported skill's name is taken: REPLACE, RENAME or CANCEL."""
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Import skill"),
                          self.tr("A skill named {0} already exists.").format(skill),
                          QMessageBox.StandardButton.Cancel, self._widget)
        box.setInformativeText(self.tr("Replace it with the imported skill (the current one is moved to the "
                                       "backups, as a deleted skill is), or import under another name?"))
        replace_button = box.addButton(self.tr("Replace"), QMessageBox.ButtonRole.DestructiveRole)
        rename_button = box.addButton(self.tr("Rename…"), QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(rename_button)
        box.exec()
        clicked = box.clickedButton()
        if clicked is replace_button:
            return REPLACE
        if clicked is rename_button:
            return RENAME
        return CANCEL

    def confirm_overwrite(self, title: str, path: str) -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, title, self.tr("{0} already exists.").format(path),
                          QMessageBox.StandardButton.Cancel, self._widget)
        box.setInformativeText(self.tr("Replace that folder with the exported skill?"))
        replace_button = box.addButton(self.tr("Replace"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is replace_button

    def open_file(self, title: str, start: str, filters: str) -> str:
        """The chosen file, or "" when cancelled."""
        return QFileDialog.getOpenFileName(self._widget, title, start, filters)[0]

    def choose_folder(self, title: str, start: str) -> str:
        """The chosen folder, or "" when cancelled."""
        return QFileDialog.getExistingDirectory(self._widget, title, start)

    def ask_name(self, title: str, label: str, text: str) -> str | None:
        name, ok = QInputDialog.getText(self._widget, title, label, QLineEdit.EchoMode.Normal, text)
        return name.strip() if ok else None

    def error(self, title: str, text: str) -> None:
        QMessageBox.warning(self._widget, title, text)

    def info(self, title: str, text: str) -> None:
        QMessageBox.information(self._widget, title, text)
