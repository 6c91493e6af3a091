"""The form for a 3.x memory's text, importance, tags and kind (a new one, or one being edited)."""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)


@dataclass(frozen=True)
class MemoryValues:
    text: str
    importance: int
    tags: list[str]
    reflection: bool


def split_tags(text: str) -> list[str]:
    """Tags typed as "a, b，c" (ASCII or Chinese commas)."""
    return [tag.strip() for tag in text.replace("，", ",").split(",") if tag.strip()]


class MemoryDialog(QDialog):
    """Text, importance (1-10), tags, and its kind (fact or reflection: changing it moves the memory)
    where the entity keeps reflections."""

    def __init__(self, parent: QWidget | None, title: str, initial: MemoryValues | None = None,
                 can_reflect: bool = True) -> None:
        super().__init__(parent)
        self.setObjectName("memoryDialog")
        self.setWindowTitle(title)
        self.setMinimumWidth(460)
        self.text = QPlainTextEdit()
        self.text.setObjectName("memoryText")
        self.importance = QSpinBox()
        self.importance.setRange(1, 10)
        self.tags = QLineEdit()
        self.tags.setObjectName("memoryTags")
        self.kind = QComboBox()
        self.kind.addItem(self.tr("Fact"), False)
        if can_reflect:
            self.kind.addItem(self.tr("Reflection"), True)
        self.note = QLabel(self.tr(
            "The running bot uses the edit on its next reply. If the bot is merging something it just learned "
            "into this very memory at that moment (it takes a few seconds), its merged text replaces the edit: "
            "the Memories tab then shows its text, and reverting your edit says the file changed since."))
        self.note.setObjectName("memoryEditNote")
        self.note.setWordWrap(True)
        self.note.setVisible(initial is not None)
        self.error = QLabel()
        self.error.setObjectName("memoryError")
        self.error.setWordWrap(True)
        self.error.hide()
        form = QFormLayout()
        form.addRow(self.tr("&Text:"), self.text)
        form.addRow(self.tr("&Importance:"), self.importance)
        form.addRow(self.tr("T&ags:"), self.tags)
        self.tags.setPlaceholderText(self.tr("separated by commas, e.g. hobby, 音乐"))
        if can_reflect:
            form.addRow(self.tr("&Kind:"), self.kind)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._on_save)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.note)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        values = initial or MemoryValues("", 5, [], False)
        self.text.setPlainText(values.text)
        self.importance.setValue(values.importance)
        self.tags.setText(", ".join(values.tags))
        self.kind.setCurrentIndex(max(0, self.kind.findData(values.reflection)))

    def values(self) -> MemoryValues:
        return MemoryValues(self.text.toPlainText().strip(), self.importance.value(), split_tags(self.tags.text()),
                            bool(self.kind.currentData()))

    def _on_save(self) -> None:
        if not self.values().text:
            self.error.setText(self.tr("Write the memory's text first."))
            self.error.show()
            self.text.setFocus()
            return
        self.accept()


def ask_memory(parent: QWidget | None, title: str, initial: MemoryValues | None = None,
               can_reflect: bool = True) -> MemoryValues | None:
    """The values the operator saved, or None when they cancelled."""
    dialog = MemoryDialog(parent, title, initial, can_reflect)
    try:
        return dialog.values() if dialog.exec() == QDialog.DialogCode.Accepted else None
    finally:
        dialog.deleteLater()
