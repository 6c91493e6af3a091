"""The busy box shown while a background task runs: shown after a short delay, gone for good when it ends."""
from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication
from PySide6.QtWidgets import QApplication, QDialog, QDialogButtonBox, QLabel, QProgressBar, QVBoxLayout, QWidget

# A task that ends sooner than this never shows a box at all (no flicker for quick work).
BUSY_DELAY_MS = 400


class BusyBox(QDialog):
    """Label, progress bar and, when the task can be cancelled, a Cancel button.

    It never closes itself and cannot be closed by the user: Cancel, Escape and the title bar's
    close button ask the task to stop (`cancel_requested`), and the box says so until the task
    ends. Its owner shows it with `show_later()` and removes it with `dispose()`; nothing of it
    (not even a pending timer or a deferred deletion) outlives `dispose()`.
    """

    cancel_requested = Signal()

    def __init__(self, title: str, label: str, cancellable: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("busyBox")
        self.setWindowTitle(title)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(380)
        self._cancellable = cancellable
        self._cancelling = False
        self.label = QLabel(label)
        self.label.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)  # busy until the first progress report
        self.bar.setTextVisible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        self.buttons = QDialogButtonBox()
        if cancellable:
            self.cancel_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
            self.cancel_button.clicked.connect(self._on_cancel_button_clicked)
            layout.addWidget(self.buttons)
        self._show_timer = QTimer(self)
        self._show_timer.setSingleShot(True)
        self._show_timer.timeout.connect(self._on_show_timer_timeout)

    # ---- progress --------------------------------------------------------------------------

    def setRange(self, minimum: int, maximum: int) -> None:  # noqa: N802 (QProgressDialog's names)
        self.bar.setRange(minimum, maximum)

    def setValue(self, value: int) -> None:  # noqa: N802
        self.bar.setValue(value)

    def maximum(self) -> int:
        return self.bar.maximum()

    def report(self, done: int, total: int) -> None:
        """A progress report from the task; `total` may exceed an int's range (bytes of a backup)."""
        if total > 0:
            scale = max(1, -(-total // 1_000_000))
            self.setRange(0, total // scale)
            self.setValue(min(done, total) // scale)

    # ---- life ------------------------------------------------------------------------------

    def show_later(self, delay_ms: int = BUSY_DELAY_MS) -> None:
        self._show_timer.start(max(0, delay_ms))

    def dispose(self) -> None:
        """Hide and delete now: a deferred deletion could wait behind the next modal question."""
        self._show_timer.stop()
        self.hide()
        shiboken6.delete(self)

    @property
    def cancelling(self) -> bool:
        return self._cancelling

    def _on_show_timer_timeout(self) -> None:
        self.show()

    def _on_cancel_button_clicked(self) -> None:
        self._request_cancel()

    def _request_cancel(self) -> None:
        if not self._cancellable or self._cancelling:
            return
        self._cancelling = True
        self.label.setText(self.tr("Cancelling…"))
        self.cancel_button.setEnabled(False)
        self.cancel_requested.emit()

    def reject(self) -> None:  # Escape
        self._request_cancel()

    def closeEvent(self, event: QCloseEvent) -> None:  # the title bar's close button
        event.ignore()
        self._request_cancel()


#: The user's input a held window ignores (paint, timer and queued events go on).
_INPUT_EVENTS = frozenset({
    QEvent.Type.KeyPress, QEvent.Type.KeyRelease, QEvent.Type.ShortcutOverride, QEvent.Type.Shortcut,
    QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease, QEvent.Type.MouseButtonDblClick,
    QEvent.Type.Wheel, QEvent.Type.ContextMenu,
})


class InputHold(QObject):
    """While the GUI thread waits for a background write in a local event loop: the window keeps
    painting and its timers run, but no click or key starts another action halfway through this one
    (an undo pressed again would undo the same step twice). A busy cursor says why. Nestable."""

    def __enter__(self) -> "InputHold":
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)
            QGuiApplication.setOverrideCursor(Qt.CursorShape.BusyCursor)
        return self

    def __exit__(self, *exc_info: object) -> None:
        app = QApplication.instance()
        if app is not None:
            QGuiApplication.restoreOverrideCursor()
            app.removeEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        return event.type() in _INPUT_EVENTS
