"""A status bar label saying that the shared database server is unreachable, while it is."""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtWidgets import QLabel, QWidget


class DatabaseOutageLabel(QLabel):
    """Hidden while the database server answers; shown (red) while it does not.

    `listener` is the engine's `change_listener` (a PostgreSQL database) or None (SQLite: the label
    stays hidden). The listener reports from its own thread; a queued signal brings the state here.
    `outage_changed(unreachable)` lets the window put a message in its status bar.
    """

    outage_changed = Signal(bool)
    _relay = Signal(bool)

    def __init__(self, listener, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("dbOutage")
        self.setStyleSheet("color: #d93025;")
        self.unreachable = False
        self._remove: Callable[[], None] | None = None
        self._relay.connect(self._on_relay_received, Qt.ConnectionType.QueuedConnection)
        if listener is not None:
            self._remove = listener.add_state_listener(self._on_listener_state)
            self.unreachable = listener.connected is False
        self._show_state()

    def _on_listener_state(self, connected: bool) -> None:  # the listener's thread
        try:
            self._relay.emit(bool(connected))
        except RuntimeError:  # the window is gone
            pass

    @Slot(bool)
    def _on_relay_received(self, connected: bool) -> None:
        if self.unreachable == (not connected):
            return
        self.unreachable = not connected
        self._show_state()
        self.outage_changed.emit(self.unreachable)

    def _show_state(self) -> None:
        self.setText("● " + self.tr("Database server unreachable"))
        self.setToolTip(self.message())
        self.setVisible(self.unreachable)

    def message(self) -> str:
        """The status bar's longer text for the current state."""
        if self.unreachable:
            return self.tr("The database server does not answer; reconnecting. Changes cannot be saved "
                           "until it is back, and what is shown may be out of date.")
        return self.tr("The database server answers again; the window shows its current data.")

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self._show_state()
        super().changeEvent(event)

    def detach(self) -> None:
        if self._remove is not None:
            self._remove()
            self._remove = None
