"""Help > Guide: a short guide to memory, skills and connecting a bot, in the window's language."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from kiraos_desktop.core.resources import resources_dir
from kiraos_desktop.ui.i18n import current_language

HELP_FOLDER = "help"


def guide_text(language: str) -> str:
    """The guide's Markdown in `language`, or the English one when that language has none."""
    folder = resources_dir() / HELP_FOLDER
    for name in (f"guide_{language}.md", "guide_en.md"):
        path = folder / name
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return ""


class HelpDialog(QDialog):
    """Non-modal: the guide can stay open beside the window; follows a language switch."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("helpDialog")
        self.browser = QTextBrowser()
        self.browser.setObjectName("guide")
        self.browser.setOpenExternalLinks(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)
        self.setWindowFlag(Qt.WindowType.WindowContextHelpButtonHint, False)
        self.resize(720, 640)
        self._retranslate()

    def _retranslate(self) -> None:
        self.setWindowTitle(self.tr("KiraOS Desktop guide"))
        self.browser.setMarkdown(guide_text(current_language()))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)
