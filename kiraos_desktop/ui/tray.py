"""The tray icon: the API keeps serving while the window is closed; Show window, API status, Copy token, Quit."""
from __future__ import annotations

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from kiraos_desktop.ui.theme import app_icon

NOTICE_KEY = "tray/notice_shown"


def tray_available() -> bool:
    return QSystemTrayIcon.isSystemTrayAvailable()


class Tray(QObject):
    """Created by the app controller where a system tray exists; follows whichever window is open.

    `show_requested` and `quit_requested` are for the controller; the status line follows the
    window's server state; Copy token copies the token a bot must send.
    """

    show_requested = Signal()
    quit_requested = Signal()

    def __init__(self, ui_settings: QSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ui_settings = ui_settings
        self._token = ""
        self.icon = QSystemTrayIcon(app_icon(), self)
        self.menu = QMenu()
        self.show_action = QAction(self)
        self.status_action = QAction(self)
        self.status_action.setEnabled(False)
        self.copy_token_action = QAction(self)
        self.quit_action = QAction(self)
        self.menu.addAction(self.show_action)
        self.menu.addSeparator()
        self.menu.addAction(self.status_action)
        self.menu.addAction(self.copy_token_action)
        self.menu.addSeparator()
        self.menu.addAction(self.quit_action)
        self.icon.setContextMenu(self.menu)
        self.show_action.triggered.connect(self.show_requested)
        self.quit_action.triggered.connect(self.quit_requested)
        self.copy_token_action.triggered.connect(self._on_copy_token_action_triggered)
        self.icon.activated.connect(self._on_icon_activated)
        self.retranslate()
        self.set_status("", "")
        self.icon.show()

    def retranslate(self) -> None:
        self.show_action.setText(self.tr("Show window"))
        self.copy_token_action.setText(self.tr("Copy token"))
        self.quit_action.setText(self.tr("Quit KiraOS Desktop"))

    def set_status(self, text: str, token: str) -> None:
        """`text`: the window's API status line; `token`: what Copy token copies ("" when none)."""
        self._token = token
        self.status_action.setText(text or self.tr("API stopped"))
        self.icon.setToolTip(self.tr("KiraOS Desktop — {status}").format(status=text or self.tr("API stopped")))
        self.copy_token_action.setEnabled(bool(token))

    def notice_once(self) -> bool:
        """The first time the window goes to the tray: say that the API keeps serving. True when shown."""
        if self._ui_settings.value(NOTICE_KEY, False, type=bool):
            return False
        self._ui_settings.setValue(NOTICE_KEY, True)
        self._ui_settings.sync()
        self.icon.showMessage(self.tr("KiraOS Desktop is still running"),
                              self.tr("The API keeps serving your bot's memory. Open the window from this "
                                      "icon; quit from its menu."), QSystemTrayIcon.MessageIcon.Information, 8000)
        return True

    def dispose(self) -> None:
        self.icon.hide()
        self.menu.deleteLater()

    def _on_copy_token_action_triggered(self) -> None:
        QGuiApplication.clipboard().setText(self._token)

    def _on_icon_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.show_requested.emit()
