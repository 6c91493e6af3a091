"""The window's answer when it cannot open its data at all: a box that says why (a windowed build has
no console, so the one line on stderr alone would leave the user with nothing on the screen)."""
from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget


class StartupErrorBox(QMessageBox):
    """Says what stopped the start (the error names the file or database and the problem) and where the
    data folder is; the only answer is to close it, after which the program exits."""

    def __init__(self, message: str, data_dir: str, parent: QWidget | None = None) -> None:
        super().__init__(QMessageBox.Icon.Critical, "", "", QMessageBox.StandardButton.Close, parent)
        self.setObjectName("startupErrorBox")
        self.setWindowTitle(self.tr("KiraOS Desktop cannot start"))
        self.setText(self.tr("KiraOS Desktop cannot open its data."))
        self.setInformativeText(self.tr(
            "{message}\n\nCorrect what the message names (or move that file away to start from the "
            "defaults), then start KiraOS Desktop again. The data folder is {folder}; "
            "--data-dir chooses another one.").format(message=message, folder=data_dir))
        self.setDefaultButton(QMessageBox.StandardButton.Close)
        self.setEscapeButton(QMessageBox.StandardButton.Close)


def tell_cannot_start(message: str, data_dir: str, language: str = "system") -> None:
    """Before any window exists: show the box (the application and language set up first) until closed."""
    from kiraos_desktop.ui.launch import ensure_application
    from kiraos_desktop.ui.i18n import apply_language
    from kiraos_desktop.ui.theme import apply_theme

    app = ensure_application()
    apply_theme(app)
    apply_language(language)
    StartupErrorBox(message, data_dir).exec()
