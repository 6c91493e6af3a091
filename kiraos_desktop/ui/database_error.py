"""The window's answer when its PostgreSQL database cannot be used: quit, or open the local SQLite data."""
from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget


class DatabaseErrorBox(QMessageBox):
    """Says which database failed and why, and offers the local data folder's SQLite database instead."""

    def __init__(self, database: str, message: str, data_dir: str, parent: QWidget | None = None) -> None:
        super().__init__(QMessageBox.Icon.Critical, "", "", QMessageBox.StandardButton.NoButton, parent)
        self.setObjectName("databaseErrorBox")
        self.setWindowTitle(self.tr("Cannot open the memory database"))
        where = database or self.tr("the PostgreSQL database")
        self.setText(self.tr("KiraOS Desktop cannot use {database}.").format(database=where))
        self.setInformativeText(self.tr(
            "{message}\n\nCheck the address, the user name and password, and that the server is running "
            "and accepts connections from this computer.\n\nYou can quit, or open the local data in "
            "{folder} (a SQLite database on this computer) for this session; the setting is kept.").format(
                message=message, folder=data_dir))
        self.local_button = self.addButton(self.tr("Open local data"), QMessageBox.ButtonRole.AcceptRole)
        self.quit_button = self.addButton(self.tr("Quit"), QMessageBox.ButtonRole.RejectRole)
        self.setDefaultButton(self.quit_button)
        self.setEscapeButton(self.quit_button)

    def wants_local_data(self) -> bool:
        """Show the box (modal, through its own event loop); True when "Open local data" was chosen."""
        self.exec()
        return self.clickedButton() is self.local_button


def offer_local_data(database: str, message: str, data_dir: str, language: str = "system") -> bool:
    """Before any window exists: ask (the application and language set up first); True: go on with SQLite."""
    from kiraos_desktop.ui.launch import ensure_application
    from kiraos_desktop.ui.i18n import apply_language
    from kiraos_desktop.ui.theme import apply_theme

    app = ensure_application()
    apply_theme(app)
    apply_language(language)
    return DatabaseErrorBox(database, message, data_dir).wants_local_data()
